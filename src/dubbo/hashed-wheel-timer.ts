/**
 * When DefaultFuture's timeout task fires: `DefaultFuture.TIME_OUT_TIMER`, one HashedWheelTimer per
 * JVM with 30 ms ticks (512 buckets), started by the first request the JVM sends. The wheel's worker
 * wakes at `startTime + (k + 1) * tick` for tick k, moves the timeouts added since into their buckets
 * (`deadline / tick`, never a tick already past) and expires those of bucket k; so a timeout added at
 * `t` with delay `d` fires at `startTime + (floor((t + d - startTime) / tick) + 1) * tick`, 0 to 30 ms
 * after its deadline. Owns only that JVM's start time and request counter; no clock, no agenda.
 * Follows dubbo-common `timer/HashedWheelTimer.java` (2.7 lines 399-405, 429-528; the same in 3.3)
 * and dubbo-remoting `exchange/support/DefaultFuture.java` (2.7 lines 55-58, 94).
 */

/** `DefaultFuture.TIME_OUT_TIMER`'s tick (`new HashedWheelTimer(..., 30, TimeUnit.MILLISECONDS)`). */
export const FUTURE_TIMER_TICK_MS = 30;

/** The timeout wheel of one JVM (one simulated consumer instance, or a provider's consumer side). */
export class HashedWheelTimer {
  /** The JVM's host, for the messages that name the channel's local address. */
  readonly host: string;
  readonly tickMs: number;
  /** `startTime`: when the worker started (the JVM's first request); undefined before. */
  #startMs: number | undefined;
  /** Requests sent so far (Dubbo's `Request.INVOKE_ID`, which also counts heartbeats). */
  #requests = 0;

  constructor(host: string, tickMs: number = FUTURE_TIMER_TICK_MS) {
    this.host = host;
    this.tickMs = tickMs;
  }

  /** A request leaves now: the first one starts the wheel. Returns its id (0, 1, ...). */
  sent(nowMs: number): number {
    this.#startMs ??= nowMs;
    return this.#requests++;
  }

  /** When a timeout of `delayMs` added at `nowMs` fires (HashedWheelTimer.Worker's tick that expires it). */
  expiryMs(nowMs: number, delayMs: number): number {
    const start = (this.#startMs ??= nowMs);
    // transferTimeoutsToBuckets: `Math.max(deadline / tickDuration, tick)`, with tick the one whose end
    // comes first after `nowMs`; that tick expires it at its end.
    const tick = Math.max(Math.floor((nowMs + delayMs - start) / this.tickMs), Math.floor((nowMs - start) / this.tickMs));
    return start + (tick + 1) * this.tickMs;
  }
}
