/**
 * Application-level discovery (SPEC 2.5 `registration: application`) in the Nacos and ZooKeeper
 * models: the registry lists one record per provider process under its application, a consumer
 * instance subscribes once per application it needs (service-name mapping), and one instance
 * change is one push per subscribed consumer instance whatever the number of services the
 * application exports; each service's listener still gets only its own service's exports.
 * Interface-level registration, for comparison, pushes once per (service, consumer instance).
 */
import { describe, expect, it } from 'vitest';
import type { Proc } from '../../src/engine/simulation.js';
import type { ProviderGroupSpec, Scenario } from '../../src/model/types.js';
import type { ConsumerInstance, ConsumerStack, ServiceCall } from '../../src/world/consumer.js';
import type { Outcome } from '../../src/metrics/observer.js';
import { EPOCH_MS, type ProviderExport, type ProviderInstance } from '../../src/world/provider.js';
import { createRegistry } from '../../src/world/registry-factory.js';
import { NacosRegistry } from '../../src/world/registry-nacos.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { World } from '../../src/world/world.js';
import { at, constant, METHOD, NO_NOTIFICATION_DELAY, providers, scenario, SERVICE, TestObserver } from './registry-fixtures.js';

const A = SERVICE;
const B = 'com.example.OrderService';
const C = 'com.example.PaymentService';
const SERVICES = [A, B, C];
const APP = 'user-provider';
const TYPES = ['nacos', 'zookeeper'] as const;

type RegistryType = (typeof TYPES)[number];
type Registration = 'interface' | 'application';

/** One list handed to one listener: which consumer instance, which service, what it got. */
interface Handed {
  tMs: number;
  instance: string;
  service: string;
  list: readonly ProviderExport[];
}

/** A consumer stack that logs every list handed to each of its references. */
class LoggingStack implements ConsumerStack {
  constructor(
    readonly instance: ConsumerInstance,
    readonly world: World,
    readonly log: Handed[],
  ) {}

  refer(service: string): void {
    this.world.registry.subscribe(this.instance, service, (list) => {
      this.log.push({ tMs: this.world.sim.now, instance: this.instance.id, service, list });
    });
  }

  *call(_call: ServiceCall): Proc<{ outcome: Outcome }> {
    return { outcome: 'ok' };
  }
}

/**
 * One provider application exporting A, B and C (`count` processes per group, one group per zone
 * in `zones`), watched by `instances` consumer instances that call all three services.
 */
function appScenario(o: {
  type: RegistryType;
  registration: Registration;
  count?: number;
  instances?: number;
  zones?: string[];
  groups?: Partial<ProviderGroupSpec>[];
  registerDelayMs?: number;
}): Scenario {
  const groups = o.groups ?? (o.zones ?? ['zoneA']).map((zone) => ({ zone, name: `users-${zone}` }));
  const s = scenario({
    registry: { type: o.type, registration: o.registration, registerDelayMs: o.registerDelayMs ?? 0 },
    providers: groups.map((g) => ({ service: A, services: SERVICES, count: o.count ?? 2, ...g })),
    // Every change its own push (no delay-notification): these tests count the registry's pushes.
    consumers: [
      { instances: o.instances ?? 2, calls: Object.fromEntries(SERVICES.map((svc) => [`${svc}.${METHOD}`, 1])), dubbo: NO_NOTIFICATION_DELAY },
    ],
  });
  const method = s.services[A]!.methods[METHOD]!;
  for (const svc of SERVICES) s.services[svc] = { methods: { [METHOD]: method } };
  return s;
}

function makeWorld(s: Scenario): { world: World; observer: TestObserver; log: Handed[] } {
  const observer = new TestObserver();
  const log: Handed[] = [];
  const world = new World(s, {
    seed: 1,
    observer,
    makeRegistry: (w) => createRegistry(w),
    consumerStack: (instance, w) => new LoggingStack(instance, w, log),
  });
  return { world, observer, log };
}

/** Restarts `p` as the fault timeline does: graceful stop, then a new instance of its group. */
function restart(world: World, p: ProviderInstance): void {
  world.registry.providerStopped(p, true);
  p.state = 'stopped';
  world.startProvider(p.group);
}

