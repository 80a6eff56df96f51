/**
 * What a flow rule's controller decides for one entry (Sentinel `TrafficShapingController.canPass`),
 * and the statistics it reads. A rate limiter's `Thread.sleep` becomes a wait the caller makes in
 * simulated time: the controller has already taken the slot, as Java has before it sleeps.
 */
import type { StatisticNode } from '../statistic-node.js';

/** Block, or pass after `waitMs` (0: at once). */
export type CanPass = { pass: false } | { pass: true; waitMs: number };

export const PASS: CanPass = Object.freeze({ pass: true, waitMs: 0 });
export const BLOCK: CanPass = Object.freeze({ pass: false });

/** A flow rule's controller (Sentinel `TrafficShapingController`). */
export interface TrafficShapingController {
  /** `canPass(node, acquireCount, false)` at `nowMs` (whole ms); `nanoTime` stands for System.nanoTime. */
  canPass(node: StatisticNode, acquireCount: number, nowMs: number, nanoTime: number): CanPass;
}
