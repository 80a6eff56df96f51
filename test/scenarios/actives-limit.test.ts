import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/timeout-retry-storm.yaml', import.meta.url));
const run = (sets: string[]) =>
  runScenario(loadScenarioWithRaw(file, ['duration=15s', ...sets]).scenario, { version: 'test' }).summary;

describe('actives on a reference (ActiveLimitFilter) in the timeout-retry storm', () => {
  const limited = run(['consumers[0].reference["com.example.OrderService"].actives=1']);
  const unlimited = run([]);

  it('refuses calls above one in flight per consumer instance and provider with LIMIT_EXCEEDED (outcome rejected)', () => {
    // 4 instances x 5 providers = 20 slots, against ~100 calls/s that each hold a slot for 1000 ms.
    expect(limited.outcomes.rejected).toBeGreaterThan(0.5 * limited.requests);
    expect(limited.outcomes.timeout + limited.outcomes.rejected).toBe(limited.requests);
  });

  it('protects the providers: far fewer executions than without the limit', () => {
    expect(limited.providerExecutions).toBeLessThan(0.5 * unlimited.providerExecutions);
  });

  it('counts without limiting when actives is 0', () => {
    const zero = run(['consumers[0].reference["com.example.OrderService"].actives=0']);
    expect(zero.outcomes.rejected).toBe(0);
    expect(zero.providerExecutions).toBe(unlimited.providerExecutions);
  });
});
