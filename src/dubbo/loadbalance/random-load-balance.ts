/**
 * Weighted random selection with Dubbo's shortcuts: no weight and no timestamp on the first
 * invoker → plain uniform; equal or all-zero weights → uniform. Follows dubbo-cluster
 * `loadbalance/RandomLoadBalance.java`.
 */
import { REGISTRY_SERVICE, TIMESTAMP_KEY, WEIGHT_KEY } from '../constants.js';
import { isClusterInvoker, type Invoker, type RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { listWeightedIndex } from './weight-table.js';
import { perListAndKey } from '../per-list.js';

export class RandomLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'random';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const rng = this.random;
    if (!this.#needWeightLoadBalance(invokers, invocation)) return invokers[rng.nextInt(length)]!;
    // PERF: Dubbo sums getWeight over the list on every pick; the table holds the same running totals
    // for this list until a weight can change. Dubbo scans them for n <= 4 and binary-searches them
    // (Arrays.binarySearch, then past equal totals) above; both give the first index whose running
    // total exceeds the offset, which this binary search finds for every n. A directory's list with
    // providers set aside is picked from through its parent list's table (see listWeightedIndex).
    return invokers[listWeightedIndex(invokers, getMethodName(invocation), this.clock.now(), rng)]!;
  }

  // RandomLoadBalance.needWeightLoadBalance (lines 108-128): a registry URL needs a `weight`; any other
  // a method- or interface-level `weight`, else a `timestamp` on the invoker's own URL.
  #needWeightLoadBalance(invokers: Invoker[], invocation: RpcInvocation): boolean {
    return needWeightLoadBalance(invokers, getMethodName(invocation));
  }
}

// PERF: the answer reads only the first invoker's (immutable) URLs and the method, so it is worked out
// once per list and method (lists are shared by the instances holding them) instead of per pick, where a
// method-level lookup builds its `method.weight` key and reads two cold parameter maps.
const needWeightLoadBalance = perListAndKey((invokers: readonly Invoker[], method: string): boolean => {
  const first = invokers[0]!;
  const url = isClusterInvoker(first) ? first.getRegistryUrl() : first.getUrl();
  if (url.getServiceInterface() === REGISTRY_SERVICE) return url.getParameter(WEIGHT_KEY) !== undefined;
  if (url.getMethodParameter(method, WEIGHT_KEY) !== undefined) return true;
  return first.getUrl().getParameter(TIMESTAMP_KEY) !== undefined;
});
