/**
 * Slow-request ratio breaking (`grade: 0`): an entry slower than `count` ms is slow; over
 * `statIntervalMs` (one bucket), once `minRequestAmount` entries completed, a slow ratio above
 * `slowRatioThreshold` (or equal to it when it is 1.0) opens the breaker; in HALF_OPEN the probe's
 * RT decides. Follows sentinel-core `slots/block/degrade/circuitbreaker/ResponseTimeCircuitBreaker.java`.
 */
import type { DegradeRule } from '../rules.js';
import { AbstractCircuitBreaker, type CompletedEntry, type StateChangeObserver } from './abstract-circuit-breaker.js';
import { CounterLeapArray } from './counter-leap-array.js';

const SLOW_REQUEST_RATIO_MAX_VALUE = 1.0;

/** Sentinel `ResponseTimeCircuitBreaker`. */
export class ResponseTimeCircuitBreaker extends AbstractCircuitBreaker {
  readonly #maxAllowedRt: number;
  readonly #stat: CounterLeapArray;

  constructor(rule: DegradeRule, observer?: StateChangeObserver) {
    super(rule, observer);
    this.#maxAllowedRt = Math.round(rule.count);
    this.#stat = new CounterLeapArray(1, rule.statIntervalMs);
  }

  protected resetStat(nowMs: number): void {
    this.#stat.currentWindow(nowMs)!.value.reset();
  }

  onRequestComplete(entry: CompletedEntry, nowMs: number): void {
    const counter = this.#stat.currentWindow(nowMs)!.value;
    const completeTime = entry.completeTimestamp > 0 ? entry.completeTimestamp : nowMs;
    const rt = completeTime - entry.createTimestamp;
    if (rt > this.#maxAllowedRt) counter.flagged++;
    counter.total++;
    this.#handleStateChange(rt, nowMs);
  }

  #handleStateChange(rt: number, nowMs: number): void {
    if (this.currentState === 'OPEN') return;
    if (this.currentState === 'HALF_OPEN') {
      if (rt > this.#maxAllowedRt) this.fromHalfOpenToOpen(1.0, nowMs);
      else this.fromHalfOpenToClose(nowMs);
      return;
    }
    const { flagged, total } = this.#stat.sums(nowMs);
    if (total < this.rule.minRequestAmount) return;
    const ratio = flagged / total;
    const max = this.rule.slowRatioThreshold;
    if (ratio > max) this.transformToOpen(ratio, nowMs);
    if (ratio === max && max === SLOW_REQUEST_RATIO_MAX_VALUE) this.transformToOpen(ratio, nowMs);
  }
}
