/**
 * `recommend --verify-grid`: each recommended (service, method) run on a grid of timeouts × retries
 * around the formula's answer, every other method keeping its recommendation, and where the verified
 * optimum sits against the formula. Plans the cells and reads their summaries; running them is the
 * caller's, the formula is `recommend.ts`'s.
 */
import type { Summary } from '../metrics/summary.js';
import { applyRecommendations, type Advice } from './recommend.js';
import { overallScope } from './recommend-verification.js';
import type { Scenario } from '../model/types.js';

/** `recommend --verify-grid`: the timeout multiples of the formula's answer that the grid tries. */
export const VERIFY_TIMEOUT_FACTORS = [0.5, 0.75, 1, 1.25, 1.5, 2];

/** One (service, method) verified on a grid of timeouts × retries around the formula's answer. */
export interface VerifyGridPlan {
  service: string;
  method: string;
  /** The formula's recommendations for this method, one per consumer group. */
  recs: Advice[];
  factors: number[];
  retries: number[];
  /** Timeout factors outermost, retries fastest; every other method keeps its recommendation. */
  cells: Array<{ timeoutFactor: number; retries: number; scenario: Scenario }>;
}

/** The figures of one grid cell, for the method's own scope. */
export interface VerifyGridCell {
  timeoutFactor: number;
  /** The timeout of the first consumer group at this factor (each group scales its own). */
  timeoutMs: number;
  retries: number;
  timeoutRate: number;
  errorRate: number;
  p99Ms: number;
  p99AllMs: number;
  retryAmplification: number;
  duplicateExecutions: number;
  duplicateWrites: number;
}

/** Where the verified optimum sits against the formula, for one method. */
export interface VerifyGridResult {
  service: string;
  method: string;
  formula: { timeoutMs: number; retries: number };
  factors: number[];
  retries: number[];
  cells: VerifyGridCell[];
  /** The lowest p99 over all requests among cells within the target timeout rate (no duplicate writes); null if none. */
  optimum: VerifyGridCell | null;
  /** The smallest timeout factor that meets the target with the formula's retries; null if none on the grid. */
  smallestFactorAtFormulaRetries: number | null;
  verdict: string;
}

const scaled = (timeoutMs: number, factor: number) => Math.max(1, Math.ceil(timeoutMs * factor));

/**
 * The verification grids: for each (service, method), timeouts at `VERIFY_TIMEOUT_FACTORS` of the
 * formula's (per consumer group) × retries 0 … max(2, formula + 1); non-idempotent methods keep
 * retries 0, since a retried write is a duplicate write whatever it buys.
 */
export function verifyGridPlans(scenario: Scenario, recs: Advice[]): VerifyGridPlan[] {
  const byMethod = new Map<string, Advice[]>();
  for (const r of recs) {
    const key = `${r.service}.${r.method}`;
    byMethod.set(key, [...(byMethod.get(key) ?? []), r]);
  }
  const plans: VerifyGridPlan[] = [];
  for (const group of byMethod.values()) {
    const first = group[0]!;
    const idempotent = group.every((r) => r.inputs.idempotent);
    const maxRetries = idempotent ? Math.max(2, ...group.map((r) => r.retries + 1)) : 0;
    const retries = Array.from({ length: maxRetries + 1 }, (_, i) => i);
    const cells: VerifyGridPlan['cells'] = [];
    for (const timeoutFactor of VERIFY_TIMEOUT_FACTORS) {
      for (const n of retries) {
        const mine = new Set(group);
        const applied = recs.map((r) => (mine.has(r) ? { ...r, timeoutMs: scaled(r.timeoutMs, timeoutFactor), retries: n } : r));
        cells.push({ timeoutFactor, retries: n, scenario: applyRecommendations(scenario, applied) });
      }
    }
    plans.push({ service: first.service, method: first.method, recs: group, factors: VERIFY_TIMEOUT_FACTORS, retries, cells });
  }
  return plans;
}

