import { describe, expect, it } from 'vitest';
import { NacosRegistry } from '../../src/world/registry-nacos.js';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import {
  at,
  blackhole,
  constant,
  crash,
  firstDelivery,
  listsAt,
  makeWorld,
  NO_NOTIFICATION_DELAY,
  providers,
  scenario,
  SERVICE,
  TestObserver,
} from './registry-fixtures.js';

// Heartbeats go out at registration (t = 0) and every 5 s; a fault at 20 000.5 ms comes right after the
// beat at 20 s, so the server last heard from the provider at exactly 20 s. The server's check runs every
// 5 s at a random phase and push lag is uniform 20..300 ms.

function nacos(over: Parameters<typeof scenario>[0] = {}) {
  const s = scenario(over);
  const t = makeWorld(s);
  // Counted from the scenario the test builds, so a loop over lists or providers cannot pass empty.
  const consumerInstances = s.consumers.reduce((n, c) => n + c.instances, 0);
  const providerInstances = s.providers.reduce((n, p) => n + p.count, 0);
  return { ...t, registry: t.world.registry as NacosRegistry, consumerInstances, providerInstances };
}

/** The last list of every consumer instance at `tMs`, after checking that every instance has one. */
function everyList(log: Parameters<typeof listsAt>[0], tMs: number, instances: number): string[][] {
  const lists = listsAt(log, tMs);
  expect(lists.size).toBe(instances);
  return [...lists.values()];
}

