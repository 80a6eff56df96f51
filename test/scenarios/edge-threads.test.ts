import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Recorder } from '../../src/metrics/recorder.js';
import type { RequestRecord } from '../../src/metrics/request-record.js';
import type { Outcome, Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/edge-threads.yaml', import.meta.url));

/** Erlang B for c servers and a Erlangs (the recursion B(k) = a B(k-1) / (k + a B(k-1))). */
function erlangB(c: number, a: number): number {
  let b = 1;
  for (let k = 1; k <= c; k++) b = (a * b) / (k + a * b);
  return b;
}

/** Requests and rejections of the timeline buckets starting in [fromS, toS). */
function window(s: Summary, fromS: number, toS: number): { requests: number; rejected: number } {
  const rows = s.timeline.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000);
  return { requests: rows.reduce((n, r) => n + r.requests, 0), rejected: rows.reduce((n, r) => n + r.rejected, 0) };
}

describe('edge-threads: a slow downstream fills the edge entry pools', () => {
  const { scenario } = loadScenarioWithRaw(file);
  const summary = runScenario(scenario, { version: 'test' }).summary;
  // 300/s per instance held 0.2 ms + the service time: uniform 20..60 ms, x25 from 20 s to 60 s.
  const perInstancePerSec = 300;
  const slowHoldMs = 0.2 + 25 * 40;

  it('rejects nothing while the service is fast: 12 Erlangs on 200 threads', () => {
    expect(erlangB(200, (perInstancePerSec * 40.2) / 1000)).toBeLessThan(1e-100);
    expect(window(summary, 10, 20)).toMatchObject({ rejected: 0 });
    expect(window(summary, 10, 20).requests).toBeGreaterThan(5_000);
  });

  it('rejects the share Erlang B predicts for 300 Erlangs on 200 threads while the service is slow', () => {
    const predicted = erlangB(200, (perInstancePerSec * slowHoldMs) / 1000);
    expect(predicted).toBeCloseTo(0.34, 2);
    // From 23 s: the pools fill within about a second of the slowdown (one slow holding time).
    // Over 12 seeds the rejected share of this window had mean 0.3400 (Erlang B: 0.3398) and sd
    // 0.0038 (1.1% relative): 5% relative is 4.5 sd. An entry pool of 190 or 210 threads instead of
    // 200 would reject 37.2% or 30.7% (10% off). (The round trip is 0.02% of this holding time; the
    // Erlang B validation test checks that it counts.)
    const slow = window(summary, 23, 60);
    expect(slow.requests).toBeGreaterThan(20_000);
    expect(Math.abs(slow.rejected / slow.requests - predicted) / predicted).toBeLessThan(0.05);
  });

  it('stops rejecting once the calls started before the slowdown ended (at most 1.5 s) are done', () => {
    expect(window(summary, 62, 80)).toMatchObject({ rejected: 0 });
  });

  it('rejects at the edge only: the providers never refuse, nothing times out, rejected requests never execute', () => {
    expect(summary.byProviderGroup['orders-a']!.rejected).toBe(0);
    expect(summary.outcomes.ok + summary.outcomes.rejected).toBe(summary.requests);
    expect(summary.outcomes.rejected).toBeGreaterThan(6_000);
    expect(summary.providerExecutions).toBe(summary.outcomes.ok);
  });

  it('gives each rejection the cause entry', () => {
    // The world hands the cause to the observer with the outcome; count them on the way through.
    const causes = new Map<string, number>();
    class Tally extends Recorder {
      override endRequest(req: RequestRecord, outcome: Outcome, endMs: number, cause?: string): void {
        if (outcome === 'rejected') causes.set(cause ?? 'none', (causes.get(cause ?? 'none') ?? 0) + 1);
        super.endRequest(req, outcome, endMs, cause);
      }
    }
    const recorder = new Tally({ warmupMs: scenario.warmupMs, durationMs: scenario.durationMs, bucketMs: scenario.bucketMs, providerGroups: [] });
    buildWorld(scenario, scenario.seed, recorder).run();
    // Every rejection of the run is counted here, the summary's (all in the measured window) included.
    expect([...causes.keys()]).toEqual(['entry']);
    expect(causes.get('entry')).toBe(summary.outcomes.rejected);
    // And the summary says so.
    expect(summary.rejectedCauses).toEqual({ entry: summary.outcomes.rejected });
  });
});
