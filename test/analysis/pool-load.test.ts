/**
 * Offered load on provider pools (src/scenario/pool-load.ts) and what `check` and `recommend` do
 * with it: threads = calls/s x attempts per call x mean service time, per pool.
 */
import { errorFunction } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { checkScenario } from '../../src/analysis/check.js';
import { loadScenarioFile, parseScenario } from '../../src/scenario/load.js';
import { overloadedPools, poolLoads, type PoolPhase } from '../../src/analysis/pool-load.js';
import { recommendations } from '../../src/analysis/recommend.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import type { Scenario } from '../../src/model/types.js';

const scenario = (name: string, sets: string[] = []) =>
  loadScenarioFile(fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url)), sets);

describe('poolLoads', () => {
  it('timeout-retry-storm: 100 calls/s x 3 attempts (every 1500 ms attempt times out at 1000 ms) x 1500 ms = 450 threads of 1,000', () => {
    const [asWritten] = poolLoads(scenario('timeout-retry-storm'));
    expect(asWritten!.pools).toHaveLength(1);
    const p = asWritten!.pools[0]!;
    expect([p.group, p.pool, p.capacity]).toEqual(['orders-a', 'shared', 1000]);
    expect(p.contributions[0]!.attemptsPerCall).toBe(3);
    expect(p.offered).toBeCloseTo(450, 9);
    // retries 0: one attempt per call.
    expect(poolLoads(scenario('timeout-retry-storm', ['consumers[0].reference["com.example.OrderService"].retries=0']))[0]!.pools[0]!.offered).toBeCloseTo(150, 9);
  });

  it('shared-pool-exhaustion: fine as written, over its 2,000 threads during the slowdown, with pay at 3 attempts per call', () => {
    const phases = poolLoads(scenario('shared-pool-exhaustion'));
    expect(phases.map((p) => p.label)).toEqual(['as written', 'during the slowdown at 20 s (faults[0])']);
    expect(phases[0]!.pools[0]!.offered).toBeLessThan(200);
    const slow = phases[1]!.pools[0]!;
    const pay = slow.contributions.find((c) => c.method === 'pay')!;
    expect(pay.attemptsPerCall).toBeCloseTo(3, 2);
    // 300 calls/s x 3 x mean(lognormal p50 200 p99 300) x 17.5 / 1000.
    const sigma = Math.log(300 / 200) / 2.3263478740408408;
    const meanMs = 200 * Math.exp((sigma * sigma) / 2) * 17.5;
    expect(pay.threads / ((300 * 3 * meanMs) / 1000)).toBeCloseTo(1, 2);
    expect(overloadedPools(scenario('shared-pool-exhaustion')).map((p) => [p.group, p.pool])).toEqual([['trade-a', 'shared']]);
  });

  it('an isolated executor is its own pool: static isolation moves the overload off the shared pool onto the PaymentService executor', () => {
    const s = scenario('shared-pool-exhaustion');
    const isolated = applyStrategy(s, s.strategies['static-isolation']!);
    expect(overloadedPools(isolated).map((p) => [p.pool, p.capacity])).toEqual([['com.example.PaymentService', 500]]);
  });
});

