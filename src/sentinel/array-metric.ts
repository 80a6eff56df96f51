/**
 * Sentinel's `ArrayMetric`: sums over the buckets of a BucketLeapArray that are still in the window
 * at `nowMs`, after touching the current bucket (which resets a stale slot). Follows sentinel-core
 * `slots/statistic/metric/ArrayMetric.java`.
 */
// DIVERGENCE: the second window is a plain BucketLeapArray, not OccupiableBucketLeapArray: borrowing
// from future windows only serves prioritized entries (`SphU.entryWithPriority`), which the Dubbo
// adapters never make, so the occupied counts stay 0 either way.
import { BucketLeapArray, STATISTIC_MAX_RT, type MetricBucket } from './metric-bucket.js';
import type { WindowWrap } from './leap-array.js';

/** The counters Sentinel sums over a window. */
type Counter = 'pass' | 'block' | 'exception' | 'success' | 'rt' | 'occupiedPass';

/** One sliding window's metric (Sentinel `ArrayMetric`). */
export class ArrayMetric {
  readonly data: BucketLeapArray;

  constructor(sampleCount: number, intervalInMs: number) {
    this.data = new BucketLeapArray(sampleCount, intervalInMs);
  }

  #sum(counter: Counter, nowMs: number): number {
    const data = this.data;
    data.currentWindow(nowMs);
    let n = 0;
    for (let i = 0; i < data.sampleCount; i++) {
      const b = data.validAt(i, nowMs);
      if (b !== null) n += b[counter];
    }
    return n;
  }

  pass(nowMs: number): number {
    return this.#sum('pass', nowMs);
  }
  block(nowMs: number): number {
    return this.#sum('block', nowMs);
  }
  exception(nowMs: number): number {
    return this.#sum('exception', nowMs);
  }
  success(nowMs: number): number {
    return this.#sum('success', nowMs);
  }
  rt(nowMs: number): number {
    return this.#sum('rt', nowMs);
  }

  /** `maxSuccess`: the largest bucket's success count, at least 1. */
  maxSuccess(nowMs: number): number {
    this.data.currentWindow(nowMs);
    let max = 0;
    for (const b of this.data.values(nowMs)) if (b.success > max) max = b.success;
    return Math.max(max, 1);
  }

  /** `minRt`: the smallest bucket minimum, at least 1. */
  minRt(nowMs: number): number {
    this.data.currentWindow(nowMs);
    let rt = STATISTIC_MAX_RT;
    for (const b of this.data.values(nowMs)) if (b.minRt < rt) rt = b.minRt;
    return Math.max(1, rt);
  }

  /** `previousWindowPass`: the pass count of the bucket before the current one (0 when gone). */
  previousWindowPass(nowMs: number): number {
    this.data.currentWindow(nowMs);
    const wrap: WindowWrap<MetricBucket> | null = this.data.getPreviousWindow(nowMs);
    return wrap === null ? 0 : wrap.value.pass;
  }

  /** The current bucket (`data.currentWindow(now).value()`), to add several counts with one lookup. */
  bucket(nowMs: number): MetricBucket {
    return this.data.currentWindow(nowMs)!.value;
  }

  addPass(n: number, nowMs: number): void {
    this.bucket(nowMs).pass += n;
  }
  addBlock(n: number, nowMs: number): void {
    this.bucket(nowMs).block += n;
  }
  addException(n: number, nowMs: number): void {
    this.bucket(nowMs).exception += n;
  }
  addSuccess(n: number, nowMs: number): void {
    this.bucket(nowMs).success += n;
  }
  addRT(rt: number, nowMs: number): void {
    this.bucket(nowMs).addRT(rt);
  }

  /** The window's length in seconds (`getWindowIntervalInSec`). */
  get windowIntervalInSec(): number {
    return this.data.intervalInSecond;
  }
  get sampleCount(): number {
    return this.data.sampleCount;
  }
}
