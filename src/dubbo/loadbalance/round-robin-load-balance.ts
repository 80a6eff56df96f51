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
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { weightTableOf } from './weight-table.js';

/** Dubbo `RECYCLE_PERIOD`: entries not updated for this long may be dropped. */
export const RECYCLE_PERIOD_MS = 60_000;

/**
 * Slot numbers of identity strings, shared by the round-robin tables of every consumer instance whose
 * consumer URL has the same parameter map (the instances of one consumer group in one run share one,
 * see `internParams`), and each list's slots. A table keeps its entries in its own arrays at these slots.
 */
class SharedSlots {
  readonly #slotOf = new Map<string, number>();
  readonly identities: string[] = [];
  readonly #lists = new WeakMap<readonly Invoker[], Int32Array>();

  /** The slot of each invoker of `invokers` (looked up once per list object). */
  slotsOf(invokers: readonly Invoker[]): Int32Array {
    let slots = this.#lists.get(invokers);
    if (slots === undefined) {
      slots = new Int32Array(invokers.length);
      for (let i = 0; i < invokers.length; i++) {
        const identity = invokers[i]!.getUrl().toIdentityString();
        let slot = this.#slotOf.get(identity);
        if (slot === undefined) {
          slot = this.identities.length;
          this.identities.push(identity);
          this.#slotOf.set(identity, slot);
        }
        slots[i] = slot;
      }
      this.#lists.set(invokers, slots);
    }
    return slots;
  }
}

const sharedSlots = new WeakMap<ReadonlyMap<string, string>, SharedSlots>();

function sharedSlotsOf(url: URL): SharedSlots {
  let slots = sharedSlots.get(url.params);
  if (slots === undefined) sharedSlots.set(url.params, (slots = new SharedSlots()));
  return slots;
}

// Fields of one entry in a table's array, at `slot * STRIDE`.
const WEIGHT = 0;
const CURRENT = 1;
const LAST_UPDATE = 2;
/** When the entry was added (its place in the map's insertion order); 0 when the slot holds no entry. */
const ADDED = 3;
const STRIDE = 4;

/**
 * One `serviceKey.method` table (Dubbo's `ConcurrentMap<String, WeightedRoundRobin>`): an entry per
 * identity string, with its weight, current and last update, in insertion order.
 */
// PERF: a pick walks every invoker of the list. Per-entry objects scattered over the heap, and a map per
// table, made that walk (and the garbage and memory of thousands of consumer instances' tables) most of
// a large deployment's run. Entries live in one array of doubles per table at slots shared by the
// group's instances, so a list's slots are looked up once for all of them.
class WeightTableState {
  readonly shared: SharedSlots;
  entries = new Float64Array(0);
  /** Entries in the table (Dubbo's `map.size()`). */
  size = 0;
  #added = 0;
  /**
   * PERF: no entry was updated before this time (a lower bound of every last update): while it is
   * within the recycle period, `recycle` would drop nothing, and its walk over the table is skipped.
   */
  oldestUpdateMs = Infinity;

  constructor(shared: SharedSlots) {
    this.shared = shared;
  }

  /** Room for every slot the group has numbered. */
  fit(): void {
    const needed = this.shared.identities.length * STRIDE;
    if (needed <= this.entries.length) return;
    const grown = new Float64Array(Math.max(needed, this.entries.length * 2));
    grown.set(this.entries);
    this.entries = grown;
  }

  /** A new entry: `new WeightedRoundRobin()` then `setWeight(weight)`. */
  add(slot: number, weight: number): void {
    const at = slot * STRIDE;
    this.entries[at + WEIGHT] = weight;
    this.entries[at + CURRENT] = 0;
    this.entries[at + LAST_UPDATE] = 0;
    this.entries[at + ADDED] = ++this.#added;
    this.size++;
  }