/** Pushes of a rolling restart (one process every 5 s from 10 s), and the pushes before it. */
function rollingRestart(s: Scenario): { before: number; during: number; world: World; observer: TestObserver; log: Handed[] } {
  const made = makeWorld(s);
  const { world, observer } = made;
  world.sim.run({ until: 9_999 });
  const before = observer.pushes.length;
  providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
  world.sim.run({ until: 60_000 });
  return { ...made, before, during: observer.pushes.length - before };
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The registry envelope of an application's instance list, built from the registries' own strings. */
function appEnvelopeBytes(type: RegistryType, app: string): number {
  if (type === 'zookeeper') return 2 * utf8Bytes(`/services/${app}`) + 92; // path twice, reply header and Stat
  return utf8Bytes(
    JSON.stringify({
      name: `DEFAULT_GROUP@@${app}`,
      groupName: 'DEFAULT_GROUP',
      clusters: '',
      cacheMillis: 10_000,
      hosts: [],
      lastRefTime: Date.UTC(2026, 0, 1),
      checksum: '',
      allIPs: false,
      reachProtectionThreshold: false,
      valid: true,
    }),
  );
}

/** One process in an application list: `ip:port` and its ServiceInstance metadata (remote metadata type). */
function processBytes(p: ProviderInstance): number {
  // Dubbo 3's default metadata-type=local: the MetadataService's URL parameters and version ride along.
  const metadata = JSON.stringify({
    'dubbo.endpoints': JSON.stringify([{ port: p.port, protocol: 'dubbo' }]),
    'dubbo.metadata-service.url-params': JSON.stringify({ version: '1.0.0', dubbo: '2.0.2', release: '3.3.2', side: 'provider', port: String(p.port), protocol: 'dubbo' }),
    'dubbo.metadata.revision': '0'.repeat(32), // an MD5-long revision
    'dubbo.metadata.storage-type': 'local',
    'meta-v': '1.0.0',
    timestamp: String(Math.trunc(EPOCH_MS + p.startMs)),
  });
  return utf8Bytes(p.address) + utf8Bytes(metadata);
}

describe('application-level discovery', () => {
  it.each(TYPES)('%s: a rolling restart pushes interface-level pushes / number of services', (type) => {
    const N = 4;
    const M = 3;
    const iface = rollingRestart(appScenario({ type, registration: 'interface', count: N, instances: M }));
    const app = rollingRestart(appScenario({ type, registration: 'application', count: N, instances: M }));
    // Interface level: every export is its own registration, pushed per (service, consumer instance).
    expect(iface.before).toBe(SERVICES.length * M);
    expect(iface.during).toBe(2 * N * M * SERVICES.length);
    // Application level: one subscription per consumer instance, one push per instance change.
    expect(app.before).toBe(M);
    expect(app.during).toBe(2 * N * M);
    expect(app.during).toBe(iface.during / SERVICES.length);
  });

  it.each(TYPES)('%s: hands each service listener only its own service`s exports, of every listed process', (type) => {
    const { world, log } = rollingRestart(appScenario({ type, registration: 'application', count: 3, instances: 2 }));
    expect(log.length).toBeGreaterThan(0);
    for (const h of log) {
      expect(h.list.every((e) => e.service === h.service)).toBe(true);
      // One export per listed process: the list of a service is the application's list.
      expect(new Set(h.list.map((e) => e.instance)).size).toBe(h.list.length);
    }
    // Every listener ends on the live processes' exports of its service.
    const live = providers(world).filter((p) => p.state === 'up');
    for (const service of SERVICES) {
      const last = new Map<string, readonly ProviderExport[]>();
      for (const h of log) if (h.service === service) last.set(h.instance, h.list);
      expect(last.size).toBe(2);
      for (const list of last.values()) expect(list.map((e) => e.address).sort()).toEqual(live.map((p) => p.address).sort());
    }
  });

  it.each(TYPES)('%s: hands every listener of one change and service the same list object', (type) => {
    const { world, log } = makeWorld(appScenario({ type, registration: 'application', count: 2, instances: 4 }));
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 20_000 });
    for (const service of SERVICES) {
      const after = log.filter((h) => h.tMs > 10_000 && h.service === service);
      expect(after).toHaveLength(4);
      expect(new Set(after.map((h) => h.list)).size).toBe(1);
    }
    // One push per consumer instance carried all three services' lists.
    const perPush = log.filter((h) => h.tMs > 10_000 && h.instance === 'web@zoneA#0').map((h) => h.service);
    expect(perPush).toEqual(SERVICES);
  });

  it.each(TYPES)('%s: sizes a push as one envelope plus `ip:port` and metadata per process, not per export', (type) => {
    const { world, observer } = makeWorld(appScenario({ type, registration: 'application', count: 3, instances: 1 }));
    const [p0, p1, p2] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    expect(observer.pushes).toHaveLength(2);
    const envelope = appEnvelopeBytes(type, APP);
    const [first, second] = observer.pushes.map((p) => p.bytes);
    expect(first).toBe(envelope + processBytes(p0!) + processBytes(p1!) + processBytes(p2!));
    // The second push: p0 gone.
    expect(second).toBe(envelope + processBytes(p1!) + processBytes(p2!));
    // The one MetadataInfo, which covers all three services, came from a provider, not with a push.
    expect(observer.counters.get('registry.metadataFetches')).toBe(1);
    expect(observer.counters.get('registry.metadataBytes')).toBeGreaterThan(0);
  });

  it.each(TYPES)('%s: a push weighs the same whatever the number of services the application exports', (type) => {
    const secondPush = (services: string[]) => {
      const s = appScenario({ type, registration: 'application', count: 3, instances: 1 });
      for (const g of s.providers) g.services = services;
      const { world, observer } = makeWorld(s);
      at(world, 10_000, () => world.registry.providerStopped(providers(world)[0]!, true));
      world.sim.run({ until: 11_000 });
      return observer.pushes[1]!.bytes;
    };
    expect(secondPush(SERVICES)).toBe(secondPush([A]));
  });

  it.each(TYPES)('%s: each consumer instance fetches each metadata revision once, for all services', (type) => {
    const M = 3;
    const { observer } = rollingRestart(appScenario({ type, registration: 'application', count: 2, instances: M, zones: ['zoneA', 'zoneB'] }));
    // Two groups (different zone parameter) = two revisions, each covering A, B and C.
    expect(observer.counters.get('registry.metadataFetches')).toBe(2 * M);
  });

  it.each(TYPES)('%s: keeps one push per (service, consumer instance) at interface level', (type) => {
    const { world, observer, log } = makeWorld(appScenario({ type, registration: 'interface', count: 2, instances: 2 }));
    const [p0] = providers(world);
    world.sim.run({ until: 9_999 });
    const before = observer.pushes.length;
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 20_000 });
    expect(observer.pushes.length - before).toBe(SERVICES.length * 2);
    for (const h of log) expect(h.list.every((e) => e.service === h.service)).toBe(true);
  });

  it('watches an application before any of its processes registered, from the scenario`s mapping', () => {
    const M = 2;
    const s = appScenario({ type: 'nacos', registration: 'application', count: 2, instances: M, registerDelayMs: 5000 });
    const { world, observer, log } = makeWorld(s);
    expect((world.registry as DiscoveryRegistry).applicationsOf(B)).toEqual([APP]);
    // Subscribing: one (empty) read per consumer instance, handed to all three services.
    expect(observer.pushes).toHaveLength(M);
    expect(log.filter((h) => h.tMs === 0).map((h) => h.list.length)).toEqual(new Array(SERVICES.length * M).fill(0));
    world.sim.run({ until: 6_000 });
    // Two registrations, each one push per consumer instance.
    expect(observer.pushes).toHaveLength(M + 2 * M);
  });

  it('attaches a subscription lazily when the mapping is unknown until a process registers', () => {
    // A registry built without a scenario knows the mapping only from what registers.
    const s = appScenario({ type: 'nacos', registration: 'application', count: 2, instances: 0, registerDelayMs: 5000 });
    const { world } = makeWorld({ ...s, registry: { ...s.registry, type: 'static' } });
    const observer = new TestObserver();
    const registry = new NacosRegistry(
      { sim: world.sim, streams: world.streams, observer, network: world.network },
      { ...s.registry, pushLag: constant(100) },
      { name: 'registry', streamPrefix: 'lazy' },
    );
    const handed: Array<[string, number, number]> = [];
    const subscriber = { id: 'c#0', zone: 'zoneA' };
    for (const service of SERVICES) registry.subscribe(subscriber, service, (l) => handed.push([service, world.sim.now, l.length]));
    expect(registry.applicationsOf(A)).toEqual([]);
    expect(observer.pushes).toEqual([]);
    for (const p of providers(world)) registry.providerStarted(p);
    world.sim.run({ until: 6_000 });
    expect(registry.applicationsOf(C)).toEqual([APP]);
    // The first registration's push is the subscription's first list; the second is one more push. Both
    // arrive at 5100; the first waits for its revision's MetadataInfo from the provider (two same-zone
    // round trips, connect and call), the second for the first (ServiceInstancesChangedListener.doOnEvent).
    expect(observer.pushes).toHaveLength(2);
    const fetched = 5100 + 2 * 0.2;
    expect(handed).toEqual([
      [A, fetched, 1],
      [B, fetched, 1],
      [C, fetched, 1],
      [A, fetched, 2],
      [B, fetched, 2],
      [C, fetched, 2],
    ]);
  });

  it('hands a second service of a watched application the last list at once, without a push', () => {
    const s = appScenario({ type: 'nacos', registration: 'application', count: 2, instances: 1 });
    const { world, observer } = makeWorld(s);
    const pushes = observer.pushes.length;
    const instance = world.consumerGroups[0]!.instances[0]!;
    const got: number[] = [];
    world.registry.subscribe(instance, B, (l) => got.push(l.length));
    expect(got).toEqual([2]);
    expect(observer.pushes.length).toBe(pushes);
  });

  it('unions the lists of a service exported by several applications', () => {
    const s = appScenario({
      type: 'zookeeper',
      registration: 'application',
      count: 2,
      instances: 1,
      groups: [
        { name: 'users-a', zone: 'zoneA', application: 'users-a' },
        { name: 'users-b', zone: 'zoneB', application: 'users-b', services: [A] },
      ],
    });
    const { world, observer, log } = makeWorld(s);
    const registry = world.registry as DiscoveryRegistry;
    expect(registry.applicationsOf(A)).toEqual(['users-a', 'users-b']);
    expect(registry.applicationsOf(B)).toEqual(['users-a']);
    // Two applications watched: two reads.
    expect(observer.pushes).toHaveLength(2);
    world.sim.run({ until: 1_000 });
    const last = (service: string) => log.filter((h) => h.service === service).at(-1)!.list;
    expect(last(A).map((e) => e.group.spec.name)).toEqual(['users-a', 'users-a', 'users-b', 'users-b']);
    expect(last(B).map((e) => e.group.spec.name)).toEqual(['users-a', 'users-a']);
    // A change of users-b is one push, and A's listener gets the new union.
    const [b0] = world.providerGroups[1]!.instances;
    at(world, 10_000, () => world.registry.providerStopped(b0!, true));
    world.sim.run({ until: 11_000 });
    expect(observer.pushes).toHaveLength(3);
    expect(last(A).map((e) => e.address)).not.toContain(b0!.address);
    expect(last(A)).toHaveLength(3);
  });

  it.each(TYPES)('%s: a consumer cut off from the registry reads every service`s list in one push after the cut', (type) => {
    // Providers in zoneB, the consumer in zoneA: only the consumer is cut off.
    const { world, observer, log } = makeWorld(appScenario({ type, registration: 'application', count: 2, instances: 1, zones: ['zoneB'] }));
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setZoneCut('zoneA', true));
    at(world, 20_000, () => world.registry.providerStopped(p0!, true));
    at(world, 30_000, () => world.registry.setZoneCut('zoneA', false));
    world.sim.run({ until: 29_999 });
    const before = observer.pushes.length;
    world.sim.run({ until: 31_000 });
    expect(observer.pushes.length - before).toBe(1);
    const after = log.filter((h) => h.tMs > 30_000);
    expect(after.map((h) => h.service)).toEqual(SERVICES);
    for (const h of after) expect(h.list.map((e) => e.address)).not.toContain(p0!.address);
  });
});
