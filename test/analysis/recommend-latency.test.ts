import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { CallGraphLatency } from '../../src/analysis/recommend-latency.js';
import { distQuantile } from '../../src/analysis/recommend.js';

/** A: 2 ms, calls B (100 ms) and C (30 ms), sequential or parallel; constant RTT 1 ms. */
function scenario(parallel: boolean) {
  return parseScenario(
    `
name: latency
duration: 10s
zones:
  dc: { cidr: 10.0.0.0/16 }
network:
  rtt: { same-zone: 1ms }
services:
  A:
    methods:
      a:
        serviceTime: 2ms
        parallel: ${parallel}
        calls:
          - { service: B, method: b, reference: { timeout: 1s } }
          - { service: C, method: c, reference: { timeout: 1s } }
  B: { methods: { b: { serviceTime: 100ms } } }
  C: { methods: { c: { serviceTime: 30ms } } }
providers:
  - { name: pa, service: A, zone: dc, count: 1 }
  - { name: pb, service: B, zone: dc, count: 1 }
  - { name: pc, service: C, zone: dc, count: 1 }
consumers:
  - { application: web, zone: dc, rate: 1/s, calls: { A.a: 1 } }
`,
    'latency.yaml',
  );
}

describe('CallGraphLatency: what a caller waits for through a call graph', () => {
  const inForce = (timeouts: Record<string, number>, retries = 2) => (service: string) => ({ timeoutMs: timeouts[service]!, retries });

  it('adds sequential calls (RTT + service each) and takes the slowest of parallel ones', () => {
    const roomy = inForce({ B: 500, C: 500 });
    expect(new CallGraphLatency(scenario(false), roomy, distQuantile).execution('A', 'a', 'dc')).toBe(2 + (1 + 100) + (1 + 30));
    expect(new CallGraphLatency(scenario(true), roomy, distQuantile).execution('A', 'a', 'dc')).toBe(2 + (1 + 100));
  });

  it('charges every timed-out attempt the full timeout, retries included (Dubbo failover)', () => {
    // B needs 101 ms with its RTT: at a 50 ms timeout all 3 attempts time out, 150 ms waited.
    const tight = new CallGraphLatency(scenario(false), inForce({ B: 50, C: 500 }), distQuantile);
    expect(tight.execution('A', 'a', 'dc')).toBe(2 + 3 * 50 + (1 + 30));
    expect(tight.call('B', 'b', 'dc')).toBe(150);
    const once = new CallGraphLatency(scenario(false), inForce({ B: 50, C: 500 }, 0), distQuantile);
    expect(once.call('B', 'b', 'dc')).toBe(50);
    // Constant times: every quantile of the draws is the value itself.
    expect(tight.executionQuantile('A', 'a', 'dc', 0.99, 1000)).toBe(2 + 150 + 31);
  });
});
