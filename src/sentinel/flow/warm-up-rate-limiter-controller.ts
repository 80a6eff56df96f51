/**
 * Warm-up rate limiter (`controlBehavior: 3`): the rate limiter's spacing, at the warming QPS the
 * warm-up tokens give. Follows sentinel-core `slots/block/flow/controller/WarmUpRateLimiterController.java`.
 */
import type { StatisticNode } from '../statistic-node.js';
import { BLOCK, PASS, type CanPass } from './traffic-shaping-controller.js';
import { nextUp, WarmUpController } from './warm-up-controller.js';

/** Sentinel `WarmUpRateLimiterController`. */
export class WarmUpRateLimiterController extends WarmUpController {
  readonly #timeoutInMs: number;
  latestPassedTime = -1;

  constructor(count: number, warmUpPeriodSec: number, timeOutMs: number, coldFactor: number) {
    super(count, warmUpPeriodSec, coldFactor);
    this.#timeoutInMs = timeOutMs;
  }

  override canPass(node: StatisticNode, acquireCount: number, nowMs: number): CanPass {
    const previousQps = Math.trunc(node.previousPassQps(nowMs));
    this.syncToken(previousQps, nowMs);
    const restToken = this.storedTokens;
    let costTime: number;
    if (restToken >= this.warningToken) {
      const aboveToken = restToken - this.warningToken;
      const warmingQps = nextUp(1.0 / (aboveToken * this.slope + 1.0 / this.count));
      costTime = Math.round((acquireCount / warmingQps) * 1000);
    } else {
      costTime = Math.round((acquireCount / this.count) * 1000);
    }
    const expectedTime = costTime + this.latestPassedTime;
    if (expectedTime <= nowMs) {
      this.latestPassedTime = nowMs;
      return PASS;
    }
    let waitTime = costTime + this.latestPassedTime - nowMs;
    if (waitTime > this.#timeoutInMs) return BLOCK;
    const oldTime = (this.latestPassedTime += costTime);
    waitTime = oldTime - nowMs;
    if (waitTime > this.#timeoutInMs) {
      this.latestPassedTime -= costTime;
      return BLOCK;
    }
    return waitTime > 0 ? { pass: true, waitMs: waitTime } : PASS;
  }
}
