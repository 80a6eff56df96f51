import { describe, expect, it } from 'vitest';
import { DubboConsumerStack } from '../../src/stack/consumer-stack.js';
import type { ConsumerGroupSpec, RegistrySpec } from '../../src/model/types.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { MultiRegistry } from '../../src/world/registry-multi.js';
import { NacosRegistry } from '../../src/world/registry-nacos.js';
import { ZookeeperRegistry } from '../../src/world/registry-zookeeper.js';
import type { World } from '../../src/world/world.js';
import { at, callOnce, listsAt, makeWorld, providers, scenario, SERVICE } from './registry-fixtures.js';

// Two registries, one per zone; zoneA's providers register with `ra` only, zoneB's with `rb` only.
function twoRegistries(
  over: { ra?: Partial<RegistrySpec>; rb?: Partial<RegistrySpec>; consumers?: Partial<ConsumerGroupSpec>[] } = {},
  stack: 'list' | 'dubbo' = 'dubbo',
) {
  return makeWorld(
    scenario({
      registries: { ra: { zone: 'zoneA', ...over.ra }, rb: { zone: 'zoneB', ...over.rb } },
      providers: [
        { zone: 'zoneA', registries: ['ra'] },
        { zone: 'zoneB', registries: ['rb'] },
      ],
      consumers: over.consumers ?? [
        { zone: 'zoneA', application: 'web-a', instances: 1 },
        { zone: 'zoneB', application: 'web-b', instances: 1 },
      ],
    }),
    { stack },
  );
}

const consumerIn = (world: World, zone: string) => world.consumerGroups.find((g) => g.spec.zone === zone)!.instances[0]!;
// The provider processes listed (each exports one service here).
const listOf = (world: World, name: string) => (world.registries.get(name) as DiscoveryRegistry).currentList(SERVICE).map((e) => e.instance);

