/**
 * The verdict on a recommendation: is the scenario re-run with it worse than the scenario as
 * written on the objective? The objective is `errorRate` (every outcome but `ok`, over all
 * calls), then `latencyAllMs.p99` (the p99 of all calls, so timeouts count). It owns that
 * comparison only; which runs are compared is `recommend-verification.ts`'s.
 *
 * Two runs of different configurations never see the same random draws, so the comparison allows
 * for noise: error rates decide when they differ by more than a two-proportion z-test at 95%
 * (|Δ| > 1.96 · √(p̄(1−p̄)(1/n₁ + 1/n₂)), p̄ the pooled rate); otherwise the p99 of all calls
 * decides when it differs by more than `P99_SLACK` (2%: the histogram's 0.1% error and the
 * run-to-run spread of a p99 over ~10^4-10^5 calls); otherwise the two are even.
 */
import type { ScopeSummary } from '../metrics/summary.js';

/** The objective, as `recommend --json` names it. */
export const RECOMMEND_OBJECTIVE = 'errorRate,latencyAllMs.p99';

/** Relative difference of the p99 of all calls below which two runs are even on it. */
export const P99_SLACK = 0.02;

/** How `after` compares with `before` on the objective. */
export interface ObjectiveComparison {
  /** -1: after is better, 0: even (within noise), 1: after is worse. */
  order: -1 | 0 | 1;
  /** Which figure decided (`errorRate`, `latencyAllMs.p99`), or null when even. */
  decidedBy: 'errorRate' | 'latencyAllMs.p99' | null;
  /** One line for people: the figures and why they decide. */
  reason: string;
}

/** The figures the objective reads from a scope. */
export type ObjectiveFigures = Pick<ScopeSummary, 'requests' | 'errorRate'> & { latencyAllMs: Pick<ScopeSummary['latencyAllMs'], 'p99'> };

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Whether two error rates differ beyond sampling error (two-proportion z-test, 95%). */
export function errorRatesDiffer(a: ObjectiveFigures, b: ObjectiveFigures): boolean {
  if (a.errorRate === b.errorRate) return false;
  if (a.requests === 0 || b.requests === 0) return true;
  const pooled = (a.errorRate * a.requests + b.errorRate * b.requests) / (a.requests + b.requests);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.requests + 1 / b.requests));
  return Math.abs(a.errorRate - b.errorRate) > 1.96 * se;
}

/** Compares `after` with `before` on the objective (error rate of all calls, then their p99). */
export function compareObjective(before: ObjectiveFigures, after: ObjectiveFigures): ObjectiveComparison {
  const errors = `error rate ${pct(before.errorRate)} -> ${pct(after.errorRate)}`;
  if (errorRatesDiffer(before, after)) {
    const worse = after.errorRate > before.errorRate;
    return { order: worse ? 1 : -1, decidedBy: 'errorRate', reason: `${errors} (${worse ? 'worse' : 'better'} beyond sampling error)` };
  }
  const b = before.latencyAllMs.p99;
  const a = after.latencyAllMs.p99;
  const p99 = `p99 of all calls ${ms(b)} -> ${ms(a)}`;
  const even = `${errors} (even within sampling error)`;
  if (Math.abs(a - b) > P99_SLACK * Math.max(a, b)) {
    const worse = a > b;
    return { order: worse ? 1 : -1, decidedBy: 'latencyAllMs.p99', reason: `${even}; ${p99} (${worse ? 'worse' : 'better'})` };
  }
  return { order: 0, decidedBy: null, reason: `${even}; ${p99} (even within ${P99_SLACK * 100}%)` };
}

/** The better of two candidates on the objective; the first on a tie. */
export function better<T>(a: { figures: ObjectiveFigures; value: T }, b: { figures: ObjectiveFigures; value: T }): { figures: ObjectiveFigures; value: T } {
  return compareObjective(a.figures, b.figures).order < 0 ? b : a;
}
