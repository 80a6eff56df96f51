import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { errorFunction } from 'simple-statistics';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const path = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const run = (name: string, overrides: string[] = []) =>
  runScenario(loadScenarioWithRaw(path(name), overrides).scenario, { version: 'test' }).summary;

/**
 * dual-zone-baseline's getUserById: an attempt times out when its lognormal service time (p50 20 ms,
 * p99 450 ms) plus the round trip passes the timeout. Returns q per consumer zone (zoneA: 20 of 25 providers
 * in its zone, zoneB: 5 of 25) and the zone weights of the requests (2000/s and 500/s).
 */
function baselineTimeoutOdds(timeoutMs: number) {
  const Z99 = 2.3263478740408408; // the standard normal's 99th percentile
  const mu = Math.log(20);
  const sigma = (Math.log(450) - mu) / Z99;
  const tail = (ms: number) => 0.5 * (1 - errorFunction((Math.log(ms) - mu) / (sigma * Math.SQRT2)));
  const same = tail(timeoutMs - 0.2); // same-zone RTT 0.2 ms
  const cross = tail(timeoutMs - 3); // zoneA<->zoneB RTT 3 ms
  const q = { zoneA: (20 * same + 5 * cross) / 25, zoneB: (5 * same + 20 * cross) / 25 };
  const w = { zoneA: 2000 / 2500, zoneB: 500 / 2500 };
  /** Expectation over the zones of f(q). */
  const mean = (f: (q: number) => number) => w.zoneA * f(q.zoneA) + w.zoneB * f(q.zoneB);
  return { q, mean };
}

describe('dual-zone-baseline', () => {
  const summary = run('dual-zone-baseline.yaml');
  const GET = 'com.example.UserService.getUserById';

  it('sends about 20% of the zoneA consumers\' attempts across zones (5 of 25 providers)', () => {
    const zoneA = summary.byConsumerZone.zoneA!;
    // Binomial sampling error on ~100k attempts is ~0.13 percentage points; allow 1.
    expect(zoneA.crossZoneRatio).toBeGreaterThan(0.19);
    expect(zoneA.crossZoneRatio).toBeLessThan(0.21);
  });

  it('sends about 80% of the zoneB consumers\' attempts across zones (20 of 25 providers)', () => {
    const zoneB = summary.byConsumerZone.zoneB!;
    expect(zoneB.crossZoneRatio).toBeGreaterThan(0.78);
    expect(zoneB.crossZoneRatio).toBeLessThan(0.82);
  });

  it('measures only requests started after the warm-up', () => {
    // 2500/s over 55 measured seconds: 137500 expected, Poisson sd ~371.
    expect(summary.requests).toBeGreaterThan(137_500 - 2_000);
    expect(summary.requests).toBeLessThan(137_500 + 2_000);
    expect(summary.measuredFromMs).toBe(5000);
  });

  it('times out only the getUserById calls in the lognormal tail beyond 1000 ms', () => {
    // P(lognormal(p50 20, p99 450) > 1000 ms) is about 0.15%; each of 3 attempts must time out to fail.
    expect(summary.timeoutRate).toBeLessThan(0.001);
    expect(summary.byService[GET]!.retryAmplification).toBeGreaterThan(1);
  });

  it('executes a getUserById request twice for every attempt that timed out and was retried (the advertised duplicates)', () => {
    // Every attempt executes to the end, so a request with k timed-out attempts (k <= retries = 2) has k
    // duplicates: E[duplicates per request] = q + q^2, with q = P(service + RTT > 1000 ms) ~ 0.17%.
    const get = summary.byService[GET]!;
    const expected = get.requests * baselineTimeoutOdds(1000).mean((q) => q + q * q);
    // A Poisson-like count (~215): sd = sqrt(expected) ~ 15; allow 4 sd.
    expect(Math.abs(get.duplicateExecutions - expected)).toBeLessThan(4 * Math.sqrt(expected));
    // updateUser has retries: 0, so every duplicate is a getUserById one.
    expect(summary.duplicateExecutions).toBe(get.duplicateExecutions);
    expect(summary.byService['com.example.UserService.updateUser']!.duplicateExecutions).toBe(0);
  });

  describe('with a 100 ms timeout, so that retries show', () => {
    const short = run('dual-zone-baseline.yaml', [
      'consumers[0].reference["com.example.UserService"].timeout=100ms',
      'consumers[1].reference["com.example.UserService"].timeout=100ms',
    ]);
    const get = short.byService[GET]!;
    const odds = baselineTimeoutOdds(100);

    it('makes exactly retries + 1 = 3 attempts at most: attempts per request are 1 + q + q^2 (q ~ 11.6%)', () => {
      const expected = odds.mean((q) => 1 + q + q * q);
      // Attempts per request (1, 2, 3 with odds 1-q, q(1-q), q^2) have variance q + 2q^2 - 2q^3 - q^4 ~ 0.14;
      // over ~124k requests the sd of the mean is ~0.0011.
      const sd = Math.sqrt(odds.mean((q) => q + 2 * q ** 2 - 2 * q ** 3 - q ** 4) / get.requests);
      expect(Math.abs(get.retryAmplification - expected)).toBeLessThan(4 * sd);
    });

    it('fails a request only when all three attempts time out: q^3 of the requests (zoneB uses the default retries, 2)', () => {
      const expected = get.requests * odds.mean((q) => q ** 3);
      // ~195 expected; with 2 attempts it would be ~1,660 and with 4 about 23. Poisson sd ~14; allow 4 sd.
      expect(Math.abs(get.outcomes.timeout - expected)).toBeLessThan(4 * Math.sqrt(expected));
      expect(get.outcomes.timeout).toBe(get.requests - get.ok);
    });
  });
});

describe('timeout-retry-storm', () => {
  const summary = run('timeout-retry-storm.yaml');

  it('times out every request', () => {
    expect(summary.requests).toBeGreaterThan(5000);
    expect(summary.outcomes.timeout).toBe(summary.requests);
  });

  it('takes three timeouts per request: each attempt waits 1000 ms from the moment it is sent', () => {
    // HDR precision is 0.1%, so the recorded value is within 3 ms of 3000.
    expect(Math.abs(summary.latencyAllMs.p50 - 3000)).toBeLessThanOrEqual(3);
    expect(Math.abs(summary.latencyAllMs.max - 3000)).toBeLessThanOrEqual(3);
  });

  it('executes every request three times: about 2 duplicate executions per request, all orphaned', () => {
    expect(summary.retryAmplification).toBeCloseTo(3, 6);
    expect(summary.duplicateExecutions / summary.requests).toBeCloseTo(2, 2);
    expect(summary.duplicateWrites).toBe(summary.duplicateExecutions);
    expect(summary.orphanedExecutions).toBe(summary.providerExecutions);
  });
});
