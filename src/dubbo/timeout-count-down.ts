/**
 * A call's time budget as Dubbo 3 carries it through a call graph (`enable-timeout-countdown`): a
 * deadline fixed when the provider's ContextFilter sees the caller's `_TO` attachment, read by the
 * downstream calls made while the provider executes. It owns no clock: every read takes the
 * simulated now. Follows dubbo-rpc-api `TimeoutCountDown.java` (Dubbo 3.3).
 */

/** A deadline `timeoutMs` after the moment it was created (Dubbo `TimeoutCountDown`). */
export class TimeoutCountDown {
  /** The budget it started with (`getTimeoutInMilli`). */
  readonly timeoutMs: number;
  /** When the budget runs out (simulated ms). */
  readonly deadlineMs: number;

  private constructor(timeoutMs: number, nowMs: number) {
    this.timeoutMs = timeoutMs;
    this.deadlineMs = nowMs + timeoutMs;
  }

  /** `TimeoutCountDown.newCountDown(timeout, MILLISECONDS)` at `nowMs`. */
  static newCountDown(timeoutMs: number, nowMs: number): TimeoutCountDown {
    return new TimeoutCountDown(timeoutMs, nowMs);
  }

  /** No time left: `deadlineInNanos - System.nanoTime() <= 0`. */
  isExpired(nowMs: number): boolean {
    return remainingNanos(this.deadlineMs, nowMs) <= 0;
  }

  /**
   * What is left in whole ms, truncated toward zero as `TimeUnit.convert` does (negative once past
   * the deadline); `RpcUtils.calculateTimeout` uses it as the attempt's timeout.
   */
  timeRemainingMs(nowMs: number): number {
    return Math.trunc(remainingNanos(this.deadlineMs, nowMs) / 1e6) + 0;
  }
}

// Dubbo counts in System.nanoTime; simulated ms are doubles, whose sums carry rounding noise far
// below a nanosecond (1000 - 2 may come out as 997.9999999999). Rounding to whole nanoseconds first
// keeps that noise from costing a whole millisecond in the truncation.
function remainingNanos(deadlineMs: number, nowMs: number): number {
  return Math.round((deadlineMs - nowMs) * 1e6);
}
