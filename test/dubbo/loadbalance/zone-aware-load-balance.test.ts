/** ZoneAwareLoadBalance (`zoneAware`): same-zone weight ×100, cross-zone ×1, configurable. */
import { describe, expect, it } from 'vitest';
import { ZoneAwareLoadBalance } from '../../../src/dubbo/loadbalance/zone-aware-load-balance.js';
import { markSubList } from '../../../src/dubbo/per-list.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import { invocation, makeRuntime, NOW_MS, pickCounts, pickIndexes, TestInvoker } from './fixtures.js';
import { ReferenceZoneAwareLoadBalance } from './reference/zone-aware-load-balance.js';

const RUNS = 20_000;

function zoned(zones: string[], extra = ''): TestInvoker[] {
  return zones.map((z, i) => new TestInvoker(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${z}${extra}`));
}

function expectShare(count: number, p: number): void {
  expect(Math.abs(count - RUNS * p)).toBeLessThanOrEqual(4.5 * Math.sqrt(RUNS * p * (1 - p)));
}

describe('ZoneAwareLoadBalance', () => {
  it('sends 100 of every 101 calls to the same zone by default', () => {
    const invokers = zoned(['zoneA', 'zoneB']);
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const lb = makeRuntime({ seed: 21 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[1]!, 1 / 101);
  });

  it('reads both multipliers from the consumer URL', () => {
    const invokers = zoned(['zoneA', 'zoneB', 'zoneB']);
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA&zone.same.weight=2&zone.cross.weight=1');
    const lb = makeRuntime({ seed: 22 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[0]!, 2 / 4);
  });

  it('keeps provider weights inside each zone', () => {
    const invokers = [
      new TestInvoker('dubbo://10.0.0.1:20880/DemoService?zone=zoneA&weight=100'),
      new TestInvoker('dubbo://10.0.0.2:20880/DemoService?zone=zoneA&weight=300'),
      new TestInvoker('dubbo://10.0.0.3:20880/DemoService?zone=zoneB&weight=100'),
    ];
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA&zone.cross.weight=0');
    const lb = makeRuntime({ seed: 23 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expect(counts[2]).toBe(0);
    expectShare(counts[0]!, 1 / 4);
  });

  it('is plain weighted random when every provider is in another zone', () => {
    const invokers = zoned(['zoneB', 'zoneC', 'zoneB'], '&weight=7').map((inv, i) =>
      i === 2 ? new TestInvoker('dubbo://10.0.0.3:20880/DemoService?zone=zoneB&weight=30') : inv,
    );
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const zoneAware = makeRuntime({ seed: 24 }).getLoadBalance('zoneAware');
    const random = makeRuntime({ seed: 24 }).getLoadBalance('random');
    const a = pickIndexes(() => zoneAware.select(invokers, consumer, invocation()), invokers, 500);
    const b = pickIndexes(() => random.select(invokers, consumer, invocation()), invokers, 500);
    expect(a).toEqual(b);
  });

  it("uses the provider's own zone, not the consumer's value of a merged URL", () => {
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const invokers = ['zoneA', 'zoneB'].map(
      (z, i) => new TestInvoker(new ServiceAddressURL(URL.valueOf(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${z}`), consumer)),
    );
    const lb = makeRuntime({ seed: 25 }).getLoadBalance('zoneAware');
    const counts = pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
    expectShare(counts[1]!, 1 / 101);
  });
});

