import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { distQuantile } from '../../src/scenario/recommend.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

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
      expect(Object.keys(r)).toEqual(['consumer', 'zone', 'service', 'method', 'timeoutMs', 'retries', 'inputs', 'reason', 'before', 'after']);
      expect(r.inputs).toMatchObject({ p99ServiceMs: expect.any(Number), p99RttMs: expect.any(Number), marginMs: expect.any(Number) });
      expect(r.before).toHaveProperty('timeoutRate');
      expect(r.after).toHaveProperty('timeoutRate');
    }
  });

  it('fixes the timeout-retry storm: a timeout above the 1500 ms service time, no retry of a write, no duplicates after', async () => {
    const { recommendations } = await recommendJson(['scenarios/timeout-retry-storm.yaml', '--set', 'duration=15s']);
    const [r] = recommendations;
    expect(r!.retries).toBe(0);
    expect(r!.timeoutMs).toBeGreaterThan(1500);
    expect(r!.before.timeoutRate).toBe(1);
    expect(r!.after.timeoutRate).toBe(0);
    expect(r!.after.duplicateExecutions).toBe(0);
  });

  it('keeps the verified timeout rate near the target for an idempotent lognormal method', async () => {
    const { recommendations } = await recommendJson([
      'scenarios/dual-zone-baseline.yaml', '--set', 'duration=40s', '--target-timeout-rate', '0.001',
    ]);
    const r = recommendations.find((x) => x.zone === 'zoneA' && x.method === 'getUserById')!;
    expect(r.retries).toBe(1);
    // ~1% of attempts time out and a second attempt rescues almost all: far below the 0.1% target.
    expect(r.after.timeoutRate).toBeLessThan(0.001);
    expect(r.after.retryAmplification).toBeGreaterThan(1.005);
  });

  it('computes quantiles from seeded draws within sampling error of the exact value', () => {
    // Exponential mean 10 ms: P99 = 10 ln 100 = 46.05 ms; 200k draws give ~0.5% standard error.
    expect(Math.abs(distQuantile({ dist: 'exponential', mean: 10 }, 0.99) - 46.0517) / 46.0517).toBeLessThan(0.02);
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
