/**
 * Envoy-style zone-aware routing (`envoyZoneAware`), for comparison with Dubbo's balancers: stay in
 * the consumer's zone while the local zone's share of healthy providers covers its share of
 * callers, otherwise keep the covered fraction local and send the rest to zones with spare
 * capacity; off for small clusters, in panic, or without a usable local cluster. Inputs come from
 * the consumer URL: `zone`, `envoy.local_zones` (`zoneA:10,zoneB:5` — callers per zone, optionally
 * `zone:healthy/total`), `envoy.min_cluster_size` (6), `envoy.healthy_panic_threshold` (50) and
 * `envoy.routing_enabled` (100); upstream health is `invoker.isAvailable()`. Every decision is
 * counted under Envoy's counter name prefixed `envoy.`. Owns no state beyond a parse cache.
 * Follows `/work/shared/envoy-zone-aware.md` (Envoy `ZoneAwareLoadBalancerBase` in
 * `load_balancer_impl.cc`); within the chosen hosts it picks by Dubbo weighted random.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { ZONE_KEY } from '../constants.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';
import { drawIndex, runningTotals, weightTableOf, type RunningTotals } from './weight-table.js';
import { providerZone } from './zone-aware-load-balance.js';

export const ENVOY_LOCAL_ZONES_KEY = 'envoy.local_zones';
export const ENVOY_MIN_CLUSTER_SIZE_KEY = 'envoy.min_cluster_size';
export const ENVOY_PANIC_THRESHOLD_KEY = 'envoy.healthy_panic_threshold';
export const ENVOY_ROUTING_ENABLED_KEY = 'envoy.routing_enabled';
export const DEFAULT_MIN_CLUSTER_SIZE = 6;
export const DEFAULT_PANIC_THRESHOLD = 50;
export const DEFAULT_ROUTING_ENABLED = 100;

/** Decision counters (Envoy's stat names under `envoy.`). */
export const EnvoyCounter = {
  PANIC: 'envoy.panic',
  CLUSTER_TOO_SMALL: 'envoy.lb_zone_cluster_too_small',
  ROUTING_ALL_DIRECTLY: 'envoy.lb_zone_routing_all_directly',
  ROUTING_SAMPLED: 'envoy.lb_zone_routing_sampled',
  ROUTING_CROSS_ZONE: 'envoy.lb_zone_routing_cross_zone',
  NO_CAPACITY_LEFT: 'envoy.lb_zone_no_capacity_left',
  LOCAL_CLUSTER_NOT_OK: 'envoy.lb_local_cluster_not_ok',
} as const;

/** One zone of the local (calling) cluster. */
export interface LocalZone {
  healthy: number;
  total: number;
}

/** Parses `zoneA:10,zoneB:5` (or `zoneA:9/10`); throws on malformed text. */
export function parseLocalZones(text: string): Map<string, LocalZone> {
  const zones = new Map<string, LocalZone>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const colon = item.lastIndexOf(':');
    const counts = colon > 0 ? item.slice(colon + 1).split('/') : [];
    const healthy = Number(counts[0]);
    const total = counts.length > 1 ? Number(counts[1]) : healthy;
    if (counts.length === 0 || counts.length > 2 || !Number.isInteger(healthy) || !Number.isInteger(total) || healthy < 0 || total < healthy) {
      throw new Error(`${ENVOY_LOCAL_ZONES_KEY}: expected "zone:count" or "zone:healthy/total", found "${item}"`);
    }
    zones.set(item.slice(0, colon), { healthy, total });
  }
  return zones;
}

function clampPercent(v: number): number {
  return Math.min(100, Math.max(0, v));
}

export class EnvoyZoneAwareLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'envoyZoneAware';

  #localZonesText: string | undefined;
  #localZones: Map<string, LocalZone> | undefined;

  protected doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker {
    const events = this.runtime.events;
    const length = invokers.length;
    const health = healthOf(invokers);
    const healthy = health.healthy;

    // Envoy's panic for one priority level: below the threshold, balance over every host.
    // (Envoy also needs the 1.4 overprovisioned health under 100%, which only matters above 71%.)
    const panicThreshold = clampPercent(url.getNumber(ENVOY_PANIC_THRESHOLD_KEY, DEFAULT_PANIC_THRESHOLD));
    if ((100 * healthy.length) / length < panicThreshold) {
      events.count(EnvoyCounter.PANIC);
      return this.#pick(invokers, health.all, invocation);
    }
    // DIVERGENCE: with the panic threshold at 0 and no healthy host Envoy returns no host; a Dubbo
    // balancer must return a member, so zonesim picks among all.
    if (healthy.length === 0) return this.#pick(invokers, health.all, invocation);

    const zone = this.#chooseLocality(health, url);
    if (zone !== null) {
      const inZone = health.healthyInZone.get(zone);
      // DIVERGENCE: Envoy returns no host for an empty locality (only reachable through
      // lb_zone_no_capacity_left); zonesim falls back to every healthy host.
      if (inZone !== undefined && inZone.length > 0) return this.#pick(invokers, inZone, invocation);
    }
    return this.#pick(invokers, healthy, invocation);
  }

  /**
   * The zone to pick in, or null for "all healthy hosts". Envoy computes the routing state when
   * hosts change and counts `lb_zone_cluster_too_small` / `lb_local_cluster_not_ok` then.
   */
  // DIVERGENCE: zonesim recomputes the state on every pick (health can change between pushes) and
  // so counts those two per pick, which makes them shares of picks.
  #chooseLocality(health: Health, url: URL): string | null {
    const events = this.runtime.events;
    const localZone = url.getParameter(ZONE_KEY);
    const local = this.#parseLocal(url);
    // No local cluster configured: Envoy does no zone routing (and counts nothing).
    if (localZone === undefined || local === undefined) return null;

    const { healthy, healthyPerZone } = health;
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

    const rng = this.random;
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
  #pick(invokers: Invoker[], indexes: readonly number[], invocation: RpcInvocation): Invoker {
    if (indexes.length === 1) return invokers[indexes[0]!]!;
    // weightedRandomIndex over the chosen hosts' weights, from a table kept with the index list.
    const table = pickTableOf(invokers, indexes, getMethodName(invocation), this.clock.now());
    const rng = this.random;
    return invokers[indexes[drawIndex(table.prefix, table.total, table.allEqual, rng)]!]!;
  }
}