  /** Dubbo's `removeIf(now - lastUpdate > RECYCLE_PERIOD)`. */
  recycle(nowMs: number): void {
    if (!(nowMs - this.oldestUpdateMs > RECYCLE_PERIOD_MS)) return;
    let oldest = Infinity;
    const entries = this.entries;
    for (let at = 0; at < entries.length; at += STRIDE) {
      if (entries[at + ADDED] === 0) continue;
      const lastUpdateMs = entries[at + LAST_UPDATE]!;
      if (nowMs - lastUpdateMs > RECYCLE_PERIOD_MS) {
        entries[at + ADDED] = 0;
        this.size--;
      } else if (lastUpdateMs < oldest) oldest = lastUpdateMs;
    }
    this.oldestUpdateMs = oldest;
  }

  /** The identity strings of the entries, in insertion order. */
  identities(): string[] {
    const out: Array<[number, string]> = [];
    for (let slot = 0; slot * STRIDE < this.entries.length; slot++) {
      const added = this.entries[slot * STRIDE + ADDED]!;
      if (added !== 0) out.push([added, this.shared.identities[slot]!]);
    }
    return out.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
  }
}

export class RoundRobinLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'roundrobin';

  readonly #methodWeightMap = new Map<string, WeightTableState>();
  // PERF: the list and method of the last pick, with their table and slots. A route cache hands the same
  // list object to call after call, so most picks skip building the `serviceKey.method` key and the lookups.
  #lastInvokers: Invoker[] | null = null;
  #lastMethod = '';
  #lastMap: WeightTableState | null = null;
  #lastSlots: Int32Array | null = null;

  /** The identity strings tracked for this invocation's key (Dubbo's test-only `getInvokerAddrList`). */
  getInvokerAddrList(invokers: Invoker[], invocation: RpcInvocation): string[] | null {
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${getMethodName(invocation)}`;
    const map = this.#methodWeightMap.get(key);
    return map === undefined ? null : map.identities();
  }

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const method = getMethodName(invocation);
    let map: WeightTableState;
    let slots: Int32Array;
    if (invokers === this.#lastInvokers && method === this.#lastMethod) {
      map = this.#lastMap!;
      slots = this.#lastSlots!;
    } else {
      const key = `${invokers[0]!.getUrl().getServiceKey()}.${method}`;
      let found = this.#methodWeightMap.get(key);
      if (found === undefined) {
        found = new WeightTableState(sharedSlotsOf(url));
        this.#methodWeightMap.set(key, found);
      }
      map = found;
      slots = map.shared.slotsOf(invokers);
      this.#lastInvokers = invokers;
      this.#lastMethod = method;
      this.#lastMap = map;
      this.#lastSlots = slots;
    }
    const nowMs = this.clock.now();
    map.fit();
    const entries = map.entries;
    let totalWeight = 0;
    let maxCurrent = -Infinity;
    let selected = -1;
    // PERF: getWeight of every invoker, from the list's shared weight table.
    const weights = weightTableOf(invokers, method, nowMs).weights;
    for (let i = 0; i < invokers.length; i++) {
      const weight = weights[i]!;
      const at = slots[i]! * STRIDE;
      // computeIfAbsent: a new entry starts at this weight.
      if (entries[at + ADDED] === 0) map.add(slots[i]!, weight);
      // setWeight: a changed weight restarts the entry's current.
      if (weight !== entries[at + WEIGHT]) {
        entries[at + WEIGHT] = weight;
        entries[at + CURRENT] = 0;
      }
      const cur = (entries[at + CURRENT] += weight);
      entries[at + LAST_UPDATE] = nowMs;
      // Strict '>': ties go to the earliest invoker in list order.
      if (cur > maxCurrent) {
        maxCurrent = cur;
        selected = i;
      }
      totalWeight += weight;
    }
    // Every entry of the list was just updated to now (a new entry's initial 0 included).
    if (nowMs < map.oldestUpdateMs) map.oldestUpdateMs = nowMs;
    if (invokers.length !== map.size) map.recycle(nowMs);
    if (selected >= 0) {
      entries[slots[selected]! * STRIDE + CURRENT]! -= totalWeight;
      return invokers[selected]!;
    }
    return invokers[0]!;
  }
}
