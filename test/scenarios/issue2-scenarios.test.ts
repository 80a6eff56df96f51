import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const path = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const run = (name: string, overrides: string[] = []) =>
  runScenario(loadScenarioWithRaw(path(name), overrides).scenario, { version: 'test' }).summary;

describe('dual-zone-baseline', () => {
  const summary = run('dual-zone-baseline.yaml');

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
    expect(summary.byService['com.example.UserService.getUserById']!.retryAmplification).toBeGreaterThan(1);
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
