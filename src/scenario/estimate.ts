/**
 * The cost estimate of SPEC 1, from the normalized scenario alone (nothing is built or run):
 * simulated requests, kernel events, timeline buckets, instances and peak memory of one
 * simulation. The CLI shows it (`--dry-run`) and refuses a run whose estimate exceeds the
 * machine's memory or `--max-requests` (`costProblems`, estimate-limits.ts). It owns the cost model and its
 * calibration; what the machine can give (os, V8) is the CLI's business.
 *
 * Model, in the order it is computed:
 * - requests and attempts (estimate-call-graph.ts): each consumer group's rate integrated over
 *   [0, duration] with its `traffic` faults (estimate-edge-requests.ts), split over `calls`; call graphs add one downstream
 *   request per call of every execution, counted exactly over the graph. Attempts expect the retries
 *   of timeouts (the service-time tail against the timeout) and of overloaded pools;
 *   `requestsWorstCase` / `attemptsWorstCase` let every call use all its retries at every tier.
 *   `refusedServiceAttempts` counts the attempts to services whose providers refuse connections in
 *   a `crash`-mode fault (for the wall-time estimate, `wall-estimate.ts`).
 * - events: `eventsPerRequest` per request and per extra attempt, plus the registry's: client
 *   heartbeats / pings of every provider, and one delivery per list change and subscriber.
 * - instances: consumer instances, provider instances at start plus those faults start (scale-out,
 *   restart, rolling restart, the replacements of crashed instances; estimate-provider-churn.ts); each provider whose methods
 *   call other services also holds a consumer side.
 * - peak memory: a base with a young-generation allowance that grows with the request rate, plus
 *   calibrated costs per consumer reference (more for one that sets refusing providers aside, and per condition or tag
 *   rule in its router chain), per provider instance
 *   (and export with a limit filter), per JVM that loads Sentinel rules, per timeline bucket, per request
 *   in flight (Little's law), per call queued in an overloaded unbounded provider queue, per
 *   (consumer reference × provider) where state is kept per provider
 *   (round robin, adaptive, `actives`), per metrics cell, and for the registry's worst instant
 *   (`registryBurstOf`: a list changed k times at once keeps k snapshots and k × subscribers
 *   deliveries queued, and every group a fault changes at that instant adds its own).
 *
 * Calibration (Node 20, 2 cores, 24 GB; peak RSS of the CLI's run path, as `bench/one.js` measures it
 * with the CLI child's V8 flags; the table is in docs/cli.md, "Cost estimate and limits"), refitted in
 * December 2026 once provider state was shared by a group's instances: every shipped scenario and the
 * benchmark deployments with their scaled variants (30 to 90,000 consumer instances, 300,000 providers,
 * every stateful balancer, `actives`, a scale-out of 5,000 at once, 8,000 instances with 24,000
 * references) within ±12%, from 100 MB to 1.7 GB; refitted again for the CLI child's 32 MB semi-spaces
 * (same month): within -13% .. +19% (+19%: `actives`), and runs whose young generation stays small (the
 * dual-zone baseline, M/M/c, the large deployment with 30 or 300 instances) up to 41% high.
 * Requests within ±3% where few calls are retried. What the command keeps of each finished
 * simulation (`summaryBytes`, from estimate-summary-size.ts) and the queued calls were fitted in December 2026 too (docs/cli.md).
 */
import { AUTO_COHORT_ESTATE_INSTANCES, AUTO_COHORT_INSTANCES, cohortPlan, DEFAULT_REPRESENTATIVES, perInstanceReason } from '../world/cohorts.js';
import { distMeanMs } from './dist-figures.js';
import { countTraffic } from './estimate-call-graph.js';
import { edgeRequestsByGroup } from './estimate-edge-requests.js';
import { providerChurn, targetGroups, type ChurnBurst } from './estimate-provider-churn.js';
import { pushDeliveries as pushDeliveriesOf, type ConsumerSide } from './estimate-push-deliveries.js';
import { scopeTimelineRows, summaryChars } from './estimate-summary-size.js';
import { registerLevels } from '../world/discovery-levels.js';
import { nacosServerPushDelayMs } from '../world/registry-push-merge.js';
import { modelsServers } from '../world/registry-servers.js';
import type { ProviderGroupSpec, RegistrySpec, Scenario, SentinelSpec } from '../model/types.js';
import { effectiveSentinel, loadsSentinel, sentinelFaultTargets } from '../stack/sentinel-resources.js';

export { distMeanMs } from './dist-figures.js';