describe('check and recommend on shared pools', () => {
  it('check warns when a pool is offered more threads than it has, naming the group, the phase and the other services hit', () => {
    const warnings = checkScenario(scenario('shared-pool-exhaustion')).warnings.filter((w) => w.kind === 'pool-overload');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ providerGroup: 'trade-a', pool: 'shared', service: 'com.example.PaymentService', method: 'pay' });
    expect(warnings[0]!.message).toMatch(/^provider group trade-a: its shared pool is offered 3\d{3} threads of its 2000 during the slowdown at 20 s/);
    expect(warnings[0]!.message).toContain('those of com.example.OrderService too');
    expect(checkScenario(scenario('timeout-retry-storm')).warnings.filter((w) => w.kind === 'pool-overload')).toEqual([]);
  });

  it('recommend gives no retries to a method whose retries already exhaust its pool, and says why; other methods keep theirs', () => {
    const s = scenario('shared-pool-exhaustion', ['services["com.example.PaymentService"].methods.pay.idempotent=true']);
    const recs = recommendations(s, 0.001);
    const pay = recs.find((r) => r.method === 'pay')!;
    expect(pay.retries).toBe(0);
    expect(pay.reason).toContain('No retries: the shared pool of provider group trade-a is offered');
    const order = recs.find((r) => r.method === 'getOrder')!;
    expect(order.retries).toBe(1);
    // Without the slowdown the pool is fine and pay gets the usual retry.
    const calm = recommendations(scenario('shared-pool-exhaustion', ['services["com.example.PaymentService"].methods.pay.idempotent=true', 'faults=[]']), 0.001);
    expect(calm.find((r) => r.method === 'pay')!.retries).toBe(1);
  });
});

const INSTANCE_SLOWDOWN = fileURLToPath(new URL('../cli/fixtures/check/instance-slowdown.yaml', import.meta.url));
const fixture = (sets: string[] = []) => loadScenarioFile(INSTANCE_SLOWDOWN, sets);
const phaseOf = (phases: PoolPhase[], label: RegExp) => phases.find((p) => label.test(p.label))!;
const poolOf = (phase: PoolPhase, group: string, instance?: string) => phase.pools.find((p) => p.group === group && p.instance === instance)!;

describe('an instance slowed on its own (instance: s-a#3, the user trial of issue 36)', () => {
  // query: lognormal p50 20 ms, p99 60 ms; 4,000 calls/s over 2 x 10 instances; timeout 1 s, 2 retries.
  const sigma = Math.log(60 / 20) / 2.3263478740408408;
  const meanMs = 20 * Math.exp((sigma * sigma) / 2);
  const normalCdf = (z: number) => (1 + errorFunction(z / Math.SQRT2)) / 2;
  // The model's mean comes from 20,000 seeded draws: relative standard error sqrt(e^(sigma^2) - 1) / sqrt(20,000) ~ 0.35%; allow 4 of them.
  const nearMean = (ratio: number) => expect(Math.abs(ratio - 1)).toBeLessThan(0.015);

  it('is a pool of its own, offered its 1/20 share of the calls at 100 x the service time; the group keeps its 9 other instances', () => {
    const slow = phaseOf(poolLoads(fixture()), /slowdown/);
    expect([slow.fromMs, slow.toMs]).toEqual([10_000, 30_000]);
    const instance = poolOf(slow, 's-a', 's-a#3');
    expect([instance.instances, instance.capacity]).toEqual([1, 200]);
    expect([poolOf(slow, 's-a').instances, poolOf(slow, 's-a').capacity]).toEqual([9, 1800]);
    expect([poolOf(slow, 's-b').instances, poolOf(slow, 's-b').capacity]).toEqual([10, 2000]);
    // An attempt on s-a#3 times out when 100 X + 0.2 ms > 1000 ms; it is picked 1 time in 20, so a
    // call makes 1 + Q + Q^2 attempts with Q = P(timeout) / 20, spread like the first.
    const q = 1 - normalCdf((Math.log(999.8 / 100) - Math.log(20)) / sigma);
    const attempts = 1 + q / 20 + (q / 20) ** 2;
    const c = instance.contributions[0]!;
    expect(c.attemptsPerCall / attempts).toBeCloseTo(1, 2);
    expect(c.callsPerSec).toBeCloseTo(200, 9);
    nearMean(instance.offered / ((200 * attempts * 100 * meanMs) / 1000));
    // The other instances run at the normal service time.
    nearMean(poolOf(slow, 's-b').contributions[0]!.meanServiceMs / meanMs);
  });

  it('flags only that instance: not the rest of s-a, not s-b', () => {
    expect(overloadedPools(fixture()).map((p) => [p.group, p.instance, p.pool, p.phase])).toEqual([
      ['s-a', 's-a#3', 'shared', 'during the slowdown at 10 s (faults[0])'],
    ]);
  });

  it('a group: slowdown slows the whole group, and only that group', () => {
    const slow = phaseOf(poolLoads(fixture(['faults[0].slowdown={ group: s-a, factor: 100 }'])), /slowdown/);
    expect(slow.pools.map((p) => [p.group, p.instance, p.instances])).toEqual([
      ['s-a', undefined, 10],
      ['s-b', undefined, 10],
    ]);
    nearMean(poolOf(slow, 's-a').contributions[0]!.meanServiceMs / (100 * meanMs));
    nearMean(poolOf(slow, 's-b').contributions[0]!.meanServiceMs / meanMs);
    expect(overloadedPools(fixture(['faults[0].slowdown={ group: s-a, factor: 100 }'])).map((p) => p.group)).toEqual(['s-a']);
  });
});

