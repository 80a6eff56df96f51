/**
 * The accumulators of one (consumer zone, service method) cell of measured requests. Each request
 * updates exactly one cell; the whole run, a zone and a service are merges of cells computed once
 * at summary time. It owns the arithmetic of one scope's figures, not attribution or timing.
 */
import { LatencyHistogram } from './histogram.js';
import { BLOCKED_ANSWERED_SUFFIX } from './observer.js';
import { OUTCOMES, ratio, roundRatio, type ScopeSummary } from './summary.js';

/** Counters and latency distributions of the measured requests of one cell (or of a merge of cells). */
export class ScopeCell {
  readonly zone: string;
  /** `service.method`, the key of `byService`. */
  readonly serviceKey: string;
  /** The consumer zone's row in the recorder's zone-pair matrix; -1 for a merge of cells. */
  zoneIndex = -1;
  requests = 0;
  /** Requests per outcome, indexed like `OUTCOMES`. */
  readonly outcomes: number[] = OUTCOMES.map(() => 0);
  attempts = 0;
  crossZoneAttempts = 0;
  staleAttempts = 0;
  executions = 0;
  duplicateExecutions = 0;
  duplicateWrites = 0;
  orphanedExecutions = 0;
  /** Latencies of ok requests. */
  readonly okLatency = new LatencyHistogram();
  /** Latencies of the other requests (latencyAllMs merges both). */
  readonly failedLatency = new LatencyHistogram();
  /** Causes of noProvider/forbidden outcomes; null until the first one. */
  causes: Map<string, number> | null = null;
  /** Causes of rejected outcomes; null until the first one. */
  rejectedCauses: Map<string, number> | null = null;
  /** Causes of mock outcomes; null until the first one. */
  mockCauses: Map<string, number> | null = null;
  /** Causes of blocked outcomes; null until the first one. */
  blockedCauses: Map<string, number> | null = null;

  constructor(zone: string, serviceKey: string) {
    this.zone = zone;
    this.serviceKey = serviceKey;
  }

  /** Counts a cause of a noProvider/forbidden outcome. */
  addCause(cause: string, by = 1): void {
    const causes = (this.causes ??= new Map());
    causes.set(cause, (causes.get(cause) ?? 0) + by);
  }

  /** Counts a cause of a rejected outcome. */
  addRejectedCause(cause: string, by = 1): void {
    const causes = (this.rejectedCauses ??= new Map());
    causes.set(cause, (causes.get(cause) ?? 0) + by);
  }

  /** Counts a cause of a mock outcome. */
  addMockCause(cause: string, by = 1): void {
    const causes = (this.mockCauses ??= new Map());
    causes.set(cause, (causes.get(cause) ?? 0) + by);
  }

  /** Counts a cause of a blocked outcome. */
  addBlockedCause(cause: string, by = 1): void {
    const causes = (this.blockedCauses ??= new Map());
    causes.set(cause, (causes.get(cause) ?? 0) + by);
  }

  /** Adds every figure of `other` to this cell. */
  add(other: ScopeCell): void {
    this.requests += other.requests;
    for (let i = 0; i < OUTCOMES.length; i++) this.outcomes[i]! += other.outcomes[i]!;
    this.attempts += other.attempts;
    this.crossZoneAttempts += other.crossZoneAttempts;
    this.staleAttempts += other.staleAttempts;
    this.executions += other.executions;
    this.duplicateExecutions += other.duplicateExecutions;
    this.duplicateWrites += other.duplicateWrites;
    this.orphanedExecutions += other.orphanedExecutions;
    this.okLatency.add(other.okLatency);
    this.failedLatency.add(other.failedLatency);
    if (other.causes !== null) for (const [cause, n] of other.causes) this.addCause(cause, n);
    if (other.rejectedCauses !== null) for (const [cause, n] of other.rejectedCauses) this.addRejectedCause(cause, n);
    if (other.mockCauses !== null) for (const [cause, n] of other.mockCauses) this.addMockCause(cause, n);
    if (other.blockedCauses !== null) for (const [cause, n] of other.blockedCauses) this.addBlockedCause(cause, n);
  }

  /** The SPEC 4.1 figures of this scope, with deterministic key order and rounding. */
  toSummary(): ScopeSummary {
    const all = new LatencyHistogram();
    all.add(this.okLatency);
    all.add(this.failedLatency);
    const o = this.outcomes;
    const n = this.requests;
    const mock = o[7]!;
    // A blocked call a Sentinel fallback answered with a value is degraded, as a mocked one.
    let answered = 0;
    if (this.blockedCauses !== null) for (const [cause, k] of this.blockedCauses) if (cause.endsWith(BLOCKED_ANSWERED_SUFFIX)) answered += k;
    return {
      requests: n,
      ok: o[0]!,
      outcomes: { ok: o[0]!, timeout: o[1]!, noProvider: o[2]!, rejected: o[3]!, network: o[4]!, forbidden: o[5]!, biz: o[6]!, mock, blocked: o[8]!, lost: o[9]! },
      timeoutRate: roundRatio(ratio(o[1]!, n)),
      noProviderRate: roundRatio(ratio(o[2]!, n)),
      // A mocked request is degraded, not failed: it is neither ok nor an error (SPEC 4).
      errorRate: roundRatio(ratio(n - o[0]! - mock - answered, n)),
      latencyMs: this.okLatency.stats(),
      latencyAllMs: all.stats(),
      attempts: this.attempts,
      retryAmplification: roundRatio(ratio(this.attempts, n)),
      providerExecutions: this.executions,
      duplicateExecutions: this.duplicateExecutions,
      duplicateWrites: this.duplicateWrites,
      orphanedExecutions: this.orphanedExecutions,
      crossZoneRatio: roundRatio(ratio(this.crossZoneAttempts, this.attempts)),
      noProviderCauses: sortedCounts(this.causes),
      rejectedCauses: sortedCounts(this.rejectedCauses),
      // zonesim additions after SPEC 4.1's figures.
      mockRate: roundRatio(ratio(mock, n)),
      mockCauses: sortedCounts(this.mockCauses),
      ...(this.blockedCauses !== null ? { blockedCauses: sortedCounts(this.blockedCauses) } : {}),
    };
  }
}

// Counts by cause with the causes in sorted order (deterministic JSON).
function sortedCounts(causes: Map<string, number> | null): Record<string, number> {
  const out: Record<string, number> = {};
  if (causes !== null) for (const key of [...causes.keys()].sort()) out[key] = causes.get(key)!;
  return out;
}
