/**
 * Verifying `recommend`'s answers: the runs that verify them (the scenario as written, then with
 * every recommendation applied, then, for rejected ones, the alternatives that keep the retries, the
 * timeout or both as written) and the verdicts read from their summaries, per recommendation scope
 * and for the whole scenario, on the objective of `recommend-verdict.ts`. Deriving the
 * recommendations is `recommend.ts`'s; running the simulations is the caller's.
 */
import type { ScopeSummary, Summary } from '../metrics/summary.js';
import { applyRecommendations, recommendations, type Advice, type ReferenceValues } from './recommend.js';
import { RECOMMEND_OBJECTIVE, compareObjective, familyZ, type ObjectiveComparison } from './recommend-verdict.js';
import type { Scenario } from '../model/types.js';

/** The best alternative tried for a rejected recommendation. */
export interface Alternative {
  timeoutMs: number;
  retries: number;
  /** What it keeps as written: `retries`, `timeout`, or `timeout and retries`. */
  kept: AlternativeKind;
  /** Its verdict against the scenario as written, on the recommendation's scope. */
  verdictReason: string;
  after: ScopeSummary;
}

/** One recommendation, as `recommend --json` prints it (SPEC 4.2). */
export interface Recommendation extends Advice {
  verdict: 'accepted' | 'rejected';
  verdictReason: string;
  /** Rejected recommendations: the best alternative tried (null when none beats the scenario as written). */
  alternative?: Alternative | null;
  before: ScopeSummary;
  after: ScopeSummary;
}

/** The figures `recommend` compares, per scope: overall and per consumer zone. */
export interface VerificationFigures {
  overall: ScopeSummary;
  byConsumerZone: Record<string, ScopeSummary>;
  /** Each recommended method (`service.method`), as that run has it. */
  byMethod: Record<string, ScopeSummary>;
}

/** The whole-scenario verdict (`verification` in `recommend --json`). */
export interface Verification {
  objective: string;
  verdict: 'accepted' | 'rejected';
  verdictReason: string;
  before: VerificationFigures;
  after: VerificationFigures;
  /** When a recommendation was rejected: the alternative run that does best, and its figures. */
  alternative?: { kept: AlternativeKind; verdictReason: string; figures: VerificationFigures } | null;
}

/** The whole-scenario figures of a summary (its scope fields, without the breakdowns and run metadata). */
export const overallScope = (s: Summary): ScopeSummary => {
  const { scenario: _a, seed: _b, seeds: _c, version: _d, byConsumerZone: _e, byService: _f, byProviderGroup: _g, timeline: _h, timelineByZone: _i, timelineByProviderGroup: _j, events: _k, faults: _l, registry: _m, simulatedMs: _n, measuredFromMs: _o, ci95: _p, ...rest } =
    s as Summary & Record<string, unknown>;
  return rest as unknown as ScopeSummary;
};

const methodScope = (s: Summary, service: string, method: string): ScopeSummary => s.byService[`${service}.${method}`] ?? overallScope(s);

const figures = (s: Summary, recs: Advice[]): VerificationFigures => ({
  overall: overallScope(s),
  byConsumerZone: s.byConsumerZone,
  byMethod: Object.fromEntries(recs.map((r) => [`${r.service}.${r.method}`, methodScope(s, r.service, r.method)])),
});

/** The alternatives tried for rejected recommendations, in the order they are preferred on a tie. */
export const ALTERNATIVES = ['retries', 'timeout', 'timeout and retries'] as const;
export type AlternativeKind = (typeof ALTERNATIVES)[number];

/** The values a recommendation takes in an alternative. */
function alternativeValues(r: Advice, kind: AlternativeKind): ReferenceValues {
  if (kind === 'retries') return { timeoutMs: r.timeoutMs, retries: r.asWritten.retries };
  if (kind === 'timeout') return { timeoutMs: r.asWritten.timeoutMs, retries: r.retries };
  return r.asWritten;
}

/** The first judgement: which recommendations the re-run finds worse, and the whole scenario's comparison. */
export interface FirstVerdict {
  rejected: boolean[];
  perRecommendation: ObjectiveComparison[];
  overall: ObjectiveComparison;
  /** The band of the per-recommendation comparisons, in standard errors (`scopeZ`). */
  z: number;
}

/**
 * The band the recommendations' own scopes are judged with: one comparison per recommended method, all made
 * together, so that by chance alone any of them comes out better or worse with 5% probability (`familyZ`), not
 * each of them (which, over an estate's 2,000 methods, rejected ~60 sound recommendations on noise alone).
 */
export function scopeZ(recs: Advice[]): number {
  return familyZ(new Set(recs.map((r) => `${r.service}.${r.method}`)).size);
}

