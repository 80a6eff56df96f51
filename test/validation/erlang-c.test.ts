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

// Each parameter set runs several seeds. The tolerance is 1.5%: a 1% error in the arrival rate moves the
// M/M/1-at-70% figures by 2.4% (d ln(1/(mu - lambda)) = rho/(1 - rho) x 1%), and the M/M/10-at-80% mean by 1.5%,
// so such a bug fails here. The test first checks that the seeds' 95% confidence interval of P99 (the
// noisier figure) is under half the tolerance, so the tolerance is honest: wide enough for sampling error,
// and not wide enough to hide a bias of that size.
const TOLERANCE = 0.015;
describe.each([
  // M/M/1 at 70% has long busy periods (strongly correlated response times), so it needs many more requests:
  // 8 seeds x 420k requests gave a P99 half-width of 1.27%; 24 seeds bring it to about 0.65%.
  { label: 'c=10 at 80% load', threads: 10, ratePerSec: 800, durationS: 330, seeds: 8 },
  { label: 'c=1 at 70% load', threads: 1, ratePerSec: 70, durationS: 6000, seeds: 24 },
])('the M/M/c scenario through the whole stack ($label)', ({ threads, ratePerSec, durationS, seeds }) => {
  const { scenario } = loadScenarioWithRaw(file, [
    `providers[0].threads=${threads}`,
    `consumers[0].rate=${ratePerSec}/s`,
    `duration=${durationS}s`,
  ]);
  const exact = mmc(threads, ratePerSec / 1000, 1 / 10);
  const { summary } = runSeeds(scenario, { seed: 1, seeds, version: 'test' });
  const ci = summary.ci95 as Record<string, number>;

  it('runs enough requests for a confidence interval under half the tolerance', () => {
    expect(summary.requests).toBeGreaterThan(250_000);
    expect(ci['latencyMs.p99']).toBeLessThan((TOLERANCE / 2) * exact.quantileMs(0.99));
  });

  it('has a mean response time within 1.5% of Erlang-C', () => {
    expect(Math.abs(summary.latencyMs.mean - exact.meanMs) / exact.meanMs).toBeLessThan(TOLERANCE);
  });

  it('has a P99 response time within 1.5% of Erlang-C', () => {
    const p99 = exact.quantileMs(0.99);
    expect(Math.abs(summary.latencyMs.p99 - p99) / p99).toBeLessThan(TOLERANCE);
  });

  it('loses no request: every request is ok', () => {
    expect(summary.ok).toBe(summary.requests);
  });
});
