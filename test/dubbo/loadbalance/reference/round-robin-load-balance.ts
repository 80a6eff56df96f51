/**
 * A plain reference of Dubbo's `RoundRobinLoadBalance.doSelect` for differential tests: one map per
 * `serviceKey.method`, `getWeight` per invoker on every pick, no caches. The balancer in src/ must
 * pick exactly what this picks.
 */
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { getMethodName } from '../../../../src/dubbo/loadbalance/rpc-utils.js';

const RECYCLE_PERIOD_MS = 60_000;

interface WeightedRoundRobin {
  weight: number;
  current: number;
  lastUpdate: number;
}

export class ReferenceRoundRobinLoadBalance extends AbstractLoadBalance {
  readonly #methodWeightMap = new Map<string, Map<string, WeightedRoundRobin>>();

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${getMethodName(invocation)}`;
    let map = this.#methodWeightMap.get(key);
    if (map === undefined) this.#methodWeightMap.set(key, (map = new Map()));
    let totalWeight = 0;
    let maxCurrent = -Infinity;
    const now = this.runtime.clock.now();
    let selectedInvoker: Invoker | null = null;
    let selectedWrr: WeightedRoundRobin | null = null;
    for (const invoker of invokers) {
      const identifyString = invoker.getUrl().toIdentityString();
      const weight = this.getWeight(invoker, invocation);
      let wrr = map.get(identifyString);
      if (wrr === undefined) map.set(identifyString, (wrr = { weight, current: 0, lastUpdate: 0 }));
      if (weight !== wrr.weight) {
        wrr.weight = weight;
        wrr.current = 0;
      }
      wrr.current += wrr.weight;
      const cur = wrr.current;
      wrr.lastUpdate = now;
      if (cur > maxCurrent) {
        maxCurrent = cur;
        selectedInvoker = invoker;
        selectedWrr = wrr;
      }
      totalWeight += weight;
    }
    if (invokers.length !== map.size) for (const [id, wrr] of map) if (now - wrr.lastUpdate > RECYCLE_PERIOD_MS) map.delete(id);
    if (selectedInvoker !== null && selectedWrr !== null) {
      selectedWrr.current -= totalWeight;
      return selectedInvoker;
    }
    return invokers[0]!;
  }
}
