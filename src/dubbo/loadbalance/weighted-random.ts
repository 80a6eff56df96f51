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

/**
 * The tie-break leastactive and shortestresponse share: among the `count` tied invokers at
 * `indexes`, weighted random when their weights differ and the total is positive, else uniform.
 */
export function pickAmongTied<T>(
  invokers: readonly T[],
  indexes: ArrayLike<number>,
  count: number,
  weights: ArrayLike<number>,
  totalWeight: number,
  sameWeight: boolean,
  rng: Rng,
): T {
  if (count === 1) return invokers[indexes[0]!]!;
  if (!sameWeight && totalWeight > 0) {
    let offsetWeight = rng.nextInt(totalWeight);
    for (let i = 0; i < count; i++) {
      const index = indexes[i]!;
      offsetWeight -= weights[index]!;
      if (offsetWeight < 0) return invokers[index]!;
    }
  }
  return invokers[indexes[rng.nextInt(count)]!]!;
}
