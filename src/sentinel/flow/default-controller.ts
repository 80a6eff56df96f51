/**
 * Reject above the threshold: QPS grade compares the second window's pass QPS, thread grade the
 * node's current thread count. Follows sentinel-core `slots/block/flow/controller/DefaultController.java`.
 */
// DIVERGENCE: the prioritized branch (tryOccupyNext) is left out: the Dubbo adapters enter with
// `SphU.entry`, never prioritized.
import { FLOW_GRADE_THREAD } from '../rules.js';
import type { StatisticNode } from '../statistic-node.js';
import { BLOCK, PASS, type CanPass, type TrafficShapingController } from './traffic-shaping-controller.js';

/** Sentinel `DefaultController`. */
export class DefaultController implements TrafficShapingController {
  readonly #count: number;
  readonly #grade: number;

  constructor(count: number, grade: number) {
    this.#count = count;
    this.#grade = grade;
  }

  canPass(node: StatisticNode, acquireCount: number, nowMs: number): CanPass {
    // avgUsedTokens: `(int) node.passQps()` for QPS.
    const cur = this.#grade === FLOW_GRADE_THREAD ? node.curThreadNum() : Math.trunc(node.passQps(nowMs));
    return cur + acquireCount > this.#count ? BLOCK : PASS;
  }
}
