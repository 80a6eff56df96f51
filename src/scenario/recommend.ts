/**
 * Timeout and retry recommendations per (consumer group, service, method), from the method's
 * service-time distribution and the RTT to the zones its providers run in, then verified by
 * re-running the scenario with every recommendation applied. The rule:
 * - idempotent methods: timeout = P99(service) + P99(RTT) + margin, so about 1% of attempts time
 *   out, and enough retries that all attempts timing out is rarer than the target rate;
 * - non-idempotent methods: no retries (a retry is a duplicate write), so the timeout covers the
 *   (1 - target) quantile of the service time instead.
 * The margin is 10% of the rest, at least 5 ms. Quantiles come from 200,000 seeded draws.
 */
import { sampler, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import type { ScopeSummary, Summary } from '../metrics/summary.js';
import { overloadedPools } from './pool-load.js';
import { runScenario, type Plugins } from './run.js';
import type { NetworkSpec, Scenario } from './types.js';

/** One recommendation, as `recommend --json` prints it (SPEC 4.2). */
export interface Recommendation {
  consumer: string;
  zone: string;
  service: string;
  method: string;
  timeoutMs: number;
  retries: number;
  inputs: { p99ServiceMs: number; p99RttMs: number; marginMs: number; serviceQuantile: number; idempotent: boolean };
  reason: string;
  before: ScopeSummary;
  after: ScopeSummary;
}

const DRAWS = 200_000;

/** The q-quantile of a distribution from seeded draws (deterministic). */
export function distQuantile(dist: DistSpec, q: number, seed = 1): number {
  const draw = sampler(dist, new RandomStreams(seed).stream('recommend'));
  const xs = new Float64Array(DRAWS);
  for (let i = 0; i < DRAWS; i++) xs[i] = draw();
  xs.sort();
  return xs[Math.min(DRAWS - 1, Math.floor(q * DRAWS))]!;
}

function rttDist(network: NetworkSpec, from: string, to: string): DistSpec {
  const pair = [...network.pairs].reverse().find((p) => p.from === from && p.to === to);
  if (pair) return pair.dist;
  return from === to ? network.sameZone : network.default;
}

const round = (x: number) => Math.ceil(x);

/** Computes the recommendations (without verification runs). */
export function recommendations(
  scenario: Scenario,
  targetTimeoutRate: number,
): Array<Omit<Recommendation, 'before' | 'after'>> {
  const out: Array<Omit<Recommendation, 'before' | 'after'>> = [];
  const seen = new Set<string>();
  const overloaded = overloadedPools(scenario);
  for (const group of scenario.consumers) {
    for (const key of Object.keys(group.calls)) {
      const dot = key.lastIndexOf('.');
      const service = key.slice(0, dot);
      const method = key.slice(dot + 1);
      const id = `${group.application}\u0000${group.zone}\u0000${key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const spec = scenario.services[service]!.methods[method]!;
      const zones = [...new Set(scenario.providers.filter((p) => p.services.includes(service)).map((p) => p.zone))];
      const p99RttMs = Math.max(0, ...zones.map((z) => distQuantile(rttDist(scenario.network, group.zone, z), 0.99)));
      const serviceQuantile = spec.idempotent ? 0.99 : 1 - targetTimeoutRate;
      const p99ServiceMs = distQuantile(spec.serviceTime, serviceQuantile);
      const marginMs = Math.max(5, 0.1 * (p99ServiceMs + p99RttMs));
      const timeoutMs = round(p99ServiceMs + p99RttMs + marginMs);
      // A pool this method's own retries already help exhaust (as written): more attempts only make it worse.
      const exhausted = spec.idempotent
        ? overloaded.find((p) =>
            p.contributions.some(
              (c) => c.consumer === group.application && c.zone === group.zone && c.service === service && c.method === method && c.attemptsPerCall > 1 + 1e-9,
            ),
          )
        : undefined;
      // Each attempt times out with probability ~1%: all r+1 of them with ~0.01^(r+1).
      const retries = spec.idempotent && exhausted === undefined ? Math.max(0, Math.ceil(Math.log(targetTimeoutRate) / Math.log(0.01)) - 1) : 0;
      const calls = spec.calls.length > 0 ? ' The method calls other services; their time is not in this figure.' : '';
      let reason: string;
      if (!spec.idempotent) {
        reason =
          `not idempotent: no retries (a retry would be a duplicate write), so the timeout covers the ` +
          `${(serviceQuantile * 100).toFixed(2)}th percentile of the service time (${p99ServiceMs.toFixed(1)} ms) + P99 RTT ` +
          `${p99RttMs.toFixed(1)} ms + margin ${marginMs.toFixed(1)} ms.${calls}`;
      } else if (exhausted !== undefined) {
        reason =
          `P99 service time ${p99ServiceMs.toFixed(1)} ms + P99 RTT ${p99RttMs.toFixed(1)} ms + margin ${marginMs.toFixed(1)} ms. ` +
          `No retries: ${exhausted.pool === 'shared' ? 'the shared pool' : `the ${exhausted.pool} executor`} of provider group ` +
          `${exhausted.group} is offered ${exhausted.offered.toFixed(0)} threads of its ${exhausted.capacity} ${exhausted.phase}, ` +
          `and this method's retries are part of that load (a timed-out attempt keeps its thread), so retries would keep the pool ` +
          `exhausted and get every call on it rejected.${calls}`;
      } else {
        reason =
          `P99 service time ${p99ServiceMs.toFixed(1)} ms + P99 RTT ${p99RttMs.toFixed(1)} ms + margin ${marginMs.toFixed(1)} ms; ` +
          `~1% of attempts time out, so ${retries} ${retries === 1 ? 'retry keeps' : 'retries keep'} the timeout rate under ${targetTimeoutRate}.${calls}`;
      }
      out.push({
        consumer: group.application,
        zone: group.zone,
        service,
        method,
        timeoutMs,
        retries,
        inputs: {
          p99ServiceMs: Math.round(p99ServiceMs * 1000) / 1000,
          p99RttMs: Math.round(p99RttMs * 1000) / 1000,
          marginMs: Math.round(marginMs * 1000) / 1000,
          serviceQuantile,
          idempotent: spec.idempotent,
        },
        reason,
      });
    }
  }
  return out;
}