describe('NacosRegistry (heartbeat mode)', () => {
  it('keeps a silent provider in every list while Nacos calls it unhealthy (3.3 NacosRegistry.java:692,752; Nacos InstanceController.java:773)', () => {
    const { world, log, observer, registry, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p0!));
    world.sim.run({ until: 50_000 });
    // Unhealthy at the first 5 s check more than 15 s after the last beat (20 s): in (35 s, 40 s].
    expect(observer.counters.get('registry.unhealthy')).toBe(1);
    expect(registry.entryOf(p0!)).toMatchObject({ registered: true, listed: true, healthy: false });
    // Nacos pushes the health change (ClientBeatCheckTask.java:100): every consumer gets a list that still has p0.
    const flip = firstDelivery(log, 20_000, () => true);
    expect(flip.size).toBe(consumerInstances);
    for (const t of flip.values()) {
      expect(t).toBeGreaterThan(35_000);
      expect(t).toBeLessThanOrEqual(40_300);
    }
    for (const l of everyList(log, 50_000, consumerInstances)) expect(l).toContain(p0!.address);
    // The consumer's list is what the registry pushes: an attempt to p0 now is not a stale call.
    expect(registry.isKnownGone(p0!)).toBe(false);
  });

  it('drops a silent provider from every list when Nacos deletes it: removeAfter plus at most one check period and the push lag', () => {
    const { world, log, registry, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p0!));
    world.sim.run({ until: 50_000 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    world.sim.run({ until: 60_000 });
    expect(registry.entryOf(p0!)).toMatchObject({ registered: false, listed: false });
    expect(registry.isKnownGone(p0!)).toBe(true);
    // Last beat at 20 s; deleted at the first check with more than 30 s of silence: (50 s, 55 s], plus the push lag.
    const out = firstDelivery(log, 20_000, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(consumerInstances);
    for (const t of out.values()) {
      expect(t).toBeGreaterThan(50_000);
      expect(t).toBeLessThanOrEqual(55_300);
    }
  });

  it('makes an unhealthy provider healthy again with its next heartbeat, pushing the change (ClientBeatProcessor)', () => {
    const { world, log, registry, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p0!));
    // The process answers again; its BeatReactor's next beat is due at 50 s, before the deletion.
    at(world, 45_000.5, () => (p0!.state = 'up'));
    world.sim.run({ until: 49_999 });
    expect(registry.entryOf(p0!)).toMatchObject({ listed: true, healthy: false });
    world.sim.run({ until: 60_000 });
    expect(registry.entryOf(p0!)).toMatchObject({ registered: true, listed: true, healthy: true });
    const again = firstDelivery(log, 45_000, () => true);
    expect(again.size).toBe(consumerInstances);
    for (const t of again.values()) {
      expect(t).toBeGreaterThanOrEqual(50_020);
      expect(t).toBeLessThanOrEqual(50_300);
    }
    for (const l of everyList(log, 60_000, consumerInstances)) expect(l).toContain(p0!.address);
    expect(registry.isKnownGone(p0!)).toBe(false);
  });

  it('registers a deleted provider again when it heartbeats after removeAfter', () => {
    const { world, log, registry, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p0!));
    at(world, 70_000.5, () => (p0!.state = 'up'));
    world.sim.run({ until: 70_000 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    world.sim.run({ until: 80_000 });
    expect(registry.entryOf(p0!)).toMatchObject({ registered: true, listed: true });
    for (const l of everyList(log, 80_000, consumerInstances)) expect(l).toContain(p0!.address);
  });

  it('registers a black-holed instance again at once when the fault timeline brings it back', () => {
    const { world, log, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p0!));
    at(world, 47_000, () => {
      p0!.state = 'up';
      world.registry.providerStarted(p0!);
    });
    world.sim.run({ until: 60_000 });
    const back = firstDelivery(log, 47_000, (l) => l.includes(p0!.address));
    expect(back.size).toBe(consumerInstances);
    for (const t of back.values()) expect(t).toBeLessThanOrEqual(47_300);
  });

  it('deregisters a gracefully stopped provider at once', () => {
    const { world, log, registry, consumerInstances } = nacos();
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 10_000 });
    expect(registry.isKnownGone(p0!)).toBe(true);
    world.sim.run({ until: 11_000 });
    const out = firstDelivery(log, 10_000, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(consumerInstances);
    for (const t of out.values()) expect(t).toBeLessThanOrEqual(10_300);
  });

  it('registers providers registerDelay after they start', () => {
    const { world, log, registry, consumerInstances, providerInstances } = nacos({ registry: { registerDelayMs: 2000 } });
    const [p0] = providers(world);
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    expect(everyList(log, 0, consumerInstances)).toEqual(Array.from({ length: consumerInstances }, () => []));
    world.sim.run({ until: 3000 });
    expect(registry.entryOf(p0!)?.registered).toBe(true);
    for (const l of everyList(log, 3000, consumerInstances)) expect(l).toHaveLength(providerInstances);
  });

  it('pushes out the live providers of a zone cut from the registry while that zone keeps its stale list', () => {
    const { world, log, consumerInstances } = nacos({
      providers: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
      consumers: [{ zone: 'zoneA', application: 'web-a' }, { zone: 'zoneB', application: 'web-b' }],
    });
    const all = providers(world).map((p) => p.address);
    const zoneB = providers(world)
      .filter((p) => p.zone === 'zoneB')
      .map((p) => p.address);
    at(world, 10_000.5, () => world.registry.setZoneCut('zoneA', true));
    at(world, 60_000.5, () => world.registry.setZoneCut('zoneA', false));
    world.sim.run({ until: 59_000 });
    const during = listsAt(log, 59_000);
    expect(during.get('web-b@zoneB#0')).toEqual(zoneB);
    expect(during.get('web-b@zoneB#1')).toEqual(zoneB);
    expect(during.get('web-a@zoneA#0')).toEqual(all);
    expect(during.get('web-a@zoneA#1')).toEqual(all);
    // After the heal zoneA's consumers read the current list and zoneA's providers beat again.
    world.sim.run({ until: 70_000 });
    for (const l of everyList(log, 70_000, consumerInstances)) expect([...l].sort()).toEqual([...all].sort());
  });
});