describe('multi-registry', () => {
  it('builds one model per registries entry, each of its own type, and exposes them on world.registries', () => {
    const { world } = twoRegistries({ rb: { type: 'zookeeper' } });
    expect(world.registry).toBeInstanceOf(MultiRegistry);
    expect([...world.registries.keys()]).toEqual(['ra', 'rb']);
    expect(world.registries.get('ra')).toBeInstanceOf(NacosRegistry);
    expect(world.registries.get('rb')).toBeInstanceOf(ZookeeperRegistry);
  });

  it('exposes the single registry as `default`', () => {
    const { world } = makeWorld(scenario());
    expect([...world.registries.entries()]).toEqual([['default', world.registry]]);
  });

  it('registers providers only with the registries their group names (default: all)', () => {
    const { world } = makeWorld(
      scenario({
        registries: { ra: { zone: 'zoneA' }, rb: { zone: 'zoneB' } },
        providers: [{ zone: 'zoneA', registries: ['ra'] }, { zone: 'zoneB' }],
      }),
    );
    const [a0, a1, b0, b1] = providers(world);
    expect(listOf(world, 'ra')).toEqual([a0, a1, b0, b1]);
    expect(listOf(world, 'rb')).toEqual([b0, b1]);
  });

  it('keeps each registry`s own record of a provider registered with both, at either level', () => {
    for (const registration of ['interface', 'application'] as const) {
      const { world } = makeWorld(
        scenario({
          registries: { ra: { zone: 'zoneA', registration }, rb: { zone: 'zoneB', registration } },
          providers: [{ zone: 'zoneA', registries: ['ra'] }, { zone: 'zoneB' }],
        }),
      );
      const [a0, , b0] = providers(world);
      const ra = world.registries.get('ra') as DiscoveryRegistry;
      const rb = world.registries.get('rb') as DiscoveryRegistry;
      const inA = ra.entryOf(b0!, registration);
      const inB = rb.entryOf(b0!, registration);
      expect(inA?.provider).toBe(b0!.exports[0]);
      expect(inB?.provider).toBe(b0!.exports[0]);
      expect(inA).not.toBe(inB);
      // Asked again, in either order, each registry answers with its own record.
      expect(rb.entryOf(b0!, registration)).toBe(inB);
      expect(ra.entryOf(b0!, registration)).toBe(inA);
      expect(ra.entryOf(a0!, registration)?.provider).toBe(a0!.exports[0]);
      expect(rb.entryOf(a0!, registration)).toBeUndefined();
      expect(ra.entryOf(a0!, registration === 'interface' ? 'application' : 'interface')).toBeUndefined();
    }
  });

  it('gives simple consumers the union of every registry`s list', () => {
    const { world, log } = twoRegistries({}, 'list');
    for (const l of listsAt(log, 0).values()) expect(l).toHaveLength(4);
  });

  it('builds one directory per subscribed registry with zone, preferred and weight on its registry URL', () => {
    const { world } = twoRegistries({ ra: { preferred: true, weight: 30 } });
    const stack = consumerIn(world, 'zoneB').stack as DubboConsumerStack;
    const ref = stack.references.get(SERVICE)!;
    expect(ref.directories.map((d) => d.getUrl().toString())).toEqual([
      'registry://ra/org.apache.dubbo.registry.RegistryService?registry=nacos&zone=zoneA&preferred=true&weight=30',
      'registry://rb/org.apache.dubbo.registry.RegistryService?registry=nacos&zone=zoneB&preferred=false&weight=100',
    ]);
    // Dubbo ships no ZoneDetector: nothing names the consumer's zone for the zone-aware cluster (3.3 ZoneAwareClusterInvoker.java:56-63).
    expect(ref.consumerUrl.getParameter('registry.zone')).toBeUndefined();
  });

  it('gives every consumer instance the same registry URL objects (immutable, built once per world)', () => {
    const { world } = twoRegistries({
      consumers: [
        { zone: 'zoneA', application: 'web-a', instances: 3 },
        { zone: 'zoneB', application: 'web-b', instances: 2 },
      ],
    });
    const urls = world.consumerGroups.flatMap((g) =>
      g.instances.map((i) => (i.stack as DubboConsumerStack).references.get(SERVICE)!.directories.map((d) => d.getUrl())),
    );
    expect(urls).toHaveLength(5);
    for (const u of urls) {
      expect(u[0]).toBe(urls[0]![0]);
      expect(u[1]).toBe(urls[0]![1]);
    }
    expect(urls[0]![0]).not.toBe(urls[0]![1]);
  });

  it('keeps a registry.zone the reference sets', () => {
    const { world } = twoRegistries({
      consumers: [{ zone: 'zoneB', reference: { [SERVICE]: { parameters: { 'registry.zone': 'zoneA' }, methods: {} } } }],
    });
    const ref = (consumerIn(world, 'zoneB').stack as DubboConsumerStack).references.get(SERVICE)!;
    expect(ref.consumerUrl.getParameter('registry.zone')).toBe('zoneA');
  });

  it('subscribes a consumer group only to the registries it names', () => {
    const { world, observer } = twoRegistries({ consumers: [{ zone: 'zoneB', registries: ['ra'] }] });
    const ref = (consumerIn(world, 'zoneB').stack as DubboConsumerStack).references.get(SERVICE)!;
    expect(ref.directories.map((d) => d.getUrl().host)).toEqual(['ra']);
    // One initial push per instance, from `ra` only.
    expect(observer.pushes).toHaveLength(2);
  });

  it.each(['zoneA', 'zoneB'])('sends a %s call with a registry_zone attachment to that zone`s registry (ZoneAwareClusterInvoker.java:78-93)', (zone) => {
    const { world, observer } = twoRegistries();
    const before = observer.attempts.length;
    // Without the zone rule the balancer would spread 20 calls over both registries.
    for (let i = 0; i < 20; i++) expect(callOnce(world, consumerIn(world, zone), { registry_zone: zone })).toEqual({ outcome: 'ok' });
    const attempts = observer.attempts.slice(before);
    expect(attempts).toHaveLength(20);
    expect(attempts.every((a) => !a.crossZone && a.providerGroup === `users-${zone}`)).toBe(true);
  });

  it.each<[string, number, number]>([
    ['equal weights', 100, 100],
    ['weight 300:100', 300, 100],
  ])('balances a consumer without registry_zone over the registries by weight, whatever its zone (%s; ZoneAwareClusterInvoker.java:81,109)', (_name, wa, wb) => {
    const { world, observer } = twoRegistries({ ra: { weight: wa }, rb: { weight: wb } });
    const n = 400;
    const before = observer.attempts.length;
    for (let i = 0; i < n; i++) expect(callOnce(world, consumerIn(world, 'zoneB'))).toEqual({ outcome: 'ok' });
    const toA = observer.attempts.slice(before).filter((a) => a.providerGroup === 'users-zoneA').length;
    const p = wa / (wa + wb);
    // Binomial: within 4.5 standard deviations of n·p.
    expect(Math.abs(toA - n * p)).toBeLessThan(4.5 * Math.sqrt(n * p * (1 - p)));
  });

  it('keeps a consumer on its own zone`s registry when the reference sets registry.zone (a ZoneDetector stand-in)', () => {
    const { world, observer } = twoRegistries({
      consumers: [{ zone: 'zoneB', reference: { [SERVICE]: { parameters: { 'registry.zone': 'zoneB' }, methods: {} } } }],
    });
    const before = observer.attempts.length;
    for (let i = 0; i < 20; i++) expect(callOnce(world, consumerIn(world, 'zoneB'))).toEqual({ outcome: 'ok' });
    expect(observer.attempts.slice(before).every((a) => a.providerGroup === 'users-zoneB')).toBe(true);
  });

  it('prefers the registry marked preferred over the consumer`s own zone', () => {
    const { world, observer } = twoRegistries({ ra: { preferred: true } });
    const before = observer.attempts.length;
    expect(callOnce(world, consumerIn(world, 'zoneB'))).toEqual({ outcome: 'ok' });
    expect(observer.attempts.slice(before)).toEqual([{ crossZone: true, stale: false, providerGroup: 'users-zoneA', providerZone: 'zoneA' }]);
  });

  it('falls over to another registry when its own zone`s registry has pushed an empty list', () => {
    const { world, observer } = twoRegistries();
    for (const p of providers(world).filter((p) => p.zone === 'zoneB')) {
      at(world, 10_000, () => world.registry.providerStopped(p, true));
    }
    world.sim.run({ until: 11_000 });
    expect(listOf(world, 'rb')).toEqual([]);
    const before = observer.attempts.length;
    expect(callOnce(world, consumerIn(world, 'zoneB'))).toEqual({ outcome: 'ok' });
    expect(observer.attempts.slice(before)).toEqual([{ crossZone: true, stale: false, providerGroup: 'users-zoneA', providerZone: 'zoneA' }]);
  });

  it('cuts a zone from every registry with one registryPartition', () => {
    const { world } = twoRegistries({}, 'list');
    world.registry.setZoneCut('zoneA', true);
    world.sim.run({ until: 60_000 });
    const [a0] = providers(world);
    expect(world.registry.isKnownGone(a0!.exports[0]!)).toBe(true);
    expect(listOf(world, 'ra')).toEqual([]);
    expect(listOf(world, 'rb')).toHaveLength(2);
  });
});
