/**
 * Error ratio (`grade: 1`) and error count (`grade: 2`) breaking: over `statIntervalMs` (one
 * bucket), once at least `minRequestAmount` entries completed, the ratio or count above `count`
 * opens the breaker; in HALF_OPEN the probe's error reopens it, its success closes it. Follows
 * sentinel-core `slots/block/degrade/circuitbreaker/ExceptionCircuitBreaker.java`.
 */
import { DEGRADE_GRADE_EXCEPTION_RATIO, type DegradeRule } from '../rules.js';
import { AbstractCircuitBreaker, type CompletedEntry, type StateChangeObserver } from './abstract-circuit-breaker.js';
import { CounterLeapArray } from './counter-leap-array.js';

/** Sentinel `ExceptionCircuitBreaker`. */
export class ExceptionCircuitBreaker extends AbstractCircuitBreaker {
  readonly #stat: CounterLeapArray;

  constructor(rule: DegradeRule, observer?: StateChangeObserver) {
    super(rule, observer);
    this.#stat = new CounterLeapArray(1, rule.statIntervalMs);
  }

  protected resetStat(nowMs: number): void {
    this.#stat.currentWindow(nowMs)!.value.reset();
  }

  onRequestComplete(entry: CompletedEntry, nowMs: number): void {
    const counter = this.#stat.currentWindow(nowMs)!.value;
    if (entry.error) counter.flagged++;
    counter.total++;
    this.#handleStateChange(entry.error, nowMs);
  }

  #handleStateChange(error: boolean, nowMs: number): void {
    if (this.currentState === 'OPEN') return;
    if (this.currentState === 'HALF_OPEN') {
      if (!error) this.fromHalfOpenToClose(nowMs);
      else this.fromHalfOpenToOpen(1.0, nowMs);
      return;
    }
    const { flagged, total } = this.#stat.sums(nowMs);
    if (total < this.rule.minRequestAmount) return;
    const cur = this.rule.grade === DEGRADE_GRADE_EXCEPTION_RATIO ? flagged / total : flagged;
    if (cur > this.rule.count) this.transformToOpen(cur, nowMs);
  }
}
