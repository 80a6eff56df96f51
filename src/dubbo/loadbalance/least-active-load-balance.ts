/**
 * Least active: among the invokers with the fewest in-flight calls (RpcStatus active count of this
 * consumer), one wins outright, otherwise a weighted draw, otherwise uniform. Only ActiveLimitFilter
 * moves the active counts, and only for URLs with an `actives` parameter, so without it this is
 * weighted random. Owns no state of its own. Follows dubbo-cluster
 * `loadbalance/LeastActiveLoadBalance.java`.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { pickAmongTied } from './weighted-random.js';
import { getMethodName } from './rpc-utils.js';
import { weightTableOf } from './weight-table.js';

export class LeastActiveLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'leastactive';

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const methodName = getMethodName(invocation);
    const rpcStatus = this.runtime.rpcStatus;
    let leastActive = -1;
    let leastCount = 0;
    const leastIndexes = new Array<number>(length);
    // PERF: getWeight of every invoker, from the list's shared weight table.
    const weights = weightTableOf(invokers, methodName, this.runtime.clock.now()).weights;
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;

    for (let i = 0; i < length; i++) {
      const invoker = invokers[i]!;
      const active = rpcStatus.getStatus(invoker.getUrl(), methodName).getActive();
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
    return pickAmongTied(invokers, leastIndexes, leastCount, weights, totalWeight, sameWeight, this.runtime.random);
  }
}
