/**
 * The run summary of SPEC 4.1 as types, with the outcome names and the number rounding every
 * figure goes through. It owns the output shape only; the figures are computed by `Recorder`
 * (one run) and `aggregateSummaries` (several seeds), and rendered by the CLI.
 */

/** The outcomes of a request, in the order of SPEC 4.1 `outcomes`. */
export const OUTCOMES = ['ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz'] as const;

/** How one request ended (SPEC 4). */
export type Outcome = (typeof OUTCOMES)[number];

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

/** One timeline bucket: the requests that started in `[tMs, tMs + bucketMs)`. */
export interface TimelineRow {
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
  /** p99 latency of all the bucket's requests (like `latencyAllMs`, so timeouts show). */
  p99Ms: number;
  crossZoneRatio: number;
}

/** A fault marker (zonesim addition): when a fault of the timeline started or ended. */
export interface FaultMarker {
  tMs: number;
  kind: 'start' | 'end';
  label: string;
}

/** SPEC 4.1 summary JSON, with the zonesim additions `noProviderCauses`, `events` and `faults`. */
export interface Summary extends ScopeSummary {
  scenario: string;
  seed: number;
  seeds: number[];
  version: string;
  simulatedMs: number;
  measuredFromMs: number;
  /** `byConsumer` (zonesim addition): pushes and bytes per consumer instance id, over the whole run. */
  registry: {
    pushes: number;
    pushBytes: number;
    staleCalls: number;
    byConsumer: Record<string, { pushes: number; pushBytes: number }>;
  };
  byConsumerZone: Record<string, ScopeSummary>;
  byService: Record<string, ScopeSummary>;
  byProviderGroup: Record<string, ProviderGroupSummary>;
  /** Only in compare output: one summary per strategy. */
  byStrategy?: Record<string, Summary>;
  timeline: TimelineRow[];
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