/** Judges the formula's re-run against the scenario as written, per recommendation scope and overall. */
export function firstVerdict(recs: Advice[], before: Summary, after: Summary): FirstVerdict {
  const z = scopeZ(recs);
  const perRecommendation = recs.map((r) => compareObjective(methodScope(before, r.service, r.method), methodScope(after, r.service, r.method), z));
  const overall = compareObjective(overallScope(before), overallScope(after));
  let rejected = perRecommendation.map((c) => c.order > 0);
  // Every scope is no worse, yet the whole is: the combination is what hurts, so every recommendation is in question.
  if (overall.order > 0 && !rejected.some(Boolean)) rejected = recs.map(() => true);
  return { rejected, perRecommendation, overall, z };
}

/** One alternative run: the rejected recommendations take the alternative's values, the others stay. */
export interface AlternativePlan {
  kind: AlternativeKind;
  scenario: Scenario;
}

/**
 * The alternative runs for the rejected recommendations (none when nothing was rejected). An
 * alternative identical to the formula's run or to an earlier alternative (e.g. keeping retries
 * that are already as written) is not run.
 */
export function alternativePlans(scenario: Scenario, recs: Advice[], verdict: FirstVerdict): AlternativePlan[] {
  if (!verdict.rejected.some(Boolean)) return [];
  const plans: AlternativePlan[] = [];
  const same = (x: ReferenceValues[], y: ReferenceValues[]) => x.every((a, i) => a.timeoutMs === y[i]!.timeoutMs && a.retries === y[i]!.retries);
  const tried: ReferenceValues[][] = [recs];
  for (const kind of ALTERNATIVES) {
    const applied = recs.map((r, i) => (verdict.rejected[i] ? { ...r, ...alternativeValues(r, kind) } : r));
    if (tried.some((t) => same(applied, t))) continue;
    tried.push(applied);
    plans.push({ kind, scenario: applyRecommendations(scenario, applied) });
  }
  return plans;
}

/** The recommendations and the two scenarios that verify them (as written, all applied), to run in parallel. */
export function recommendationRuns(scenario: Scenario, targetTimeoutRate: number): { recs: Advice[]; runs: [Scenario, Scenario] } {
  const recs = recommendations(scenario, targetTimeoutRate);
  return { recs, runs: [scenario, applyRecommendations(scenario, recs)] };
}

/**
 * Joins the recommendations with the figures of the runs: verdicts per recommendation and for the
 * whole scenario, and, for rejected ones, the best alternative run (on the whole scenario's
 * objective; each alternative is one verified configuration).
 */
export function verifiedRecommendations(
  recs: Advice[],
  before: Summary,
  after: Summary,
  alternatives: Array<{ kind: AlternativeKind; summary: Summary }> = [],
): { recommendations: Recommendation[]; verification: Verification } {
  const first = firstVerdict(recs, before, after);
  // The best alternative run over the whole scenario; the first on a tie (ALTERNATIVES order).
  let best: { kind: AlternativeKind; summary: Summary; vsBefore: ObjectiveComparison } | null = null;
  for (const a of alternatives) {
    const vsBefore = compareObjective(overallScope(before), overallScope(a.summary));
    if (vsBefore.order > 0) continue;
    if (best === null || compareObjective(overallScope(best.summary), overallScope(a.summary)).order < 0) best = { ...a, vsBefore };
  }
  const recommendations = recs.map((r, i): Recommendation => {
    const mine = first.perRecommendation[i]!;
    const base = { ...r, before: methodScope(before, r.service, r.method), after: methodScope(after, r.service, r.method) };
    if (!first.rejected[i]) return { ...r, verdict: 'accepted', verdictReason: mine.reason, before: base.before, after: base.after };
    const verdictReason = mine.order > 0 ? mine.reason : `the whole scenario gets worse with every recommendation applied: ${first.overall.reason}`;
    const alternative: Alternative | null =
      best === null
        ? null
        : {
            ...alternativeValues(r, best.kind),
            kept: best.kind,
            verdictReason: compareObjective(base.before, methodScope(best.summary, r.service, r.method), first.z).reason,
            after: methodScope(best.summary, r.service, r.method),
          };
    return { ...r, verdict: 'rejected', verdictReason, alternative, before: base.before, after: base.after };
  });
  const anyRejected = first.rejected.some(Boolean);
  const verification: Verification = {
    objective: RECOMMEND_OBJECTIVE,
    // The whole scenario's verdict is its own objective: a recommendation rejected on its own
    // scope is named in the reason, and the alternative says what to apply instead.
    verdict: first.overall.order > 0 ? 'rejected' : 'accepted',
    verdictReason:
      first.overall.reason +
      (anyRejected && first.overall.order <= 0
        ? `; ${first.rejected.filter(Boolean).length} of ${recs.length} recommendations rejected on their own scope ` +
          `(${recs.filter((_, i) => first.rejected[i]).map((r) => `${r.consumer} -> ${r.service}.${r.method}`).join(', ')})`
        : ''),
    before: figures(before, recs),
    after: figures(after, recs),
  };
  if (anyRejected) {
    verification.alternative = best === null ? null : { kept: best.kind, verdictReason: best.vsBefore.reason, figures: figures(best.summary, recs) };
  }
  return { recommendations, verification };
}
