/**
 * EnvoyZoneAwareLoadBalance (`envoyZoneAware`): direct and residual zone routing, the small-cluster
 * and panic guards, the local-cluster checks, and Envoy's decision counters.
 */
import { describe, expect, it } from 'vitest';
import { EnvoyCounter, EnvoyZoneAwareLoadBalance, parseLocalZones } from '../../../src/dubbo/loadbalance/envoy-zone-aware-load-balance.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { invocation, makeRuntime, NOW_MS, pickCounts, TestInvoker } from './fixtures.js';
import { ReferenceEnvoyZoneAwareLoadBalance } from './reference/envoy-zone-aware-load-balance.js';

const RUNS = 10_000;

/** `a` providers in zoneA then `b` in zoneB; the first `downA` of zoneA are unavailable. */
function upstream(a: number, b: number, downA = 0): TestInvoker[] {
  const list: TestInvoker[] = [];
  for (let i = 0; i < a; i++) list.push(new TestInvoker(`dubbo://10.10.0.${i + 1}:20880/S?zone=zoneA`, i >= downA));
  for (let i = 0; i < b; i++) list.push(new TestInvoker(`dubbo://10.20.0.${i + 1}:20880/S?zone=zoneB`));
  return list;
}

function consumer(params: string): URL {
  return URL.valueOf(`consumer://10.10.9.9/S?zone=zoneA&${params}`);
}

/** Picks RUNS times; returns [picks in zoneA, picks in zoneB, counters]. */
function run(invokers: TestInvoker[], url: URL, seed = 31): [number, number, Map<string, number>] {
  const runtime = makeRuntime({ seed });
  const lb = runtime.getLoadBalance('envoyZoneAware');
  const counts = pickCounts(() => lb.select(invokers, url, invocation()), invokers, RUNS);
  let inA = 0;
  counts.forEach((c, i) => {
    if (invokers[i]!.getUrl().getParameter('zone') === 'zoneA') inA += c;
  });
  return [inA, RUNS - inA, runtime.counters];
}

function expectShare(count: number, p: number): void {
  expect(Math.abs(count - RUNS * p)).toBeLessThanOrEqual(4.5 * Math.sqrt(RUNS * p * (1 - p)));
}

describe('EnvoyZoneAwareLoadBalance', () => {
  it('routes every call to the local zone when it has at least its share of providers', () => {
    const [inA, , counters] = run(upstream(6, 6), consumer('envoy.local_zones=zoneA:5,zoneB:5'));
    expect(inA).toBe(RUNS);
    expect(counters.get(EnvoyCounter.ROUTING_ALL_DIRECTLY)).toBe(RUNS);
  });

  it('keeps the covered fraction local and sends the residual to zones with spare capacity', () => {
    // Callers 80% in zoneA, providers 50%: 5000/8000 = 62.5% of calls stay local.
    const [inA, , counters] = run(upstream(6, 6), consumer('envoy.local_zones=zoneA:8,zoneB:2'));
    expectShare(inA, 0.625);
    expect(counters.get(EnvoyCounter.ROUTING_SAMPLED)).toBe(inA);
    expect(counters.get(EnvoyCounter.ROUTING_CROSS_ZONE)).toBe(RUNS - inA);
  });

  it('splits the residual by each zone spare capacity', () => {
    // Callers A 50%, B 25%, C 25%; providers A 2, B 2, C 4 (25%, 25%, 50%): only C has spare.
    const invokers = [
      ...upstream(2, 2),
      ...[1, 2, 3, 4].map((i) => new TestInvoker(`dubbo://10.30.0.${i}:20880/S?zone=zoneC`)),
    ];
    const runtime = makeRuntime({ seed: 32 });
    const lb = runtime.getLoadBalance('envoyZoneAware');
    const url = consumer('envoy.local_zones=zoneA:2,zoneB:1,zoneC:1');
    const counts = pickCounts(() => lb.select(invokers, url, invocation()), invokers, RUNS);
    const inB = counts[2]! + counts[3]!;
    expect(inB).toBe(0);
    expectShare(counts[0]! + counts[1]!, 0.5);
  });

  it('does no zone routing when fewer than min_cluster_size providers are healthy', () => {
    const [inA, inB, counters] = run(upstream(3, 2), consumer('envoy.local_zones=zoneA:5,zoneB:5'));
    expect(counters.get(EnvoyCounter.CLUSTER_TOO_SMALL)).toBe(RUNS);
    expect(counters.has(EnvoyCounter.ROUTING_ALL_DIRECTLY)).toBe(false);
    expectShare(inA, 3 / 5);
    expect(inA + inB).toBe(RUNS);
  });

  it('reads min_cluster_size from the consumer URL', () => {
    const [inA, , counters] = run(upstream(3, 2), consumer('envoy.local_zones=zoneA:5,zoneB:5&envoy.min_cluster_size=5'));
    expect(inA).toBe(RUNS);
    expect(counters.has(EnvoyCounter.CLUSTER_TOO_SMALL)).toBe(false);
  });

  it('balances over every provider, healthy or not, below the panic threshold', () => {
    const invokers = upstream(6, 6, 6); // 6 of 12 down: 50% is not below 50%
    expect(run(invokers, consumer('envoy.local_zones=zoneA:5,zoneB:5'))[2].has(EnvoyCounter.PANIC)).toBe(false);
    invokers[6]!.available = false; // 5 of 12 healthy: 41.7% < 50%
    const [inA, , counters] = run(invokers, consumer('envoy.local_zones=zoneA:5,zoneB:5'));
    expect(counters.get(EnvoyCounter.PANIC)).toBe(RUNS);
    expectShare(inA, 0.5);
  });

  it('routes to healthy providers of every zone when the local zone has none healthy', () => {
    const [inA, inB, counters] = run(upstream(6, 6, 6), consumer('envoy.local_zones=zoneA:5,zoneB:5'));
    expect([inA, inB]).toEqual([0, RUNS]);
    expect(counters.size).toBe(0);
  });

  it('counts lb_local_cluster_not_ok when the local cluster has no callers in this zone', () => {
    const [inA, , counters] = run(upstream(6, 6), consumer('envoy.local_zones=zoneB:5'));
    expect(counters.get(EnvoyCounter.LOCAL_CLUSTER_NOT_OK)).toBe(RUNS);
    expectShare(inA, 0.5);
  });

  it('counts lb_local_cluster_not_ok when the local cluster is in panic', () => {
    const [, , counters] = run(upstream(6, 6), consumer('envoy.local_zones=zoneA:2/5,zoneB:1/5'));
    expect(counters.get(EnvoyCounter.LOCAL_CLUSTER_NOT_OK)).toBe(RUNS);
  });

  it('does no zone routing without a local cluster', () => {
    const [inA, , counters] = run(upstream(6, 6), URL.valueOf('consumer://10.10.9.9/S?zone=zoneA'));
    expectShare(inA, 0.5);
    expect(counters.size).toBe(0);
  });

  it('attempts zone routing on routing_enabled percent of picks only', () => {
    const [inA] = run(upstream(6, 6), consumer('envoy.local_zones=zoneA:5,zoneB:5&envoy.routing_enabled=40'));
    // 40% direct to zoneA, 60% over all (half in zoneA): 0.4 + 0.3.
    expectShare(inA, 0.7);
  });
});

