/**
 * The rate limiter (leaky bucket, `controlBehavior: 2`): requests pass one every
 * `statDurationMs / count` ms; one that would wait longer than `maxQueueingTimeMs` is rejected, the
 * others sleep until their slot. Follows sentinel-core `slots/block/flow/controller/ThrottlingController.java`.
 */
import { BLOCK, PASS, type CanPass, type TrafficShapingController } from './traffic-shaping-controller.js';

const MS_TO_NS_OFFSET = 1_000_000;

/** Sentinel `ThrottlingController` (RateLimitController before 1.8). */
export class ThrottlingController implements TrafficShapingController {
  readonly #maxQueueingTimeMs: number;
  readonly #statDurationMs: number;
  readonly #count: number;
  readonly useNanoSeconds: boolean;
  /** `latestPassedTime`: ms, or ns with `useNanoSeconds`. */
  latestPassedTime = -1;

  constructor(queueingTimeoutMs: number, maxCountPerStat: number, statDurationMs = 1000) {
    this.#maxQueueingTimeMs = queueingTimeoutMs;
    this.#count = maxCountPerStat;
    this.#statDurationMs = statDurationMs;
    // Nanoseconds when durationMs % count != 0 or count / durationMs > 1.
    this.useNanoSeconds = maxCountPerStat > 0 && (statDurationMs % Math.round(maxCountPerStat) !== 0 || maxCountPerStat / statDurationMs > 1);
  }

  canPass(_node: unknown, acquireCount: number, nowMs: number, nanoTime: number): CanPass {
    if (acquireCount <= 0) return PASS;
    if (this.#count <= 0) return BLOCK;
    return this.useNanoSeconds
      ? this.#check(acquireCount, nanoTime, Math.round((MS_TO_NS_OFFSET * this.#statDurationMs * acquireCount) / this.#count), this.#maxQueueingTimeMs * MS_TO_NS_OFFSET, MS_TO_NS_OFFSET)
      : this.#check(acquireCount, nowMs, Math.round((this.#statDurationMs * acquireCount) / this.#count), this.#maxQueueingTimeMs, 1);
  }

  // checkPassUsingNanoSeconds and checkPassUsingCachedMs are one algorithm in two units.
  #check(_acquireCount: number, currentTime: number, costTime: number, maxQueueingTime: number, unitsPerMs: number): CanPass {
    const expectedTime = costTime + this.latestPassedTime;
    if (expectedTime <= currentTime) {
      this.latestPassedTime = currentTime;
      return PASS;
    }
    let waitTime = costTime + this.latestPassedTime - currentTime;
    if (waitTime > maxQueueingTime) return BLOCK;
    const oldTime = (this.latestPassedTime += costTime);
    waitTime = oldTime - currentTime;
    if (waitTime > maxQueueingTime) {
      this.latestPassedTime -= costTime;
      return BLOCK;
    }
    return waitTime > 0 ? { pass: true, waitMs: waitTime / unitsPerMs } : PASS;
  }
}