describe('ZoneAwareLoadBalance against its plain reference', () => {
  // The balancer keeps the multiplied weights per list, method and consumer set-up until a weight can
  // change, shared by every instance; the reference multiplies on every pick.
  // Sub-lists: a directory's providers with some set aside (a crashed zone), picked through the parent's weights.
  it.each([
    { lists: 'pushed lists', subLists: false },
    { lists: "directories' lists with providers set aside, whole zones too", subLists: true },
  ])('picks the same invoker on every call, for several instances sharing lists, set-ups, warmups and zone distances ($lists)', ({ subLists }) => {
    const rand = (() => {
      const rng = new RandomStreams(subLists ? 67 : 61).stream('test-choices');
      return (n: number) => rng.nextInt(n);
    })();
    const pushed: TestInvoker[][] = [];
    const lists: TestInvoker[][] = subLists ? [] : pushed;
    for (let l = 0; l < 16; l++) {
      const n = 2 + rand(40);
      pushed.push(
        Array.from({ length: n }, (_, i) => {
          const params = [`zone=${['zoneA', 'zoneB', 'zoneC', ''][rand(4)]}`];
          if (rand(3) === 0) params.push(`weight=${[0, 1, 50, 100, 200][rand(5)]}`);
          if (rand(2) === 0) params.push(`timestamp=${NOW_MS - rand(120_000)}`, `warmup=${[10_000, 60_000, 600_000][rand(3)]}`);
          return new TestInvoker(`dubbo://10.0.${l}.${i + 1}:20880/DemoService?${params.join('&')}`);
        }),
      );
    }
    if (subLists) {
      for (const parent of pushed) {
        const zoneOf = (inv: TestInvoker) => inv.getUrl().getParameter('zone');
        for (const sub of [
          parent.filter(() => rand(3) > 0),
          parent.filter((inv) => zoneOf(inv) !== 'zoneA' || rand(6) === 0),
          parent.filter((inv) => zoneOf(inv) !== 'zoneA'),
          parent.filter((inv) => zoneOf(inv) !== 'zoneB' && rand(4) > 0),
        ]) {
          if (sub.length === 0 || sub.length === parent.length) continue;
          markSubList(sub, parent);
          lists.push(sub);
        }
      }
    }
    const near = { zoneA: 1, zoneB: 2, zoneC: 4 } as Record<string, number>;
    const far = { zoneA: 4, zoneB: 2, zoneC: 1 } as Record<string, number>;
    const byNear = (from: string, to: string) => (from === to ? 0 : (near[from] ?? 0) + (near[to] ?? 0));
    // Another network: the same parameters rank the zones the other way round.
    const byFar = (from: string, to: string) => (from === to ? 0 : (far[from] ?? 0) + (far[to] ?? 0));
    const setups = [
      { params: 'zone=zoneA', distance: byNear },
      { params: 'zone=zoneB&zone.same.weight=5&zone.cross.weight=2', distance: byNear },
      { params: 'zone=zoneB&zone.cross.weights=10,1', distance: byNear },
      { params: 'zone=zoneB&zone.cross.weights=10,1', distance: byFar },
      { params: 'zone=zoneC&zone.cross.weights=7,3,1', distance: byNear },
      { params: 'zone=zoneC&zone.cross.weights=7,3,1&zone.cross.order=zoneB', distance: byNear },
      { params: 'zone=zoneA&zone.same.weight=0', distance: byNear },
      // Cross-zone calls weigh nothing while a same-zone provider is listed, and count again once none is.
      { params: 'zone=zoneA&zone.cross.weight=0', distance: byNear },
      { params: '', distance: byNear },
    ];
    let now = NOW_MS;
    const clock = { now: () => now };
    // Three consumer instances (hosts) per set-up, each with its own runtime, stream and balancer.
    const instances = setups.flatMap(({ params, distance }, s) =>
      [1, 2, 3].map((h) => {
        const seed = 100 * s + h;
        const runtime = (init: number) =>
          createRuntime({ sim: new Simulation(), random: new RandomStreams(init).stream('lb'), clock, zoneDistance: distance });
        return {
          url: URL.valueOf(`consumer://10.10.${s}.${h}/DemoService${params ? '?' + params : ''}`),
          fast: new ZoneAwareLoadBalance(runtime(seed)),
          reference: new ReferenceZoneAwareLoadBalance(runtime(seed)),
        };
      }),
    );
    let weighted = 0;
    for (let step = 0; step < 8_000; step++) {
      const list = lists[rand(lists.length)]!;
      const who = instances[rand(instances.length)]!;
      now += rand(30) === 0 ? rand(20_000) : rand(20);
      const method = rand(4) === 0 ? 'other' : 'sayHello';
      const expected = who.reference.select(list, who.url, invocation(method));
      expect(who.fast.select(list, who.url, invocation(method)), `step ${step}`).toBe(expected);
      if (new Set(list.map((i) => i.getUrl().getParameter('zone'))).size > 1) weighted++;
    }
    expect(weighted).toBeGreaterThan(subLists ? 5_000 : 6_000);
  });
});
