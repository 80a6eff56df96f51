/**
 * Runs a normalized scenario: builds the world, plugs in the Dubbo consumer stacks (router
 * chains, load balancers, clusters, filters, plugins) and the metrics recorder, runs it, checks
 * the invariants and returns the summary. One seed per call; `runSeeds` aggregates several.
 */
import { releaseOf } from '../stack/dubbo-release.js';
import { DubboConsumerStack, SharedInvokers } from '../stack/consumer-stack.js';
import { clusters, unknownName } from '../dubbo/extensions.js';
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import { consumerFilters } from '../dubbo/filter/index.js';
import type { LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import { SharedRouteCache } from '../dubbo/router/route-cache.js';
import { buildRouterChain } from '../stack/build-router-chain.js';
import { createRuntime } from '../dubbo/create-runtime.js';
import type { ZoneDistance } from '../dubbo/zone-order.js';
import { aggregateSummaries } from '../metrics/aggregate.js';
import { Recorder } from '../metrics/recorder.js';
import type { Summary } from '../metrics/summary.js';
import type { TraceRecorder } from '../metrics/trace-recorder.js';
import { EPOCH_MS } from '../world/provider.js';
import { scheduleFaults } from '../world/faults.js';
import { providerFilterChain } from '../stack/provider-filter-chain.js';
import { sentinelHubOf } from '../stack/sentinel-hub.js';
import { createRegistry } from '../world/registry-factory.js';
import { World, type RunStats } from '../world/world.js';
import { applyRuleFault } from './rule-fault.js';
import { scheduleTimelineSampling } from './timeline-sampler.js';
import type { Scenario } from '../model/types.js';

/** Loaded plugin modules by the path the scenario names them with. */
export interface Plugins {
  loadBalances?: Record<string, LoadBalanceFactory>;
  clusters?: Record<string, ClusterFactory>;
  routers?: Record<string, unknown>;
}

/** Raised when a run breaks one of SPEC 5's invariants (CLI exit 1). */
export class InvariantError extends Error {
  constructor(readonly violations: string[]) {
    super(`simulation invariants broken:\n  ${violations.join('\n  ')}`);
    this.name = 'InvariantError';
  }
}

/** What a run has done so far, for `RunOptions.watch`. */
export interface RunSoFar {
  simMs: number;
  events: number;
  requests: number;
  attempts: number;
}

export interface RunOptions {
  seed?: number;
  version: string;
  plugins?: Plugins;
  /** Watches the run: simulated ms and requests started, at every 0.5% of the duration. */
  onProgress?: (simMs: number, requests: number) => void;
  /**
   * Watches the run every `everyEvents` kernel events with what it has done so far (simulated ms,
   * events, requests and attempts started, warmup and every tier included); `check` may throw to
   * stop it. It only reads: a run it does not stop gives the same summary.
   */
  watch?: { everyEvents: number; check: (done: RunSoFar) => void };
  /**
   * False: every registry push goes through the agenda (`RegistryModel.holdPushes` stays off). The
   * summary is the same either way; the tests compare the two.
   */
  holdPushes?: boolean;
  /**
   * Records simulated traces of this run (`run --traces`). It draws nothing from the simulation's
   * streams: the summary is the same with or without it.
   */
  traces?: TraceRecorder;
  /** `run --per-instance`: the summary also lists every consumer instance's pushes (`registry.byConsumer`). */
  perInstance?: boolean;
}

/** Builds the world for one seed without running it (for tools such as `check`). */
export function buildWorld(scenario: Scenario, seed: number, recorder: Recorder, plugins: Plugins = {}, traces?: TraceRecorder): World {
  // Envoy-style zone routing needs how the local (consumer) cluster spreads over zones.
  const perZone = new Map<string, number>();
  for (const c of scenario.consumers) perZone.set(c.zone, (perZone.get(c.zone) ?? 0) + c.instances);
  const extraParams = { 'envoy.local_zones': [...perZone].map(([z, n]) => `${z}:${n}`).join(',') };
  const events = { count: (name: string, by = 1) => recorder.count(name, by) };
  const shared = new SharedInvokers();
  // One route-result store per service, shared by every instance's chain for it (see SharedRouteCache).
  const routeCaches = new Map<string, SharedRouteCache>();
  const routeCacheOf = (service: string): SharedRouteCache => {
    let cache = routeCaches.get(service);
    if (cache === undefined) routeCaches.set(service, (cache = new SharedRouteCache()));
    return cache;
  };
  // One distance function per world: the zone balancers key their shared tables by it (with one per
  // instance, each instance built tables of its own).
  let zoneDistance: ZoneDistance | undefined;
  // PERF: one clock per world too: the balancers read it on every pick, and one per instance was another
  // object (and closure) per instance to reach.
  let clock: { now(): number } | undefined;
  // Only plugin code adds consumer filters after a runtime is made (to `runtime.filters`).
  const filtersFixed = [plugins.loadBalances, plugins.clusters, plugins.routers].every((p) => p === undefined || Object.keys(p).length === 0);
  return new World(scenario, {
    seed,
    observer: recorder,
    tracer: traces ?? null,
    consumerStack: (instance, world) => {
      const sentinel = sentinelHubOf(world)?.consumerFilter(instance);
      const runtime = createRuntime({
        sim: world.sim,
        random: world.streams.stream(`lb/${instance.id}`),
        consumerHost: instance.ip,
        clock: (clock ??= { now: () => EPOCH_MS + world.sim.now }),
        // The 2.7 Sentinel adapter's consumer filter is a plain Filter, around each attempt. Its order (0) ties
        // ActiveLimitFilter's, which 2.7's ActivateComparator leaves to loading order: zonesim puts it outside,
        // so a blocked attempt never took an `actives` slot (a refusal skips the filters' `after`).
        filters: sentinel?.attemptFilter !== undefined ? [sentinel.attemptFilter, ...consumerFilters()] : consumerFilters(),
        filtersFixed,
        events,
        plugins: plugins.loadBalances,
        zoneDistance: (zoneDistance ??= (from, to) => world.network.medianRttMs(from, to)),
        release: releaseOf(instance.group.dubbo),
      });
      return new DubboConsumerStack(instance, world, {
        runtime,
        extraParams,
        shared,
        ...(sentinel !== undefined ? { sentinel } : {}),
        routerChain: (service) =>
          buildRouterChain(scenario.routers, { runtime, service, plugins: plugins.routers, sharedCache: routeCacheOf(service) }),
        cluster: (name) => {
          const f = plugins.clusters?.[name] ?? clusters[name];
          if (f === undefined) throw new Error(unknownName('cluster', name, clusters));
          return f;
        },
      });
    },
    makeRegistry: (world) => createRegistry(world),
    providerFilters: (instance, world) => providerFilterChain(instance, sentinelHubOf(world)?.providerFilter(instance)),
    scheduleFaults: (world) =>
      scheduleFaults(world, {
        onRule: (action) => applyRuleFault(world, action, plugins.routers),
        onSentinel: (action) => sentinelHubOf(world)!.apply(action),
      }),
  });
}

/** Runs one scenario with one seed. */
export function runScenario(scenario: Scenario, options: RunOptions): { summary: Summary; stats: RunStats } {
  const seed = options.seed ?? scenario.seed;
  const recorder = new Recorder({
    warmupMs: scenario.warmupMs,
    durationMs: scenario.durationMs,
    bucketMs: scenario.bucketMs,
    providerGroups: scenario.providers.map((p) => ({ name: p.name, instances: p.count, threads: p.threads, services: p.services })),
    zoneNames: Object.keys(scenario.zones),
    nonIdempotentMethods: Object.entries(scenario.services).flatMap(([service, spec]) =>
      Object.entries(spec.methods)
        .filter(([, m]) => !m.idempotent)
        .map(([method]) => `${service}.${method}`),
    ),
    perInstance: options.perInstance,
  });
  const world = buildWorld(scenario, seed, recorder, options.plugins, options.traces);
  scheduleTimelineSampling(world, recorder);
  const watch = options.watch;
  if (watch !== undefined) {
    const sim = world.sim;
    sim.watch(watch.everyEvents, () => watch.check({ simMs: sim.now, events: sim.eventsProcessed, requests: recorder.requestsStarted, attempts: recorder.attemptsSent }));
  }
  // A plugin router's notify may read the clock, which a held push would show later than its arrival.
  const pluginRouters = Object.keys(options.plugins?.routers ?? {}).length > 0;
  const stats = world.run(options.onProgress, (options.holdPushes ?? true) && !pluginRouters);
  recorder.finish({
    simulatedMs: scenario.durationMs,
    providerGroups: world.providerGroups.map((g) => ({
      name: g.spec.name,
      busyMs: g.busyMs(),
      peakActiveThreads: g.peakActiveThreads(),
    })),
    inFlight: stats.inFlight,
    registryServers: [...world.registries.values()].flatMap((r) => r.serverFigures?.() ?? []),
  });
  options.traces?.finish(world.sim.now);
  const violations = recorder.checkInvariants();
  if (violations.length > 0) throw new InvariantError(violations);
  return { summary: recorder.summary({ scenario: scenario.name, seed, seeds: [seed], version: options.version }), stats };
}

/** Runs seeds `seed .. seed+count-1` and aggregates them (with ci95 when count > 1). */
export function runSeeds(
  scenario: Scenario,
  options: RunOptions & { seeds: number },
): { summary: Summary; perSeed: Summary[]; stats: RunStats[] } {
  const first = options.seed ?? scenario.seed;
  const perSeed: Summary[] = [];
  const stats: RunStats[] = [];
  for (let i = 0; i < Math.max(1, options.seeds); i++) {
    const r = runScenario(scenario, { ...options, seed: first + i });
    perSeed.push(r.summary);
    stats.push(r.stats);
  }
  const summary = perSeed.length === 1 ? perSeed[0]! : aggregateSummaries(perSeed);
  return { summary, perSeed, stats };
}
