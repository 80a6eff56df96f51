/**
 * zonesim's same-zone-first balancer (`zoneAware`), the extension Dubbo users commonly write:
 * weighted random where each invoker's Dubbo weight (with warmup) is multiplied by
 * `zone.same.weight` (default 100) when the provider's `zone` equals the consumer's and by
 * `zone.cross.weight` (default 1) otherwise; both and the consumer's `zone` are read from the
 * consumer URL. With no same-zone provider (or no consumer zone) it is plain weighted random.
 * Cross-zone weights by distance (zonesim extension): `zone.cross.weights=10,1` gives the
 * providers of the nearest other zone (by median RTT from the consumer's zone, among the zones in
 * the list) the first multiplier, the next zone the second, and every farther zone the last one;
 * equally near zones share a rank. `zone.cross.order=zoneB,zoneC` ranks those zones first, in that
 * order (the rest follow by RTT). With `zone.cross.weights` the ranks apply even when no
 * same-zone provider is left, so a dead local zone's traffic favours the nearest zone.
 * Owns no per-call state (caches of zone ranks and multiplied weights per list). Not a Dubbo extension: it follows the
 * shape of dubbo-cluster `loadbalance/RandomLoadBalance.java`.
 */
import { ZONE_KEY } from '../constants.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { parseZoneList, providerZonesOf, zoneGroups } from '../zone-order.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { parentList, perListAndKey } from '../per-list.js';
import { drawIndex, numbers, runningTotals, subListIndex, weightTableOf, type RunningTotals, type WeightTable } from './weight-table.js';

export { providerZone } from '../zone-order.js';

/** Consumer URL parameter: multiplier for same-zone providers. */
export const ZONE_SAME_WEIGHT_KEY = 'zone.same.weight';
/** Consumer URL parameter: multiplier for cross-zone providers. */
export const ZONE_CROSS_WEIGHT_KEY = 'zone.cross.weight';
/** Consumer URL parameter: cross-zone multipliers by the rank of the provider's zone (nearest first), comma-separated. */
export const ZONE_CROSS_WEIGHTS_KEY = 'zone.cross.weights';
/** Consumer URL parameter: zones ranked first, in this order, before the others by RTT. */
export const ZONE_CROSS_ORDER_KEY = 'zone.cross.order';
export const DEFAULT_ZONE_SAME_WEIGHT = 100;
export const DEFAULT_ZONE_CROSS_WEIGHT = 1;

function nonNegativeInt(url: URL, key: string, defaultValue: number): number {
  const v = Math.trunc(url.getNumber(key, defaultValue));
  return v > 0 ? v : 0;
}

/** Multipliers of `zone.cross.weights`; an entry that is not a number takes `fallback`. */
function rankWeights(text: string, fallback: number): number[] {
  return text.split(',').map((x) => {
    const n = x.trim() === '' ? NaN : Math.trunc(Number(x));
    return Number.isFinite(n) ? Math.max(0, n) : fallback;
  });
}

/** Per invoker of one list: -1 in the consumer's zone, else the 0-based rank of its zone. */
interface ZoneRanks {
  readonly key: string;
  readonly ranks: Int32Array;
}

/** The zone-multiplied weights of one list for one method and one consumer set-up, while valid. */
interface ZoneWeights extends RunningTotals {
  /** The multiplied weights themselves, in list order. */
  readonly weights: ArrayLike<number>;
  readonly validFromMs: number;
  readonly validUntilMs: number;
}

/** What one list means under one consumer set-up: the zone multipliers, and the multiplied weights per method while valid. */
interface ZoneSetup {
  /** Each invoker's zone multiplier, or null when the weights stay as they are (no consumer zone, no same-zone provider). */
  readonly multipliers: readonly number[] | null;
  readonly byMethod: Map<string, ZoneWeights>;
}

