import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/timeout-retry-storm.yaml', import.meta.url));
// warmup 0: the request figures then count every call, as the provider figures do.
const run = (sets: string[]) =>
  runScenario(loadScenarioWithRaw(file, ['duration=15s', 'warmup=0s', ...sets]).scenario, { version: 'test' }).summary;

describe('actives on a reference (ActiveLimitFilter) in the timeout-retry storm', () => {
  const limited = run(['consumers[0].reference["com.example.OrderService"].actives=1']);
  const unlimited = run([]);
  // 4 consumer instances x 5 providers = 20 slots of one call in flight each. A call holds its slot for
  // exactly the 1000 ms timeout (the provider needs 1500 ms), and ~15 attempts/s arrive per slot, each
  // waiting up to 1000 ms: at every release a waiter takes the slot at once (notifyAll). So each slot
  // grants one call per second from its first attempt (within the first second) until the last waiter
  // is gone: requests start until 15 s and give up at most 3 x 1000 ms later, by 18 s. A slot therefore
  // grants between 17 and 19 calls.
  const SLOTS = 4 * 5;

  it('executes one call per slot per timeout: between 17 and 19 calls per (instance, provider)', () => {
    expect(limited.providerExecutions).toBeGreaterThanOrEqual(SLOTS * 17);
    expect(limited.providerExecutions).toBeLessThanOrEqual(SLOTS * 19);
    expect(limited.byProviderGroup['orders-a']!.executions).toBe(limited.providerExecutions);
  });

  it('protects the providers: the same ~1,500 requests execute ~4,500 times without the limit', () => {
    // Poisson arrivals at 100/s for 15 s: 1,500 +- 4 x 39.
    expect(Math.abs(unlimited.requests - 1500)).toBeLessThan(4 * Math.sqrt(1500));
    expect(unlimited.providerExecutions).toBe(3 * unlimited.requests);
    expect(limited.requests).toBe(unlimited.requests);
  });

  it('refuses the other calls with LIMIT_EXCEEDED (outcome rejected) after retries on the other providers', () => {
    // A request that timed out executed at least once, so at most 19 x 20 requests time out: the rest
    // (at least 1 - 380/1500 ~ 75%) end rejected. Every request fails one way or the other.
    expect(limited.outcomes.timeout + limited.outcomes.rejected).toBe(limited.requests);
    expect(limited.outcomes.timeout).toBeGreaterThan(0);
    expect(limited.outcomes.timeout).toBeLessThanOrEqual(limited.providerExecutions);
    expect(limited.outcomes.rejected).toBeGreaterThanOrEqual(limited.requests - SLOTS * 19);
    // A refusal by the consumer's own ActiveLimitFilter is an invoke of the provider's invoker by the
    // cluster invoker (the filter chain wraps it), so it is an attempt, but never an execution: every
    // request makes its 3 attempts (each a timeout or a refusal).
    expect(limited.attempts).toBe(3 * limited.requests);
    expect(limited.providerExecutions).toBeLessThan(limited.attempts);
  });

  it('failfast: one attempt per request whether the limit refuses it or not (refusals were left out: 0.958)', () => {
    const failfast = run(['consumers[0].reference["com.example.OrderService"].cluster=failfast', 'consumers[0].reference["com.example.OrderService"].actives=1']);
    expect(failfast.outcomes.rejected).toBeGreaterThan(0);
    expect(failfast.retryAmplification).toBe(1);
    expect(failfast.attempts).toBe(failfast.requests);
    expect(failfast.providerExecutions).toBeLessThan(failfast.attempts);
    // Every attempt goes to a zoneA provider from zoneA, refused or not.
    expect(failfast.crossZoneRatio).toBe(0);
  });

  it('neither limits nor counts when actives is 0 (ActiveLimitFilter is not activated: ConfigUtils.isNotEmpty("0") is false)', () => {
    const zero = run(['consumers[0].reference["com.example.OrderService"].actives=0']);
    expect(zero.outcomes.rejected).toBe(0);
    expect(zero.providerExecutions).toBe(unlimited.providerExecutions);
  });
});
