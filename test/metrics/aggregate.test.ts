import { describe, expect, it } from 'vitest';
import { aggregateSummaries, CI95_FIGURES, ci95HalfWidth, tQuantile975 } from '../../src/metrics/aggregate.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';

/** A real (empty) summary of one seed with a two-bucket timeline, ready to be edited. */
function baseSummary(seed: number): Summary {
  const r = new Recorder({
    warmupMs: 0,
    durationMs: 2000,
    bucketMs: 1000,
    providerGroups: [{ name: 'users-a', instances: 2, threads: 10 }],
  });
  r.marker({ tMs: 500, kind: 'start', label: 'zoneDown zoneA' });
  r.finish({ simulatedMs: 2000, providerGroups: [{ name: 'users-a', busyMs: 0, peakActiveThreads: 0 }], inFlight: 0 });
  return r.summary({ scenario: 'agg', seed, seeds: [seed], version: '1.2.3' });
}

/** Rounded to `digits` decimals, as the summary rounds ratios (6) and milliseconds (3). */
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample standard deviation (n - 1 in the denominator). */
const sd = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

/** ln Γ(x) for x a positive multiple of 1/2: Γ(x) = (x - 1)Γ(x - 1), Γ(1) = 1, Γ(1/2) = √π. */
function lnGammaHalf(x: number): number {
  let sum = 0;
  for (; x > 1; x -= 1) sum += Math.log(x - 1);
  return x === 1 ? sum : sum + 0.5 * Math.log(Math.PI);
}

/**
 * Student's t quantile, computed independently of the code under test: Simpson's rule on the t
 * density over [0, t] gives the CDF (to ~1e-12 with 4000 steps), and bisection solves CDF(t) = p.
 */
