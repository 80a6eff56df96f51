/**
 * The verdict on a recommendation: is the scenario re-run with it worse than the scenario as
 * written on the objective? The objective is `errorRate` (every outcome but `ok`, over all
 * calls), then `latencyAllMs.p99` (the p99 of all calls, so timeouts count). It owns that
 * comparison only; which runs are compared is `recommend-verification.ts`'s.
 *
 * Two runs of different configurations never see the same random draws, so the comparison allows
 * for noise: error rates decide when they differ by more than a two-proportion z-test at 95%
 * (|Δ| > 1.96 · √(p̄(1−p̄)(1/n₁ + 1/n₂)), p̄ the pooled rate); otherwise the p99 of all calls
 * decides when it differs by more than its sampling error at 95% (`p99StandardError`) and by more than
 * `P99_SLACK` (2%: the histogram's 0.1% error and the spread of a p99 over ~10^5 calls); otherwise the
 * two are even. Judged one scope at a time, a recommendation has a 5% chance of a verdict either way by chance
 * alone; judged over many methods at once (an estate's thousands), `familyZ` widens both bands so that all of
 * them together have that chance (Bonferroni).
 */
import { probit } from 'simple-statistics';
import type { ScopeSummary } from '../metrics/summary.js';

/** The two-sided 95% normal quantile: one comparison's band is this many standard errors wide. */
export const Z_95 = 1.96;

/**
 * The band, in standard errors, for `comparisons` two-sided comparisons made together at a 5% family-wise error
 * rate (Bonferroni: each at 5% / comparisons): 1.96 for one, 2.24 for 2, 2.49 for 4, 3.47 for 100, 4.20 for
 * 2,000 (simple-statistics' probit, within 0.4% of the exact quantile). Without it, 2,000 methods compared at
 * 95% each find ~100 of them better or worse by chance (at the seed scale, 60 recommendations rejected on noise).
 */
export function familyZ(comparisons: number): number {
  if (!(comparisons > 1)) return Z_95;
  return Math.max(Z_95, probit(1 - 0.025 / comparisons));
}

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

/** The figures the objective reads from a scope (p90 and p999 size the p99's sampling error when given). */
export type ObjectiveFigures = Pick<ScopeSummary, 'requests' | 'errorRate'> & {
  latencyAllMs: Pick<ScopeSummary['latencyAllMs'], 'p99'> & Partial<Pick<ScopeSummary['latencyAllMs'], 'p90' | 'p999'>>;
};

/**
 * The standard error of the p99 of all calls, in ms: the p99 of n calls misses the true one by √(0.99 · 0.01 / n)
 * in probability (the binomial count of calls below it), which the latency's quantile function turns into ms at its
 * slope there. The slope is read off the quantiles around the p99: the geometric mean of the slopes from p90 to
 * p99 and from p99 to p999 (for a lognormal, 0.81 to 0.83 of its own slope at the p99 for σ from 0.3 to 2). 0 when
 * p90 or p999 is unknown or there are no calls. Over 5,800 calls of a lognormal of p50 5 ms and p99 50 ms it is
 * 2.0 ms (3.9% of the p99: two such runs differ beyond noise from 5.4 ms, 11%), over 10^5 calls 0.47 ms (0.9%),
 * over 10^6 calls 0.15 ms.
 */
export function p99StandardError(f: ObjectiveFigures): number {
  const { p90, p99, p999 } = f.latencyAllMs;
  if (p90 === undefined || p999 === undefined || !(f.requests > 0)) return 0;
  const slope = Math.sqrt((Math.max(0, p99 - p90) / 0.09) * (Math.max(0, p999 - p99) / 0.009));
  return slope * Math.sqrt((0.99 * 0.01) / f.requests);
}

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** Whether two error rates differ beyond sampling error (two-proportion z-test, 95% unless `z` says otherwise). */
export function errorRatesDiffer(a: ObjectiveFigures, b: ObjectiveFigures, z: number = Z_95): boolean {
  if (a.errorRate === b.errorRate) return false;
  if (a.requests === 0 || b.requests === 0) return true;
  const pooled = (a.errorRate * a.requests + b.errorRate * b.requests) / (a.requests + b.requests);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.requests + 1 / b.requests));
  return Math.abs(a.errorRate - b.errorRate) > z * se;
}

/**
 * Compares `after` with `before` on the objective (error rate of all calls, then their p99), each beyond `z`
 * standard errors of its sampling error (1.96: 95%; `familyZ` when many scopes are judged together).
 */
export function compareObjective(before: ObjectiveFigures, after: ObjectiveFigures, z: number = Z_95): ObjectiveComparison {
  const errors = `error rate ${pct(before.errorRate)} -> ${pct(after.errorRate)}`;
  if (errorRatesDiffer(before, after, z)) {
    const worse = after.errorRate > before.errorRate;
    return { order: worse ? 1 : -1, decidedBy: 'errorRate', reason: `${errors} (${worse ? 'worse' : 'better'} beyond sampling error)` };
  }
  const b = before.latencyAllMs.p99;
  const a = after.latencyAllMs.p99;
  const p99 = `p99 of all calls ${ms(b)} -> ${ms(a)}`;
  const even = `${errors} (even within sampling error)`;
  const noise = z * Math.hypot(p99StandardError(before), p99StandardError(after));
  const slack = P99_SLACK * Math.max(a, b);
  if (Math.abs(a - b) > Math.max(slack, noise)) {
    const worse = a > b;
    return { order: worse ? 1 : -1, decidedBy: 'latencyAllMs.p99', reason: `${even}; ${p99} (${worse ? 'worse' : 'better'})` };
  }
  const within = noise > slack ? `sampling error, ±${ms(noise)}` : `${P99_SLACK * 100}%`;
  return { order: 0, decidedBy: null, reason: `${even}; ${p99} (even within ${within})` };
}

/** The better of two candidates on the objective; the first on a tie. */
export function better<T>(a: { figures: ObjectiveFigures; value: T }, b: { figures: ObjectiveFigures; value: T }): { figures: ObjectiveFigures; value: T } {
  return compareObjective(a.figures, b.figures).order < 0 ? b : a;
}