/** Reads a plan's runs (summaries in cell order) against the target timeout rate. */
export function verifyGridResult(plan: VerifyGridPlan, summaries: Summary[], targetTimeoutRate: number): VerifyGridResult {
  const first = plan.recs[0]!;
  const cells: VerifyGridCell[] = plan.cells.map((c, i) => {
    const s = summaries[i]!;
    const x = s.byService[`${plan.service}.${plan.method}`] ?? overallScope(s);
    return {
      timeoutFactor: c.timeoutFactor,
      timeoutMs: scaled(first.timeoutMs, c.timeoutFactor),
      retries: c.retries,
      timeoutRate: x.timeoutRate,
      errorRate: x.errorRate,
      p99Ms: x.latencyMs.p99,
      p99AllMs: x.latencyAllMs.p99,
      retryAmplification: x.retryAmplification,
      duplicateExecutions: x.duplicateExecutions,
      duplicateWrites: x.duplicateWrites,
    };
  });
  const passing = cells.filter((c) => c.timeoutRate <= targetTimeoutRate && c.duplicateWrites === 0);
  // Lowest p99 of all requests; then fewer attempts; then the longer timeout (more slack for the same p99).
  const optimum =
    passing.reduce<VerifyGridCell | null>((best, c) => {
      if (best === null) return c;
      if (c.p99AllMs !== best.p99AllMs) return c.p99AllMs < best.p99AllMs ? c : best;
      if (c.retryAmplification !== best.retryAmplification) return c.retryAmplification < best.retryAmplification ? c : best;
      return c.timeoutFactor > best.timeoutFactor ? c : best;
    }, null);
  const atFormula = passing.filter((c) => c.retries === first.retries).map((c) => c.timeoutFactor);
  const smallestFactorAtFormulaRetries = atFormula.length === 0 ? null : Math.min(...atFormula);
  const formulaCell = cells.find((c) => c.timeoutFactor === 1 && c.retries === first.retries);
  const pct = (r: number) => `${(r * 100).toFixed(3)}%`;
  const words: string[] = [];
  if (formulaCell !== undefined) {
    words.push(
      `the formula (${first.timeoutMs} ms, ${first.retries} ${first.retries === 1 ? 'retry' : 'retries'}) ` +
        `${formulaCell.timeoutRate <= targetTimeoutRate ? 'meets' : 'misses'} the target: timeout ${pct(formulaCell.timeoutRate)}, p99 of all requests ${formulaCell.p99AllMs.toFixed(0)} ms`,
    );
  }
  if (optimum === null) words.push(`no cell of the grid meets the target timeout rate ${targetTimeoutRate}`);
  else if (optimum.timeoutFactor === 1 && optimum.retries === first.retries) words.push('the verified optimum is the formula itself');
  else {
    words.push(
      `the verified optimum is ×${optimum.timeoutFactor} (${optimum.timeoutMs} ms) with ${optimum.retries} ` +
        `${optimum.retries === 1 ? 'retry' : 'retries'}: p99 of all requests ${optimum.p99AllMs.toFixed(0)} ms, ${optimum.retryAmplification.toFixed(3)} attempts/request`,
    );
  }
  if (smallestFactorAtFormulaRetries !== null) {
    words.push(
      smallestFactorAtFormulaRetries < 1
        ? `with ${first.retries} ${first.retries === 1 ? 'retry' : 'retries'} ×${smallestFactorAtFormulaRetries} already meets the target: ` +
            `the formula's timeout is ${(1 / smallestFactorAtFormulaRetries).toFixed(2)}× the smallest passing one on this grid`
        : smallestFactorAtFormulaRetries === 1
          ? 'no smaller timeout on the grid meets the target with the same retries: the formula leaves no margin to spare'
          : `with ${first.retries} ${first.retries === 1 ? 'retry' : 'retries'} the target needs ×${smallestFactorAtFormulaRetries}: the formula's timeout is too short`,
    );
  }
  return {
    service: plan.service,
    method: plan.method,
    formula: { timeoutMs: first.timeoutMs, retries: first.retries },
    factors: plan.factors,
    retries: plan.retries,
    cells,
    optimum,
    smallestFactorAtFormulaRetries,
    verdict: words.join('; ') + '.',
  };
}
