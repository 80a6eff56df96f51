/**
 * The consumer's per-provider view for the adaptive (P2C) balancer: requests, successes and errors
 * it sent, the pick time, and the latest provider report (time, CPU load, response time) folded
 * into an EWMA. Owns the `load` formula and the hand-over from balancer to filter (the invocation
 * attributes Dubbo keeps on `Invocation.getAttributes()`). Does not decide anything: the balancer
 * compares loads, the filter feeds reports. Follows dubbo-rpc-api `AdaptiveMetrics.java`.
 */
import type { Clock, Invoker, RpcInvocation } from '../rpc.js';

/** Dubbo `Constants.ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY`. */
export const ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY = 'lb_adaptive';

/** A provider's report as AdaptiveLoadBalanceFilter assembles it (`curTime`, `load`, `rt`). */
export interface ProviderMetrics {
  curTime?: number;
  load?: number;
  rt?: number;
}

/** One `address:protocolServiceKey` entry. */
class AdaptiveMetricsEntry {
  currentProviderTime = 0;
  providerCPULoad = 0;
  lastLatency = 0;
  currentTime = 0;
  pickTime: number;
  beta = 0.5;
  consumerReq = 0;
  consumerSuccess = 0;
  errorReq = 0;
  ewma = 0;

  constructor(nowMs: number) {
    this.pickTime = nowMs;
  }
}

/** The table of entries (an application-scoped bean in Dubbo; one per consumer instance here). */
export class AdaptiveMetrics {
  readonly #clock: Clock;
  readonly #metricsStatistics = new Map<string, AdaptiveMetricsEntry>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** System.currentTimeMillis: the consumer clock in whole milliseconds. */
  currentTimeMillis(): number {
    return Math.floor(this.#clock.now());
  }

  /**
   * Dubbo `getLoad`: 0 ("force pick") when not picked for over 2×timeout; otherwise decays or
   * penalises the latency, then `cpuLoad·(√ewma+1)·(inflight+1) / ((success/(req+1))·weight+1)`.
   */
  getLoad(idKey: string, weight: number, timeoutMs: number): number {
    const metrics = this.#getStatus(idKey);
    const now = this.currentTimeMillis();
    if (now - metrics.pickTime > timeoutMs * 2) return 0;
    if (metrics.currentTime > 0) {
      const multiple = Math.trunc((now - metrics.currentTime) / timeoutMs) + 1;
      if (multiple > 0) {
        // As in Dubbo: the first getLoad after a provider report (currentTime still equals the
        // report's time) applies the 2×timeout penalty; later ones halve the latency per period.
        if (metrics.currentProviderTime === metrics.currentTime) metrics.lastLatency = timeoutMs * 2;
        else metrics.lastLatency = Math.floor(metrics.lastLatency / 2 ** (multiple & 63));
        metrics.ewma = metrics.beta * metrics.ewma + (1 - metrics.beta) * metrics.lastLatency;
        metrics.currentTime = now;
      }
    }
    const inflight = metrics.consumerReq - metrics.consumerSuccess - metrics.errorReq;
    return (
      (metrics.providerCPULoad * (Math.sqrt(metrics.ewma) + 1) * (inflight + 1)) /
      ((metrics.consumerSuccess / (metrics.consumerReq + 1)) * weight + 1)
    );
  }

  /** Requests sent minus answered (successes and errors) for `idKey`. */
  getInflight(idKey: string): number {
    const m = this.#getStatus(idKey);
    return m.consumerReq - m.consumerSuccess - m.errorReq;
  }

  addConsumerReq(idKey: string): void {
    this.#getStatus(idKey).consumerReq++;
  }

  addConsumerSuccess(idKey: string): void {
    this.#getStatus(idKey).consumerSuccess++;
  }

  addErrorReq(idKey: string): void {
    this.#getStatus(idKey).errorReq++;
  }

  setPickTime(idKey: string, timeMs: number): void {
    this.#getStatus(idKey).pickTime = timeMs;
  }

  /** Dubbo `setProviderMetrics`: ignores reports older than the last one, then folds `rt` into the EWMA. */
  setProviderMetrics(idKey: string, report: ProviderMetrics): void {
    const metrics = this.#getStatus(idKey);
    const serviceTime = Math.trunc(report.curTime ?? 0);
    if (metrics.currentProviderTime > serviceTime) return;
    metrics.currentProviderTime = serviceTime;
    metrics.currentTime = serviceTime;
    metrics.providerCPULoad = report.load ?? 0;
    metrics.lastLatency = Math.trunc(report.rt ?? 0);
    metrics.beta = 0.5;
    metrics.ewma = metrics.beta * metrics.ewma + (1 - metrics.beta) * metrics.lastLatency;
  }

  #getStatus(idKey: string): AdaptiveMetricsEntry {
    let m = this.#metricsStatistics.get(idKey);
    if (m === undefined) {
      m = new AdaptiveMetricsEntry(this.currentTimeMillis());
      this.#metricsStatistics.set(idKey, m);
    }
    return m;
  }
}

// PERF: the key depends only on the invoker's URL, so it is built once per invoker object.
const serviceKeys = new WeakMap<Invoker, string>();

/** `address:protocolServiceKey` of an invoker (Dubbo `buildServiceKey`). */
export function adaptiveServiceKey(invoker: Invoker): string {
  let key = serviceKeys.get(invoker);
  if (key === undefined) {
    const url = invoker.getUrl();
    key = `${url.getAddress()}:${url.getServiceKey()}:${url.protocol}`;
    serviceKeys.set(invoker, key);
  }
  return key;
}

/** What the balancer leaves on the invocation for the filter (Dubbo's invocation attributes). */
export interface AdaptiveAttributes {
  /** The metrics table of the balancer that picked (Dubbo: the shared bean). */
  metrics: AdaptiveMetrics;
  /** `ADAPTIVE_LOADBALANCE_START_TIME`: the consumer clock at the pick. */
  startTimeMs: number;
}

// DIVERGENCE: RpcInvocation has no attribute map; a weak side table keyed by the invocation holds
// what Dubbo stores in `invocation.getAttributes()` (start time, `loadbalance=adaptive`).
const attributes = new WeakMap<RpcInvocation, AdaptiveAttributes>();

/** Marks the invocation as balanced by `adaptive` (what `getAttributes().put(LOADBALANCE_KEY, ...)` does). */
export function setAdaptiveAttributes(invocation: RpcInvocation, value: AdaptiveAttributes): void {
  attributes.set(invocation, value);
}

/** The adaptive marks of the invocation, if an adaptive balancer picked for it. */
export function getAdaptiveAttributes(invocation: RpcInvocation): AdaptiveAttributes | undefined {
  return attributes.get(invocation);
}
