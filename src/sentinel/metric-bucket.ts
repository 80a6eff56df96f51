/**
 * One bucket of Sentinel's request statistics (pass, block, exception, success, total RT, occupied
 * pass, minimum RT) and the LeapArray of them. Follows sentinel-core `slots/statistic/data/MetricBucket.java`,
 * `slots/statistic/metric/BucketLeapArray.java` and `slots/statistic/MetricEvent.java`.
 */
import { LeapArray, type WindowWrap } from './leap-array.js';

/** Sentinel's `SentinelConfig.statisticMaxRt()` default: a bucket's minimum RT starts here. */
export const STATISTIC_MAX_RT = 5000;

/** The counters of one bucket (Sentinel `MetricBucket`, indexed by `MetricEvent`). */
export class MetricBucket {
  pass = 0;
  block = 0;
  exception = 0;
  success = 0;
  rt = 0;
  occupiedPass = 0;
  minRt = STATISTIC_MAX_RT;

  /** `reset`: every counter back to 0, minRt to the max. */
  reset(): this {
    this.pass = this.block = this.exception = this.success = this.rt = this.occupiedPass = 0;
    this.minRt = STATISTIC_MAX_RT;
    return this;
  }

  /** `addRT`: the total, and the minimum (Java's unsynchronised compare-and-set). */
  addRT(rt: number): void {
    this.rt += rt;
    if (rt < this.minRt) this.minRt = rt;
  }
}

/** Sentinel `BucketLeapArray`: a LeapArray of MetricBuckets. */
export class BucketLeapArray extends LeapArray<MetricBucket> {
  newEmptyBucket(): MetricBucket {
    return new MetricBucket();
  }

  protected resetWindowTo(w: WindowWrap<MetricBucket>, startTime: number): WindowWrap<MetricBucket> {
    w.resetTo(startTime);
    w.value.reset();
    return w;
  }
}
