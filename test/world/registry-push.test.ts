import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../../src/model/types.js';
import { scheduleFaults } from '../../src/world/faults.js';
import { StaticRegistry } from '../../src/world/registry.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import type { World } from '../../src/world/world.js';
import {
  at,
  blackhole,
  firstDelivery,
  listsAt,
  makeWorld,
  NO_NOTIFICATION_DELAY,
  providers,
  scenario,
  SERVICE,
} from './registry-fixtures.js';

const registryOf = (world: World) => world.registry as DiscoveryRegistry;

/** Consumer instances of a scenario the test builds, so loops over their lists cannot pass empty. */
const instancesOf = (s: ReturnType<typeof scenario>) => s.consumers.reduce((n, c) => n + c.instances, 0);

/** The last list of every consumer instance at `tMs`, after checking that every instance has one. */
function everyList(log: Parameters<typeof listsAt>[0], tMs: number, instances: number): string[][] {
  const lists = listsAt(log, tMs);
  expect(lists.size).toBe(instances);
  return [...lists.values()];
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * What Nacos pushes around the hosts of an interface-level subscription: a ServiceInfo JSON for
 * the Nacos service `providers:<interface>::` (Dubbo's category:interface:version:group) in
 * DEFAULT_GROUP, with an empty host list (each host is counted as its URL) and lastRefTime at the
 * simulation's epoch.
 */
const nacosEnvelopeBytes = (service: string) =>
  utf8Bytes(
    JSON.stringify({
      name: `DEFAULT_GROUP@@providers:${service}::`,
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

// ZooKeeper's jute serialization writes a string as an int32 byte length, then the bytes.
const JUTE_INT32_BYTES = 4;

/** Restarts `p` as the fault timeline does: graceful stop, then a new instance of its group. */
function restart(world: World, p: ReturnType<typeof providers>[number]): void {
  world.registry.providerStopped(p, true);
  p.state = 'stopped';
  world.startProvider(p.group);
}

describe('registry pushes', () => {
  it.each(['nacos', 'zookeeper'] as const)('%s: each consumer instance gets the change after its own push-lag draw', (type) => {
    const { world, log } = makeWorld(scenario({ registry: { type }, consumers: [{ instances: 6 }] }));
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    const times = [...firstDelivery(log, 10_000, (l) => !l.includes(p0!.address)).values()];
    expect(times).toHaveLength(6);
    expect(new Set(times).size).toBe(6);
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(10_020);
      expect(t).toBeLessThanOrEqual(10_300);
    }
  });

  it('delivers every list in order per subscriber, however the push lags are drawn', () => {
    const { world, log } = makeWorld(
      scenario({
        registry: { pushLag: { dist: 'exponential', mean: 500 } },
        providers: [{ count: 6 }],
        consumers: [{ instances: 8 }],
      }),
    );
    const ps = providers(world);
    ps.forEach((p, i) => at(world, 10_000 + 20 * i, () => world.registry.providerStopped(p, true)));
    world.sim.run({ until: 60_000 });
    const byInstance = new Map<string, number[]>();
    for (const d of log) if (d.tMs > 10_000) byInstance.set(d.instance, [...(byInstance.get(d.instance) ?? []), d.addresses.length]);
    expect(byInstance.size).toBe(8);
    for (const sizes of byInstance.values()) expect(sizes).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it('freezes detection and pushes while the registry is down, and resumes with fresh detection clocks', () => {
    const s = scenario();
    const { world, log, observer } = makeWorld(s);
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setDown(true));
    at(world, 10_000.5, () => blackhole(world, p0!));
    at(world, 60_000, () => world.registry.setDown(false));
    world.sim.run({ until: 59_999 });
    expect(registryOf(world).isKnownGone(p0!)).toBe(false);
    const pushesBefore = observer.pushes.length;
    expect(log.filter((d) => d.tMs > 10_000)).toEqual([]);
    // Back up: every consumer reads the current list (p0 still in it), then p0's silence counts from 60 s on:
    // deleted at the first check more than removeAfter (30 s) later (Nacos keeps it in Dubbo's list until then).
    world.sim.run({ until: 60_300 });
    expect(observer.pushes.length - pushesBefore).toBe(instancesOf(s));
    for (const l of everyList(log, 60_300, instancesOf(s))) expect(l).toContain(p0!.address);
    world.sim.run({ until: 100_000 });
    const out = firstDelivery(log, 60_300, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(instancesOf(s));
    for (const t of out.values()) {
      expect(t).toBeGreaterThan(60_000 + s.registry.removeAfterMs);
      expect(t).toBeLessThanOrEqual(60_000 + s.registry.removeAfterMs + 5000 + 300);
    }
  });

  it('keeps consumers on their old list while the push switch is off, then sends the current list', () => {
    const s = scenario();
    const { world, log } = makeWorld(s);
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setPushSwitch(false));
    at(world, 20_000, () => world.registry.providerStopped(p0!, true));
    at(world, 30_000, () => world.registry.setPushSwitch(true));
    world.sim.run({ until: 29_999 });
    expect(registryOf(world).isKnownGone(p0!)).toBe(true);
    for (const l of everyList(log, 29_999, instancesOf(s))) expect(l).toContain(p0!.address);
    world.sim.run({ until: 30_300 });
    for (const l of everyList(log, 30_300, instancesOf(s))) expect(l).not.toContain(p0!.address);
  });

  it('lets a consumer partitioned from the registry zone catch up within the 5 s retry after the heal', () => {
    const { world, log } = makeWorld(
      scenario({ registry: { zone: 'zoneA' }, consumers: [{ zone: 'zoneA', application: 'a' }, { zone: 'zoneB', application: 'b' }] }),
    );
    const [p0] = providers(world);
    at(world, 10_000, () => world.network.partition('zoneA', 'zoneB'));
    at(world, 20_000, () => world.registry.providerStopped(p0!, true));
    at(world, 30_000, () => world.network.heal('zoneA', 'zoneB'));
    world.sim.run({ until: 29_999 });
    const during = listsAt(log, 29_999);
    expect(during.get('a@zoneA#0')).not.toContain(p0!.address);
    expect(during.get('b@zoneB#0')).toContain(p0!.address);
    world.sim.run({ until: 40_000 });
    const caughtUp = firstDelivery(log, 30_000, (l) => !l.includes(p0!.address));
    expect(caughtUp.get('b@zoneB#0')).toBeLessThanOrEqual(35_300);
  });

  it.each(['nacos', 'zookeeper'] as const)('%s: a rolling restart of N providers watched by M consumers pushes 2·N·M lists', (type) => {
    const N = 4;
    const M = 3;
    // No delay-notification (Dubbo 2.7): every change its own push; registry-notifier.test.ts has 3.3's.
    const consumers = [{ instances: M, dubbo: NO_NOTIFICATION_DELAY }];
    const { world, observer } = makeWorld(scenario({ registry: { type }, providers: [{ count: N }], consumers }));
    world.sim.run({ until: 9_999 });
    const before = observer.pushes.length;
    providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
    world.sim.run({ until: 60_000 });
    expect(observer.pushes.length - before).toBe(2 * N * M);
  });

  it('counts 2·N·M pushes for the fault timeline`s rollingRestart too', () => {
    const N = 3;
    const M = 2;
    const s = scenario({ providers: [{ count: N }], consumers: [{ instances: M }] });
    const fault: FaultSpec = {
      atMs: 10_000,
      action: { kind: 'rollingRestart', service: SERVICE, batch: 1, intervalMs: 5000 },
      label: 'faults[0]',
    };
    const { world, observer } = makeWorld({ ...s, faults: [fault] });
    scheduleFaults(world);
    world.sim.run({ until: 9_999 });
    const before = observer.pushes.length;
    world.sim.run({ until: 60_000 });
    expect(observer.pushes.length - before).toBe(2 * N * M);
  });

  it('sizes an interface-level Nacos push as the ServiceInfo envelope plus each provider URL', () => {
    const { world, observer } = makeWorld(scenario({ consumers: [{ instances: 1 }] }));
    const [p0, p1] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    const envelope = nacosEnvelopeBytes(SERVICE);
    // The list at registration, then the list without p0.
    expect(observer.pushes.map((p) => p.bytes)).toEqual([
      envelope + utf8Bytes(p0!.url) + utf8Bytes(p1!.url),
      envelope + utf8Bytes(p1!.url),
    ]);
  });

  it('sizes a ZooKeeper interface-level child as the URL-encoded URL', () => {
    const { world, observer } = makeWorld(scenario({ registry: { type: 'zookeeper' }, consumers: [{ instances: 1 }] }));
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    const [full, one] = observer.pushes.map((p) => p.bytes);
    expect(observer.pushes).toHaveLength(2);
    expect(full! - one!).toBe(JUTE_INT32_BYTES + utf8Bytes(encodeURIComponent(p0!.url)));
  });

  // One service per process: the same pushes at both levels, and with Dubbo 3's default `metadata-type=local`
  // a process's instance metadata (MetadataService URL parameters included) is longer than its one URL.
  it.each(['nacos', 'zookeeper'] as const)('%s: application-level registration of a one-service application pushes as often, with more bytes (local metadata)', (type) => {
    const bytes = (registration: 'interface' | 'application') => {
      const { world, observer } = makeWorld(
        scenario({
          registry: { type, registration },
          providers: [{ count: 5, params: { owner: 'team-users', env: 'prod' } }],
          consumers: [{ dubbo: NO_NOTIFICATION_DELAY }],
        }),
      );
      providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
      world.sim.run({ until: 60_000 });
      return { pushes: observer.pushes.length, bytes: observer.pushBytes };
    };
    const iface = bytes('interface');
    const app = bytes('application');
    expect(app.pushes).toBe(iface.pushes);
    expect(app.bytes).toBeGreaterThan(iface.bytes);
  });

  it('fetches each metadata revision once per consumer instance (application level)', () => {
    const instances = 3;
    const { world, observer } = makeWorld(
      scenario({
        registry: { registration: 'application' },
        providers: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
        consumers: [{ instances }],
      }),
    );
    providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
    world.sim.run({ until: 60_000 });
    // Two provider groups (different zone parameter) = two revisions, each fetched by every instance.
    const revisions = 2;
    expect(observer.counters.get('registry.metadataFetches')).toBe(revisions * instances);
  });

  it('keeps the static registry: the true list at once, no pushes counted', () => {
    const s = scenario({ registry: { type: 'static' } });
    const { world, log, observer } = makeWorld(s);
    expect(world.registry).toBeInstanceOf(StaticRegistry);
    const providerCount = s.providers.reduce((n, p) => n + p.count, 0);
    for (const l of everyList(log, 0, instancesOf(s))) expect(l).toHaveLength(providerCount);
    expect(observer.pushes).toEqual([]);
  });
});