/** The calibrated constants of the memory and event model (see the module comment). */
export const COST_MODEL = {
  /** Node, the modules and a small scenario (MB). */
  baseMb: 100,
  /**
   * V8's young generation (the CLI child's semi-spaces are 32 MB, see `CHILD_V8_FLAGS`): V8 grows it
   * once enough objects survive its scavenges, which most runs past a few thousand requests in flight
   * or retried do (zone-a-down, shared-pool-exhaustion and every large deployment peak 20-50 MB above
   * the 16 MB semi-spaces' figures), so every run is allowed `youngGenerationMinMb`, then this much
   * more per simulated request per second (all tiers), up to `youngGenerationMaxMb`. Runs whose
   * young generation stays small (the dual-zone baseline, M/M/c) are estimated up to 40 MB high.
   */
  youngGenerationMinMb: 35,
  bytesPerRequestPerSec: 1_400,
  youngGenerationMaxMb: 88,
  /** Each worker thread running simulations (MB): its isolate, modules and heap slack. */
  workerBaseMb: 65,
  /** A simulation in a worker thread takes this much more than in the main thread (GC slack per isolate). */
  workerScale: 1.3,
  /**
   * One consumer instance's reference to one service: directory, router chain, cluster, subscription,
   * figures. Provider URLs and invokers are shared by a group's instances, so it does not grow with the
   * providers an instance calls (a large deployment peaks alike after 6 and 40 simulated seconds).
   */
  bytesPerReference: 6_000,
  /**
   * A provider process's reference to a service its methods call (a call graph), in place of `bytesPerReference`:
   * each process is a consumer instance of its own (no cohort), with its own directory and subscription. Measured
   * 2026-12-07 at 10^5 provider processes each calling one service of 200 providers, no consumer groups, 11 simulated
   * s: +693 MB against the same estate without the call (7.3 KB each); at 10^4 processes +80 MB (8.4 KB).
   */
  bytesPerDownstreamReference: 7_500,
  /**
   * One consumer reference that sets providers aside because they refuse connections (a `crash`-mode
   * fault on providers of its service): its own copy of the list per set-aside, the set of those set
   * aside, their route results and the copies left to the collector. About the same with 300 and 600
   * providers in the list and 100 and 150 refusing (the large deployment with zoneC crashed, 3,000
   * references: +57 MB; 6,000 instances with 3 references each and a 150-provider zone crashed: +332 MB).
   */
  bytesPerSetAsideReference: 19_000,
  /** One provider instance (with one export): its URL, pools, registry record. */
  bytesPerProvider: 5_500,
  /**
   * Each further export of a provider instance (its URL tail is shared by the group's instances started
   * together). Measured 2026-12-07 at 10^5 providers (the seed scale's, eight exports against one, peak RSS
   * after an 11 s run): 280 B under ZooKeeper, 300 B with registry servers, 340 B under Nacos, 560 B under
   * Nacos with servers; 1,500 B before, which put the seed scale at 2,200 MB against 1,560 measured.
   */
  bytesPerExtraExport: 600,
  /**
   * A provider instance registered at both levels (Dubbo 3's default `register-mode: all`), per registry: its
   * application-level record and metadata besides its interface-level records, and the invokers of both levels
   * that consumers at APPLICATION_FIRST keep. Measured 2026-12-07 (peak RSS, 20,400 providers of ten exports, 120
   * consumer groups in cohorts, Nacos with servers, no faults): `all` 617 MB against `interface` 502 MB with 8
   * representatives, 726 against 583 with 32. Registered at application level only, the same estate peaked at
   * 481 MB, below `interface` (one record a process instead of one an export), and the seed scale at a tenth as 3.3
   * at application level at 333 MB against 390 MB as written: no term for it (the estimate stays on the high side).
   */
  bytesPerDualRegistration: 5_600,
  /**
   * A provider instance's client of a Nacos registry modeled as a server (`servers` or `capacity`), per registry:
   * its connection, the records' server-side state and the push and ack timers. `bytesPerProvider` was fitted on
   * ZooKeeper's; the same estate registered at interface level peaked at 502 MB against 431 MB estimated before.
   */
  bytesPerNacosServerClient: 3_500,
  /**
   * A provider instance's registration with each registry after its first (`registries:`): per process, its state at
   * that registry, plus `bytesPerFurtherRegistrationExport` per export (its record there) and, for a ZooKeeper registry
   * modeled as a server, `bytesPerFurtherZookeeperClient` (its session, its pings and read-timeout checks; a Nacos
   * server's client is `bytesPerNacosServerClient`, counted per registry). `bytesPerProvider` holds the first
   * registration. Measured 2026-12-07 at 10^5 providers of one and of eight exports, no consumers, peak RSS after 11
   * simulated s, two ZooKeeper registries against one: with servers +147 MB (one export) and +352 MB (eight), without
   * +46 MB and +236 MB; the seed scale as 3.3 with two ZooKeeper registries (a zone's servers each) peaked at 2,493 MB
   * against 1,925 MB estimated before.
   */
  bytesPerFurtherRegistration: 200,
  bytesPerFurtherRegistrationExport: 290,
  bytesPerFurtherZookeeperClient: 1_000,
  /**
   * A JVM (provider process or simulated consumer instance) that loads Sentinel rules: its Sph with the statistic
   * nodes of the resources its rules name, the adapter's filter, and the garbage its entries leave (peak RSS).
   * Measured 2026-12-07 on the seed scale at a tenth as Dubbo 3.3 with Nacos servers, no faults, one QPS flow rule
   * on one service of each provider group (10,000 provider JVMs, ~60 calls each): 457-460 MB against 349-359
   * MB without the rules.
   */
  bytesPerSentinelJvm: 10_500,
  /**
   * A provider instance's export whose URL may activate ExecuteLimitFilter or TpsLimitFilter (`executes`, `tps`,
   * `methods.<m>.executes`, or such a key in `params`): its parsed URL, the filters' counts and the garbage of
   * their checks. Measured 2026-12-07 on the seed scale at a tenth as 3.3 with `executes` and `tps` on one of each
   * process's eight exports: 415 MB against 365 MB without (10,000 such exports).
   */
  bytesPerLimitedExport: 5_000,
  /**
   * A condition rule in one consumer reference's router chain (every reference builds a router for each
   * `type: condition` entry of `routers` that is not for another service, whatever its scope and key): the
   * parsed conditions and the router's state. Measured 2026-12-07 on the seed scale at a tenth as 3.3 (6,400
   * references in cohorts): one application-scoped rule 407 MB, two 453 MB, none 363 MB.
   */
  bytesPerConditionRouter: 7_000,
  /**
   * A tag rule of `routers` in one consumer reference's tag router (every reference's chain gets each one not given
   * for another service). Measured as `bytesPerConditionRouter`: one keyed tag rule 393 MB against 363 MB without.
   */
  bytesPerTagRule: 4_500,
  /**
   * One provider in a consumer group's consistenthash ring of a service (the ring is shared by the group's instances
   * holding the list: 160 points, each a double and its owner's list index; the address's own points are shared by
   * every ring it is in, and lists on the same addresses in the same order share a ring, so this is an upper bound).
   * Measured 2026-12-07 on the seed scale as 3.3 with consistenthash references (1,000 groups, two services,
   * 200 providers a list): 1,871 MB against 1,597 MB with random; at a tenth 392-405 MB against 358-381 MB. Before
   * the points were shared by an address's invoker URLs it was 2.5 KB (2,344 MB at full size, 459 MB at a tenth).
   */
  bytesPerHashRingProvider: 800,
  /**
   * One timeline bucket: counters during the run (a bucket's latency histograms are pooled once its last
   * request ends), then its row in the summary, written to JSON and CSV in pieces (whole-process peak RSS
   * of dual-zone-baseline with `--out`, bucket 100 ms against 0.8 ms: 2.3-2.4 KB per row, 4.4 KB before
   * the rows were built lean; M/M/c at 16 requests/s over 62,500 s, 100 s against 0.4 s: 0.75 KB).
   */
  bytesPerBucket: 2_400,
  /**
   * One row of `timelineByZone` / `timelineByProviderGroup` (one per zone or provider group and
   * bucket, while they fit `MAX_SCOPE_TIMELINE_ROWS`): its counters and its summary object (M/M/c over
   * 62,500 s with `--out`, 1 s buckets, 125,000 such rows, against 0.4 s without them: ~540 B each in peak RSS;
   * 950 B before the rows were built lean).
   */
  bytesPerScopeRow: 500,
  /**
   * What the command keeps of each finished simulation until the last one ends (seeds, strategies,
   * cells), per character of its summary's JSON (`summaryChars`): the objects, then the heap's growth
   * around them. Fitted on peak RSS of `run --seeds N` at 1,000 to 20,000 seeds of summaries of 2.8,
   * 7 and 50 KB (the slope of peak RSS over N: 3-5 bytes per character, the larger summaries highest), with
   * the heap growing by half; refitted to 4 when the CLI child's heap went to growing by a quarter (20,000 tiny
   * seeds on 2 threads: 492-541 MB measured, 579 estimated; 5 gave 631, 27% high).
   */
  bytesPerSummaryChar: 4,
  /**
   * A thread that runs simulation after simulation peaks higher than one simulation does (V8 keeps
   * the old generation's garbage and a grown young generation between them): the estimate lifts each
   * thread to the young generation's maximum, reached at this many simulations per thread and in
   * proportion below (`run --seeds 300..20000` of tiny scenarios on 2 threads: 190 MB at 150 per
   * thread, 340-500 MB from 1,000 on).
   */
  simulationsPerThreadAtMaxYoung: 1_000,
  /** One request in flight: its record, generator frames, timers, messages and its provider thread. */
  bytesPerInFlight: 7_000,
  /** Round robin's weights per (consumer instance, provider) once used. */
  bytesPerRoundRobinEntry: 60,
  /**
   * RpcStatus per (consumer instance, provider), where something counts calls in it: `actives` (the
   * ActiveLimitFilter). Least active and shortest response without `actives` only read statuses that
   * nothing has counted, and keep none.
   */
  bytesPerRpcStatusEntry: 60,
  /** Adaptive's per-provider metrics with their RpcStatus, per (consumer instance, provider). */
  bytesPerAdaptiveEntry: 100,
  /**
   * One (consumer zone, service method) metrics cell: two latency histograms at most, of 9,216 bins or more,
   * one byte a bin until a bin holds 255 values and two until one holds 65,535 (a busy cell: 2 x 18 KB).
   */
  bytesPerCell: 40_000,
  /** One entry of a registry snapshot kept alive by queued deliveries, with the consumer side's copies. */
  bytesPerSnapshotEntry: 110,
  /** One queued push delivery. */
  bytesPerDelivery: 160,
  /**
   * One call waiting in a provider's unbounded queue (`queues < 0`, overloaded): its message, invocation and
   * the pool's queue entry (one provider with 1 thread at 5,000/s for 20 and 60 s and 20,000/s for 30 s:
   * 0.3 to 1.8 million calls queued, 420 B each beside 4.4 KB per request in flight).
   */
  bytesPerQueuedCall: 400,
  /** Kernel events per request and per extra attempt (arrival, messages, execution, timers). */
  eventsPerRequest: 4.5,
} as const;

