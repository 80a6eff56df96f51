/**
 * Offered load on provider pools (src/scenario/pool-load.ts) and what `check` and `recommend` do
 * with it: threads = calls/s x attempts per call x mean service time, per pool.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { checkScenario } from '../../src/cli/check.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { overloadedPools, poolLoads } from '../../src/scenario/pool-load.js';
import { recommendations } from '../../src/scenario/recommend.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

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
