/**
 * A plain reference of Dubbo's `LeastActiveLoadBalance.doSelect` for differential tests: `getWeight` per invoker on
 * every pick, no caches. The balancer in src/ must pick exactly what this picks for the same draws.
 */
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { pickAmongTied } from '../../../../src/dubbo/loadbalance/weighted-random.js';
import { getMethodName } from '../../../../src/dubbo/loadbalance/rpc-utils.js';

export class ReferenceLeastActiveLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'leastactive';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const methodName = getMethodName(invocation);
    const rpcStatus = this.runtime.rpcStatus;
    let leastActive = -1;
    let leastCount = 0;
    const leastIndexes = new Array<number>(length);
    const weights = new Array<number>(length);
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;

    for (let i = 0; i < length; i++) {
      const invoker = invokers[i]!;
      const active = rpcStatus.getStatus(invoker.getUrl(), methodName).getActive();
      const afterWarmup = this.getWeight(invoker, invocation);
      weights[i] = afterWarmup;
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
    return pickAmongTied(invokers, leastIndexes, leastCount, weights, totalWeight, sameWeight, this.runtime.random);
  }
}
