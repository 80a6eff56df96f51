/**
 * Sentinel's statistics of one resource (or one origin of it, or all inbound traffic): a second
 * window (SAMPLE_COUNT 2 buckets over INTERVAL 1000 ms, Sentinel's defaults), a minute window (60
 * buckets of 1 s) and the current thread count. Every read and write takes the time in whole
 * milliseconds (`nowMs`), where Java reads TimeUtil. Follows sentinel-core `node/StatisticNode.java`
 * and the defaults of `node/SampleCountProperty.java` and `node/IntervalProperty.java`.
 */
import { ArrayMetric } from './array-metric.js';

/** `SampleCountProperty.SAMPLE_COUNT`: buckets of the second window. */
export const SAMPLE_COUNT = 2;
/** `IntervalProperty.INTERVAL`: the second window's length. */
export const INTERVAL_MS = 1000;

/** One statistic node (Sentinel `StatisticNode`). */
export class StatisticNode {
  readonly rollingCounterInSecond = new ArrayMetric(SAMPLE_COUNT, INTERVAL_MS);
  /** Null when nothing will read it (see the constructor). */
  readonly rollingCounterInMinute: ArrayMetric | null;
  #curThreadNum = 0;

  /**
   * `minuteWindow: false` leaves the minute window out. PERF: only the warm-up controllers read it
   * (`previousPassQps`); a JVM whose rules can never hold one (its Sph says) keeps 60 buckets less per node.
   */
  constructor(minuteWindow = true) {
    this.rollingCounterInMinute = minuteWindow ? new ArrayMetric(60, 60 * 1000) : null;
  }

  passQps(nowMs: number): number {
    return this.rollingCounterInSecond.pass(nowMs) / this.rollingCounterInSecond.windowIntervalInSec;
  }
  blockQps(nowMs: number): number {
    return this.rollingCounterInSecond.block(nowMs) / this.rollingCounterInSecond.windowIntervalInSec;
  }
  successQps(nowMs: number): number {
    return this.rollingCounterInSecond.success(nowMs) / this.rollingCounterInSecond.windowIntervalInSec;
  }
  exceptionQps(nowMs: number): number {
    return this.rollingCounterInSecond.exception(nowMs) / this.rollingCounterInSecond.windowIntervalInSec;
  }
  /** `previousPassQps`: the pass count of the previous second (minute window). */
  previousPassQps(nowMs: number): number {
    return this.rollingCounterInMinute?.previousWindowPass(nowMs) ?? 0;
  }
  /** `maxSuccessQps`: the busiest bucket's success count scaled to a second. */
  maxSuccessQps(nowMs: number): number {
    const m = this.rollingCounterInSecond;
    return (m.maxSuccess(nowMs) * m.sampleCount) / m.windowIntervalInSec;
  }
  /** `avgRt`: total RT / successes in the second window (0 without a success). */
  avgRt(nowMs: number): number {
    const success = this.rollingCounterInSecond.success(nowMs);
    return success === 0 ? 0 : this.rollingCounterInSecond.rt(nowMs) / success;
  }
  minRt(nowMs: number): number {
    return this.rollingCounterInSecond.minRt(nowMs);
  }
  curThreadNum(): number {
    return this.#curThreadNum;
  }

  addPassRequest(count: number, nowMs: number): void {
    this.rollingCounterInSecond.addPass(count, nowMs);
    this.rollingCounterInMinute?.addPass(count, nowMs);
  }
  addRtAndSuccess(rt: number, successCount: number, nowMs: number): void {
    // PERF: one bucket lookup per window for both counts.
    const b = this.rollingCounterInSecond.bucket(nowMs);
    b.success += successCount;
    b.addRT(rt);
    const m = this.rollingCounterInMinute?.bucket(nowMs);
    if (m !== undefined) {
      m.success += successCount;
      m.addRT(rt);
    }
  }
  increaseBlockQps(count: number, nowMs: number): void {
    this.rollingCounterInSecond.addBlock(count, nowMs);
    this.rollingCounterInMinute?.addBlock(count, nowMs);
  }
  increaseExceptionQps(count: number, nowMs: number): void {
    this.rollingCounterInSecond.addException(count, nowMs);
    this.rollingCounterInMinute?.addException(count, nowMs);
  }
  increaseThreadNum(): void {
    this.#curThreadNum++;
  }
  decreaseThreadNum(): void {
    this.#curThreadNum--;
  }
}
