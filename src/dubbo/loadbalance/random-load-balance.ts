/**
 * Weighted random selection with Dubbo's shortcuts: no weight and no timestamp on the first
 * invoker → plain uniform; equal or all-zero weights → uniform. Follows dubbo-cluster
 * `loadbalance/RandomLoadBalance.java`.
 */
import { TIMESTAMP_KEY, WEIGHT_KEY } from '../constants.js';
import { isClusterInvoker, type Invoker, type RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';

export class RandomLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'random';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const rng = this.runtime.random;
    if (!this.#needWeightLoadBalance(invokers, invocation)) return invokers[rng.nextInt(length)]!;

    let sameWeight = true;
    const weights = new Array<number>(length);
    let totalWeight = 0;
    for (let i = 0; i < length; i++) {
      const weight = this.getWeight(invokers[i]!, invocation);
      totalWeight += weight;
      weights[i] = totalWeight;
      if (sameWeight && totalWeight !== weight * (i + 1)) sameWeight = false;
    }
    if (totalWeight > 0 && !sameWeight) {
      const offset = rng.nextInt(totalWeight);
      if (length <= 4) {
        for (let i = 0; i < length; i++) if (offset < weights[i]!) return invokers[i]!;
      } else {
        // Binary search; an exact hit means the first later index whose prefix is greater.
        let lo = 0;
        let hi = length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (weights[mid]! <= offset) lo = mid + 1;
          else hi = mid;
        }
        return invokers[lo]!;
      }
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
