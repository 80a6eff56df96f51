/**
 * The run summary of SPEC 4.1 as types, with the outcome names and the number rounding every
 * figure goes through. It owns the output shape only; the figures are computed by `Recorder`
 * (one run) and `aggregateSummaries` (several seeds), and rendered by the CLI.
 */

/** The outcomes of a request, in the order of SPEC 4.1 `outcomes`. */
export const OUTCOMES = ['ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz', 'mock', 'blocked', 'lost'] as const;

/** How one request ended (SPEC 4). */
export type Outcome = (typeof OUTCOMES)[number];

/** The outcomes that are failures: every one but `ok` and `mock` (a degraded call, answered by the mock). */
export type FailedOutcome = Exclude<Outcome, 'ok' | 'mock'>;

/** The failed outcomes, in `OUTCOMES` order (what `errorRate` counts). */
export const FAILED_OUTCOMES: readonly FailedOutcome[] = OUTCOMES.filter((o): o is FailedOutcome => o !== 'ok' && o !== 'mock');

/** Count of requests per outcome. */
export type OutcomeCounts = Record<Outcome, number>;

/** Latency figures in milliseconds (3 decimals); mean and max are exact, percentiles from a histogram. */
export interface LatencyStats {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * The request figures of one scope: the whole run, a consumer zone or a service method. The
 * registry block, `simulatedMs` and `measuredFromMs` are run-level only.
 */
export interface ScopeSummary {
  requests: number;
  ok: number;
  outcomes: OutcomeCounts;
  timeoutRate: number;
  noProviderRate: number;
  /** Requests that ended other than `ok` or `mock` (or `blocked` answered by a fallback), / requests. */
  errorRate: number;
  latencyMs: LatencyStats;
  latencyAllMs: LatencyStats;
  attempts: number;
  retryAmplification: number;
  providerExecutions: number;
  duplicateExecutions: number;
  duplicateWrites: number;
  orphanedExecutions: number;
  crossZoneRatio: number;
  /** zonesim addition: noProvider and forbidden outcomes by cause (`unspecified` when none was given). */
  noProviderCauses: Record<string, number>;
  /**
   * zonesim addition: rejected outcomes by cause: `provider:threadpool` (pool exhausted),
   * `provider:executes`, `provider:tps` (provider filters), `consumer:actives`, `entry` (the consumer's own entry pool).
   */
  rejectedCauses: Record<string, number>;
  /**
   * zonesim addition: `mock` outcomes by cause, `<mode>:<kind>`: mode `force` (no provider called) or
   * `fail` (after the cluster failed), kind `return`, `throw` or `impl` (the mock implementation class).
   */
  mockCauses: Record<string, number>;
  /** zonesim addition: `outcomes.mock / requests`, the requests MockClusterInvoker answered. */
  mockRate: number;
  /**
   * zonesim addition, present once a call was blocked: `blocked` outcomes (Sentinel) by cause,
   * `<side>:<slot>` (side `consumer` or `provider`, slot `flow`, `degrade`, `system` or `param`), with
   * `:fallback` appended when a configured fallback answered the call with a value (not a failure).
   */
  blockedCauses?: Record<string, number>;
  /**
   * Only in summaries over several seeds: the 95% confidence half-widths of this scope's main
   * figures (`CI95_FIGURES`), by figure path.
   */
  ci95?: Record<string, number>;
}

/** Provider-side load of one provider group over the whole simulated run (warm-up included). */
export interface ProviderGroupSummary {
  instances: number;
  executions: number;
  rejected: number;
  /** Of the shared pool (isolated executors not included). */
  utilization: number;
  peakActiveThreads: number;
  /** Groups exporting several services: executions and rejections per service. */
  byService?: Record<string, { executions: number; rejected: number }>;
}

/** The request figures of one timeline bucket of one scope (the run, or one consumer zone). */
export interface ScopeTimelineRow {
  tMs: number;
  requests: number;
  ok: number;
  timeout: number;
  noProvider: number;
  rejected: number;
  network: number;
  forbidden: number;
  /** zonesim addition, so that the outcome columns sum to `requests`. */
  biz: number;
  /** Requests MockClusterInvoker answered. */
  mock: number;
  /** Requests Sentinel blocked. */
  blocked: number;
  /** Requests ended because their consumer's room went dark (`roomDown`). */
  lost: number;
  /** p99 latency of all the bucket's requests (like `latencyAllMs`, so timeouts show). */
  p99Ms: number;
  /** zonesim addition: p99 latency of the bucket's `ok` requests only (like `latencyMs`); 0 when none. */
  p99OkMs: number;
  crossZoneRatio: number;
  /**
   * zonesim addition, only when the scenario uses Sentinel: Sentinel circuit breakers of the scope's
   * consumer JVMs not CLOSED (OPEN or HALF_OPEN) at the bucket's end.
   */
  openBreakers?: number;
}

/** One timeline bucket: the requests that started in `[tMs, tMs + bucketMs)`. */
export interface TimelineRow extends ScopeTimelineRow {
  /** Registry notifications delivered to consumer instances during the bucket (SPEC 4). */
  pushes: number;
  /** With registry servers: bytes the registry nodes sent during the bucket. */
  registryBytes?: number;
  /** With registry servers: the busiest node's out-NIC utilization during the bucket, 0..1. */
  registryUtilization?: number;
  /** With registry servers: p99 push lag of the pushes reported during the bucket (ms). */
  pushLagP99Ms?: number;
  /** With registry servers: ZooKeeper sessions the servers expired during the bucket. */
  sessionsExpired?: number;
}

/** One NIC direction of a registry node over the measured window (0 for a NIC without a bandwidth). */
export interface NicUtilization {
  /** The highest utilization of one timeline bucket, 0..1. */
  peakUtilization: number;
  meanUtilization: number;
}

/** SPEC 4 `registry.servers.<node>`: what one registry node did (utilizations over the measured window, counts over the run). */
export interface RegistryServerSummary {
  /** The node's zone (absent for the one node of a registry without a zone). */
  zone?: string;
  nicOut: NicUtilization;
  nicIn: NicUtilization;
  /** Most bytes waiting or being sent on the out NIC at once. */
  peakQueueBytes: number;
  requestsServed: number;
  requestsRefused: number;
  sessionsExpired: number;
  registrationsFailed: number;
  registrationsRetried: number;
  pushesLost: number;
  pushesMerged: number;
  bytesOut: number;
  bytesIn: number;
}

/**
 * zonesim addition: the provider side of one provider group during one timeline bucket (every
 * instance of the group, whichever request the work belongs to).
 */
export interface ProviderTimelineRow {
  tMs: number;
  /** Calls the group started executing on a thread during the bucket. */
  executions: number;
  /** Calls the group refused during the bucket (pool exhausted, executes, tps). */
  rejected: number;
  /** Busy thread-ms of the shared pools during the bucket / (instances x threads x bucket width). */
  utilization: number;
  /** Most threads of one instance's shared pool busy at once during the bucket. */
  peakActiveThreads: number;
}

/** zonesim addition: what `compare` ran under a strategy's name (in each `byStrategy` summary). */
export interface StrategyInfo {
  name: string;
  description: string;
  /** The strategy's overrides, one readable line each (`reference.loadbalance = zoneAware`). */
  settings: string[];
}

/** A fault marker (zonesim addition): when a fault of the timeline started or ended. */
export interface FaultMarker {
  tMs: number;
  kind: 'start' | 'end';
  label: string;
}

/** Registry pushes to one consumer instance (or to each member of a cohort's representative), over the whole run. */
export interface InstancePushes {
  pushes: number;
  pushBytes: number;
}

/** A subscriber's pushes: an instance's, or per member of a cohort's representative with its `members` (when above 1). */
export interface SubscriberPushes extends InstancePushes {
  members?: number;
}

/** The spread of a per-instance figure over a consumer group's instances. */
export interface PushSpread {
  min: number;
  median: number;
  max: number;
}

/**
 * zonesim addition `registry.byConsumerGroup[<group>]`: a consumer group's instances that were pushed to, their
 * pushes and bytes, the spread of each instance's figures, and the instances with the most bytes (ties by id).
 */
export interface ConsumerGroupPushes extends InstancePushes {
  instances: number;
  perInstance: { pushes: PushSpread; pushBytes: PushSpread };
  /** Absent in a mean over seeds (it names one seed's instances). `members`: a cohort's representative's size, when above 1. */
  worst?: Array<SubscriberPushes & { id: string }>;
}

/**
 * SPEC 4.1 summary JSON, with the zonesim additions `noProviderCauses`, `events`, `faults`,
 * `timelineByZone`, `timelineByProviderGroup`, `nonIdempotentMethods` and `strategy`.
 */
export interface Summary extends ScopeSummary {
  scenario: string;
  seed: number;
  seeds: number[];
  version: string;
  simulatedMs: number;
  measuredFromMs: number;
  /**
   * zonesim addition: the scenario's `service.method`s with `idempotent: false`, sorted (their
   * duplicates are `duplicateWrites`; the tables show a `dup writes` column when there is one).
   */
  nonIdempotentMethods?: string[];
  /**
   * Attempts of the measured requests per consumer zone (outer key) and provider zone (inner key),
   * every zone of the scenario in its declared order (SPEC 4). Absent in files of older versions.
   */
  crossZoneByPair?: Record<string, Record<string, number>>;
  /**
   * `byConsumerGroup` (zonesim addition): pushes and bytes per consumer group, with their spread over its
   * instances, over the whole run. `byConsumer` (zonesim addition, only with `--per-instance`): pushes and bytes
   * per consumer instance id (a cohort's representative: per member, with its `members`). `byLevel` (zonesim
   * addition): the same split by discovery level, each level that pushed.
   */
  registry: {
    pushes: number;
    pushBytes: number;
    staleCalls: number;
    byConsumerGroup?: Record<string, ConsumerGroupPushes>;
    byConsumer?: Record<string, SubscriberPushes>;
    byLevel?: { interface?: { pushes: number; pushBytes: number }; application?: { pushes: number; pushBytes: number } };
    /** Only with registry servers (`servers` or `capacity`): each node's figures, by node name. */
    servers?: Record<string, RegistryServerSummary>;
    /** Only with registry servers: lags of the pushes of the measured window (node queueing + transmission + network). */
    pushLagMs?: LatencyStats;
  };
  byConsumerZone: Record<string, ScopeSummary>;
  byService: Record<string, ScopeSummary>;
  byProviderGroup: Record<string, ProviderGroupSummary>;
  /** Only in compare output: one summary per strategy. */
  byStrategy?: Record<string, Summary>;
  timeline: TimelineRow[];
  /** zonesim addition: the timeline of each consumer zone (same buckets; their `requests` sum to the run's). */
  timelineByZone?: Record<string, ScopeTimelineRow[]>;
  /** zonesim addition: the provider side of each provider group, per timeline bucket. */
  timelineByProviderGroup?: Record<string, ProviderTimelineRow[]>;
  /** zonesim addition, only in `byStrategy` summaries of compare output: the strategy that ran. */
  strategy?: StrategyInfo;
  /** Only with several seeds: 95% confidence half-widths of the main figures, by figure path. */
  ci95?: Record<string, number>;
  /** zonesim addition: free-form counters (router.forceEmpty, envoy.*, failback.*), sorted by name. */
  events: Record<string, number>;
  /** zonesim addition: fault markers in time order. */
  faults: FaultMarker[];
}

/** Rounds a latency in milliseconds to 3 decimals (1 µs). */
export function roundMs(x: number): number {
  return Math.round(x * 1e3) / 1e3 + 0;
}

/** Rounds a ratio (or any non-latency figure) to 6 decimals. */
export function roundRatio(x: number): number {
  return Math.round(x * 1e6) / 1e6 + 0;
}

/** `a / b`, or 0 when there is nothing to divide (never NaN). */
export function ratio(a: number, b: number): number {
  return b > 0 ? a / b : 0;
}

/** The figures of a scope with no requests. */
export function emptyLatency(): LatencyStats {
  return { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
}
