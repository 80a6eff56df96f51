/**
 * Method-level timeouts on one reference: calls of two methods take turns on the same invokers, and
 * each attempt waits its own method's timeout (DubboInvoker keeps the last method's timeout at hand).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const SCENARIO = `
name: per-method-timeouts
seed: 5
duration: 10s
warmup: 1s
zones: { dc: { cidr: 10.0.0.0/24 } }
network: { rtt: { same-zone: 0ms } }
registry: { type: static }
services:
  com.example.S:
    methods:
      fast: { serviceTime: { dist: constant, value: 30ms } }
      slow: { serviceTime: { dist: constant, value: 30ms } }
providers:
  - { name: p, service: com.example.S, zone: dc, count: 3 }
consumers:
  - application: c
    zone: dc
    instances: 2
    rate: 200/s
    calls: { com.example.S.fast: 0.5, com.example.S.slow: 0.5 }
    reference: { com.example.S: { retries: 0, methods: { fast: { timeout: 20ms }, slow: { timeout: 50ms } } } }
`;

describe('method-level timeouts', () => {
  it('times out every 30 ms call of the 20 ms method and none of the 50 ms one, calls of both taking turns', () => {
    const { summary } = runScenario(parseScenario(SCENARIO, 'per-method-timeouts.yaml'), { version: 'test' });
    const fast = summary.byService['com.example.S.fast']!;
    const slow = summary.byService['com.example.S.slow']!;
    expect(fast.requests).toBeGreaterThan(500);
    expect(slow.requests).toBeGreaterThan(500);
    expect(fast.outcomes.timeout).toBe(fast.requests);
    expect(fast.latencyAllMs.max).toBe(20);
    expect(slow.outcomes.ok).toBe(slow.requests);
    expect(slow.latencyMs.max).toBe(30);
  });
});