describe('traffic faults', () => {
  it('a x50 surge multiplies the calls of the consumer groups it names, in its phase only', () => {
    const phases = poolLoads(fixture(['faults[0]={ at: 10s, for: 5s, traffic: { consumer: web, factor: 50 } }']));
    expect(phases.map((p) => [p.label, p.fromMs, p.toMs])).toEqual([
      ['as written', 0, 10_000],
      ['during the traffic x50 of web at 10 s (faults[0])', 10_000, 15_000],
    ]);
    const calm = poolOf(phases[0]!, 's-b');
    const surge = poolOf(phases[1]!, 's-b');
    expect(surge.contributions[0]!.callsPerSec).toBeCloseTo(50 * calm.contributions[0]!.callsPerSec, 9);
    expect(surge.offered).toBeCloseTo(50 * calm.offered, 6);
    expect(surge.offered).toBeGreaterThan(surge.capacity);
  });

  it('a rate sets the rate: 100/s over 20 instances, 50/s to s-a', () => {
    const set = poolLoads(fixture(['faults[0]={ at: 10s, traffic: { consumer: web, rate: 100/s } }']));
    expect(poolOf(set[1]!, 's-a').contributions[0]!.callsPerSec).toBeCloseTo(50, 9);
  });

  it('overlapping faults combine: the surge on top of the slowdown', () => {
    const phases = poolLoads(
      fixture(['faults[1]={ at: 20s, for: 5s, traffic: { consumer: web, factor: 2 } }']),
    );
    expect(phases.map((p) => p.label)).toEqual([
      'as written',
      'during the slowdown at 10 s (faults[0])',
      'during the slowdown at 10 s (faults[0]) and the traffic x2 of web at 20 s (faults[1])',
    ]);
    expect(poolOf(phases[2]!, 's-a', 's-a#3').offered).toBeCloseTo(2 * poolOf(phases[1]!, 's-a', 's-a#3').offered, 6);
  });
});

/**
 * web -> front.handle (5 ms, then `calls` x back.get) -> back.get (10 ms); constant times, one
 * zone (RTT 0.2 ms), timeouts 1 s and 2 retries at both tiers.
 */
function callGraph(opts: { calls?: number; parallel?: boolean; faults?: string; frontExports?: string } = {}): Scenario {
  const call = '{ service: com.example.Back, method: get, reference: { timeout: 1s, retries: 2 } }';
  return parseScenario(
    `
name: call-graph-load
duration: 60s
zones: { dc: { cidr: 10.0.0.0/16 } }
network: { rtt: { same-zone: 0.2ms } }
services:
  com.example.Front:
    methods:
      handle:
        serviceTime: 5ms
        parallel: ${opts.parallel ?? false}
        calls: [${Array.from({ length: opts.calls ?? 1 }, () => call).join(', ')}]
  com.example.Back:
    methods:
      get: { serviceTime: 10ms }
providers:
  - { name: front, service: com.example.Front, zone: dc, count: 2, threads: 200, exports: ${opts.frontExports ?? '{}'} }
  - { name: back, service: com.example.Back, zone: dc, count: 2, threads: 200 }
consumers:
  - application: web
    zone: dc
    rate: 100/s
    calls: { com.example.Front.handle: 1 }
    reference: { com.example.Front: { timeout: 1s, retries: 2 } }
faults: ${opts.faults ?? '[]'}
`,
    'call-graph-load.yaml',
  );
}
const BACK_SLOW = '[{ at: 10s, slowdown: { service: com.example.Back, factor: 200 } }]';

