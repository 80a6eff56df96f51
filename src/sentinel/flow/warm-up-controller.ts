/**
 * Warm up (Guava's SmoothWarmingUp as Sentinel adapts it): tokens pile up while traffic is low, and
 * while they are above the warning line the allowed QPS climbs from count/coldFactor to count as
 * they are used. Follows sentinel-core `slots/block/flow/controller/WarmUpController.java`.
 */
import type { StatisticNode } from '../statistic-node.js';
import { BLOCK, PASS, type CanPass, type TrafficShapingController } from './traffic-shaping-controller.js';

/** Java's `Math.nextUp` for a positive finite double. */
export function nextUp(x: number): number {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  buf.setBigUint64(0, buf.getBigUint64(0) + 1n);
  return buf.getFloat64(0);
}

/** Sentinel `WarmUpController`. */
export class WarmUpController implements TrafficShapingController {
  protected readonly count: number;
  readonly #coldFactor: number;
  readonly warningToken: number;
  readonly maxToken: number;
  protected readonly slope: number;
  storedTokens = 0;
  lastFilledTime = 0;

  constructor(count: number, warmUpPeriodInSec: number, coldFactor: number) {
    if (coldFactor <= 1) throw new Error('Cold factor should be larger than 1');
    this.count = count;
    this.#coldFactor = coldFactor;
    // Java: (int)(warmUpPeriodInSec * count) / (coldFactor - 1), integer division.
    this.warningToken = Math.trunc(Math.trunc(warmUpPeriodInSec * count) / (coldFactor - 1));
    this.maxToken = this.warningToken + Math.trunc((2 * warmUpPeriodInSec * count) / (1.0 + coldFactor));
    this.slope = (coldFactor - 1.0) / count / (this.maxToken - this.warningToken);
  }

  canPass(node: StatisticNode, acquireCount: number, nowMs: number): CanPass {
    const passQps = Math.trunc(node.passQps(nowMs));
    const previousQps = Math.trunc(node.previousPassQps(nowMs));
    this.syncToken(previousQps, nowMs);
    const restToken = this.storedTokens;
    if (restToken >= this.warningToken) {
      const aboveToken = restToken - this.warningToken;
      const warningQps = nextUp(1.0 / (aboveToken * this.slope + 1.0 / this.count));
      return passQps + acquireCount <= warningQps ? PASS : BLOCK;
    }
    return passQps + acquireCount <= this.count ? PASS : BLOCK;
  }

  /** `syncToken`: once per second, refill (coolDownTokens) and take the previous second's passes. */
  protected syncToken(passQps: number, nowMs: number): void {
    const currentTime = nowMs - (nowMs % 1000);
    if (currentTime <= this.lastFilledTime) return;
    this.storedTokens = this.#coolDownTokens(currentTime, passQps);
    this.storedTokens -= passQps;
    if (this.storedTokens < 0) this.storedTokens = 0;
    this.lastFilledTime = currentTime;
  }

  #coolDownTokens(currentTime: number, passQps: number): number {
    const oldValue = this.storedTokens;
    let newValue = oldValue;
    if (oldValue < this.warningToken) {
      newValue = Math.trunc(oldValue + ((currentTime - this.lastFilledTime) * this.count) / 1000);
    } else if (oldValue > this.warningToken) {
      // Java: passQps < (int) count / coldFactor, integer division.
      if (passQps < Math.trunc(Math.trunc(this.count) / this.#coldFactor)) {
        newValue = Math.trunc(oldValue + ((currentTime - this.lastFilledTime) * this.count) / 1000);
      }
    }
    return Math.min(newValue, this.maxToken);
  }
}
