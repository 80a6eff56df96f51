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

/**
 * One `serviceKey.method` table (Dubbo's `ConcurrentMap<String, WeightedRoundRobin>`): the map keys
 * are the identity strings, in insertion order; each entry's weight, current and last update live
 * in typed arrays at the entry's slot.
 */
// PERF: a pick walks every invoker of the list. Per-entry objects scattered over the heap made that
// walk (and the garbage of thousands of consumer instances' tables) most of a large deployment's
// run; a slot per entry in three arrays keeps the walk in a few cache lines.
class WeightTableState {
  readonly slotOf = new Map<string, number>();
  weight = new Float64Array(8);
  current = new Float64Array(8);
  lastUpdateMs = new Float64Array(8);
  readonly #free: number[] = [];
  #next = 0;
  /**
   * PERF: no entry was updated before this time (a lower bound of every `lastUpdateMs`): while it is
   * within the recycle period, `recycle` would drop nothing, and its walk over the table is skipped.
   */
  oldestUpdateMs = Infinity;
  /** Bumped whenever entries are dropped (their slots may be reused), so resolved lists are redone. */
  generation = 0;
  /** Per list object, the slot of each of its invokers. */
  readonly resolved = new WeakMap<Invoker[], { slots: Int32Array; generation: number }>();

  /** A new entry at a free slot: `new WeightedRoundRobin()` then `setWeight(weight)`. */
  add(identity: string, weight: number): number {
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#next++;
      if (slot === this.weight.length) this.#grow();
    }
    this.slotOf.set(identity, slot);
    this.weight[slot] = weight;
    this.current[slot] = 0;
    this.lastUpdateMs[slot] = 0;
    return slot;
  }

  /** Dubbo's `removeIf(now - lastUpdate > RECYCLE_PERIOD)`. */
  recycle(nowMs: number): void {
    if (!(nowMs - this.oldestUpdateMs > RECYCLE_PERIOD_MS)) return;
    let dropped = false;
    let oldest = Infinity;
    for (const [identity, slot] of this.slotOf) {
      const lastUpdateMs = this.lastUpdateMs[slot]!;
      if (nowMs - lastUpdateMs > RECYCLE_PERIOD_MS) {
        this.slotOf.delete(identity);
        this.#free.push(slot);
        dropped = true;
      } else if (lastUpdateMs < oldest) oldest = lastUpdateMs;
    }
    this.oldestUpdateMs = oldest;
    if (dropped) this.generation++;
  }

  #grow(): void {
    const size = this.weight.length * 2;
    for (const field of ['weight', 'current', 'lastUpdateMs'] as const) {
      const grown = new Float64Array(size);
      grown.set(this[field]);
      this[field] = grown;
    }
  }
}

export class RoundRobinLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'roundrobin';

  readonly #methodWeightMap = new Map<string, WeightTableState>();

  /** The identity strings tracked for this invocation's key (Dubbo's test-only `getInvokerAddrList`). */
  getInvokerAddrList(invokers: Invoker[], invocation: RpcInvocation): string[] | null {
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${getMethodName(invocation)}`;
    const map = this.#methodWeightMap.get(key);
    return map === undefined ? null : [...map.slotOf.keys()];
  }

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const method = getMethodName(invocation);
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${method}`;
    let map = this.#methodWeightMap.get(key);
    if (map === undefined) {
      map = new WeightTableState();
      this.#methodWeightMap.set(key, map);
    }
    const nowMs = this.runtime.clock.now();
    // PERF: the directory hands out the same list object until it changes, so each list's entries
    // are looked up once (again after recycling dropped some).
    let resolved = map.resolved.get(invokers);
    if (resolved === undefined || resolved.generation !== map.generation) {
      const slots = new Int32Array(invokers.length);
      for (let i = 0; i < invokers.length; i++) {
        const invoker = invokers[i]!;
        const identifyString = invoker.getUrl().toIdentityString();
        const slot = map.slotOf.get(identifyString);
        slots[i] = slot ?? map.add(identifyString, weightAt(weightInputsOf(invoker, method), nowMs));
      }
      resolved = { slots, generation: map.generation };
      map.resolved.set(invokers, resolved);
    }
    let totalWeight = 0;
    let maxCurrent = -Infinity;
    let selected = -1;
    const slots = resolved.slots;
    const { weight: wrrWeight, current, lastUpdateMs } = map;
    // PERF: getWeight of every invoker, from the list's shared weight table.
    const weights = weightTableOf(invokers, method, nowMs).weights;
    for (let i = 0; i < invokers.length; i++) {
      const weight = weights[i]!;
      const slot = slots[i]!;
      // setWeight: a changed weight restarts the entry's current.
      if (weight !== wrrWeight[slot]) {
        wrrWeight[slot] = weight;
        current[slot] = 0;
      }
      const cur = (current[slot] += weight);
      lastUpdateMs[slot] = nowMs;
      // Strict '>': ties go to the earliest invoker in list order.
      if (cur > maxCurrent) {
        maxCurrent = cur;
        selected = i;
      }
      totalWeight += weight;
    }
    // Every entry of the list was just updated to now (a new entry's initial 0 included).
    if (nowMs < map.oldestUpdateMs) map.oldestUpdateMs = nowMs;
    if (invokers.length !== map.slotOf.size) map.recycle(nowMs);
    if (selected >= 0) {
      current[slots[selected]!]! -= totalWeight;
      return invokers[selected]!;
    }
    return invokers[0]!;
  }
}
