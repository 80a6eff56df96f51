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
import { drawIndex, runningTotals, weightTableOf, type RunningTotals } from './weight-table.js';

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
  readonly validFromMs: number;
  readonly validUntilMs: number;
}

// PERF: the multiplied weights depend on the list, the method, the clock (warmup, through the shared
// weight table's validity), the consumer's zone parameters and the zone distances; consumer instances
// of a group hold the same list objects and parameters, so one table serves them all until a weight
// can change, and a pick is a binary search instead of a walk over every invoker.
const zoneWeightTables = new WeakMap<readonly Invoker[], Map<string, Map<string, ZoneWeights>>>();
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
    const nowMs = this.runtime.clock.now();
    let byMethod = zoneWeightTables.get(invokers)?.get(this.#setupKey(url));
    if (byMethod === undefined) {
      let bySetup = zoneWeightTables.get(invokers);
      if (bySetup === undefined) zoneWeightTables.set(invokers, (bySetup = new Map()));
      bySetup.set(this.#setupKey(url), (byMethod = new Map()));
    }
    let table = byMethod.get(method);
    if (table === undefined || nowMs < table.validFromMs || nowMs >= table.validUntilMs) {
      table = this.#build(invokers, url, method, nowMs);
      byMethod.set(method, table);
    }
    // weightedRandomIndex over the multiplied weights: the first running total above the draw, or uniform.
    const rng = this.runtime.random;
    return invokers[drawIndex(table.prefix, table.total, table.allEqual, rng)]!;
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

  // Each invoker's Dubbo weight (with warmup) times its zone multiplier.
  #build(invokers: Invoker[], url: URL, method: string, nowMs: number): ZoneWeights {
    const base = weightTableOf(invokers, method, nowMs);
    const length = invokers.length;
    const weights = Array.from(base.weights);
    const zone = url.getParameter(ZONE_KEY);
    if (zone !== undefined) {
      const byRank = url.getParameter(ZONE_CROSS_WEIGHTS_KEY);
      if (byRank !== undefined && byRank.trim() !== '') {
        this.#rankWeighted(weights, invokers, url, zone, byRank);
      } else {
        const zones = providerZonesOf(invokers);
        let anySame = false;
        const same = new Array<boolean>(length);
        for (let i = 0; i < length; i++) {
          same[i] = zones[i] === zone;
          if (same[i]) anySame = true;
        }
        if (anySame) {
          const sameWeight = nonNegativeInt(url, ZONE_SAME_WEIGHT_KEY, DEFAULT_ZONE_SAME_WEIGHT);
          const crossWeight = nonNegativeInt(url, ZONE_CROSS_WEIGHT_KEY, DEFAULT_ZONE_CROSS_WEIGHT);
          for (let i = 0; i < length; i++) weights[i] = weights[i]! * (same[i] ? sameWeight : crossWeight);
        }
      }
    }
    return { ...runningTotals(weights), validFromMs: base.validFromMs, validUntilMs: base.validUntilMs };
  }

  // Same zone: `zone.same.weight`; other zones: the multiplier of their rank by distance.
  #rankWeighted(weights: number[], invokers: Invoker[], url: URL, zone: string, byRank: string): void {
    const crossWeight = nonNegativeInt(url, ZONE_CROSS_WEIGHT_KEY, DEFAULT_ZONE_CROSS_WEIGHT);
    const multipliers = rankWeights(byRank, crossWeight);
    const sameWeight = nonNegativeInt(url, ZONE_SAME_WEIGHT_KEY, DEFAULT_ZONE_SAME_WEIGHT);
    const { ranks } = this.#zoneRanks(invokers, zone, url.getParameter(ZONE_CROSS_ORDER_KEY) ?? '');
    const last = multipliers.length - 1;
    for (let i = 0; i < weights.length; i++) {
      const r = ranks[i]!;
      weights[i] = weights[i]! * (r < 0 ? sameWeight : multipliers[Math.min(r, last)]!);
    }
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