/** Load balancers that keep state per provider in each consumer instance once used: bytes per (instance, provider). */
const STATEFUL_LOAD_BALANCES: Record<string, number> = {
  roundrobin: COST_MODEL.bytesPerRoundRobinEntry,
  adaptive: COST_MODEL.bytesPerAdaptiveEntry,
};

/** The estimated cost of one simulation. Counts may be Infinity for absurd inputs. */
export interface CostEstimate {
  simulatedMs: number;
  measuredMs: number;
  bucketMs: number;
  /** Timeline buckets over the measured window. */
  buckets: number;
  /** Requests the consumer groups start (rate × duration, traffic faults included). */
  edgeRequests: number;
  /** Requests of call graphs' downstream calls, one attempt per call upstream. */
  downstreamRequests: number;
  /** edge + downstream: what a healthy run simulates. */
  requests: number;
  /** Every call taking all its retries, at every tier. */
  requestsWorstCase: number;
  /** Attempts sent: retries expected from timeouts and overload, forking and broadcast included. */
  attempts: number;
  /** Attempts when every call takes all its retries, at every tier. */
  attemptsWorstCase: number;
  /**
   * Attempts to services whose providers refuse connections in a `crash`-mode fault: the consumer
   * instances that set those providers aside route lists of their own; the wall-time estimate's input.
   */
  refusedServiceAttempts: number;
  /** Kernel events in all. */
  events: number;
  /** Registry: provider heartbeats / pings, one per liveness loop (a process at one level) and tick. */
  heartbeats: number;
  /**
   * Registry: the records a tick hears besides its loop's first (a process's other exports at interface
   * level): work inside the tick's event, not kernel events of their own.
   */
  heartbeatRecords: number;
  /** Registry: pushes delivered to subscribers after list changes. */
  pushDeliveries: number;
  consumerInstances: number;
  /**
   * Consumer groups simulated per instance that `cohorts: on` would simulate as representatives (more instances
   * than representatives), and their instances: what the hint of a refusal over consumer references names.
   */
  perInstanceGroups: number;
  perInstanceGroupInstances: number;
  /**
   * Why those groups are per instance: `cohorts: off`, or what keeps `auto` per instance (`loadbalance roundrobin
   * keeps state per process`), the reason of the most instances first, with how many others there are; null when none.
   */
  perInstanceReason: string | null;
  /**
   * Consumer groups of several instances simulated per instance because they are no larger than their
   * representatives (fewer `representatives` would make cohorts of them), and their instances.
   */
  smallGroups: number;
  smallGroupInstances: number;
  /** Consumer references (instance × service), call-graph consumer sides included. */
  references: number;
  /**
   * The invokers attempts pick from: per consumer side (a consumer group, whose instances or a cohort's
   * representatives share them, or a provider group's downstream calls), the providers at start of each
   * service it calls. The wall-time estimate's measure of how much state the attempts spread over.
   */
  invokers: number;
  /** The provider lists attempts pick from: one per consumer side (as for `invokers`) and service it calls. */
  lists: number;
  /** Exports beyond each provider process's first (processes at start and started by faults): each is built and registered. */
  extraExports: number;
  providersAtStart: number;
  /** Provider instances started by faults (scale-out, restarts, replacements of crashed ones). */
  providersAddedByFaults: number;
  /** Requests in flight (Little's law over the edge and downstream calls, in the busiest load phase). */
  inFlight: number;
  /** Calls waiting in overloaded unbounded provider queues (`queues < 0`) at their longest. */
  queuedCalls: number;
  /** The registry's worst instant (`registryBurstOf`): when, its list changes and the provider groups changed; null without one. */
  registryBurst: RegistryBurst | null;
  /** The most retries a call with traffic may take (failover-like clusters). */
  maxRetries: number;
  /** What keeping this simulation's summary until a command's last simulation ends costs (bytes). */
  summaryBytes: number;
  /** Peak memory of one simulation, in MB, and its parts. */
  memoryMb: MemoryEstimate;
}

