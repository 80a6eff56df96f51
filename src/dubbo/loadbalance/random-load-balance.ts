/**
 * Weighted random selection with Dubbo's shortcuts: no weight and no timestamp on the first
 * invoker → plain uniform; equal or all-zero weights → uniform. Follows dubbo-cluster
 * `loadbalance/RandomLoadBalance.java`.
 */
import { TIMESTAMP_KEY, WEIGHT_KEY } from '../constants.js';
import { isClusterInvoker, type Invoker, type RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { weightTableOf } from './weight-table.js';

export class RandomLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'random';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const rng = this.runtime.random;
    if (!this.#needWeightLoadBalance(invokers, invocation)) return invokers[rng.nextInt(length)]!;
    // PERF: Dubbo sums getWeight over the list on every pick; the table holds the same running totals
    // for this list until a weight can change, and a binary search finds the index Dubbo's scan finds.
    const table = weightTableOf(invokers, getMethodName(invocation), this.runtime.clock.now());
    if (table.totalWeight > 0 && !table.sameWeight) {
      const offset = rng.nextInt(table.totalWeight);
      // The first index whose running total exceeds the offset (zero weights share their predecessor's total).
      const prefix = table.prefix;
      let lo = 0;
      let hi = length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prefix[mid]! <= offset) lo = mid + 1;
        else hi = mid;
      }
      return invokers[lo]!;
    }
    return invokers[rng.nextInt(length)]!;
  }

  #needWeightLoadBalance(invokers: Invoker[], invocation: RpcInvocation): boolean {
    const first = invokers[0]!;
    const url = isClusterInvoker(first) ? first.getRegistryUrl() : first.getUrl();
    if (url.hasMethodParameter(invocation.getMethodName(), WEIGHT_KEY)) return true;
    return url.getParameter(TIMESTAMP_KEY) !== undefined;
  }
}