describe('NacosRegistry (connectionBound, Nacos 2.x)', () => {
  it('removes a crashed provider 3 s after the crash, when its connection closes', () => {
    const { world, log, consumerInstances } = nacos({ registry: { connectionBound: true } });
    const [p0] = providers(world);
    at(world, 10_000.5, () => crash(world, p0!));
    world.sim.run({ until: 20_000 });
    const out = firstDelivery(log, 10_000, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(consumerInstances);
    for (const t of out.values()) {
      expect(t).toBeGreaterThan(13_000);
      expect(t).toBeLessThanOrEqual(13_300.5);
    }
  });

  it('removes a black-holed provider when the connection ejector probe fails (20 s idle, 3 s period, 5 s probe)', () => {
    const { world, log, registry, consumerInstances } = nacos({ registry: { connectionBound: true } });
    const [p0] = providers(world);
    at(world, 10_000.5, () => blackhole(world, p0!));
    world.sim.run({ until: 34_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    world.sim.run({ until: 45_000 });
    const out = firstDelivery(log, 10_000, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(consumerInstances);
    for (const t of out.values()) {
      expect(t).toBeGreaterThanOrEqual(35_000);
      expect(t).toBeLessThanOrEqual(38_300);
    }
  });

  it('keeps a live provider whose keepalive is heard, however long the run', () => {
    const { world, registry, providerInstances } = nacos({ registry: { connectionBound: true } });
    world.sim.run({ until: 300_000 });
    expect(providers(world)).toHaveLength(providerInstances);
    for (const p of providers(world)) expect(registry.entryOf(p)).toMatchObject({ registered: true, listed: true });
  });
});

describe('NacosRegistry: the Nacos client of each provider (its group`s Dubbo profile)', () => {
  // Dubbo 3.3 bundles nacos-client 2.4.3 (dubbo-dependencies-bom/pom.xml:138), 2.7.23 bundles 1.4.2 (:134).
  const mixed = (connectionBound?: boolean) =>
    nacos({
      registry: { connectionBound },
      providers: [
        { name: 'users-33', zone: 'zoneA', count: 1, dubbo: defaultProfile('3.3') },
        { name: 'users-27', zone: 'zoneB', count: 1, dubbo: defaultProfile('2.7') },
      ],
    });

  it('follows a 3.3 provider`s connection (2.x) and a 2.7 provider`s heartbeats (1.x) in one registry', () => {
    const { world, registry, observer } = mixed();
    const [p33, p27] = providers(world);
    at(world, 20_000.5, () => {
      blackhole(world, p33!);
      blackhole(world, p27!);
    });
    // 2.x (NacosRuntimeConnectionEjector.java:76,133-139, ConnectionManager.java:249-252): last keepalive at
    // 20 s; probed at the first 3 s ejector run 20 s idle or more, [40 s, 43 s), removed 5 s later.
    world.sim.run({ until: 44_999 });
    expect(registry.entryOf(p33!)?.registered).toBe(true);
    world.sim.run({ until: 48_001 });
    expect(registry.entryOf(p33!)?.registered).toBe(false);
    expect(observer.counters.get('registry.ejected')).toBe(1);
    // 1.x meanwhile: unhealthy at a 5 s check in (35 s, 40 s], still listed; deleted in (50 s, 55 s].
    expect(registry.entryOf(p27!)).toMatchObject({ registered: true, listed: true, healthy: false });
    expect(observer.counters.get('registry.unhealthy')).toBe(1);
    world.sim.run({ until: 55_000 });
    expect(registry.entryOf(p27!)?.registered).toBe(false);
    expect(observer.counters.get('registry.deleted')).toBe(1);
    // The 2.x instance never went through the health check.
    expect(observer.counters.get('registry.ejected')).toBe(1);
  });

  it.each([
    [true, 'registry.ejected'],
    [false, 'registry.deleted'],
  ] as const)('lets registry.connectionBound: %s decide for every provider', (connectionBound, counter) => {
    const { world, observer } = mixed(connectionBound);
    for (const p of providers(world)) at(world, 20_000.5, () => blackhole(world, p));
    world.sim.run({ until: 60_000 });
    expect(observer.counters.get(counter)).toBe(2);
    expect(observer.counters.get(counter === 'registry.ejected' ? 'registry.deleted' : 'registry.ejected')).toBeUndefined();
  });
});

describe('NacosRegistry: how a provider leaves, by client generation', () => {
  it('counts a 2.x crash as a closed connection, not as an ejection or a deletion', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: true } });
    const [p0] = providers(world);
    at(world, 10_000.5, () => crash(world, p0!));
    world.sim.run({ until: 13_000 });
    expect(registry.entryOf(p0!)?.registered).toBe(true);
    world.sim.run({ until: 13_001 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    world.sim.run({ until: 60_000 });
    expect(observer.counters.get('registry.connectionClosed')).toBe(1);
    expect(observer.counters.get('registry.ejected')).toBeUndefined();
    expect(observer.counters.get('registry.deleted')).toBeUndefined();
  });

  it('keeps a crashed 1.x provider until Nacos deletes it: a crash closes no connection', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: false } });
    const [p0] = providers(world);
    at(world, 20_000.5, () => crash(world, p0!));
    world.sim.run({ until: 50_000 });
    expect(registry.entryOf(p0!)?.registered).toBe(true);
    world.sim.run({ until: 55_001 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    expect(observer.counters.get('registry.deleted')).toBe(1);
    expect(observer.counters.get('registry.connectionClosed')).toBeUndefined();
  });

  it('ejects, after the probe, a 2.x provider that crashed while its zone was cut off (the close never arrived)', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: true }, providers: [{ zone: 'zoneB', count: 1 }] });
    const [p0] = providers(world);
    // Last keepalive heard at 10 s; cut at 10.5 s, crashed at 11 s.
    at(world, 10_500, () => world.registry.setZoneCut('zoneB', true));
    at(world, 11_000, () => crash(world, p0!));
    world.sim.run({ until: 34_999 });
    expect(registry.entryOf(p0!)?.registered).toBe(true);
    // Probed at the first ejector run 20 s idle or more, [30 s, 33 s); removed 5 s later.
    world.sim.run({ until: 38_001 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    expect(observer.counters.get('registry.ejected')).toBe(1);
    expect(observer.counters.get('registry.connectionClosed')).toBeUndefined();
  });

  it('does not count as ejected a provider that deregistered while its probe was out', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: true } });
    const [p0] = providers(world);
    at(world, 10_000.5, () => blackhole(world, p0!));
    // The probe goes out in [30 s, 33 s) and ends in [35 s, 38 s): the deregistration falls inside it.
    at(world, 34_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 34_000 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    world.sim.run({ until: 60_000 });
    expect(observer.counters.get('registry.ejected')).toBeUndefined();
  });

  it('deletes or ejects no one while the registry is down, and restarts the silence clocks when it is back', () => {
    for (const connectionBound of [false, true]) {
      const { world, observer, registry } = nacos({ registry: { connectionBound } });
      const [p0] = providers(world);
      at(world, 20_000.5, () => blackhole(world, p0!));
      at(world, 21_000, () => world.registry.setDown(true));
      at(world, 100_000, () => world.registry.setDown(false));
      world.sim.run({ until: 119_000 });
      expect(registry.entryOf(p0!)?.registered, `connectionBound ${connectionBound}`).toBe(true);
      expect(observer.counters.get('registry.deleted')).toBeUndefined();
      expect(observer.counters.get('registry.ejected')).toBeUndefined();
      // Silent since the resume at 100 s: 1.x deletes it at a check in (130 s, 135 s]; 2.x probes it in
      // [120 s, 123 s) and ejects it 5 s later.
      world.sim.run({ until: 135_001 });
      expect(registry.entryOf(p0!)?.registered, `connectionBound ${connectionBound}`).toBe(false);
      expect(observer.counters.get(connectionBound ? 'registry.ejected' : 'registry.deleted')).toBe(1);
    }
  });
});