/** Peak memory of one simulation in MB, by what holds it. */
export interface MemoryEstimate {
  total: number;
  base: number;
  consumers: number;
  providers: number;
  timeline: number;
  inFlight: number;
  loadBalancers: number;
  metrics: number;
  registry: number;
  queues: number;
}

const MB = 1024 * 1024;

/** Per service: the provider groups exporting it. */
function providersByService(scenario: Scenario): Map<string, ProviderGroupSpec[]> {
  const out = new Map<string, ProviderGroupSpec[]>();
  for (const g of scenario.providers) {
    for (const s of g.services) {
      let list = out.get(s);
      if (list === undefined) out.set(s, (list = []));
      list.push(g);
    }
  }
  return out;
}

function splitKey(key: string): [string, string] {
  const dot = key.lastIndexOf('.');
  return [key.slice(0, dot), key.slice(dot + 1)];
}

/** The pings or heartbeats of one provider instance per simulated ms, under `spec`. */
function ticksPerMs(spec: RegistrySpec): number {
  if (spec.type === 'static') return 0;
  if (spec.type === 'nacos') return 1 / Math.max(1, spec.heartbeatMs);
  const half = spec.sessionTimeoutMs / 3;
  return 1 / Math.max(1, Math.min(half > 1000 ? half - 1000 : half, 10_000));
}