function referenceTQuantile(p: number, dof: number): number {
  const lnC = lnGammaHalf((dof + 1) / 2) - lnGammaHalf(dof / 2) - 0.5 * Math.log(dof * Math.PI);
  const density = (x: number) => Math.exp(lnC - ((dof + 1) / 2) * Math.log1p((x * x) / dof));
  const cdf = (t: number) => {
    const n = 4000;
    const h = t / n;
    let sum = density(0) + density(t);
    for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * density(i * h);
    return 0.5 + (sum * h) / 3;
  };
  let lo = 0;
  let hi = 100;
  while (hi - lo > 1e-10) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

// The product's t table holds 4 decimals: each entry is within half a unit of the 4th decimal.
const T_TABLE_ERROR = 0.5e-4;

function seedSummary(seed: number, requests: number, timeoutRate: number, p99: number): Summary {
  const s = baseSummary(seed);
  s.requests = requests;
  s.timeoutRate = timeoutRate;
  s.latencyMs.p99 = p99;
  s.timeline[0]!.requests = requests;
  return s;
}

describe('aggregateSummaries', () => {
  it('averages every numeric figure across seeds', () => {
    const agg = aggregateSummaries([seedSummary(1, 100, 0.01, 10), seedSummary(2, 110, 0.02, 20), seedSummary(3, 120, 0.03, 30)]);
    expect([agg.requests, agg.timeoutRate, agg.latencyMs.p99]).toEqual([
      mean([100, 110, 120]),
      round(mean([0.01, 0.02, 0.03]), 6),
      mean([10, 20, 30]),
    ]);
  });

  it('lists every seed, keeps the first as seed, and the strings of the first summary', () => {
    const agg = aggregateSummaries([seedSummary(5, 1, 0, 0), seedSummary(6, 1, 0, 0)]);
    expect([agg.seed, agg.seeds, agg.scenario, agg.version]).toEqual([5, [5, 6], 'agg', '1.2.3']);
  });

  it('averages timeline buckets one by one', () => {
    const agg = aggregateSummaries([seedSummary(1, 10, 0, 0), seedSummary(2, 31, 0, 0)]);
    expect(agg.timeline.map((row) => [row.tMs, row.requests])).toEqual([
      [0, (10 + 31) / 2],
      [1000, 0],
    ]);
  });

  it('counts a scope missing from a seed as zero for that seed', () => {
    const a = seedSummary(1, 10, 0, 0);
    const b = seedSummary(2, 10, 0, 0);
    a.byConsumerZone = { zoneA: { ...structuredClone(minimalScope(a)), requests: 8 } };
    a.noProviderCauses = { 'router:condition': 3 };
    const agg = aggregateSummaries([a, b]);
    expect(agg.byConsumerZone.zoneA!.requests).toBe((8 + 0) / 2);
    expect(agg.noProviderCauses).toEqual({ 'router:condition': (3 + 0) / 2 });
  });

  it('gives Student-t 95% half-widths of the main figures after the timeline', () => {
    const agg = aggregateSummaries([seedSummary(1, 100, 0.01, 10), seedSummary(2, 110, 0.02, 20), seedSummary(3, 120, 0.03, 30)]);
    expect(Object.keys(agg.ci95!)).toEqual([...CI95_FIGURES]);
    // t(0.975, n - 1) · s / √n with n = 3; the tolerance is the t table's rounding times s / √n,
    // plus the rounding of the figure itself (6 decimals for counts, 3 for milliseconds).
    const halfWidth = (xs: number[]) => (referenceTQuantile(0.975, xs.length - 1) * sd(xs)) / Math.sqrt(xs.length);
    const tableError = (xs: number[]) => (T_TABLE_ERROR * sd(xs)) / Math.sqrt(xs.length);
    const requests = [100, 110, 120];
    const p99 = [10, 20, 30];
    expect(Math.abs(agg.ci95!.requests! - halfWidth(requests))).toBeLessThanOrEqual(tableError(requests) + 0.5e-6);
    expect(Math.abs(agg.ci95!['latencyMs.p99']! - halfWidth(p99))).toBeLessThanOrEqual(tableError(p99) + 0.5e-3);
    expect(agg.ci95!.errorRate).toBe(0);
    const keys = Object.keys(agg);
    expect(keys.indexOf('ci95')).toBe(keys.indexOf('timeline') + 1);
  });

  it('gives each consumer zone and service method half-widths of their own, a scope missing from a seed counting as 0', () => {
    const seeds = [seedSummary(1, 10, 0, 0), seedSummary(2, 10, 0, 0), seedSummary(3, 10, 0, 0)];
    const zoneRequests = [8, 14, 0];
    const zoneErrors = [0.25, 0.5, 0];
    seeds.forEach((s, i) => {
      if (zoneRequests[i] === 0) return;
      s.byConsumerZone = { zoneA: { ...structuredClone(minimalScope(s)), requests: zoneRequests[i]!, errorRate: zoneErrors[i]! } };
      s.byService = { 'S.m': { ...structuredClone(minimalScope(s)), duplicateWrites: 3 * i } };
    });
    const agg = aggregateSummaries(seeds);
    const halfWidth = (xs: number[]) => (referenceTQuantile(0.975, xs.length - 1) * sd(xs)) / Math.sqrt(xs.length);
    const tableError = (xs: number[]) => (T_TABLE_ERROR * sd(xs)) / Math.sqrt(xs.length);
    const zone = agg.byConsumerZone.zoneA!;
    expect(Object.keys(zone.ci95!)).toEqual([...CI95_FIGURES]);
    expect(Math.abs(zone.ci95!.requests! - halfWidth(zoneRequests))).toBeLessThanOrEqual(tableError(zoneRequests) + 0.5e-6);
    expect(Math.abs(zone.ci95!.errorRate! - halfWidth(zoneErrors))).toBeLessThanOrEqual(tableError(zoneErrors) + 0.5e-6);
    // Seed 3 has no S.m: its duplicate writes count as 0, like seed 1's.
    const writes = [0, 3, 0];
    expect(Math.abs(agg.byService['S.m']!.ci95!.duplicateWrites! - halfWidth(writes))).toBeLessThanOrEqual(tableError(writes) + 0.5e-6);
    // Averaging the aggregate again recomputes the half-widths rather than averaging them.
    const again = aggregateSummaries([agg, agg]);
    expect(again.byConsumerZone.zoneA!.ci95!.requests).toBe(0);
  });

  it('averages crossZoneByPair cell by cell, keeping the zones in the order the summaries give them', () => {
    const [a, b] = [seedSummary(1, 1, 0, 0), seedSummary(2, 1, 0, 0)];
    a.crossZoneByPair = { zoneC: { zoneC: 4, zoneA: 0 }, zoneA: { zoneC: 1, zoneA: 9 } };
    b.crossZoneByPair = { zoneC: { zoneC: 6, zoneA: 1 }, zoneA: { zoneC: 2, zoneA: 10 } };
    const agg = aggregateSummaries([a, b]);
    expect(agg.crossZoneByPair).toEqual({ zoneC: { zoneC: 5, zoneA: 0.5 }, zoneA: { zoneC: 1.5, zoneA: 9.5 } });
    expect(Object.keys(agg.crossZoneByPair!)).toEqual(['zoneC', 'zoneA']);
    expect(Object.keys(agg.crossZoneByPair!.zoneA!)).toEqual(['zoneC', 'zoneA']);
  });

  it('adds no ci95 for a single seed and keeps its figures', () => {
    const one = seedSummary(1, 100, 0.01, 10);
    const agg = aggregateSummaries([one]);
    expect(agg.ci95).toBeUndefined();
    expect(agg).toEqual(one);
  });

  it('keeps the fault markers of the first summary', () => {
    const agg = aggregateSummaries([seedSummary(1, 1, 0, 0), seedSummary(2, 1, 0, 0)]);
    expect(agg.faults).toEqual([{ tMs: 500, kind: 'start', label: 'zoneDown zoneA' }]);
  });

  it('rounds averaged latencies to 3 decimals and other figures to 6', () => {
    const agg = aggregateSummaries([seedSummary(1, 1, 0.1, 1), seedSummary(2, 2, 0.2, 2), seedSummary(3, 2, 0.2, 2)]);
    expect([agg.latencyMs.p99, agg.requests, agg.timeoutRate]).toEqual([
      round(mean([1, 2, 2]), 3),
      round(mean([1, 2, 2]), 6),
      round(mean([0.1, 0.2, 0.2]), 6),
    ]);
  });
});

describe('tQuantile975', () => {
  it('is checked against a reference that matches the closed forms for 1 and 2 degrees of freedom', () => {
    // dof 1 is the Cauchy distribution: tan(π(p - 1/2)); dof 2: (2p - 1) / √(2p(1 - p)).
    expect(referenceTQuantile(0.975, 1)).toBeCloseTo(Math.tan(Math.PI * 0.475), 8);
    expect(referenceTQuantile(0.975, 2)).toBeCloseTo(0.95 / Math.sqrt(2 * 0.975 * 0.025), 8);
  });

  it('gives the t quantile to 4 decimals for every sample size of the table (1 to 30 degrees of freedom)', () => {
    for (let dof = 1; dof <= 30; dof++) {
      expect(Math.abs(tQuantile975(dof) - referenceTQuantile(0.975, dof)), `dof ${dof}`).toBeLessThanOrEqual(T_TABLE_ERROR);
    }
  });

  it('stays within 4 decimals beyond the table and tends to the normal quantile', () => {
    for (const dof of [31, 45, 60, 120, 1000]) {
      expect(Math.abs(tQuantile975(dof) - referenceTQuantile(0.975, dof)), `dof ${dof}`).toBeLessThanOrEqual(T_TABLE_ERROR);
    }
    // At a million degrees of freedom the t distribution is the normal one to about 1e-6.
    expect(Math.abs(tQuantile975(1e6) - referenceTQuantile(0.975, 1e6))).toBeLessThanOrEqual(T_TABLE_ERROR);
  });

  it('gives a half-width of t * s / sqrt(n)', () => {
    // s of [10, 20] is √50, so s / √2 = 5.
    expect(Math.abs(ci95HalfWidth([10, 20]) - Math.tan(Math.PI * 0.475) * 5)).toBeLessThanOrEqual(T_TABLE_ERROR * 5);
    expect(ci95HalfWidth([42])).toBe(0);
  });
});

/** The request figures of a summary as a consumer-zone scope. */
function minimalScope(s: Summary): Summary['byConsumerZone'][string] {
  const { requests, ok, outcomes, timeoutRate, noProviderRate, errorRate, latencyMs, latencyAllMs, attempts } = s;
  return {
    requests,
    ok,
    outcomes,
    timeoutRate,
    noProviderRate,
    errorRate,
    latencyMs,
    latencyAllMs,
    attempts,
    retryAmplification: s.retryAmplification,
    providerExecutions: s.providerExecutions,
    duplicateExecutions: s.duplicateExecutions,
    duplicateWrites: s.duplicateWrites,
    orphanedExecutions: s.orphanedExecutions,
    crossZoneRatio: s.crossZoneRatio,
    noProviderCauses: {},
    rejectedCauses: {},
    mockRate: s.mockRate,
    mockCauses: {},
  };
}
