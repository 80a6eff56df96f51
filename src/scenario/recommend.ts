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
  const { scenario: _a, seed: _b, seeds: _c, version: _d, byConsumerZone: _e, byService: _f, byProviderGroup: _g, timeline: _h, ...rest } = s as Summary & Record<string, unknown>;
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
