/**
 * zonesim's same-zone-first balancer (`zoneAware`), the extension Dubbo users commonly write:
 * weighted random where each invoker's Dubbo weight (with warmup) is multiplied by
 * `zone.same.weight` (default 100) when the provider's `zone` equals the consumer's and by
 * `zone.cross.weight` (default 1) otherwise; both and the consumer's `zone` are read from the
 * consumer URL. With no same-zone provider (or no consumer zone) it is plain weighted random.
 * Owns no state. Not a Dubbo extension: it follows the shape of dubbo-cluster
 * `loadbalance/RandomLoadBalance.java`.
 */
import { ZONE_KEY } from '../constants.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { weightedRandomIndex } from './weighted-random.js';

/** Consumer URL parameter: multiplier for same-zone providers. */
export const ZONE_SAME_WEIGHT_KEY = 'zone.same.weight';
/** Consumer URL parameter: multiplier for cross-zone providers. */
export const ZONE_CROSS_WEIGHT_KEY = 'zone.cross.weight';
export const DEFAULT_ZONE_SAME_WEIGHT = 100;
export const DEFAULT_ZONE_CROSS_WEIGHT = 1;

/**
 * The zone a provider registered with: its own `zone` parameter, never the consumer's value that a
 * consumer-first ServiceAddressURL would answer with.
 */
export function providerZone(invoker: Invoker): string | undefined {
  const zone = invoker.getUrl().getOriginalParameter(ZONE_KEY);
  return zone === '' ? undefined : zone;
}

function nonNegativeInt(url: URL, key: string, defaultValue: number): number {
  const v = Math.trunc(url.getNumber(key, defaultValue));
  return v > 0 ? v : 0;
}

export class ZoneAwareLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'zoneAware';

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const weights = new Array<number>(length);
    for (let i = 0; i < length; i++) weights[i] = this.getWeight(invokers[i]!, invocation);
    const zone = url.getParameter(ZONE_KEY);
    if (zone !== undefined) {
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
    return invokers[weightedRandomIndex(weights, this.runtime.random)]!;
  }
}
