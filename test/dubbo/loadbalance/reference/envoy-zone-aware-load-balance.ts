/**
 * A plain reference of zonesim's `EnvoyZoneAwareLoadBalance.doSelect` for differential tests: every
 * host's availability, zone and weight read on every pick, no caches. The balancer in src/ must pick
 * (and count) exactly what this picks for the same draws.
 */
import { ZONE_KEY } from '../../../../src/dubbo/constants.js';
import {
  DEFAULT_MIN_CLUSTER_SIZE,
  DEFAULT_PANIC_THRESHOLD,
  DEFAULT_ROUTING_ENABLED,
  ENVOY_LOCAL_ZONES_KEY,
  ENVOY_MIN_CLUSTER_SIZE_KEY,
  ENVOY_PANIC_THRESHOLD_KEY,
  ENVOY_ROUTING_ENABLED_KEY,
  EnvoyCounter,
  parseLocalZones,
  type LocalZone,
} from '../../../../src/dubbo/loadbalance/envoy-zone-aware-load-balance.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { weightedRandomIndex } from '../../../../src/dubbo/loadbalance/weighted-random.js';
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { providerZone } from '../../../../src/dubbo/zone-order.js';

function clampPercent(v: number): number {
  return Math.min(100, Math.max(0, v));
}

export class ReferenceEnvoyZoneAwareLoadBalance extends AbstractLoadBalance {

  #localZonesText: string | undefined;
  #localZones: Map<string, LocalZone> | undefined;

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const events = this.runtime.events;
    const length = invokers.length;
    const healthy: number[] = [];
    for (let i = 0; i < length; i++) if (invokers[i]!.isAvailable()) healthy.push(i);

    // Envoy's panic for one priority level: below the threshold, balance over every host.
    // (Envoy also needs the 1.4 overprovisioned health under 100%, which only matters above 71%.)
    const panicThreshold = clampPercent(url.getNumber(ENVOY_PANIC_THRESHOLD_KEY, DEFAULT_PANIC_THRESHOLD));
    if ((100 * healthy.length) / length < panicThreshold) {
      events.count(EnvoyCounter.PANIC);
      return this.#pick(invokers, allIndexes(length), invocation);
    }
    // DIVERGENCE: with the panic threshold at 0 and no healthy host Envoy returns no host; a Dubbo
    // balancer must return a member, so zonesim picks among all.
    if (healthy.length === 0) return this.#pick(invokers, allIndexes(length), invocation);