/**
 * Whether the URL a provider group registers for `service` may activate ExecuteLimitFilter or TpsLimitFilter: an
 * `executes` or `tps` setting of the export, or such a key (or its `<method>.` form) among the URL's `params`.
 */
function mayActivateLimitFilter(g: ProviderGroupSpec, service: string): boolean {
  const e = g.exports[service];
  if (e !== undefined && (e.executes !== undefined || e.tps !== undefined || Object.values(e.methods).some((mm) => mm.executes !== undefined))) return true;
  const limitKey = (k: string) => k === 'executes' || k === 'tps' || k.endsWith('.executes') || k.endsWith('.tps');
  return Object.keys(g.params).some(limitKey) || Object.keys(e?.params ?? {}).some(limitKey);
}

/** Estimates the cost of one simulation of `scenario` (any seed). */
export function estimateCost(scenario: Scenario): CostEstimate {
  const m = COST_MODEL;
  const simulatedMs = scenario.durationMs;
  const measuredMs = Math.max(0, scenario.durationMs - scenario.warmupMs);
  const buckets = Math.max(0, Math.ceil(measuredMs / scenario.bucketMs));
  const byService = providersByService(scenario);
  const providerCount = (service: string) => (byService.get(service) ?? []).reduce((s, g) => s + g.count, 0);

  // Providers that refuse connections (`crash` mode) are set aside by every reference to their services.
  const refusing = new Set<string>();
  for (const fault of scenario.faults) {
    const a = fault.action;
    if (a.kind !== 'zoneDown' && a.kind !== 'crash') continue;
    if ((a.mode ?? (a.kind === 'crash' ? 'crash' : 'blackhole')) !== 'crash') continue;
    const service = a.kind === 'crash' ? a.service : undefined;
    for (const g of targetGroups(scenario, { zone: a.zone, service, group: a.group, instance: a.instance })) for (const s of g.services) refusing.add(s);
  }

  // Requests and attempts, tier by tier (estimate-call-graph.ts).
  const traffic = countTraffic(scenario, edgeRequestsByGroup(scenario), refusing);
  const { edgeRequests, downstreamRequests, attempts, refusedServiceAttempts, inFlight, queuedCalls } = traffic;
  const requests = edgeRequests + downstreamRequests;
  // Simulated requests (all tiers) per simulated second: what sets the young generation's size.
  const ratePerSec = simulatedMs > 0 ? requests / (simulatedMs / 1000) : 0;

  // Instances, references, registry.
  const named = Object.keys(scenario.registries).length > 0;
  const registries = named ? Object.values(scenario.registries) : [scenario.registry];
  const discovery = registries.filter((r) => r.type !== 'static');
  // A provider group registers with the `registries:` entries it names (default: every one).
  const registryNames = new Map(named ? Object.entries(scenario.registries).map(([name, r]) => [r, name] as const) : []);
  const registersWith = (g: ProviderGroupSpec, r: RegistrySpec) => {
    const name = registryNames.get(r);
    return name === undefined || g.registries === undefined || g.registries.includes(name);
  };
  const pushLagMaxMs = Math.max(0, ...discovery.map((r) => 3 * distMeanMs(r.pushLag)));
  const churn = providerChurn(scenario, Number.isFinite(pushLagMaxMs) ? pushLagMaxMs : 0);
  const providersAtStart = scenario.providers.reduce((s, g) => s + g.count, 0);
  const providersAddedByFaults = [...churn.added.values()].reduce((s, n) => s + n, 0);
  const consumerInstances = scenario.consumers.reduce((s, c) => s + c.instances, 0);
  const subscribers = new Map<string, number>();
  const addSubs = (service: string, n: number) => subscribers.set(service, (subscribers.get(service) ?? 0) + n);
  let references = 0;
  // Of `references`, those of provider processes to the services their methods call (`bytesPerDownstreamReference`).
  let downstreamReferences = 0;
  let perInstanceGroups = 0;
  let perInstanceGroupInstances = 0;
  const perInstanceWhy = new Map<string, number>();
  let smallGroups = 0;
  let smallGroupInstances = 0;
  let loadBalancerBytes = 0;
  // JVMs that load Sentinel rules (SentinelHub: its rules, or a `sentinel` fault that may give it some).
  const sentinelTargets = sentinelFaultTargets(scenario);
  const sentinelJvm = (application: string, own: SentinelSpec | undefined) => loadsSentinel(effectiveSentinel(scenario.sentinel, own), application, sentinelTargets);
  let consumerSentinelJvms = 0;
  let providerSentinelJvms = 0;
  // Rules each reference to a service builds its own router state for (`buildRouter`: all but another service's).
  const ruleBytes = (service: string) =>
    scenario.routers
      .filter((r) => r.service === undefined || r.service === service)
      .reduce((sum, r) => sum + (r.type === 'condition' ? m.bytesPerConditionRouter : r.type === 'tag' ? m.bytesPerTagRule : 0), 0);
  let routerRuleBytes = 0;
  // Who subscribes: per consumer side (a consumer group, or a provider group's downstream calls) its instances and services.
  const sides: ConsumerSide[] = [];
  scenario.consumers.forEach((c) => {
    const services = new Set(Object.keys(c.calls).map((k) => splitKey(k)[0]));
    // A cohort (SPEC 2.12) simulates its representatives: they hold the state and get the push events.
    const plan = cohortPlan(c, scenario);
    const simulated = plan?.members.length ?? c.instances;
    if (plan === null && c.instances > (c.representatives ?? DEFAULT_REPRESENTATIVES)) {
      perInstanceGroups++;
      perInstanceGroupInstances += c.instances;
      const why = (c.cohorts ?? 'auto') === 'off' ? 'cohorts: off' : (perInstanceReason(c, scenario) ?? `auto: under ${AUTO_COHORT_INSTANCES.toLocaleString('en-US')} instances in an estate under ${AUTO_COHORT_ESTATE_INSTANCES.toLocaleString('en-US')}`);
      perInstanceWhy.set(why, (perInstanceWhy.get(why) ?? 0) + c.instances);
    } else if (plan === null && c.instances > 1) {
      smallGroups++;
      smallGroupInstances += c.instances;
    }
    if (sentinelJvm(c.application, c.sentinel)) consumerSentinelJvms += simulated;
    sides.push({ instances: simulated, services, dubbo: c.dubbo, reference: c.reference, defaults: c.consumerDefaults.parameters, zone: c.zone });
    for (const s of services) {
      addSubs(s, simulated);
      // Several registries (`registries:`): a reference keeps a directory, router chain and subscription at each
      // registry its group subscribes to, under its zone-aware cluster.
      const refs = simulated * (named ? (c.registries?.length ?? registries.length) : 1);
      references += refs;
      routerRuleBytes += refs * ruleBytes(s);
      const ref = c.reference[s];
      const lbs = [ref?.loadbalance ?? c.consumerDefaults.loadbalance ?? 'random', ...Object.values(ref?.methods ?? {}).map((r) => r.loadbalance)];
      // `actives` puts the ActiveLimitFilter in the chain, which counts every call in an RpcStatus.
      const actives = [ref?.actives ?? c.consumerDefaults.actives, ...Object.values(ref?.methods ?? {}).map((r) => r.actives)];
      const counted = actives.some((a) => a !== undefined && a > 0) ? m.bytesPerRpcStatusEntry : 0;
      const perEntry = Math.max(counted, ...lbs.map((lb) => (lb === undefined ? 0 : (STATEFUL_LOAD_BALANCES[lb] ?? 0))));
      loadBalancerBytes += simulated * providerCount(s) * perEntry;
      // consistenthash: one ring per list the group's instances share (and method), whatever their number.
      if (lbs.includes('consistenthash')) loadBalancerBytes += providerCount(s) * m.bytesPerHashRingProvider;
    }
  });
  let extraExports = 0;
  let limitedExports = 0;
  let providerRegistryBytes = 0;
  for (const g of scenario.providers) {
    const instances = g.count + (churn.added.get(g.name) ?? 0);
    extraExports += instances * Math.max(0, g.services.length - 1);
    if (sentinelJvm(g.application, g.sentinel)) providerSentinelJvms += instances;
    limitedExports += instances * g.services.filter((svc) => mayActivateLimitFilter(g, svc)).length;
    let registeredAt = 0;
    for (const r of discovery) {
      if (!registersWith(g, r)) continue;
      if (registeredAt++ > 0) {
        const client = r.type === 'zookeeper' && modelsServers(r) ? m.bytesPerFurtherZookeeperClient : 0;
        providerRegistryBytes += instances * (m.bytesPerFurtherRegistration + g.services.length * m.bytesPerFurtherRegistrationExport + client);
      }
      const levels = registerLevels(r, g.dubbo);
      if (levels.application && levels.interface) providerRegistryBytes += instances * m.bytesPerDualRegistration;
      if (r.type === 'nacos' && modelsServers(r)) providerRegistryBytes += instances * m.bytesPerNacosServerClient;
    }
    const downstream = new Set(g.services.flatMap((s) => Object.values(scenario.services[s]?.methods ?? {}).flatMap((mm) => mm.calls.map((c) => c.service))));
    for (const s of downstream) {
      addSubs(s, instances);
      references += instances;
      downstreamReferences += instances;
      routerRuleBytes += instances * ruleBytes(s);
    }
    if (downstream.size > 0) {
      const reference = Object.fromEntries(
        g.services.flatMap((svc) => Object.values(scenario.services[svc]?.methods ?? {}).flatMap((mm) => mm.calls.map((c) => [c.service, c.reference] as const))),
      );
      sides.push({ instances, services: downstream, dubbo: g.dubbo, reference, zone: g.zone });
    }
  }
  let invokers = 0;
  let lists = 0;
  for (const side of sides) {
    lists += side.services.size;
    for (const s of side.services) invokers += providerCount(s);
  }
  let setAsideReferences = 0;
  for (const side of sides) for (const s of side.services) if (refusing.has(s)) setAsideReferences += side.instances;

  const providerInstances = providersAtStart + providersAddedByFaults;
  let heartbeats = 0;
  let heartbeatRecords = 0;
  for (const r of discovery) {
    // A process ticks once per interval at each level it registers at, however many records it keeps there
    // (one per export at interface level): DiscoveryRegistry's liveness loop runs its records in one step.
    for (const g of scenario.providers) {
      if (!registersWith(g, r)) continue;
      const levels = registerLevels(r, g.dubbo);
      const loops = (levels.interface && g.services.length > 0 ? 1 : 0) + (levels.application ? 1 : 0);
      const records = (levels.interface ? g.services.length : 0) + (levels.application ? 1 : 0);
      const ticks = (g.count + (churn.added.get(g.name) ?? 0)) * ticksPerMs(r) * simulatedMs;
      heartbeats += ticks * loops;
      heartbeatRecords += ticks * (records - loops);
    }
  }
  const byLevel = pushDeliveriesOf(scenario, discovery, sides, churn);
  const pushDeliveries = byLevel.interface + byLevel.application;
  const events = m.eventsPerRequest * (requests + Math.max(0, attempts - requests)) + heartbeats + pushDeliveries;

  // Memory.
  const registryBurst = discovery.length === 0 ? null : registryBurstOf(scenario, discovery, churn.bursts, subscribers);
  const burstBytes = registryBurst?.bytes ?? 0;
  const memory = {
    base: m.baseMb + Math.min(m.youngGenerationMaxMb, m.youngGenerationMinMb + (ratePerSec * m.bytesPerRequestPerSec) / MB),
    consumers:
      ((references - downstreamReferences) * m.bytesPerReference + downstreamReferences * m.bytesPerDownstreamReference + setAsideReferences * m.bytesPerSetAsideReference + routerRuleBytes + consumerSentinelJvms * m.bytesPerSentinelJvm) /
      MB,
    providers: (providerInstances * m.bytesPerProvider + extraExports * m.bytesPerExtraExport + providerRegistryBytes + providerSentinelJvms * m.bytesPerSentinelJvm + limitedExports * m.bytesPerLimitedExport) / MB,
    timeline: (buckets * m.bytesPerBucket + scopeTimelineRows(scenario, buckets) * m.bytesPerScopeRow) / MB,
    inFlight: (inFlight * m.bytesPerInFlight) / MB,
    loadBalancers: loadBalancerBytes / MB,
    metrics: (traffic.cells * m.bytesPerCell) / MB,
    queues: (queuedCalls * m.bytesPerQueuedCall) / MB,
    registry: burstBytes / MB,
  };
  const total = Object.values(memory).reduce((s, x) => s + x, 0);
  const summaryBytes = summaryChars(scenario, buckets, traffic.callerZones, traffic.methods) * m.bytesPerSummaryChar;

  return {
    simulatedMs,
    measuredMs,
    bucketMs: scenario.bucketMs,
    buckets,
    edgeRequests,
    downstreamRequests,
    requests,
    requestsWorstCase: traffic.requestsWorstCase,
    attempts,
    attemptsWorstCase: traffic.attemptsWorstCase,
    refusedServiceAttempts,
    events,
    heartbeats,
    heartbeatRecords,
    pushDeliveries,
    consumerInstances,
    perInstanceGroups,
    perInstanceReason: perInstanceReasonText(perInstanceWhy),
    perInstanceGroupInstances,
    smallGroups,
    smallGroupInstances,
    references,
    invokers,
    lists,
    extraExports,
    providersAtStart,
    providersAddedByFaults,
    inFlight,
    queuedCalls,
    registryBurst,
    maxRetries: traffic.maxRetries,
    summaryBytes,
    memoryMb: { total, ...memory },
  };
}

