/**
 * Sync timeout detection as each release runs it, through the whole stack: 3.3 waits for the result to
 * the exact deadline (AsyncRpcResult.java:211-235), 2.7 waits until DefaultFuture's 30 ms wheel task
 * ends the call (AsyncToSyncInvoker.java:61, DefaultFuture.java:55-58), so a timed-out call lasts its
 * timeout plus 0-30 ms, uniformly spread over calls whose start times are spread.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const yaml = (dubbo: string) => `
name: timeout-detection
seed: 7
duration: 10s
warmup: 0s
${dubbo}
zones: { dc: {} }
network: { rtt: { same-zone: 0.2ms } }
registry: { type: static }
services:
  com.example.SlowService: { methods: { slow: { serviceTime: 2s } } }
providers:
  - { name: slow, service: com.example.SlowService, zone: dc, count: 2, threads: 2000 }
consumers:
  - application: web
    zone: dc
    instances: 4
    rate: 200/s
    calls: { com.example.SlowService.slow: 1 }
    reference: { com.example.SlowService: { timeout: 100ms, retries: 0 } }
`;

const run = (dubbo: string) => runScenario(parseScenario(yaml(dubbo), 'timeout-detection.yaml'), { version: 'test' }).summary;

describe('sync timeout detection', () => {
  it('3.3: every timed-out call lasts exactly its timeout', () => {
    const s = run('');
    expect(s.outcomes.timeout).toBe(s.requests);
    expect(s.latencyAllMs.max).toBe(100);
    expect(s.latencyAllMs.mean).toBe(100);
  });

  it('2.7: every timed-out call lasts its timeout plus 0-30 ms, 15 ms on average (uniform over the wheel`s tick)', () => {
    const s = run(`dubbo: '2.7'`);
    expect(s.outcomes.timeout).toBe(s.requests);
    expect(s.latencyAllMs.max).toBeLessThanOrEqual(130);
    expect(s.latencyAllMs.max).toBeGreaterThan(125);
    // Lateness uniform on (0, 30]: mean 15, sd 30/sqrt(12) = 8.7 ms per call; over ~2,000 calls the mean's
    // sd is 0.19 ms, so 15 +- 1 ms is over 5 sd.
    expect(s.requests).toBeGreaterThan(1800);
    expect(Math.abs(s.latencyAllMs.mean - 115)).toBeLessThan(1);
  });
});