// PERF: the multiplied weights depend on the list, the method, the clock (warmup, through the shared
// weight table's validity), the consumer's zone parameters and the zone distances; consumer instances
// of a group hold the same list objects and parameters, so one table serves them all until a weight
// can change, and a pick is a binary search instead of a walk over every invoker. The multipliers do
// not depend on the clock: they are worked out once per list and set-up.
const zoneSetups = new WeakMap<readonly Invoker[], Map<string, ZoneSetup>>();
const distanceIds = new WeakMap<object, number>();
let nextDistanceId = 1;

export class ZoneAwareLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'zoneAware';
  // PERF: routed lists are shared arrays (route cache), so their zone ranks are worked out once.
  readonly #ranks = new WeakMap<Invoker[], ZoneRanks>();
  /** Per consumer URL, the key of what its parameters and this runtime's zone distances make of the weights. */
  readonly #setupKeys = new WeakMap<URL, string>();

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const method = getMethodName(invocation);
    const nowMs = this.clock.now();
    const key = this.#setupKey(url);
    const rng = this.random;
    const parent = parentList(invokers);
    // Ranks by distance depend on the zones left in the list: such a set-up weighs each list itself.
    if (parent !== undefined && (url.getParameter(ZONE_CROSS_WEIGHTS_KEY) ?? '').trim() === '') {
      return invokers[this.#subListIndex(invokers, parent, url, key, method, nowMs)]!;
    }
    const table = this.#weightsOf(invokers, url, key, method, nowMs);
    // weightedRandomIndex over the multiplied weights: the first running total above the draw, or uniform.
    return invokers[drawIndex(table.prefix, table.total, table.allEqual, rng)]!;
  }

  #setupOf(invokers: Invoker[] | readonly Invoker[], url: URL, key: string): ZoneSetup {
    let bySetup = zoneSetups.get(invokers);
    if (bySetup === undefined) zoneSetups.set(invokers, (bySetup = new Map()));
    let setup = bySetup.get(key);
    if (setup === undefined) bySetup.set(key, (setup = { multipliers: this.#zoneMultipliers(invokers as Invoker[], url), byMethod: new Map() }));
    return setup;
  }

  // The multiplied weights of a list for a method, while valid.
  #weightsOf(invokers: readonly Invoker[], url: URL, key: string, method: string, nowMs: number): ZoneWeights {
    return weightsIn(this.#setupOf(invokers, url, key), invokers, method, nowMs);
  }

  // PERF: a directory's list with providers set aside (a crashed zone) is picked from through its parent
  // list's multiplied weights, which every instance shares (see `subListIndex`). Its multipliers are the
  // parent's, invoker by invoker, while it keeps a same-zone provider; without one (or without a consumer
  // zone) it is weighed plainly, as `#zoneMultipliers` decides for any list.
  #subListIndex(sub: Invoker[], parent: readonly Invoker[], url: URL, key: string, method: string, nowMs: number): number {
    const rng = this.random;
    const setup = this.#setupOf(parent, url, key);
    const table = weightsIn(setup, parent, method, nowMs);
    if (setup.multipliers === null || keepsSameZone(sub, url.getParameter(ZONE_KEY)!)) {
      return subListIndex(sub, parent, table, table.prefix, table.total, table.allEqual, `${key}\u0000${method}`, rng);
    }
    const plain = weightTableOf(parent, method, nowMs);
    return subListIndex(sub, parent, plain, plain.prefix, plain.totalWeight, plain.sameWeight, method, rng);
  }

  #setupKey(url: URL): string {
    let key = this.#setupKeys.get(url);
    if (key === undefined) {
      const distance = this.runtime.zoneDistance;
      let distanceId = 0;
      if (distance !== undefined) {
        distanceId = distanceIds.get(distance) ?? 0;
        if (distanceId === 0) distanceIds.set(distance, (distanceId = nextDistanceId++));
      }
      key = [ZONE_KEY, ZONE_CROSS_WEIGHTS_KEY, ZONE_SAME_WEIGHT_KEY, ZONE_CROSS_WEIGHT_KEY, ZONE_CROSS_ORDER_KEY]
        .map((k) => url.getParameter(k) ?? '\u0001')
        .concat(String(distanceId))
        .join('\u0000');
      this.#setupKeys.set(url, key);
    }
    return key;
  }

  /** `ZoneSetup.multipliers` of `invokers` for the consumer URL's set-up. */
  #zoneMultipliers(invokers: Invoker[], url: URL): number[] | null {
    const zone = url.getParameter(ZONE_KEY);
    if (zone === undefined) return null;
    const length = invokers.length;
    const multipliers = numbers(length);
    const sameWeight = nonNegativeInt(url, ZONE_SAME_WEIGHT_KEY, DEFAULT_ZONE_SAME_WEIGHT);
    const crossWeight = nonNegativeInt(url, ZONE_CROSS_WEIGHT_KEY, DEFAULT_ZONE_CROSS_WEIGHT);
    const byRank = url.getParameter(ZONE_CROSS_WEIGHTS_KEY);
    if (byRank !== undefined && byRank.trim() !== '') {
      // Same zone: `zone.same.weight`; other zones: the multiplier of their rank by distance.
      const byDistance = rankWeights(byRank, crossWeight);
      const { ranks } = this.#zoneRanks(invokers, zone, url.getParameter(ZONE_CROSS_ORDER_KEY) ?? '');
      const last = byDistance.length - 1;
      for (let i = 0; i < length; i++) {
        const r = ranks[i]!;
        multipliers[i] = r < 0 ? sameWeight : byDistance[Math.min(r, last)]!;
      }
      return multipliers;
    }
    const zones = providerZonesOf(invokers);
    if (!zones.includes(zone)) return null;
    for (let i = 0; i < length; i++) multipliers[i] = zones[i] === zone ? sameWeight : crossWeight;
    return multipliers;
  }

  #zoneRanks(invokers: Invoker[], zone: string, order: string): ZoneRanks {
    const key = `${zone}\u0000${order}`;
    const cached = this.#ranks.get(invokers);
    if (cached !== undefined && cached.key === key) return cached;
    const groups = zoneGroups(invokers, {
      origin: zone,
      distance: this.runtime.zoneDistance,
      order: parseZoneList(order),
      exclude: zone,
    });
    const rankOf = new Map<Invoker, number>();
    groups.forEach((g, rank) => g.invokers.forEach((inv) => rankOf.set(inv, rank)));
    const ranks = new Int32Array(invokers.length);
    for (let i = 0; i < invokers.length; i++) ranks[i] = rankOf.get(invokers[i]!) ?? -1;
    const out = { key, ranks };
    this.#ranks.set(invokers, out);
    return out;
  }
}

