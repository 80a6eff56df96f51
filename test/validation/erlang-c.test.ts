import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runSeeds } from '../../src/scenario/run.js';
import { erlangC, mmc } from './erlang-c.js';

const file = fileURLToPath(new URL('../../scenarios/mmc-validation.yaml', import.meta.url));

describe('Erlang-C closed forms', () => {
  it('reduces to M/M/1 when c = 1: waiting probability rho, response time exponential with rate mu - lambda', () => {
    expect(erlangC(1, 0.7)).toBeCloseTo(0.7, 12);
    const q = mmc(1, 0.07, 0.1);
    expect(q.meanMs).toBeCloseTo(1 / 0.03, 9);
    expect(q.quantileMs(0.99)).toBeCloseTo(Math.log(100) / 0.03, 6);
  });

  it('matches a textbook value: c = 2, a = 1 waits with probability 1/3', () => {
    expect(erlangC(2, 1)).toBeCloseTo(1 / 3, 12);
  });
});

// Each parameter set runs several seeds; the test first checks that the seeds' 95% confidence interval is
// narrower than half the 3% tolerance, so the tolerance is honest (not wide enough to hide a bias).
describe.each([
  // M/M/1 at 70% has long busy periods (strongly correlated response times), so it needs more requests.
  { label: 'c=10 at 80% load', threads: 10, ratePerSec: 800, durationS: 330, seeds: 4 },
  { label: 'c=1 at 70% load', threads: 1, ratePerSec: 70, durationS: 6000, seeds: 8 },
])('the M/M/c scenario through the whole stack ($label)', ({ threads, ratePerSec, durationS, seeds }) => {
  const { scenario } = loadScenarioWithRaw(file, [
    `providers[0].threads=${threads}`,
    `consumers[0].rate=${ratePerSec}/s`,
    `duration=${durationS}s`,
  ]);
  const exact = mmc(threads, ratePerSec / 1000, 1 / 10);
  const { summary } = runSeeds(scenario, { seed: 1, seeds, version: 'test' });
  const ci = summary.ci95 as Record<string, number>;

  it('runs enough requests for a tight confidence interval', () => {
    expect(summary.requests).toBeGreaterThan(250_000);
    expect(ci['latencyMs.p99']).toBeLessThan(0.015 * exact.quantileMs(0.99));
  });

  it('has a mean response time within 3% of Erlang-C', () => {
    expect(Math.abs(summary.latencyMs.mean - exact.meanMs) / exact.meanMs).toBeLessThan(0.03);
  });

  it('has a P99 response time within 3% of Erlang-C', () => {
    const p99 = exact.quantileMs(0.99);
    expect(Math.abs(summary.latencyMs.p99 - p99) / p99).toBeLessThan(0.03);
  });

  it('loses no request: every request is ok', () => {
    expect(summary.ok).toBe(summary.requests);
  });
});