/** What the hosts' availability says about one list: kept while no provider changes state. */
interface Health {
  /** `availabilityVersion()` it was computed at; null when the invokers do not say (then it is not kept). */
  readonly version: number | null;
  readonly all: readonly number[];
  /** Indexes of the available invokers, in list order. */
  readonly healthy: readonly number[];
  /** Every provider zone of the list ('' for none), in first-seen order, with its count of healthy hosts. */
  readonly healthyPerZone: ReadonlyMap<string, number>;
  /** Healthy indexes by provider zone (zones that are set only). */
  readonly healthyInZone: ReadonlyMap<string, readonly number[]>;
}

interface VersionedInvoker extends Invoker {
  availabilityVersion(): number;
}

// PERF: every pick read the availability and zone of every host; on a large deployment that was most
// of a run. A list's health is kept until any provider changes state (DubboInvoker's version), and the
// weights of each host set until a weight can change.
const healthByList = new WeakMap<readonly Invoker[], Health>();
const versioned = new WeakMap<readonly Invoker[], boolean>();

function availabilityVersion(invokers: readonly Invoker[]): number | null {
  let all = versioned.get(invokers);
  if (all === undefined) {
    all = invokers.every((inv) => typeof (inv as Partial<VersionedInvoker>).availabilityVersion === 'function');
    versioned.set(invokers, all);
  }
  return all && invokers.length > 0 ? (invokers[0] as VersionedInvoker).availabilityVersion() : null;
}

function healthOf(invokers: readonly Invoker[]): Health {
  const version = availabilityVersion(invokers);
  const cached = healthByList.get(invokers);
  if (version !== null && cached !== undefined && cached.version === version) return cached;
  const healthy: number[] = [];
  const healthyPerZone = new Map<string, number>();
  const healthyInZone = new Map<string, number[]>();
  for (let i = 0; i < invokers.length; i++) {
    const zone = providerZone(invokers[i]!);
    const key = zone ?? '';
    if (!healthyPerZone.has(key)) healthyPerZone.set(key, 0);
    if (!invokers[i]!.isAvailable()) continue;
    healthy.push(i);
    healthyPerZone.set(key, healthyPerZone.get(key)! + 1);
    if (zone !== undefined) {
      let inZone = healthyInZone.get(zone);
      if (inZone === undefined) healthyInZone.set(zone, (inZone = []));
      inZone.push(i);
    }
  }
  const all = cached !== undefined && cached.all.length === invokers.length ? cached.all : Array.from({ length: invokers.length }, (_, i) => i);
  const health: Health = { version, all, healthy, healthyPerZone, healthyInZone };
  if (version !== null) healthByList.set(invokers, health);
  return health;
}

interface PickTable extends RunningTotals {
  readonly validFromMs: number;
  readonly validUntilMs: number;
}

const pickTables = new WeakMap<readonly number[], Map<string, PickTable>>();

// The weights of the hosts at `indexes` (getWeight, with warmup) as running totals, kept with the index
// list while the list's weight table is valid.
function pickTableOf(invokers: readonly Invoker[], indexes: readonly number[], method: string, nowMs: number): PickTable {
  let byMethod = pickTables.get(indexes);
  if (byMethod === undefined) pickTables.set(indexes, (byMethod = new Map()));
  const cached = byMethod.get(method);
  if (cached !== undefined && nowMs >= cached.validFromMs && nowMs < cached.validUntilMs) return cached;
  const base = weightTableOf(invokers, method, nowMs);
  const table = { ...runningTotals(indexes.map((i) => base.weights[i]!)), validFromMs: base.validFromMs, validUntilMs: base.validUntilMs };
  byMethod.set(method, table);
  return table;
}