// A list's multiplied weights for a method under one set-up, redone when they expire.
function weightsIn(setup: ZoneSetup, invokers: readonly Invoker[], method: string, nowMs: number): ZoneWeights {
  let table = setup.byMethod.get(method);
  if (table === undefined || nowMs < table.validFromMs || nowMs >= table.validUntilMs) {
    table = multiplied(weightTableOf(invokers, method, nowMs), setup.multipliers);
    setup.byMethod.set(method, table);
  }
  return table;
}

// Each invoker's Dubbo weight (with warmup) times its zone multiplier.
function multiplied(base: WeightTable, multipliers: readonly number[] | null): ZoneWeights {
  let weights: ArrayLike<number> = base.weights;
  if (multipliers !== null) {
    const product = numbers(multipliers.length);
    for (let i = 0; i < product.length; i++) product[i] = base.weights[i]! * multipliers[i]!;
    weights = product;
  }
  return { ...runningTotals(weights), weights, validFromMs: base.validFromMs, validUntilMs: base.validUntilMs };
}

// Whether a sub-list still holds a provider of `zone` (its parent holds at least one).
const keepsSameZone = perListAndKey((sub: readonly Invoker[], zone: string): boolean => {
  const parent = parentList(sub)!;
  const zones = providerZonesOf(parent);
  // The sub-list keeps its parent's order: walk both.
  for (let i = 0, j = 0; i < parent.length && j < sub.length; i++) {
    if (parent[i] !== sub[j]) continue;
    if (zones[i] === zone) return true;
    j++;
  }
  return false;
});