describe('parseLocalZones', () => {
  it('reads counts and healthy/total pairs', () => {
    expect(parseLocalZones('zoneA:10, zoneB:4/5')).toEqual(
      new Map([
        ['zoneA', { healthy: 10, total: 10 }],
        ['zoneB', { healthy: 4, total: 5 }],
      ]),
    );
  });

  it('rejects an entry without a count', () => {
    expect(() => parseLocalZones('zoneA')).toThrow(/zone:count/);
  });
});

describe('EnvoyZoneAwareLoadBalance against its plain reference', () => {
  // Invokers that say when availability may have changed, as DubboInvoker does: the balancer keeps a
  // list's healthy hosts until the version moves, and each host set's weights until a weight can change.
  let version = 0;
  class VersionedInvoker extends TestInvoker {
    availabilityVersion(): number {
      return version;
    }
  }

  it('picks and counts the same on every call, over lists, health changes, warmups and consumer set-ups', () => {
    const rng = new RandomStreams(83).stream('test');
    const rand = (n: number) => rng.nextInt(n);
    let now = NOW_MS;
    const clock = { now: () => now };
    const pool = Array.from({ length: 40 }, (_, i) => {
      const zone = ['zoneA', 'zoneB', 'zoneC', ''][rand(4)];
      const warm = rand(2) === 0 ? `&timestamp=${NOW_MS - rand(100_000)}&warmup=60000` : '';
      return new VersionedInvoker(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${zone}&weight=${[50, 100, 100][rand(3)]}${warm}`);
    });
    const lists = Array.from({ length: 10 }, () => pool.filter(() => rand(3) > 0));
    const setups = [
      'zone=zoneA&envoy.local_zones=zoneA:10,zoneB:10,zoneC:5',
      'zone=zoneB&envoy.local_zones=zoneA:2,zoneB:30&envoy.routing_enabled=70',
      'zone=zoneC&envoy.local_zones=zoneA:10,zoneB:10,zoneC:10&envoy.min_cluster_size=20&envoy.healthy_panic_threshold=80',
      'zone=zoneA',
    ];
    const instances = setups.map((params, n) => ({
      url: URL.valueOf(`consumer://10.10.0.${n + 1}/DemoService?${params}`),
      fast: { rt: makeRuntime({ seed: 10 + n, clock }) },
      ref: { rt: makeRuntime({ seed: 10 + n, clock }) },
    }));
    const lbs = instances.map((i) => ({ fast: new EnvoyZoneAwareLoadBalance(i.fast.rt), ref: new ReferenceEnvoyZoneAwareLoadBalance(i.ref.rt) }));
    for (let step = 0; step < 6_000; step++) {
      if (rand(40) === 0) {
        // A provider goes down or comes back: the version moves.
        for (let k = 0; k < 1 + rand(8); k++) pool[rand(pool.length)]!.available = rand(3) > 0;
        version++;
      }
      now += rand(30) === 0 ? rand(30_000) : rand(20);
      const list = lists[rand(lists.length)]!;
      if (list.length === 0) continue;
      const n = rand(instances.length);
      const method = rand(3) === 0 ? 'other' : 'sayHello';
      const expected = lbs[n]!.ref.select(list, instances[n]!.url, invocation(method));
      expect(lbs[n]!.fast.select(list, instances[n]!.url, invocation(method)), `step ${step}`).toBe(expected);
    }
    for (const i of instances) expect(Object.fromEntries(i.fast.rt.counters)).toEqual(Object.fromEntries(i.ref.rt.counters));
    // Every decision path ran.
    const all = new Set(instances.flatMap((i) => [...i.fast.rt.counters.keys()]));
    expect([...all].sort()).toEqual(expect.arrayContaining([EnvoyCounter.ROUTING_ALL_DIRECTLY, EnvoyCounter.ROUTING_CROSS_ZONE, EnvoyCounter.PANIC]));
  });
});
