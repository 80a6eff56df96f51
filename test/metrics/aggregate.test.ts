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
    expect([agg.requests, agg.timeoutRate, agg.latencyMs.p99]).toEqual([110, 0.02, 20]);
  });

  it('lists every seed, keeps the first as seed, and the strings of the first summary', () => {
    const agg = aggregateSummaries([seedSummary(5, 1, 0, 0), seedSummary(6, 1, 0, 0)]);
    expect([agg.seed, agg.seeds, agg.scenario, agg.version]).toEqual([5, [5, 6], 'agg', '1.2.3']);
  });

  it('averages timeline buckets one by one', () => {
    const agg = aggregateSummaries([seedSummary(1, 10, 0, 0), seedSummary(2, 31, 0, 0)]);
    expect(agg.timeline.map((row) => [row.tMs, row.requests])).toEqual([
      [0, 20.5],
      [1000, 0],
    ]);
  });

  it('counts a scope missing from a seed as zero for that seed', () => {
    const a = seedSummary(1, 10, 0, 0);
    const b = seedSummary(2, 10, 0, 0);
    a.byConsumerZone = { zoneA: { ...structuredClone(minimalScope(a)), requests: 8 } };
    a.noProviderCauses = { 'router:condition': 3 };
    const agg = aggregateSummaries([a, b]);
    expect(agg.byConsumerZone.zoneA!.requests).toBe(4);
    expect(agg.noProviderCauses).toEqual({ 'router:condition': 1.5 });
  });

  it('gives Student-t 95% half-widths of the main figures after the timeline', () => {
    const agg = aggregateSummaries([seedSummary(1, 100, 0.01, 10), seedSummary(2, 110, 0.02, 20), seedSummary(3, 120, 0.03, 30)]);
    expect(Object.keys(agg.ci95!)).toEqual([...CI95_FIGURES]);
    expect(agg.ci95!.requests).toBe(24.84165);
    expect(agg.ci95!['latencyMs.p99']).toBe(24.842);
    expect(agg.ci95!.errorRate).toBe(0);
    const keys = Object.keys(agg);
    expect(keys.indexOf('ci95')).toBe(keys.indexOf('timeline') + 1);
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
    expect([agg.latencyMs.p99, agg.requests, agg.timeoutRate]).toEqual([1.667, 1.666667, 0.166667]);
  });
});

describe('tQuantile975', () => {
  it('follows the t table for small samples', () => {
    expect([tQuantile975(1), tQuantile975(2), tQuantile975(9), tQuantile975(30)]).toEqual([12.7062, 4.3027, 2.2622, 2.0423]);
  });

  it('tends to the normal quantile for large samples', () => {
    expect(tQuantile975(60)).toBeCloseTo(2.0003, 4);
    expect(tQuantile975(120)).toBeCloseTo(1.9799, 4);
    expect(tQuantile975(1e6)).toBeCloseTo(1.96, 4);
  });

  it('gives a half-width of t * s / sqrt(n)', () => {
    expect(ci95HalfWidth([10, 20])).toBeCloseTo(63.531, 9);
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
  };
}
