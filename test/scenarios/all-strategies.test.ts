import { describe, expect, it } from 'vitest';
import { clusters, loadBalances } from '../../src/dubbo/extensions.js';
import type { ScopeSummary, Summary } from '../../src/metrics/summary.js';
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
registry: { type: ${registry}, pushLag: 50ms, connectionBound: false }
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

// The reference under test is the zoneA group's (zoneB's consumers keep the default failover), so
// the cluster checks read the zoneA scope. RETRIES and FORKS are set explicitly in that reference.
const RETRIES = 2;
const FORKS = 2;
// Providers registered from t = 0: 4 in zoneA + 3 in zoneB. None leaves the lists within the 12 s
// run: the registry keeps Nacos 1.x clients (`connectionBound: false`), which Nacos deletes only after
// 30 s of silence and Dubbo keeps listed while unhealthy (ZooKeeper: 40 s sessions); a crash's restart
// adds a new one. (With the 3.3 default, nacos-client 2.x, a crashed process's instances go 3 s later.)
const REGISTERED_PROVIDERS = 4 + 3;

/** Failures a caller sees as an error (biz is not one: Dubbo returns it inside the result). */
const failures = (z: ScopeSummary) => z.outcomes.timeout + z.outcomes.network + z.outcomes.rejected + z.outcomes.forbidden;

/**
 * What each cluster's definition says about attempts and outcomes on the zoneA consumers, where
 * the 400 ms tail (over the 200 ms timeout) and the crash make some first attempts fail.
 * `reached` counts the requests that found providers (the others make no attempt).
 */
const signatures: Record<string, (z: ScopeSummary, reached: number, s: Summary) => void> = {
  // One attempt, then up to RETRIES more on other providers.
  failover: (z, reached) => {
    expect(z.attempts).toBeGreaterThan(reached);
    expect(z.attempts).toBeLessThanOrEqual((1 + RETRIES) * reached);
  },
  // One attempt; its failure is the caller's.
  failfast: (z, reached) => {
    expect(z.attempts).toBe(reached);
    expect(failures(z)).toBeGreaterThan(0);
  },
  // One attempt; a failure becomes an empty success.
  failsafe: (z, reached, s) => {
    expect(z.attempts).toBe(reached);
    expect(failures(z)).toBe(0);
    expect(s.events['failsafe.ignored']).toBeGreaterThan(0);
  },
  // Like failsafe for the caller, then up to RETRIES background attempts per failed call.
  failback: (z, reached, s) => {
    expect(failures(z)).toBe(0);
    expect(z.attempts).toBeGreaterThan(reached);
    expect(z.attempts).toBeLessThanOrEqual((1 + RETRIES) * reached);
    expect(s.events['failback.retry']).toBeGreaterThan(0);
  },
  // FORKS parallel attempts on distinct providers (every list holds more than FORKS).
  forking: (z, reached) => {
    expect(z.attempts).toBe(FORKS * reached);
  },
  // One attempt on every provider of the list, so at least on every registered one.
  broadcast: (z, reached) => {
    expect(z.attempts).toBeGreaterThanOrEqual(REGISTERED_PROVIDERS * reached);
  },
  // One attempt on the first available provider.
  available: (z, reached) => {
    expect(z.attempts).toBe(reached);
  },
  // Without a merger configured, Dubbo's mergeable calls the first available provider once.
  mergeable: (z, reached) => {
    expect(z.attempts).toBe(reached);
  },
  // One registry: its single list is used as is, with one load-balanced attempt.
  'zone-aware': (z, reached) => {
    expect(z.attempts).toBe(reached);
  },
  // Failover with the retries kept in the caller's zone while it has untried providers.
  zoneAwareFailover: (z, reached) => {
    expect(z.attempts).toBeGreaterThan(reached);
    expect(z.attempts).toBeLessThanOrEqual((1 + RETRIES) * reached);
  },
};

describe('every strategy runs a faulty two-zone scenario end to end with the invariants intact', () => {
  it('has an attempt signature for every registered cluster', () => {
    expect(Object.keys(signatures).sort()).toEqual(Object.keys(clusters).sort());
  });

  // runScenario throws if SPEC 5's invariants break; these checks are each cluster's own behaviour.
  it.each(Object.keys(clusters))('cluster %s makes the attempts its definition promises', (name) => {
    const s = runScenario(scenario(`cluster: ${name}, retries: ${RETRIES}, forks: ${FORKS}`), { version: 'test' }).summary;
    const z = s.byConsumerZone.zoneA!;
    expect(z.requests).toBeGreaterThan(3000);
    expect(z.ok).toBeGreaterThan(0);
    signatures[name]!(z, z.requests - z.outcomes.noProvider, s);
  });

  it.each(Object.keys(loadBalances))('loadbalance %s', (name) => {
    // actives 100000 activates ActiveLimitFilter (so leastactive/shortestresponse count) without limiting;
    // actives 0 would leave it out (ConfigUtils.isNotEmpty("0") is false).
    const s = runScenario(scenario(`loadbalance: ${name}, actives: 100000`), { version: 'test' }).summary;
    expect(s.requests).toBeGreaterThan(3000);
    expect(s.ok / s.requests).toBeGreaterThan(0.8);
  });

  it.each(['static', 'zookeeper'])('registry %s', (type) => {
    const s = runScenario(scenario('retries: 1', type), { version: 'test' }).summary;
    expect(s.ok / s.requests).toBeGreaterThan(0.8);
  });
});
