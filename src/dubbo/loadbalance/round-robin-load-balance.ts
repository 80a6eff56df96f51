/**
 * Smooth weighted round robin with Dubbo's state layout: one table per `serviceKey.method` (of the
 * first invoker), one entry per invoker identity string holding weight, current and last update.
 * Ties go to the earliest invoker, a weight change resets the entry, and stale entries are recycled
 * after 60 s only when the list size differs from the table size. Owns only that state; weights
 * and warmup come from AbstractLoadBalance. Follows dubbo-cluster
 * `loadbalance/RoundRobinLoadBalance.java`.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance, weightAt, weightInputsOf } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { weightTableOf } from './weight-table.js';

/** Dubbo `RECYCLE_PERIOD`: entries not updated for this long may be dropped. */
export const RECYCLE_PERIOD_MS = 60_000;

/** One invoker's round-robin entry (Dubbo `WeightedRoundRobin`). */
class WeightedRoundRobin {
  weight = 0;
  current = 0;
  lastUpdateMs = 0;

  setWeight(weight: number): void {
    this.weight = weight;
    this.current = 0;
  }
}

export class RoundRobinLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'roundrobin';

  readonly #methodWeightMap = new Map<string, Map<string, WeightedRoundRobin>>();
  // PERF: the directory hands out the same list object until it changes, so each list's entries are
  // resolved once (the entries stay the map's own objects; recycling only ever
  // drops entries of invokers that are not in the current list).
  readonly #resolved = new WeakMap<Invoker[], Map<string, { wrrs: WeightedRoundRobin[]; generation: number }>>();
  /** Bumped per key whenever recycling drops entries, so resolved lists are rebuilt from the map. */
  readonly #generation = new Map<string, number>();

  /** The identity strings tracked for this invocation's key (Dubbo's test-only `getInvokerAddrList`). */
  getInvokerAddrList(invokers: Invoker[], invocation: RpcInvocation): string[] | null {
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${getMethodName(invocation)}`;
    const map = this.#methodWeightMap.get(key);
    return map === undefined ? null : [...map.keys()];
  }

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${getMethodName(invocation)}`;
    let map = this.#methodWeightMap.get(key);
    if (map === undefined) {
      map = new Map();
      this.#methodWeightMap.set(key, map);
    }
    const method = getMethodName(invocation);
    let byKey = this.#resolved.get(invokers);
    if (byKey === undefined) this.#resolved.set(invokers, (byKey = new Map()));
    let resolved = byKey.get(key);
    const generation = this.#generation.get(key) ?? 0;
    if (resolved === undefined || resolved.generation !== generation) {
      const wrrs: WeightedRoundRobin[] = [];
      for (const invoker of invokers) {
        const identifyString = invoker.getUrl().toIdentityString();
        let wrr = map.get(identifyString);
        if (wrr === undefined) {
          wrr = new WeightedRoundRobin();
          wrr.setWeight(weightAt(weightInputsOf(invoker, method), this.runtime.clock.now()));
          map.set(identifyString, wrr);
        }
        wrrs.push(wrr);
      }
      resolved = { wrrs, generation };
      byKey.set(key, resolved);
    }
    let totalWeight = 0;
    let maxCurrent = -Infinity;
    const nowMs = this.runtime.clock.now();
    let selectedInvoker: Invoker | null = null;
    let selectedWrr: WeightedRoundRobin | null = null;
    const { wrrs } = resolved;
    // PERF: getWeight of every invoker, from the list's shared weight table.
    const weights = weightTableOf(invokers, method, nowMs).weights;
    for (let i = 0; i < invokers.length; i++) {
      const weight = weights[i]!;
      const wrr = wrrs[i]!;
      if (weight !== wrr.weight) wrr.setWeight(weight);
      wrr.current += wrr.weight;
      const cur = wrr.current;
      wrr.lastUpdateMs = nowMs;
      // Strict '>': ties go to the earliest invoker in list order.
      if (cur > maxCurrent) {
        maxCurrent = cur;
        selectedInvoker = invokers[i]!;
        selectedWrr = wrr;
      }
      totalWeight += weight;
    }
    if (invokers.length !== map.size) {
      let dropped = false;
      for (const [id, wrr] of map) {
        if (nowMs - wrr.lastUpdateMs > RECYCLE_PERIOD_MS) {
          map.delete(id);
          dropped = true;
        }
      }
      if (dropped) this.#generation.set(key, generation + 1);
    }
    if (selectedInvoker !== null && selectedWrr !== null) {
      selectedWrr.current -= totalWeight;
      return selectedInvoker;
    }
    return invokers[0]!;
  }
}
