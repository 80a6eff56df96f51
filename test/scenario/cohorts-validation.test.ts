import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import type { Summary } from '../../src/metrics/summary.js';

// Cohorts against per-instance simulation (issue 41's validation): the estate of bench/cohort-validation.yaml, 1,200
// consumer instances in two zones, a rolling restart (pushes, stale calls) and a crash without retries (errors), run
// both ways on ten seeds each. Push counts and bytes must be identical seed by seed; the figures that depend on the
// draws must agree within the sampling error of the two means, derived from the seed-to-seed spread of each side.
const ESTATE = 'bench/cohort-validation.yaml';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

function runs(mode: 'on' | 'off', extra: readonly string[]): Summary[] {
  const scenario = loadScenarioFile(ESTATE, [`consumers.0.cohorts=${mode}`, `consumers.1.cohorts=${mode}`, ...extra]);
  return SEEDS.map((seed) => runScenario(scenario, { seed, version: 'test' }).summary);
}

const FIGURES: Record<string, (s: Summary) => number> = {
  staleCallRate: (s) => s.registry.staleCalls / s.attempts,
  errorRate: (s) => s.errorRate,
  crossZoneRatio: (s) => s.crossZoneRatio,
  p99: (s) => s.latencyMs.p99,
};

function meanAndVariance(xs: readonly number[]): { mean: number; variance: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, variance: xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) };
}

function expectAgreement(off: Summary[], on: Summary[]): void {
  for (let i = 0; i < SEEDS.length; i++) {
    expect(on[i]!.registry.pushes, `pushes, seed ${SEEDS[i]}`).toBe(off[i]!.registry.pushes);
    expect(on[i]!.registry.pushBytes, `push bytes, seed ${SEEDS[i]}`).toBe(off[i]!.registry.pushBytes);
  }
  for (const [name, figure] of Object.entries(FIGURES)) {
    const a = meanAndVariance(off.map(figure));
    const b = meanAndVariance(on.map(figure));
    // Four standard errors of the difference of two means of ten seeds each.
    const tolerance = 4 * Math.sqrt(a.variance / SEEDS.length + b.variance / SEEDS.length);
    expect(a.mean, `${name}: per-instance mean`).toBeGreaterThan(0);
    expect(Math.abs(b.mean - a.mean), `${name}: cohort ${b.mean} against per-instance ${a.mean}`).toBeLessThanOrEqual(tolerance);
  }
}

describe('cohorts against per-instance simulation, 1,200 consumer instances, ten seeds each', () => {
  it('give the same pushes and bytes, and stale calls, errors, cross-zone ratio and p99 within sampling error (unlimited registry)', () => {
    expectAgreement(runs('off', []), runs('on', []));
  });

  it('do the same when every push waits on a 400 Mbps registry node (pushes queue for up to 2 s)', () => {
    const server = ['registry.servers.zoneA=1', 'registry.capacity.bandwidth=400Mbps'];
    const off = runs('off', server);
    const on = runs('on', server);
    expectAgreement(off, on);
    // The node's queue is real here: pushes wait seconds behind each other, both ways.
    expect(on[0]!.registry.pushLagMs!.p99).toBeGreaterThan(1000);
    expect(off[0]!.registry.pushLagMs!.p99).toBeGreaterThan(1000);
  });
});
