/**
 * A plain reference of Dubbo's `RandomLoadBalance.doSelect` for differential tests: `getWeight` per invoker on
 * every pick, no caches. The balancer in src/ must pick exactly what this picks for the same draws.
 */
import { REGISTRY_SERVICE, TIMESTAMP_KEY, WEIGHT_KEY } from '../../../../src/dubbo/constants.js';
import { isClusterInvoker, type Invoker, type RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { getMethodName } from '../../../../src/dubbo/loadbalance/rpc-utils.js';

export class ReferenceRandomLoadBalance extends AbstractLoadBalance {
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
      for (let i = 0; i < length; i++) if (offset < weights[i]!) return invokers[i]!;
    }
    return invokers[rng.nextInt(length)]!;
  }

  // RandomLoadBalance.needWeightLoadBalance (lines 108-128): a registry URL needs a `weight`; any other
  // a method- or interface-level `weight`, else a `timestamp` on the invoker's own URL.
  #needWeightLoadBalance(invokers: Invoker[], invocation: RpcInvocation): boolean {
    const first = invokers[0]!;
    const url = isClusterInvoker(first) ? first.getRegistryUrl() : first.getUrl();
    if (url.getServiceInterface() === REGISTRY_SERVICE) return url.getParameter(WEIGHT_KEY) !== undefined;
    if (url.getMethodParameter(getMethodName(invocation), WEIGHT_KEY) !== undefined) return true;
    return first.getUrl().getParameter(TIMESTAMP_KEY) !== undefined;
  }
}