    const zone = this.#chooseLocality(invokers, healthy, url);
    if (zone !== null) {
      const inZone = healthy.filter((i) => providerZone(invokers[i]!) === zone);
      // DIVERGENCE: Envoy returns no host for an empty locality (only reachable through
      // lb_zone_no_capacity_left); zonesim falls back to every healthy host.
      if (inZone.length > 0) return this.#pick(invokers, inZone, invocation);
    }
    return this.#pick(invokers, healthy, invocation);
  }

  /**
   * The zone to pick in, or null for "all healthy hosts". Envoy computes the routing state when
   * hosts change and counts `lb_zone_cluster_too_small` / `lb_local_cluster_not_ok` then.
   */
  // DIVERGENCE: zonesim recomputes the state on every pick (health can change between pushes) and
  // so counts those two per pick, which makes them shares of picks.
  #chooseLocality(invokers: Invoker[], healthy: number[], url: URL): string | null {
    const events = this.runtime.events;
    const localZone = url.getParameter(ZONE_KEY);
    const local = this.#parseLocal(url);
    // No local cluster configured: Envoy does no zone routing (and counts nothing).
    if (localZone === undefined || local === undefined) return null;

    // Upstream localities (every host counts for the locality list), healthy hosts per locality.
    const healthyPerZone = new Map<string, number>();
    for (const invoker of invokers) {
      const z = providerZone(invoker) ?? '';
      if (!healthyPerZone.has(z)) healthyPerZone.set(z, 0);
    }
    for (const i of healthy) {
      const z = providerZone(invokers[i]!) ?? '';
      healthyPerZone.set(z, healthyPerZone.get(z)! + 1);
    }
    if (healthyPerZone.size < 2) return null;
    if ((healthyPerZone.get(localZone) ?? 0) === 0) return null;
    const localHere = local.get(localZone);
    if (localHere === undefined || localHere.healthy === 0) {
      events.count(EnvoyCounter.LOCAL_CLUSTER_NOT_OK);
      return null;
    }
    const minClusterSize = url.getNumber(ENVOY_MIN_CLUSTER_SIZE_KEY, DEFAULT_MIN_CLUSTER_SIZE);
    if (healthy.length < minClusterSize) {
      events.count(EnvoyCounter.CLUSTER_TOO_SMALL);
      return null;
    }

    const rng = this.runtime.random;
    const routingEnabled = clampPercent(url.getNumber(ENVOY_ROUTING_ENABLED_KEY, DEFAULT_ROUTING_ENABLED));
    if (routingEnabled < 100 && !(rng.nextInt(100) < routingEnabled)) return null;

    let localHealthy = 0;
    let localTotal = 0;
    for (const z of local.values()) {
      localHealthy += z.healthy;
      localTotal += z.total;
    }
    const panicThreshold = clampPercent(url.getNumber(ENVOY_PANIC_THRESHOLD_KEY, DEFAULT_PANIC_THRESHOLD));
    if (localTotal === 0 || (100 * localHealthy) / localTotal < panicThreshold) {
      events.count(EnvoyCounter.LOCAL_CLUSTER_NOT_OK);
      return null;
    }

    // Locality 0 is the local zone; the others in name order.
    const localities = [localZone, ...[...healthyPerZone.keys()].filter((z) => z !== localZone).sort()];
    const upstreamPct = localities.map((z) => Math.floor((10000 * healthyPerZone.get(z)!) / healthy.length));
    const localPct = localities.map((z) => Math.floor((10000 * (local.get(z)?.healthy ?? 0)) / localHealthy));

    if (upstreamPct[0]! > 0 && upstreamPct[0]! >= localPct[0]!) {
      events.count(EnvoyCounter.ROUTING_ALL_DIRECTLY);
      return localZone;
    }
    const localPercentToRoute = localPct[0]! > 0 ? Math.floor((upstreamPct[0]! * 10000) / localPct[0]!) : 0;
    if (rng.nextInt(10000) < localPercentToRoute) {
      events.count(EnvoyCounter.ROUTING_SAMPLED);
      return localZone;
    }
    events.count(EnvoyCounter.ROUTING_CROSS_ZONE);
    const residual = new Array<number>(localities.length);
    residual[0] = 0;
    for (let i = 1; i < localities.length; i++) {
      const spare = upstreamPct[i]! - localPct[i]!;
      residual[i] = residual[i - 1]! + (spare > 0 ? spare : 0);
    }
    const last = residual[localities.length - 1]!;
    if (last === 0) {
      events.count(EnvoyCounter.NO_CAPACITY_LEFT);
      return localities[rng.nextInt(localities.length)]!;
    }
    const threshold = rng.nextInt(last);
    let i = 0;
    while (threshold >= residual[i]!) i++;
    return localities[i]!;
  }

  #parseLocal(url: URL): Map<string, LocalZone> | undefined {
    const text = url.getParameter(ENVOY_LOCAL_ZONES_KEY);
    if (text === undefined) return undefined;
    if (text !== this.#localZonesText) {
      this.#localZones = parseLocalZones(text);
      this.#localZonesText = text;
    }
    return this.#localZones;
  }

  // DIVERGENCE: Envoy balances inside the chosen hosts with its own policy (round robin by
  // default); zonesim uses Dubbo's weighted random with warmup so the comparison isolates routing.
  #pick(invokers: Invoker[], indexes: number[], invocation: RpcInvocation): Invoker {
    if (indexes.length === 1) return invokers[indexes[0]!]!;
    const weights = indexes.map((i) => this.getWeight(invokers[i]!, invocation));
    return invokers[indexes[weightedRandomIndex(weights, this.runtime.random)]!]!;
  }
}

function allIndexes(length: number): number[] {
  return Array.from({ length }, (_, i) => i);
}
