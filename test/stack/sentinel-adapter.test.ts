/**
 * Sentinel's Dubbo adapter through the whole stack: where the filters sit (a consumer ClusterFilter
 * once per call, a provider filter per execution), what a blocked call becomes under each fallback
 * (and whether failover retries it), the origin a provider rule limits, the rate limiter's wait in
 * simulated time, and a datasource update pushed by a `sentinel` fault.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import type { Summary } from '../../src/metrics/summary.js';

const S = 'com.example.UserService';
const yaml = (extra: string, consumer = '', rate = '100/s') => `
name: sentinel-adapter
seed: 5
duration: 20s
warmup: 0s
zones: { dc: {} }
network: { rtt: { same-zone: 0.2ms } }
registry: { type: static }
services:
  ${S}: { methods: { getUserById: { serviceTime: 2ms } } }
providers:
  - { name: users, service: ${S}, zone: dc, count: 2 }
consumers:
  - { application: web, zone: dc, instances: 1, rate: ${rate}, calls: { ${S}.getUserById: 1 }${consumer} }
${extra}`;
const run = (extra: string, consumer = '', rate?: string): Summary => runScenario(parseScenario(yaml(extra, consumer, rate), 'a.yaml'), { version: 'test' }).summary;

// One consumer JVM at 100 calls/s, limited to 20 QPS on the method resource: ~80% blocked.
const FLOW_20 = `{ resource: "${S}:getUserById(java.lang.Long)", count: 20 }`;

describe('Sentinel consumer filter (a ClusterFilter: once per call)', () => {
  it('a QPS flow rule on the method resource blocks what exceeds it, as outcome blocked (consumer:flow), before any attempt', () => {
    const s = run(`sentinel: { flowRules: [${FLOW_20}] }`);
    // 20 passes per second over 20 s, give or take the window's edges.
    expect(s.ok).toBeGreaterThan(380);
    expect(s.ok).toBeLessThan(420);
    expect(s.outcomes.blocked).toBe(s.requests - s.ok);
    expect(s.blockedCauses).toEqual({ 'consumer:flow': s.outcomes.blocked });
    // A blocked call never reaches the cluster: attempts are the passed calls only.
    expect(s.attempts).toBe(s.ok);
    expect(s.errorRate).toBeCloseTo(s.outcomes.blocked / s.requests, 6);
  });

  it('a fallback returning a value answers the blocked call: still blocked (…:fallback), but not a failure', () => {
    const s = run(`sentinel: { flowRules: [${FLOW_20}], fallback: return null }`);
    expect(s.blockedCauses).toEqual({ 'consumer:flow:fallback': s.outcomes.blocked });
    expect(s.outcomes.blocked).toBeGreaterThan(1000);
    expect(s.errorRate).toBe(0);
  });

  it('the rate limiter queues calls in simulated time instead of blocking them, up to maxQueueingTimeMs', () => {
    // 20 calls/s against 25/s: each waits for its 40 ms slot when it comes early; none waits beyond 500 ms.
    const s = run(`sentinel: { flowRules: [{ resource: ${S}, count: 25, controlBehavior: 2, maxQueueingTimeMs: 500 }] }`, '', '20/s');
    expect(s.outcomes.blocked).toBe(0);
    expect(s.latencyMs.max).toBeGreaterThan(20);
    expect(s.latencyMs.max).toBeLessThan(500 + 10);
    const plain = run('', '', '20/s');
    expect(s.latencyMs.mean).toBeGreaterThan(plain.latencyMs.mean + 5);
  });

  it('a group`s own block replaces the top-level kinds for its JVMs (the top level applies to providers too)', () => {
    const top = run(`sentinel: { flowRules: [${FLOW_20}] }`, `, sentinel: { flowRules: [] }`);
    // The consumer JVM loads no flow rule; the two provider JVMs load the top-level one (20 QPS each).
    expect(Object.keys(top.blockedCauses ?? {})).toEqual(['provider:flow']);
    expect(top.ok).toBeGreaterThan(760);
    expect(top.ok).toBeLessThan(840);
  });
});

describe('Sentinel provider filter', () => {
  it('limitApp names the consumer application: the provider counts and limits web`s calls only', () => {
    const limited = run(`sentinel: { flowRules: [{ resource: ${S}, count: 5, limitApp: web }] }`);
    expect(limited.blockedCauses).toEqual({ 'provider:flow': limited.outcomes.blocked });
    // Two provider JVMs, 5 QPS each: about 10 of the 100 calls a second pass.
    expect(limited.ok).toBeGreaterThan(150);
    expect(limited.ok).toBeLessThan(260);
    const other = run(`sentinel: { flowRules: [{ resource: ${S}, count: 5, limitApp: batch }] }`);
    expect(other.outcomes.blocked).toBe(0);
  });

  it('the default fallback`s result is not retried by failover; a fallback that throws is (a SERVICE_ERROR reply)', () => {
    const returned = run(`sentinel: { flowRules: [{ resource: ${S}, count: 5, limitApp: web }] }`);
    expect(returned.attempts).toBe(returned.requests);
    const thrown = run(`sentinel: { flowRules: [{ resource: ${S}, count: 5, limitApp: web }], fallback: throw }`);
    // Failover's two retries: a call blocked on both providers is tried three times.
    expect(thrown.attempts).toBeGreaterThan(2.5 * thrown.requests);
    expect(thrown.blockedCauses).toEqual({ 'provider:flow': thrown.outcomes.blocked });
    // The providers' windows bound what passes, retried or not.
    expect(thrown.ok).toBe(returned.ok);
  });

  it('without executes or tps on its exports the provider runs Sentinel`s filter alone, deciding as beside a limit filter that never binds', () => {
    // A thread-grade rule (grade 0): at most one of web's calls on a provider thread at once. Calls of 20 ms at
    // 100 a second on two providers overlap often, so many are blocked; every admitted call must be counted out
    // when it ends (else the provider would block everything after its first call).
    const slow = (exports: string) =>
      runScenario(
        parseScenario(
          yaml(`sentinel: { flowRules: [{ resource: ${S}, grade: 0, count: 1, limitApp: web }] }`)
            .replace('serviceTime: 2ms', 'serviceTime: 20ms')
            .replace('count: 2 }', `count: 2${exports} }`),
          'a.yaml',
        ),
        { version: 'test' },
      ).summary;
    const alone = slow('');
    expect(alone.blockedCauses).toEqual({ 'provider:flow': alone.outcomes.blocked });
    expect(alone.outcomes.blocked).toBeGreaterThan(0.1 * alone.requests);
    expect(alone.ok).toBeGreaterThan(0.3 * alone.requests);
    // ExecuteLimitFilter active (executes=1000 never binds) and TpsLimitFilter with a rate no call reaches.
    const beside = slow(`, exports: { ${S}: { executes: 1000, tps: 100000 } }`);
    expect(beside.outcomes).toEqual(alone.outcomes);
    expect(beside.attempts).toBe(alone.attempts);
  });

  it('a system rule (max QPS of all inbound calls) blocks as provider:system', () => {
    const s = run(`sentinel: { systemRules: [{ qps: 10 }] }`);
    expect(Object.keys(s.blockedCauses ?? {})).toEqual(['provider:system']);
  });
});

describe('a sentinel fault (datasource update)', () => {
  it('pushes rules at a time and takes them back after for:', () => {
    const s = run(`faults:\n  - { at: 5s, for: 5s, sentinel: { application: web, flowRules: [${FLOW_20}] } }`);
    const blockedIn = (from: number, to: number) => s.timeline.filter((r) => r.tMs >= from && r.tMs < to).reduce((n, r) => n + r.blocked, 0);
    expect(blockedIn(0, 5000)).toBe(0);
    expect(blockedIn(5000, 10_000)).toBeGreaterThan(300);
    expect(blockedIn(10_000, 20_000)).toBe(0);
  });

  it('an update keeps an open breaker whose rule is unchanged', () => {
    // Every call fails (a business error): the error-count breaker opens and stays open across an update of
    // the flow rules only, then closes never (every probe fails too).
    const s = runScenario(
      parseScenario(
        yaml(
          `sentinel: { degradeRules: [{ resource: ${S}, grade: 2, count: 3, minRequestAmount: 1, timeWindow: 100 }] }\nfaults:\n  - { at: 5s, sentinel: { flowRules: [] } }`,
        ).replace('serviceTime: 2ms', 'serviceTime: 2ms, bizErrorRate: 1'),
        'a.yaml',
      ),
      { version: 'test' },
    ).summary;
    expect(s.events['sentinel.consumer.open']).toBe(1);
    expect(s.outcomes.biz).toBe(4);
    expect(s.outcomes.blocked).toBe(s.requests - 4);
  });
});

describe('the 2.7 adapter: the consumer filter around each attempt', () => {
  const dubbo27 = `, dubbo: '2.7'`;

  it('counts attempts, not calls: a flow rule of 20 QPS passes 20 attempts a second', () => {
    const s = run(`sentinel: { flowRules: [${FLOW_20}] }`, dubbo27);
    expect(s.blockedCauses).toEqual({ 'consumer:flow': s.outcomes.blocked });
    expect(s.ok).toBeGreaterThan(380);
    expect(s.ok).toBeLessThan(420);
    // A blocked attempt is an attempt (an invoke of the provider invoker's chain) that reached no provider.
    expect(s.attempts).toBe(s.requests);
    expect(s.providerExecutions).toBe(s.ok);
  });

  it('the default fallback`s result ends the call; a fallback that throws is retried by failover, on the same JVM`s window', () => {
    const returned = run(`sentinel: { flowRules: [${FLOW_20}] }`, dubbo27);
    const thrown = run(`sentinel: { flowRules: [${FLOW_20}], fallback: throw }`, dubbo27);
    // Every retry enters the same resource again: blocked calls make three attempts.
    expect(thrown.attempts).toBeGreaterThan(2.5 * thrown.requests);
    expect(returned.attempts).toBe(returned.requests);
  });

  it('a timeout is traced per attempt: an error-count breaker opens on timed-out attempts that failover rescued', () => {
    // One provider black-holed from 5 s: its attempts time out (1000 ms), failover then succeeds on the other.
    const faults = `\nfaults:\n  - { at: 5s, zoneDown: { group: slow } }`;
    const twoGroups = (consumer: string) =>
      runScenario(
        parseScenario(
          yaml(`sentinel: { degradeRules: [{ resource: ${S}, grade: 2, count: 5, minRequestAmount: 1, statIntervalMs: 10000, timeWindow: 60 }] }${faults}`, consumer).replace(
            `  - { name: users, service: ${S}, zone: dc, count: 2 }`,
            `  - { name: users, service: ${S}, zone: dc, count: 1 }\n  - { name: slow, service: ${S}, zone: dc, count: 1 }`,
          ),
          'a.yaml',
        ),
        { version: 'test' },
      ).summary;
    // 2.7: the attempts' timeouts are errors of the resource: the breaker opens.
    expect(twoGroups(dubbo27).events['sentinel.consumer.open']).toBe(1);
    // 3.x: the calls end ok after failover: no error is traced, the breaker stays closed.
    expect(twoGroups('').events['sentinel.consumer.open'] ?? 0).toBe(0);
  });
});

describe('hot parameters', () => {
  it('argument 0 is the call`s user id: 5 users, 1 call per user a second on each of 2 providers', () => {
    // On the provider group only: ParamFlowSlot does not read limitApp, so a top-level rule would block on the consumer first.
    const rule = `{ resource: "${S}:getUserById(java.lang.Long)", paramIdx: 0, count: 1 }`;
    const text = yaml('', ', userIds: 5').replace(`count: 2 }`, `count: 2, sentinel: { paramFlowRules: [${rule}] } }`);
    const s = runScenario(parseScenario(text, 'a.yaml'), { version: 'test' }).summary;
    expect(s.blockedCauses).toEqual({ 'provider:param': s.outcomes.blocked });
    // At most 2 providers × 5 users × 20 s (+ the first second's full buckets) pass.
    expect(s.ok).toBeLessThanOrEqual(2 * 5 * 21);
    expect(s.ok).toBeGreaterThan(150);
  });
});

describe('warm up through the stack', () => {
  it('starts cold: count/coldFactor at first, the full count once the stored tokens are spent', () => {
    const s = run(`sentinel: { flowRules: [{ resource: ${S}, count: 60, controlBehavior: 1, warmUpPeriodSec: 5 }] }`, '', '200/s');
    const okIn = (fromS: number, toS: number) => s.timeline.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000).reduce((n, r) => n + r.ok, 0);
    // Cold: 60 / 3 = 20 QPS with full tokens, about 22 a second later (20 tokens spent); the two 500 ms
    // buckets slide, so a timeline second may hold a few more. Without a cold start it would be 120.
    expect(okIn(1, 3)).toBeLessThan(2 * 25);
    // Warm, 15 s on: the full 60 QPS.
    expect(okIn(15, 20)).toBeGreaterThanOrEqual(5 * 58);
  });
});