describe('NacosRegistry: the server loops it runs', () => {
  it('runs both loops without a scenario (it cannot tell the clients): a 2.x provider is ejected, a 1.x one deleted', () => {
    const s = scenario({
      registry: { connectionBound: undefined },
      providers: [
        { name: 'users-33', zone: 'zoneA', count: 1, dubbo: defaultProfile('3.3') },
        { name: 'users-27', zone: 'zoneB', count: 1, dubbo: defaultProfile('2.7') },
      ],
      consumers: [],
    });
    const { world } = makeWorld({ ...s, registry: { ...s.registry, type: 'static' } });
    const observer = new TestObserver();
    const registry = new NacosRegistry({ sim: world.sim, streams: world.streams, observer, network: world.network }, s.registry, {
      name: 'registry',
      streamPrefix: 'bare',
    });
    const [p33, p27] = providers(world);
    registry.providerStarted(p33!);
    registry.providerStarted(p27!);
    at(world, 20_000.5, () => {
      p33!.state = 'blackhole';
      p27!.state = 'blackhole';
      registry.providerStopped(p33!, false);
      registry.providerStopped(p27!, false);
    });
    world.sim.run({ until: 60_000 });
    expect(registry.entryOf(p33!)?.registered).toBe(false);
    expect(registry.entryOf(p27!)?.registered).toBe(false);
    expect(observer.counters.get('registry.ejected')).toBe(1);
    expect(observer.counters.get('registry.deleted')).toBe(1);
  });

  it('runs the heartbeat check of a registry for the 1.x clients of the groups registering with it', () => {
    const s = scenario({
      registries: { east: { zone: 'zoneA', connectionBound: undefined }, west: { zone: 'zoneB', connectionBound: undefined } },
      providers: [
        { name: 'users-27', zone: 'zoneA', count: 1, dubbo: defaultProfile('2.7'), registries: ['east'] },
        { name: 'users-33', zone: 'zoneB', count: 1, dubbo: defaultProfile('3.3'), registries: ['west'] },
        // A group without `registries` registers with both.
        { name: 'users-all', zone: 'zoneB', count: 1, dubbo: defaultProfile('3.3') },
      ],
      consumers: [],
    });
    const { world, observer } = makeWorld(s);
    const [p27] = providers(world);
    at(world, 20_000.5, () => blackhole(world, p27!));
    world.sim.run({ until: 60_000 });
    expect((world.registries.get('east') as DiscoveryRegistry).entryOf(p27!)?.registered).toBe(false);
    expect(observer.counters.get('registry.deleted')).toBe(1);
  });

  it('probes, but keeps, a live 2.x client idle 20 s between keepalives (a keepalive period above 20 s)', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: true, heartbeatMs: 30_000 } });
    world.sim.run({ until: 200_000 });
    for (const p of providers(world)) expect(registry.entryOf(p)?.registered).toBe(true);
    expect(observer.counters.get('registry.ejected')).toBeUndefined();
  });

  it('runs the ejector every 3 s while it probes no one: a silent 2.x client goes within 28 s of its last keepalive, whatever the phase', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const s = scenario({ registry: { connectionBound: true } });
      const { world } = makeWorld(s, { seed });
      const registry = world.registry as NacosRegistry;
      const [p0] = providers(world);
      at(world, 10_000.5, () => blackhole(world, p0!));
      // Last keepalive at 10 s: probed at the first run 20 s idle or more, in [30 s, 33 s), removed 5 s later.
      world.sim.run({ until: 35_000 - 1 });
      expect(registry.entryOf(p0!)?.registered, `seed ${seed}`).toBe(true);
      world.sim.run({ until: 38_000 });
      expect(registry.entryOf(p0!)?.registered, `seed ${seed}`).toBe(false);
    }
  });

  it('drops a stopped 2.x process whose deregistration was lost when its connection close reaches the server', () => {
    const { world, observer, registry } = nacos({ registry: { connectionBound: true }, providers: [{ zone: 'zoneB', count: 1 }] });
    const [p0] = providers(world);
    // Black-holed at 10 s (its connection-close check is due 3 s later); scaled in at 11 s while its zone
    // is cut, so its deregistration is lost; the cut heals at 12 s.
    at(world, 10_000, () => blackhole(world, p0!));
    at(world, 10_500, () => world.registry.setZoneCut('zoneB', true));
    at(world, 11_000, () => {
      p0!.state = 'stopped';
      world.registry.providerStopped(p0!, true);
    });
    at(world, 12_000, () => world.registry.setZoneCut('zoneB', false));
    world.sim.run({ until: 12_999 });
    expect(registry.entryOf(p0!)?.registered).toBe(true);
    world.sim.run({ until: 13_001 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    expect(observer.counters.get('registry.connectionClosed')).toBe(1);
  });
});