describe('call graphs', () => {
  it('each execution upstream makes its downstream calls, and holds its thread while it waits for them', () => {
    const [asWritten] = poolLoads(callGraph());
    const front = poolOf(asWritten!, 'front');
    const back = poolOf(asWritten!, 'back');
    // front: 100/s x (5 ms own + 10.2 ms waiting for back.get); back: 100/s x 10 ms.
    expect(front.contributions[0]!.downstreamMs).toBeCloseTo(10.2, 9);
    expect(front.offered).toBeCloseTo((100 * 15.2) / 1000, 9);
    expect(back.contributions).toMatchObject([{ consumer: 'front', zone: 'dc', callGraph: true, callsPerSec: 100, attemptsPerCall: 1 }]);
    expect(back.offered).toBeCloseTo(1, 9);
  });

  it('retries multiply across tiers: 100 calls/s x 3 front attempts x 3 back attempts x 2 s = 1,800 threads on back', () => {
    const slow = poolLoads(callGraph({ faults: BACK_SLOW }))[1]!;
    const back = poolOf(slow, 'back');
    expect(back.contributions[0]!.callsPerSec).toBeCloseTo(300, 9);
    expect(back.contributions[0]!.attemptsPerCall).toBe(3);
    expect(back.offered).toBeCloseTo(1800, 6);
    // front waits 3 x 1 s for back.get per execution, so its own attempts time out as well.
    const front = poolOf(slow, 'front');
    expect(front.contributions[0]!.downstreamMs).toBeCloseTo(3000, 9);
    expect(front.contributions[0]!.attemptsPerCall).toBe(3);
    expect(front.offered).toBeCloseTo((100 * 3 * 3005) / 1000, 6);
    expect(overloadedPools(callGraph({ faults: BACK_SLOW })).map((p) => p.group)).toEqual(['front', 'back']);
  });

  it('sequential calls add their waits up, a parallel fan-out waits for the slowest; both send every call', () => {
    const sequential = poolLoads(callGraph({ calls: 2 }))[0]!;
    const parallel = poolLoads(callGraph({ calls: 2, parallel: true }))[0]!;
    expect(poolOf(sequential, 'front').contributions[0]!.downstreamMs).toBeCloseTo(20.4, 9);
    expect(poolOf(parallel, 'front').contributions[0]!.downstreamMs).toBeCloseTo(10.2, 9);
    for (const phase of [sequential, parallel]) expect(poolOf(phase, 'back').contributions[0]!.callsPerSec).toBeCloseTo(200, 9);
  });
});

describe('executes', () => {
  it('ExecuteLimitFilter caps a method at executes x instances; the calls refused beyond it make no downstream calls', () => {
    const free = poolLoads(callGraph({ faults: BACK_SLOW }))[1]!;
    const capped = poolLoads(callGraph({ faults: BACK_SLOW, frontExports: '{ com.example.Front: { executes: 5 } }' }))[1]!;
    const front = poolOf(capped, 'front');
    expect(front.offered).toBeCloseTo(5 * 2, 9);
    expect(front.contributions[0]!.executes).toBe(5);
    // The executions that run: 300/s x (10 threads / the 901.5 offered without the limit).
    const share = 10 / poolOf(free, 'front').offered;
    expect(poolOf(capped, 'back').contributions[0]!.callsPerSec).toBeCloseTo(300 * share, 9);
  });

  it('shared-pool-exhaustion: the executes-limit strategy keeps the shared pool under its threads', () => {
    const s = scenario('shared-pool-exhaustion');
    expect(overloadedPools(applyStrategy(s, s.strategies['executes-limit']!))).toEqual([]);
  });
});
