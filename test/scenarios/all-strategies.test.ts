import { describe, expect, it } from 'vitest';
import { clusters, loadBalances } from '../../src/dubbo/extensions.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

// A small two-zone world with a slow tail, a crash and a registry: enough to drive every strategy
// through retries, unavailable providers and registry pushes. Each run checks SPEC 5's invariants.
const scenario = (reference: string, registry = 'nacos') =>
  parseScenario(
    `
duration: 12s
warmup: 1s
zones: { zoneA: { cidr: 10.10.0.0/16 }, zoneB: { cidr: 10.20.0.0/16 } }
network: { rtt: { same-zone: 0.2ms, zoneA<->zoneB: 3ms } }
registry: { type: ${registry}, pushLag: 50ms }
services:
  S:
    methods:
      get: { serviceTime: { dist: mixture, components: [{ weight: 98, dist: exponential, mean: 5ms }, { weight: 2, dist: constant, value: 400ms }] } }
      put: { serviceTime: { dist: exponential, mean: 8ms }, idempotent: false, bizErrorRate: 0.01 }
providers:
  - { name: s-a, service: S, zone: zoneA, count: 4, threads: 20 }
  - { name: s-b, service: S, zone: zoneB, count: 3, threads: 20 }
consumers:
  - application: web
    zone: zoneA
    instances: 3
    rate: 300/s
    calls: { S.get: 3, S.put: 1 }
    reference: { S: { timeout: 200ms, ${reference} } }
    attachments: { dubbo.tag: { value: gray, fraction: 0.05 } }
  - { application: web, zone: zoneB, instances: 2, rate: 100/s, calls: { S.get: 1 } }
faults:
  - { at: 4s, for: 3s, crash: { zone: zoneA, service: S, count: 2 } }
  - { at: 6s, for: 2s, zoneDown: zoneB }
`,
    'all-strategies.yaml',
  );

describe('every strategy runs a faulty two-zone scenario end to end with the invariants intact', () => {
  it.each(Object.keys(clusters))('cluster %s', (name) => {
    const s = runScenario(scenario(`cluster: ${name}, forks: 2`), { version: 'test' }).summary;
    expect(s.requests).toBeGreaterThan(3000);
    const outcomes = Object.values(s.outcomes).reduce((a, b) => a + b, 0);
    expect(outcomes).toBe(s.requests);
    expect(s.ok).toBeGreaterThan(0);
  });

  it.each(Object.keys(loadBalances))('loadbalance %s', (name) => {
    const s = runScenario(scenario(`loadbalance: ${name}, actives: 0`), { version: 'test' }).summary;
    expect(s.requests).toBeGreaterThan(3000);
    expect(s.ok / s.requests).toBeGreaterThan(0.8);
  });

  it.each(['static', 'zookeeper'])('registry %s', (type) => {
    const s = runScenario(scenario('retries: 1', type), { version: 'test' }).summary;
    expect(s.ok / s.requests).toBeGreaterThan(0.8);
  });
});
