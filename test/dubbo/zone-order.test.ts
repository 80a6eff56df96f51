/**
 * zonesim's zone extensions ordered by distance (not Dubbo built-ins): `zoneAwareFailover` with
 * `zone.fallback=nearest | zoneB,zoneC` retries in the nearest other zone first, and the
 * `zoneAware` balancer's `zone.cross.weights` / `zone.cross.order` weight other zones by RTT rank.
 * Three zones: zoneA (the consumer's), zoneB in the same city (1.5 ms), zoneC remote (30 ms).
 */
import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../src/dubbo/constants.js';
import { clusters } from '../../src/dubbo/extensions.js';
import type { DubboRuntime } from '../../src/dubbo/runtime.js';
import { URL } from '../../src/dubbo/url.js';
import { providerZone, zoneGroups, zoneMembersOf, type ZoneDistance } from '../../src/dubbo/zone-order.js';
import { fail, invocation as clusterCall, runCall, setup } from './cluster/fixtures.js';
import { invocation, makeRuntime, pickCounts, TestInvoker } from './loadbalance/fixtures.js';

const MEDIAN_RTT_MS: Record<string, number> = { zoneB: 1.5, zoneC: 30 };
const distance: ZoneDistance = (from, to) => (from === to ? 0.2 : from === 'zoneA' ? MEDIAN_RTT_MS[to] : undefined);
const withDistance = <T extends DubboRuntime>(runtime: T, d: ZoneDistance = distance): T =>
  // The runtime is the cluster's and the balancer's (one object): give it the world's distances.
  Object.assign(runtime, { zoneDistance: d });

describe('zoneGroups', () => {
  const inv = (zone: string, i: number) => new TestInvoker(`dubbo://10.0.0.${i}:20880/DemoService?zone=${zone}`);
  const list = [inv('zoneC', 1), inv('zoneB', 2), inv('zoneA', 3), inv('zoneC', 4)];

  it('orders the zones of a list nearest first, providers in list order', () => {
    const groups = zoneGroups(list, { origin: 'zoneA', distance });
    expect(groups.map((g) => [g.zones, g.invokers.map((i) => list.indexOf(i as TestInvoker))])).toEqual([
      [['zoneA'], [2]],
      [['zoneB'], [1]],
      [['zoneC'], [0, 3]],
    ]);
  });

  it('puts listed zones first, in list order, then the rest by distance (or only them)', () => {
    expect(zoneGroups(list, { origin: 'zoneA', distance, order: ['zoneC'], exclude: 'zoneA' }).map((g) => g.zones)).toEqual([['zoneC'], ['zoneB']]);
    expect(zoneGroups(list, { order: ['zoneX', 'zoneB'], onlyListed: true }).map((g) => g.zones)).toEqual([['zoneB']]);
  });
});

describe('zoneMembersOf', () => {
  const inv = (zone: string, i: number) => new TestInvoker(`dubbo://10.0.0.${i}:20880/DemoService${zone ? `?zone=${zone}` : ''}`);
  const list = [inv('zoneC', 1), inv('zoneB', 2), inv('zoneA', 3), inv('zoneC', 4), inv('', 5), inv('zoneC', 6)];

  it("gives a zone's providers in list order, as filtering by their registered zone does", () => {
    for (const zone of ['zoneA', 'zoneB', 'zoneC', 'zoneX']) {
      expect(zoneMembersOf(list, zone)).toEqual(list.filter((i) => providerZone(i) === zone));
    }
    expect(zoneMembersOf(list, 'zoneC').map((i) => list.indexOf(i as TestInvoker))).toEqual([0, 3, 5]);
  });

  it('hands back the same array for the same list, so caches kept per list hold for it', () => {
    expect(zoneMembersOf(list, 'zoneC')).toBe(zoneMembersOf(list, 'zoneC'));
    // A list with the same contents in another object is another list.
    expect(zoneMembersOf([...list], 'zoneC')).not.toBe(zoneMembersOf(list, 'zoneC'));
  });
});

