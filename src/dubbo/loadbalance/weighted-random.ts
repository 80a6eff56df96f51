/**
 * The weighted draw RandomLoadBalance makes, as a function of precomputed weights, for balancers
 * that compute their own weights (the zone extensions). Owns no state and no weight rules.
 * Follows the selection half of dubbo-cluster `loadbalance/RandomLoadBalance.java#doSelect`.
 */
import type { Rng } from '../../engine/random.js';

/**
 * Index drawn with probability weight/total; uniform when every weight is equal or the total is
 * 0 (Dubbo: all-zero weights are uniform, not "nobody"). `weights` must be non-negative integers.
 */
export function weightedRandomIndex(weights: ArrayLike<number>, rng: Rng): number {
  const length = weights.length;
  let total = 0;
  let sameWeight = true;
  const first = weights[0]!;
  for (let i = 0; i < length; i++) {
    const w = weights[i]!;
    total += w;
    if (sameWeight && w !== first) sameWeight = false;
  }
  if (total > 0 && !sameWeight) {
    let offset = rng.nextInt(total);
    for (let i = 0; i < length; i++) {
      offset -= weights[i]!;
      if (offset < 0) return i;
    }
  }
  return rng.nextInt(length);
}
