import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DistSpec } from '../../src/engine/distributions.js';
import { main } from '../../src/cli/main.js';
import { parseScenario } from '../../src/scenario/load.js';
import { distQuantile } from '../../src/analysis/recommend.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** A scenario file of the repository, parsed, to read the inputs the recommendations come from. */
const scenarioFile = (path: string) => parseScenario(readFileSync(join(root, path), 'utf8'), path);

/** The value of a constant distribution (its every quantile). */
function constantMs(d: DistSpec): number {
  if (d.dist !== 'constant') throw new Error(`expected a constant, found ${d.dist}`);
  return d.value;
}

/** Standard normal CDF by Simpson's rule on the density over [0, z] (error far below 1e-9). */
function normalCdf(z: number): number {
  const n = 2000;
  const h = z / n;
  const phi = (x: number) => Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);
  let sum = phi(0) + phi(z);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * phi(i * h);
  return 0.5 + (sum * h) / 3;
}

// The 99% quantile of the standard normal, solved from normalCdf by bisection.
const Z99 = (() => {
  let lo = 0;
  let hi = 10;
  while (hi - lo > 1e-12) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < 0.99) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
})();

async function recommendJson(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['recommend', ...args, '--json'], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  expect(err.join('')).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out.join('')) as { recommendations: Array<Record<string, any>> };
}

describe('zonesim recommend', () => {
  it('prints SPEC 4.2 fields for every (consumer group, service, method)', async () => {
    const { recommendations } = await recommendJson(['scenarios/dual-zone-baseline.yaml', '--set', 'duration=15s']);
    expect(recommendations.map((r) => `${r.zone} ${r.method}`)).toEqual([
      'zoneA getUserById', 'zoneA updateUser', 'zoneB getUserById', 'zoneB updateUser',
    ]);
    for (const r of recommendations) {
      // SPEC 4.2's fields in its order; besides them only the reference as written, the calling
      // methods of a downstream reference and a rejected one's alternative.
      const spec = ['consumer', 'zone', 'service', 'method', 'timeoutMs', 'retries', 'inputs', 'reason', 'verdict', 'verdictReason', 'before', 'after'];
      expect(Object.keys(r).filter((k) => spec.includes(k))).toEqual(spec);
      expect(Object.keys(r).filter((k) => !spec.includes(k)).every((k) => ['asWritten', 'calledBy', 'alternative'].includes(k))).toBe(true);
      expect(['accepted', 'rejected']).toContain(r.verdict);
      expect(r.inputs).toMatchObject({ p99ServiceMs: expect.any(Number), p99RttMs: expect.any(Number), marginMs: expect.any(Number) });
      expect(r.before).toHaveProperty('timeoutRate');
      expect(r.after).toHaveProperty('timeoutRate');
    }
  });

  it('fixes the timeout-retry storm: a timeout above the service time, no retry of a write, no duplicates after', async () => {
    const s = scenarioFile('scenarios/timeout-retry-storm.yaml');
    const serviceMs = constantMs(s.services['com.example.OrderService']!.methods.placeOrder!.serviceTime);
    const rttMs = constantMs(s.network.sameZone);
    const configuredMs = s.consumers[0]!.reference['com.example.OrderService']!.timeoutMs!;
    // The storm's premise: the configured timeout is below the service time, so every attempt times out.
    expect(configuredMs).toBeLessThan(serviceMs);
    const { recommendations } = await recommendJson(['scenarios/timeout-retry-storm.yaml', '--set', 'duration=15s']);
    const [r] = recommendations;
    expect(r!.retries).toBe(0);
    // Constant times: every quantile is the value itself. The documented rule: service + RTT +
    // a margin of 10% of those (at least 5 ms), rounded up to a whole millisecond.
    expect(r!.timeoutMs).toBe(Math.ceil(serviceMs + rttMs + Math.max(5, 0.1 * (serviceMs + rttMs))));
    expect(r!.before.timeoutRate).toBe(1);
    expect(r!.after.timeoutRate).toBe(0);
    expect(r!.after.duplicateExecutions).toBe(0);
  });

  it('keeps the verified timeout rate near the target for an idempotent lognormal method', async () => {
    const target = 0.001;
    const { recommendations } = await recommendJson([
      'scenarios/dual-zone-baseline.yaml', '--set', 'duration=40s', '--target-timeout-rate', String(target),
    ]);
    const r = recommendations.find((x) => x.zone === 'zoneA' && x.method === 'getUserById')!;
    // A timeout at the P99 (plus RTT and margin) fails at most ~1% of attempts, so r retries fail a
    // call with ~0.01^(r+1): the fewest retries with 0.01^(r+1) <= target.
    let retries = 0;
    while (0.01 ** (retries + 1) > target) retries++;
    expect(r.retries).toBe(retries);
    expect(r.after.timeoutRate).toBeLessThan(target);
    // Each attempt whose service time alone exceeds the timeout times out and is retried once, so
    // attempts per request exceed 1 by at least p = P(service > timeout) for the lognormal
    // (median m, P99 q: σ = ln(q/m) / z99). Lower bound: p minus 4 binomial standard errors over
    // the verification run's requests.
    const dist = scenarioFile('scenarios/dual-zone-baseline.yaml').services['com.example.UserService']!.methods.getUserById!.serviceTime;
    if (dist.dist !== 'lognormal' || !('p50' in dist)) throw new Error('expected a lognormal given by p50 and p99');
    const sigma = Math.log(dist.p99 / dist.p50) / Z99;
    const p = 1 - normalCdf(Math.log(r.timeoutMs / dist.p50) / sigma);
    const n = r.after.requests as number;
    expect(r.after.retryAmplification - 1).toBeGreaterThan(p - 4 * Math.sqrt((p * (1 - p)) / n));
  });

  it('computes quantiles from seeded draws within sampling error of the exact value', () => {
    // Exponential mean μ: the q-quantile is μ·ln(1/(1-q)). The sample quantile of n draws has a
    // standard error of √(q(1-q)/n) / f(x_q), with density f(x_q) = (1-q)/μ; relative to x_q that is
    // √(q/((1-q)n)) / ln(1/(1-q)): 0.48% for the documented n = 200,000 draws. Allow 4 of them.
    const mean = 10;
    const q = 0.99;
    const n = 200_000;
    const exact = mean * Math.log(1 / (1 - q));
    const relativeSe = Math.sqrt(q / ((1 - q) * n)) / Math.log(1 / (1 - q));
    expect(Math.abs(distQuantile({ dist: 'exponential', mean }, q) - exact) / exact).toBeLessThan(4 * relativeSe);
  });

  it('rejects a target rate outside (0, 1) as bad usage', async () => {
    const err: string[] = [];
    const code = await main(['recommend', 'scenarios/dual-zone-baseline.yaml', '--target-timeout-rate', '2'], {
      stdout: () => {},
      stderr: (s) => err.push(s),
      cwd: root,
    });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/--target-timeout-rate/);
  });
});