/** A copy of the scenario with every recommendation applied at method level. */
export function applyRecommendations(scenario: Scenario, recs: Array<Omit<Recommendation, 'before' | 'after'>>): Scenario {
  const copy: Scenario = structuredClone(scenario);
  for (const rec of recs) {
    for (const group of copy.consumers) {
      if (group.application !== rec.consumer || group.zone !== rec.zone) continue;
      const ref = (group.reference[rec.service] ??= { parameters: {}, methods: {} });
      const m = (ref.methods[rec.method] ??= { parameters: {} });
      m.timeoutMs = rec.timeoutMs;
      m.retries = rec.retries;
    }
  }
  return copy;
}

const overallScope = (s: Summary): ScopeSummary => {
  const { scenario: _a, seed: _b, seeds: _c, version: _d, byConsumerZone: _e, byService: _f, byProviderGroup: _g, timeline: _h, timelineByZone: _i, timelineByProviderGroup: _j, ...rest } = s as Summary & Record<string, unknown>;
  return rest as unknown as ScopeSummary;
};

/** Recommendations verified by simulation: `before` = the scenario as written, `after` = all applied. */
export function recommend(
  scenario: Scenario,
  options: { targetTimeoutRate: number; version: string; plugins?: Plugins },
): { recommendations: Recommendation[]; before: Summary; after: Summary } {
  const { recs, runs } = recommendationRuns(scenario, options.targetTimeoutRate);
  const [before, after] = runs.map((s) => runScenario(s, { version: options.version, plugins: options.plugins }).summary);
  return verifiedRecommendations(recs, before!, after!);
}

/**
 * The recommendations and the two scenarios that verify them (as written, all applied): two
 * independent runs, which a caller may run in parallel before `verifiedRecommendations`.
 */
export function recommendationRuns(
  scenario: Scenario,
  targetTimeoutRate: number,
): { recs: Array<Omit<Recommendation, 'before' | 'after'>>; runs: [Scenario, Scenario] } {
  const recs = recommendations(scenario, targetTimeoutRate);
  return { recs, runs: [scenario, applyRecommendations(scenario, recs)] };
}

/** Joins the recommendations with the figures of the `before` and `after` runs. */
export function verifiedRecommendations(
  recs: Array<Omit<Recommendation, 'before' | 'after'>>,
  before: Summary,
  after: Summary,
): { recommendations: Recommendation[]; before: Summary; after: Summary } {
  const scope = (s: Summary, service: string, method: string) => s.byService[`${service}.${method}`] ?? overallScope(s);
  return {
    recommendations: recs.map((r) => ({ ...r, before: scope(before, r.service, r.method), after: scope(after, r.service, r.method) })),
    before,
    after,
  };
}

/** `recommend --verify-grid`: the timeout multiples of the formula's answer that the grid tries. */
export const VERIFY_TIMEOUT_FACTORS = [0.5, 0.75, 1, 1.25, 1.5, 2];

/** One (service, method) verified on a grid of timeouts × retries around the formula's answer. */
export interface VerifyGridPlan {
  service: string;
  method: string;
  /** The formula's recommendations for this method, one per consumer group. */
  recs: Array<Omit<Recommendation, 'before' | 'after'>>;
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
export function verifyGridPlans(scenario: Scenario, recs: Array<Omit<Recommendation, 'before' | 'after'>>): VerifyGridPlan[] {
  const byMethod = new Map<string, Array<Omit<Recommendation, 'before' | 'after'>>>();
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
