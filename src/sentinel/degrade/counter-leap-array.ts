/**
 * The breakers' own one-bucket windows over `statIntervalMs`: a total and a second count (errors or
 * slow requests). Follows the nested `SimpleErrorCounter`/`SlowRequestCounter` and their LeapArrays in
 * sentinel-core `ExceptionCircuitBreaker.java` and `ResponseTimeCircuitBreaker.java`.
 */
import { LeapArray, type WindowWrap } from '../leap-array.js';

/** One bucket: `flagged` is errorCount or slowCount, `total` is totalCount. */
export class FlagCounter {
  flagged = 0;
  total = 0;
  reset(): this {
    this.flagged = 0;
    this.total = 0;
    return this;
  }
}

/** `SimpleErrorCounterLeapArray` / `SlowRequestLeapArray`. */
export class CounterLeapArray extends LeapArray<FlagCounter> {
  newEmptyBucket(): FlagCounter {
    return new FlagCounter();
  }
  protected resetWindowTo(w: WindowWrap<FlagCounter>, startTime: number): WindowWrap<FlagCounter> {
    w.resetTo(startTime);
    w.value.reset();
    return w;
  }

  /** Sum of the buckets valid at `nowMs` (what `handleStateChangeWhenThresholdExceeded` adds up). */
  sums(nowMs: number): { flagged: number; total: number } {
    let flagged = 0;
    let total = 0;
    for (const c of this.values(nowMs)) {
      flagged += c.flagged;
      total += c.total;
    }
    return { flagged, total };
  }
}