describe('NacosRegistry as a server: the push delay engine', () => {
  /** A graceful stop of the first provider: one change of the service's list. */
  const stopOne = (world: ReturnType<typeof makeWorld>['world']) => world.registry.providerStopped(providers(world)[0]!, true);

  it('delays pushes by 500 ms when only a capacity models the server', () => {
    const s = scenario({
      registry: { pushLag: constant(0), capacity: { bandwidthBytesPerSec: 1e9 } },
      consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    at(world, 10_000, () => stopOne(world));
    world.sim.run({ until: 20_000 });
    const times = log.filter((d) => d.tMs > 1000).map((d) => d.tMs);
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(10_500);
      expect(t).toBeLessThan(10_600);
    }
  });

  it('pushes at once with pushDelay 0, on no engine tick', () => {
    const s = scenario({
      registry: { pushLag: constant(0), servers: { zoneA: 1 }, pushDelayMs: 0 },
      consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    at(world, 10_000.25, () => stopOne(world));
    world.sim.run({ until: 20_000 });
    const times = log.filter((d) => d.tMs > 1000).map((d) => d.tMs);
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) expect(t).toBeLessThan(10_100);
  });

  it('ticks at a phase drawn per run, not in step with the clock: the first push after a change lands anywhere in the 100 ms tick', () => {
    const offsets: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const s = scenario({ registry: { pushLag: constant(0), servers: { zoneA: 1 } }, consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }] });
      const { world, log } = makeWorld(s, { seed });
      at(world, 10_000, () => stopOne(world));
      world.sim.run({ until: 20_000 });
      const first = log.find((d) => d.tMs > 1000)!.tMs;
      offsets.push(first - 10_500);
    }
    for (const o of offsets) {
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThan(100);
    }
    // Eight uniform phases: their spread is far above a millisecond.
    expect(Math.max(...offsets) - Math.min(...offsets)).toBeGreaterThan(10);
  });
});

describe('NacosRegistry as a server: liveness messages', () => {
  const ORDERS = 'com.example.OrderService';
  /** Requests the one registry node served in 60 s for one provider exporting `services`, none subscribing. */
  const served = (connectionBound: boolean, services: string[]) => {
    const s = scenario({ registry: { connectionBound, servers: { zoneA: 1 } }, providers: [{ count: 1, services }], consumers: [] });
    s.services[ORDERS] = s.services[SERVICE]!;
    const { world } = makeWorld(s);
    world.sim.run({ until: 60_000 });
    return world.registry.serverFigures!()[0]!.requestsServed;
  };

  it('sends one 2.x keepalive per process however many services it exports, and one 1.x beat per instance', () => {
    // Twelve 5 s ticks in 60 s: a second record adds its registration, and with 1.x its beats.
    expect(served(true, [SERVICE, ORDERS]) - served(true, [SERVICE])).toBeLessThanOrEqual(1);
    expect(served(false, [SERVICE, ORDERS]) - served(false, [SERVICE])).toBeGreaterThanOrEqual(12);
  });
});
