/**
 * Least active: among the invokers with the fewest in-flight calls (RpcStatus active count of this
 * consumer), one wins outright, otherwise a weighted draw, otherwise uniform. Only ActiveLimitFilter
 * moves the active counts, and only for URLs with an `actives` parameter, so without it this is
 * weighted random. Owns no state of its own. Follows dubbo-cluster
 * `loadbalance/LeastActiveLoadBalance.java`.
 */
import type { RpcStatus } from '../rpc-status.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { pickAmongTied } from './weighted-random.js';
import { getMethodName } from './rpc-utils.js';
import { parentList } from '../per-list.js';
import { drawIndex, excludedOf, firstAboveLeavingOut, firstKept, keptTotals, leftOutBefore, weightTableOf, type WeightTable } from './weight-table.js';

// PERF: the sparse path runs while fewer than one in this many of a list's invokers could be busy.
const SPARSE_FACTOR = 8;
const NONE: ArrayLike<number> = [];

// Per list, the indexes of its invokers by URL identity string (RpcStatus's key); lists are immutable.
const identityIndexes = new WeakMap<readonly Invoker[], Map<string, number[]>>();

function identityIndexOf(invokers: readonly Invoker[]): Map<string, number[]> {
  let index = identityIndexes.get(invokers);
  if (index === undefined) {
    index = new Map();
    for (let i = 0; i < invokers.length; i++) {
      const id = invokers[i]!.getUrl().toIdentityString();
      const at = index.get(id);
      if (at === undefined) index.set(id, [i]);
      else at.push(i);
    }
    identityIndexes.set(invokers, index);
  }
  return index;
}

export class LeastActiveLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'leastactive';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const methodName = getMethodName(invocation);
    const nowMs = this.clock.now();
    const busy = this.runtime.rpcStatus.busyFor(methodName);
    if (busy.size * SPARSE_FACTOR < invokers.length) {
      // PERF: a directory's sub-list (providers set aside) is weighed through its parent list's shared table,
      // with the set-aside indexes left out like the busy ones, instead of a table of its own per instance.
      const parent = parentList(invokers);
      const list = parent ?? invokers;
      const setAside = parent === undefined ? NONE : excludedOf(invokers, parent);
      const at = this.#selectSparse(list, weightTableOf(list, methodName, nowMs), busy, setAside);
      // The parent's index less the set-aside indexes before it (it is none of them).
      if (at >= 0) return invokers[at - leftOutBefore(setAside, at)]!;
    }
    // PERF: getWeight of every invoker, from the list's shared weight table.
    return this.#selectByScan(invokers, methodName, weightTableOf(invokers, methodName, nowMs).weights);
  }

  // Dubbo's loop: every invoker's active count, the least ones and their weights.
  #selectByScan(invokers: Invoker[], methodName: string, weights: readonly number[]): Invoker {
    const length = invokers.length;
    const rpcStatus = this.runtime.rpcStatus;
    let leastActive = -1;
    let leastCount = 0;
    const leastIndexes = new Array<number>(length);
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;

    for (let i = 0; i < length; i++) {
      const active = rpcStatus.activeOf(invokers[i]!.getUrl(), methodName);
      const afterWarmup = weights[i]!;
      if (leastActive === -1 || active < leastActive) {
        leastActive = active;
        leastCount = 1;
        leastIndexes[0] = i;
        totalWeight = afterWarmup;
        firstWeight = afterWarmup;
        sameWeight = true;
      } else if (active === leastActive) {
        leastIndexes[leastCount++] = i;
        totalWeight += afterWarmup;
        if (sameWeight && afterWarmup !== firstWeight) sameWeight = false;
      }
    }
    return pickAmongTied(invokers, leastIndexes, leastCount, weights, totalWeight, sameWeight, this.random);
  }

  /**
   * PERF: the scan's pick when some invoker has no call in flight. The least active count is then 0
   * and the tied invokers are the list minus the busy ones, so the scan's sums and draws follow from
   * the weight table's running totals minus the few busy weights: the same draws, the same pick.
   * `list` is the list picked over, or the parent of a sub-list less `setAside` (ascending indexes).
   * Returns the index in `list`, or -1 when every invoker is busy (or a count is negative): the scan
   * decides then.
   */
  #selectSparse(list: readonly Invoker[], table: WeightTable, busy: ReadonlyMap<string, RpcStatus>, setAside: ArrayLike<number>): number {
    const rng = this.random;
    if (busy.size === 0 && setAside.length === 0) return drawIndex(table.prefix, table.totalWeight, table.sameWeight, rng);
    const index = identityIndexOf(list);
    const excluded: number[] = Array.from(setAside);
    for (const [identity, status] of busy) {
      if (status.active < 0) return -1;
      const at = index.get(identity);
      if (at !== undefined) for (const i of at) excluded.push(i);
    }
    if (excluded.length === 0) return drawIndex(table.prefix, table.totalWeight, table.sameWeight, rng);
    excluded.sort((a, b) => a - b);
    // A set-aside invoker may be busy too: each index once.
    let unique = 0;
    for (let i = 0; i < excluded.length; i++) if (i === 0 || excluded[i] !== excluded[unique - 1]) excluded[unique++] = excluded[i]!;
    excluded.length = unique;
    if (excluded.length >= list.length) return -1;
    const leastCount = list.length - excluded.length;
    if (leastCount === 1) return firstKept(excluded);
    const kept = keptTotals(table, table.totalWeight, table.sameWeight, excluded, leastCount);
    if (!kept.allEqual && kept.total > 0) return firstAboveLeavingOut(table.prefix, table.weights, excluded, rng.nextInt(kept.total), list.length);
    // The r-th invoker that is not busy, in list order.
    let at = rng.nextInt(leastCount);
    for (const e of excluded) {
      if (e > at) break;
      at++;
    }
    return at;
  }
}