/**
 * The registry's memory at its worst instant: every list change made at one instant (a fault's, over every
 * group it changes) is pushed to the subscribers at once, and each push's list (a snapshot of the whole list,
 * with the consumer side's copies once delivered) lives until it is delivered and replaced, so k changes of a
 * list of n keep some k · (n + k / 2) entries, and k × subscribers deliveries, alive together. A list is the
 * group's services' (every group exporting them: a zone's providers coming back land in lists that still hold
 * the other zone's). `bytesPerSnapshotEntry` covers up to `SNAPSHOT_LISTS` subscribed lists per change (the
 * group's subscribed services at interface level, and its application's list); a group with more scales it.
 * Fitted (December 2026, peak RSS of the CLI) on a dark zone coming back at once under Nacos without servers,
 * 3.3 clients, applications of 16 services with 200 providers a zone, four services and the application's list
 * subscribed: 25 applications 818 MB (estimated 770 MB), 250 applications 7.24 GB (estimated 6.48 GB).
 */
export function registryBurstOf(
  scenario: Scenario,
  discovery: readonly RegistrySpec[],
  bursts: readonly ChurnBurst[],
  subscribers: ReadonlyMap<string, number>,
): RegistryBurst | null {
  const byName = new Map(scenario.providers.map((g) => [g.name, g]));
  // Per service, the instances of every group exporting it.
  const listed = new Map<string, number>();
  for (const h of scenario.providers) for (const s of new Set(h.services)) listed.set(s, (listed.get(s) ?? 0) + h.count);
  const perInstant = new Map<number, RegistryBurst>();
  // A registry that merges a list's changes (`pushRate`, Nacos's push delay when it is a server) pushes each
  // list once per window: the changes of one instant keep one snapshot of each list queued.
  const merged = discovery.every(mergesPushes);
  for (const b of bursts) {
    const g = byName.get(b.group);
    if (g === undefined) continue;
    // The other groups' instances in the same lists (the largest list of the group's services).
    let others = 0;
    for (const s of g.services) others = Math.max(others, (listed.get(s) ?? 0) - g.count);
    const subscribed = g.services.filter((s) => (subscribers.get(s) ?? 0) > 0);
    const appList = discovery.some((r) => registerLevels(r, g.dubbo).application) && subscribed.length > 0 ? 1 : 0;
    const lists = Math.max(1, (subscribed.length + appList) / SNAPSHOT_LISTS);
    const deliveries = Math.max(0, ...g.services.map((s) => subscribers.get(s) ?? 0));
    const pushed = merged ? 1 : b.changes;
    const bytes = pushed * (b.listSize + others + b.changes / 2) * COST_MODEL.bytesPerSnapshotEntry * lists + pushed * deliveries * COST_MODEL.bytesPerDelivery;
    const at = perInstant.get(b.atMs) ?? { atMs: b.atMs, changes: 0, groups: 0, bytes: 0 };
    at.changes += b.changes;
    at.groups++;
    at.bytes += bytes;
    perInstant.set(b.atMs, at);
  }
  let worst: RegistryBurst | null = null;
  for (const at of perInstant.values()) if (worst === null || at.bytes > worst.bytes) worst = at;
  return worst;
}

/** The reason of the most instances (the first of equals), and how many other reasons there are. */
function perInstanceReasonText(instancesByReason: ReadonlyMap<string, number>): string | null {
  let top: string | null = null;
  let most = -1;
  for (const [why, n] of instancesByReason) if (n > most) [top, most] = [why, n];
  const others = instancesByReason.size - 1;
  return top === null ? null : others === 0 ? top : `${top}, and ${others} other reason${others === 1 ? '' : 's'}`;
}

/** Whether `r` merges the changes of a list into fewer pushes: `pushRate`, or Nacos as a server (its 500 ms push delay, `pushDelay`). */
function mergesPushes(r: RegistrySpec): boolean {
  if (r.pushRate !== undefined) return true;
  return nacosServerPushDelayMs(r) !== undefined;
}

/** The list changes a fault makes at one instant, over every provider group it changes, and what they keep queued. */
export interface RegistryBurst {
  atMs: number;
  changes: number;
  groups: number;
  bytes: number;
}

/** The lists with subscribers per change that `bytesPerSnapshotEntry` covers (see `registryBurstOf`). */
const SNAPSHOT_LISTS = 2;
