/**
 * A plain reference of zonesim's `ZoneAwareLoadBalance.doSelect` for differential tests: `getWeight` per
 * invoker and the zone multipliers on every pick, then `weightedRandomIndex`, no caches (zone ranks
 * are worked out on every pick too). The balancer in src/ must pick exactly what this picks.
 */
import { ZONE_KEY } from '../../../../src/dubbo/constants.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { weightedRandomIndex } from '../../../../src/dubbo/loadbalance/weighted-random.js';
import {
  DEFAULT_ZONE_CROSS_WEIGHT,
  DEFAULT_ZONE_SAME_WEIGHT,
  ZONE_CROSS_ORDER_KEY,
  ZONE_CROSS_WEIGHT_KEY,
  ZONE_CROSS_WEIGHTS_KEY,
  ZONE_SAME_WEIGHT_KEY,
} from '../../../../src/dubbo/loadbalance/zone-aware-load-balance.js';
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { parseZoneList, providerZone, zoneGroups } from '../../../../src/dubbo/zone-order.js';

function nonNegativeInt(url: URL, key: string, defaultValue: number): number {
  const v = Math.trunc(url.getNumber(key, defaultValue));
  return v > 0 ? v : 0;
}

function rankWeights(text: string, fallback: number): number[] {
  return text.split(',').map((x) => {
    const n = x.trim() === '' ? NaN : Math.trunc(Number(x));
    return Number.isFinite(n) ? Math.max(0, n) : fallback;
  });
}

export class ReferenceZoneAwareLoadBalance extends AbstractLoadBalance {

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const weights = new Array<number>(length);
    for (let i = 0; i < length; i++) weights[i] = this.getWeight(invokers[i]!, invocation);
    const zone = url.getParameter(ZONE_KEY);
    if (zone !== undefined) {
      const byRank = url.getParameter(ZONE_CROSS_WEIGHTS_KEY);
      if (byRank !== undefined && byRank.trim() !== '') {
        this.#rankWeighted(weights, invokers, url, zone, byRank);
      } else {
        let anySame = false;
        const same = new Array<boolean>(length);
        for (let i = 0; i < length; i++) {
          same[i] = providerZone(invokers[i]!) === zone;
          if (same[i]) anySame = true;
        }
        if (anySame) {
          const sameWeight = nonNegativeInt(url, ZONE_SAME_WEIGHT_KEY, DEFAULT_ZONE_SAME_WEIGHT);
          const crossWeight = nonNegativeInt(url, ZONE_CROSS_WEIGHT_KEY, DEFAULT_ZONE_CROSS_WEIGHT);
          for (let i = 0; i < length; i++) weights[i] = weights[i]! * (same[i] ? sameWeight : crossWeight);
        }
      }
    }
    return invokers[weightedRandomIndex(weights, this.runtime.random)]!;
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

  #zoneRanks(invokers: Invoker[], zone: string, order: string): { key: string; ranks: Int32Array } {
    const key = `${zone}\u0000${order}`;
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
    return { key, ranks };
  }
}
