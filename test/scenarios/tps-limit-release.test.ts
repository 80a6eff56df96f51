/**
 * TpsLimitFilter's refusal as the provider's release has it, through the whole stack: 3.3 returns it
 * as a result (3.3 TpsLimitFilter.java:48-54, since 3.2.5), which failover does not retry; 2.7 throws
 * it (2.7 TpsLimitFilter.java:48), the provider answers SERVICE_ERROR and the consumer's failover
 * retries it on another provider. The provider group's profile decides, whatever the consumer runs.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const SERVICE = 'com.example.StockService';
const yaml = (providerDubbo: string, consumerDubbo = '') => `
name: tps-release
seed: 3
duration: 10s
warmup: 0s
zones: { dc: {} }
network: { rtt: { same-zone: 0.2ms } }
registry: { type: static }
services:
  ${SERVICE}: { methods: { check: { serviceTime: 2ms } } }
providers:
  - { name: throttled, service: ${SERVICE}, zone: dc, count: 1, params: { tps: 5, tps.interval: 60000 }${providerDubbo} }
  - { name: free, service: ${SERVICE}, zone: dc, count: 2 }
consumers:
  - application: web
    zone: dc
    instances: 2
    rate: 100/s
    calls: { ${SERVICE}.check: 1 }${consumerDubbo}
`;

const run = (providerDubbo: string, consumerDubbo = '') =>
  runScenario(parseScenario(yaml(providerDubbo, consumerDubbo), 'tps-release.yaml'), { version: 'test' }).summary;

describe('TpsLimitFilter: returned (3.3) or thrown (2.7), by the provider`s release', () => {
  it('3.3 providers: a refused call ends rejected (provider:tps) after its one attempt', () => {
    const s = run('');
    // A third of ~1,000 first attempts go to the throttled provider, which allows 5 per minute.
    expect(s.rejectedCauses['provider:tps']).toBeGreaterThan(200);
    expect(s.outcomes.rejected).toBe(s.rejectedCauses['provider:tps']);
    expect(s.attempts).toBe(s.requests);
  });

  it('2.7 providers: the refusal is a SERVICE_ERROR reply, retried on another provider: every call ends ok', () => {
    // With a 3.3 consumer and with a 2.7 one: the provider's release decides.
    for (const consumer of ['', `\n    dubbo: '2.7'`]) {
      const s = run(`, dubbo: '2.7'`, consumer);
      expect(s.outcomes.ok).toBe(s.requests);
      expect(s.rejectedCauses['provider:tps'] ?? 0).toBe(0);
      // Each refused first attempt (a third of the calls, less the 5 allowed) makes one retry more.
      expect(s.attempts - s.requests).toBeGreaterThan(200);
      expect(s.byProviderGroup['throttled']!.executions).toBe(5);
    }
  });
});