describe('zoneAwareFailover zone.fallback', () => {
  const zones = ['zoneA', 'zoneC', 'zoneB', 'zoneA', 'zoneC', 'zoneB'];
  const run = (fallback: string | undefined, seed: number, providerZones = zones) => {
    const { sim, runtime, cluster, log } = setup({
      cluster: clusters.zoneAwareFailover!,
      seed,
      consumer: { zone: 'zoneA', retries: String(providerZones.length - 1), ...(fallback ? { 'zone.fallback': fallback } : {}) },
      scripts: providerZones.map(() => fail(RpcCode.NETWORK_EXCEPTION)),
      providerParams: providerZones.map((zone) => ({ zone })),
    });
    withDistance(runtime);
    runCall(sim, cluster.invoke(clusterCall()));
    const tried = log.map((r) => providerZones[Number(r.invoker.name.slice(1))]!);
    return { tried, distinct: new Set(log.map((r) => r.invoker.name)).size, crossZone: runtime.counters.get('zoneAwareFailover.crossZone') };
  };

  it('nearest: after the local zone, retries in the same-city zone before the remote one', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = run('nearest', seed);
      expect(r.tried).toEqual(['zoneA', 'zoneA', 'zoneB', 'zoneB', 'zoneC', 'zoneC']);
      expect(r.distinct).toBe(6);
      expect(r.crossZone).toBe(4);
    }
  });

  it('an explicit order: the listed zones first, in that order', () => {
    for (let seed = 1; seed <= 10; seed++) expect(run('zoneC,zoneB', seed).tried).toEqual(['zoneA', 'zoneA', 'zoneC', 'zoneC', 'zoneB', 'zoneB']);
  });

  it('nearest: with no local provider the first attempt goes to the nearest zone', () => {
    for (let seed = 1; seed <= 10; seed++) {
      expect(run('nearest', seed, ['zoneC', 'zoneB', 'zoneC', 'zoneB']).tried).toEqual(['zoneB', 'zoneB', 'zoneC', 'zoneC']);
    }
  });

  it('all (the default): the cross-zone step picks among every other zone', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) seen.add(run(undefined, seed).tried[2]!);
    expect(seen).toEqual(new Set(['zoneB', 'zoneC']));
  });
});

describe('zoneAware balancer zone.cross.weights', () => {
  const RUNS = 30_000;
  const expectShare = (count: number, p: number) => expect(Math.abs(count - RUNS * p)).toBeLessThanOrEqual(4.5 * Math.sqrt(RUNS * p * (1 - p)));
  const zoned = (zs: string[]) => zs.map((z, i) => new TestInvoker(`dubbo://10.0.0.${i + 1}:20880/DemoService?zone=${z}`));
  const shares = (zs: string[], params: string, seed: number) => {
    const invokers = zoned(zs);
    const consumer = URL.valueOf(`consumer://10.10.0.1/DemoService?zone=zoneA&${params}`);
    const lb = withDistance(makeRuntime({ seed })).getLoadBalance('zoneAware');
    return pickCounts(() => lb.select(invokers, consumer, invocation()), invokers, RUNS);
  };

  it('weights other zones by RTT rank: same 100, nearest 10, the next 1', () => {
    const counts = shares(['zoneC', 'zoneA', 'zoneB'], 'zone.cross.weights=10,1', 31);
    expectShare(counts[1]!, 100 / 111);
    expectShare(counts[2]!, 10 / 111);
    expectShare(counts[0]!, 1 / 111);
  });

  it('keeps ranking when the local zone is empty: the same-city zone takes most of its traffic', () => {
    const counts = shares(['zoneC', 'zoneB'], 'zone.cross.weights=10,1', 32);
    expectShare(counts[1]!, 10 / 11);
  });

  it('repeats the last multiplier for farther zones and ranks by zone.cross.order when given', () => {
    const counts = shares(['zoneC', 'zoneB'], 'zone.cross.weights=9,1&zone.cross.order=zoneC', 33);
    expectShare(counts[0]!, 9 / 10);
    const flat = shares(['zoneC', 'zoneB', 'zoneA'], 'zone.cross.weights=5&zone.same.weight=90', 34);
    expectShare(flat[2]!, 90 / 100);
    expectShare(flat[0]!, 5 / 100);
  });

  it('without zone.cross.weights it stays same-zone 100 / cross-zone 1 and ignores distances', () => {
    const invokers = zoned(['zoneA', 'zoneB', 'zoneC']);
    const consumer = URL.valueOf('consumer://10.10.0.1/DemoService?zone=zoneA');
    const a = withDistance(makeRuntime({ seed: 35 })).getLoadBalance('zoneAware');
    const b = makeRuntime({ seed: 35 }).getLoadBalance('zoneAware');
    const picks = (lb: typeof a) => Array.from({ length: 500 }, () => invokers.indexOf(lb.select(invokers, consumer, invocation()) as TestInvoker));
    expect(picks(a)).toEqual(picks(b));
  });
});
