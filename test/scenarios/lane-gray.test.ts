/**
 * lane-gray: a gray lane through two tiers. Dubbo 3.3's provider ContextFilter drops `dubbo.tag`
 * (UNLOADING_KEYS, `filter/ContextFilter.java` lines 75-135) but passes `lane` on; the scenario's
 * `propagation.tag: lane` models the lane filter that copies it into the downstream `dubbo.tag`.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/lane-gray.yaml', import.meta.url));
const run = (sets: string[] = []) => runScenario(loadScenarioWithRaw(file, sets).scenario, { version: 'test' }).summary;
const executions = (s: Summary, group: string) => s.byProviderGroup[group]!.executions;

describe('lane-gray', () => {
  const s = run();

  it('keeps gray traffic in the gray lane at both tiers: every gray order reserves on gray inventory', () => {
    expect(s.ok).toBe(s.requests);
    expect(executions(s, 'order-gray')).toBeGreaterThan(2500);
    expect(executions(s, 'inventory-gray')).toBe(executions(s, 'order-gray'));
  });

  it('never lets stable traffic into the lane', () => {
    expect(executions(s, 'inventory-stable')).toBe(executions(s, 'order-stable'));
    // The gray gateway sends 100 of the 1000 requests per second.
    const share = executions(s, 'order-gray') / (executions(s, 'order-gray') + executions(s, 'order-stable'));
    expect(share).toBeGreaterThan(0.09);
    expect(share).toBeLessThan(0.11);
  });

  it('breaks at the second tier without the lane filter: Dubbo routes the first hop by the tag only', () => {
    const plain = run(['propagation.tag=false']);
    expect(plain.ok).toBe(plain.requests);
    expect(executions(plain, 'order-gray')).toBe(executions(s, 'order-gray'));
    expect(executions(plain, 'inventory-gray')).toBe(0);
  });
});
