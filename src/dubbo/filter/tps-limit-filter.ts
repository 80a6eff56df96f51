/**
 * The provider filter that allows at most `tps` calls of a service per `tps.interval` (default
 * 60 000 ms) in one provider process, with Dubbo's fixed-window token counter: StatItem,
 * DefaultTPSLimiter (one StatItem per service key) and TpsLimitFilter. Pure: time comes in as
 * `nowMs`; it owns no clock, pool or network. Follows dubbo-rpc-api `filter/TpsLimitFilter.java`,
 * `filter/tps/DefaultTPSLimiter.java` and `filter/tps/StatItem.java` (Dubbo 3.3).
 */
import { DEFAULT_TPS_LIMIT_INTERVAL, RpcCode, TPS_LIMIT_INTERVAL_KEY, TPS_LIMIT_RATE_KEY } from '../constants.js';
import type { RpcError } from '../rpc.js';
import type { URL } from '../url.js';
import { isActivatedBy } from './execute-limit-filter.js';

/**
 * The token window of one service: `rate` tokens, refilled when a call comes more than `interval`
 * after the last refill. Follows `StatItem.java`.
 */
export class StatItem {
  readonly #name: string;
  readonly #rate: number;
  readonly #interval: number;
  #lastResetTime: number;
  #token: number;

  /** The window opens, full, at `nowMs` (Java: `System.currentTimeMillis()` in the constructor). */
  constructor(name: string, rate: number, intervalMs: number, nowMs: number) {
    this.#name = name;
    this.#rate = rate;
    this.#interval = intervalMs;
    this.#lastResetTime = Math.floor(nowMs);
    this.#token = rate;
  }

  /**
   * Refills to `rate` when `now > lastResetTime + interval` (strictly: a call at exactly
   * `lastResetTime + interval` is still in the old window), then takes a token; allowed while the
   * count stays >= 0. A refused call still decrements, so the count goes below 0 until the refill.
   */
  isAllowable(nowMs: number): boolean {
    // Whole milliseconds, as System.currentTimeMillis.
    const now = Math.floor(nowMs);
    if (now > this.#lastResetTime + this.#interval) {
      this.#token = this.#rate;
      this.#lastResetTime = now;
    }
    return --this.#token >= 0;
  }

  getInterval(): number {
    return this.#interval;
  }
  getRate(): number {
    return this.#rate;
  }
  getLastResetTime(): number {
    return this.#lastResetTime;
  }
  getToken(): number {
    return this.#token;
  }
  toString(): string {
    return `StatItem [name=${this.#name}, rate = ${this.#rate}, interval = ${this.#interval}]`;
  }
}

/**
 * Dubbo's in-memory TPSLimiter: one StatItem per `url.getServiceKey()`, shared by all methods of
 * the service, while `rate` and `interval` are read per method. Follows `DefaultTPSLimiter.java`.
 */
export class DefaultTPSLimiter {
  readonly #stats = new Map<string, StatItem>();

  /**
   * Reads `<method>.tps` / `tps` (default -1) and `<method>.tps.interval` / `tps.interval` (default
   * 60 000). With rate > 0: creates the service's StatItem, or re-creates it (full tokens, window
   * from now) when its rate or interval differs, then asks it. With rate <= 0: removes the
   * service's StatItem and allows the call.
   */
  isAllowable(url: URL, methodName: string, nowMs: number): boolean {
    const rate = url.getMethodNumber(methodName, TPS_LIMIT_RATE_KEY, -1);
    const interval = url.getMethodNumber(methodName, TPS_LIMIT_INTERVAL_KEY, DEFAULT_TPS_LIMIT_INTERVAL);
    const serviceKey = url.getServiceKey();
    if (rate > 0) {
      let statItem = this.#stats.get(serviceKey);
      // Two methods of one service with different rates rebuild the shared item on every switch, as in Dubbo.
      if (statItem === undefined || statItem.getRate() !== rate || statItem.getInterval() !== interval) {
        statItem = new StatItem(serviceKey, rate, interval, nowMs);
        this.#stats.set(serviceKey, statItem);
      }
      return statItem.isAllowable(nowMs);
    }
    this.#stats.delete(serviceKey);
    return true;
  }

  /** The service's current StatItem, if any (Dubbo keeps `stats` private; for tests and metrics). */
  getStatItem(serviceKey: string): StatItem | undefined {
    return this.#stats.get(serviceKey);
  }
}

/**
 * The refusal TpsLimitFilter returns: `new RpcException(message)`, so code UNKNOWN_EXCEPTION (0).
 * `serviceInterface` is Java's `invoker.getInterface().getName()`.
 */
export function tpsLimitExceeded(serviceInterface: string, methodName: string): RpcError {
  return {
    code: RpcCode.UNKNOWN_EXCEPTION,
    message: `Failed to invoke service ${serviceInterface}.${methodName} because exceed max service tps.`,
    cause: 'tps:limit',
  };
}

// PERF: activation depends only on the provider URL, which every call of an export shares.
const activeFor = new WeakMap<URL, boolean>();

/**
 * TpsLimitFilter of one provider process. Dubbo's filter is a singleton extension holding one
 * DefaultTPSLimiter, so every service the process exports shares it (keyed by service key).
 */
export class TpsLimitFilter {
  readonly tpsLimiter: DefaultTPSLimiter;

  constructor(tpsLimiter: DefaultTPSLimiter = new DefaultTPSLimiter()) {
    this.tpsLimiter = tpsLimiter;
  }

  /** Dubbo's `@Activate(group = PROVIDER, value = "tps")` for the export's URL. */
  isActive(url: URL): boolean {
    let active = activeFor.get(url);
    if (active === undefined) {
      active = isActivatedBy(url, TPS_LIMIT_RATE_KEY);
      activeFor.set(url, active);
    }
    return active;
  }

  /**
   * The part of `invoke` before `invoker.invoke`: null when the call may run, else the refusal.
   * Java does not throw it: it returns a result carrying the exception, so filters further out see
   * a response (ExecuteLimitFilter ends its count with succeeded = true) and the consumer receives
   * a normal response whose value is the exception.
   */
  admit(url: URL, methodName: string, nowMs: number): RpcError | null {
    if (!this.isActive(url)) return null;
    if (this.tpsLimiter.isAllowable(url, methodName, nowMs)) return null;
    return tpsLimitExceeded(url.getServiceInterface(), methodName);
  }
}
