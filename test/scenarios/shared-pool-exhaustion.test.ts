/**
 * scenarios/shared-pool-exhaustion.yaml, the "Dubbo practice" story: one application exports a
 * healthy OrderService and a PaymentService that slows from ~200 ms to ~3.5 s; with the shared pool
 * and default retries the slow service exhausts the 200 threads and the healthy one fails with
 * "thread pool is EXHAUSTED"; isolation, an `executes` limit or retries 0 keep OrderService healthy.
 * Run shortened to 40 s (the slowdown at 20 s) to keep the test quick.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const file = fileURLToPath(new URL('../../scenarios/shared-pool-exhaustion.yaml', import.meta.url));
const ORDER = 'com.example.OrderService.getOrder';
const PAY = 'com.example.PaymentService.pay';

const run = (strategy: string): Summary => {
  const { scenario } = loadScenarioWithRaw(file, ['duration=40s']);
  return runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
};

describe('shared-pool-exhaustion', () => {
  const shared = run('shared-pool');
  const staticIso = run('static-isolation');
  const dynamic = run('dynamic-isolation');
  const executes = run('executes-limit');
  const noRetries = run('retries-0');
  const orderRejected = (s: Summary) => s.byService[ORDER]!.outcomes.rejected;

  it('shared pool: the slow PaymentService exhausts the threads and the healthy OrderService fails with rejections', () => {
    // 300/s x 3 attempts x 3.5 s = 3,150 threads wanted from 2,000: OrderService loses a visible share.
    expect(shared.byService[ORDER]!.errorRate).toBeGreaterThan(0.03);
    // Every OrderService failure is a rejection (none times out: its calls take ~8 ms when they run).
    expect(orderRejected(shared)).toBe(shared.byService[ORDER]!.requests - shared.byService[ORDER]!.outcomes.ok);
    expect(shared.byProviderGroup['trade-a']!.byService!['com.example.OrderService']!.rejected).toBeGreaterThan(0);
    // Nothing fails before the slowdown (20 s): the first 15 measured buckets are clean.
    const before = shared.timeline.filter((r) => r.tMs < 20_000);
    expect(before.reduce((n, r) => n + r.rejected + r.timeout, 0)).toBe(0);
  });

  it('static isolation, an executes limit and retries 0 keep OrderService at zero errors', () => {
    for (const s of [staticIso, executes, noRetries]) {
      expect(s.byService[ORDER]!.errorRate).toBe(0);
      expect(s.byProviderGroup['trade-a']!.byService!['com.example.OrderService']!.rejected).toBe(0);
    }
  });

  it('dynamic isolation moves pay out after the first slow calls finish: a short hit on OrderService, far smaller than with the shared pool', () => {
    expect(dynamic.events['isolation.movedOut']).toBeGreaterThanOrEqual(10); // each of the 10 processes
    expect(orderRejected(dynamic)).toBeGreaterThan(0);
    expect(orderRejected(dynamic)).toBeLessThan(orderRejected(shared) / 5);
  });

  it('PaymentService fails either way (3.5 s against a 1 s timeout); the cures change how: rejected at once instead of timed out', () => {
    for (const s of [shared, staticIso, dynamic, executes, noRetries]) expect(s.byService[PAY]!.errorRate).toBeGreaterThan(0.4);
    expect(noRetries.byService[PAY]!.outcomes.rejected).toBe(0);
    expect(executes.byService[PAY]!.outcomes.rejected).toBeGreaterThan(executes.byService[PAY]!.outcomes.timeout);
    // Retries 0: one execution per payment, so no duplicates; the shared pool triples them.
    expect(noRetries.duplicateExecutions).toBe(0);
    expect(shared.duplicateExecutions).toBeGreaterThan(1000);
  });
});
