import { describe, expect, it } from 'vitest';
import {
  ZookeeperRegistry,
  zookeeperExpiryMs,
  zookeeperPingIntervalMs,
} from '../../src/world/registry-zookeeper.js';
import { at, blackhole, crash, firstDelivery, listsAt, makeWorld, providers, scenario } from './registry-fixtures.js';

// With a 40 s session a live client pings every 10 s (t = 0, 10, 20, ...). A provider that falls silent at
// 20 000.5 ms was last heard at 20 s; its session expires in the 2 s bucket after 20 s + 40 s, i.e. at 62 s.

function zookeeper(over: Parameters<typeof scenario>[0] = {}) {
  const t = makeWorld(scenario({ ...over, registry: { type: 'zookeeper', ...over.registry } }));
  return { ...t, registry: t.world.registry as ZookeeperRegistry };
}

describe('ZookeeperRegistry', () => {
  it('pings as ClientCnxn does: min(readTimeout/2 - 1 s, 10 s) with readTimeout = 2/3 of the session', () => {
    expect(zookeeperPingIntervalMs(40_000)).toBe(10_000);
    expect(zookeeperPingIntervalMs(6000)).toBe(1000);
    expect(zookeeperPingIntervalMs(4000)).toBe(4000 / 3 - 1000);
  });

  it('expires a session in the tickTime bucket after last-heard plus the session timeout', () => {
    expect(zookeeperExpiryMs(20_000, 40_000)).toBe(62_000);
    expect(zookeeperExpiryMs(21_999, 40_000)).toBe(62_000);
    expect(zookeeperExpiryMs(22_000, 40_000)).toBe(64_000);
  });

  it.each([
    ['black-holed', blackhole],
    ['crashed', crash],
  ] as const)('removes a %s provider when its session expires, not before', (_label, fault) => {
    const { world, log, registry } = zookeeper();
    const [p0] = providers(world);
    at(world, 20_000.5, () => fault(world, p0!));
    world.sim.run({ until: 61_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    expect([...listsAt(log, 61_999).values()].every((l) => l.includes(p0!.address))).toBe(true);
    world.sim.run({ until: 62_000 });
    expect(registry.isKnownGone(p0!)).toBe(true);
    world.sim.run({ until: 70_000 });
    const out = firstDelivery(log, 20_000, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(2);
    for (const t of out.values()) {
      expect(t).toBeGreaterThanOrEqual(62_020);
      expect(t).toBeLessThanOrEqual(62_300);
    }
  });

  it('follows the scenario sessionTimeout', () => {
    const { world, registry } = zookeeper({ registry: { sessionTimeoutMs: 20_000 } });
    const [p0] = providers(world);
    // 20 s session: pings every 5.67 s (0, 5.67, 11.33, 17, 22.67 s); silent after 22.67 s -> expiry at 44 s.
    at(world, 23_000, () => blackhole(world, p0!));
    world.sim.run({ until: 43_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    world.sim.run({ until: 44_000 });
    expect(registry.isKnownGone(p0!)).toBe(true);
  });

  it('deletes the node of a gracefully stopped provider at once', () => {
    const { world, log, registry } = zookeeper();
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 10_000 });
    expect(registry.entryOf(p0!)?.registered).toBe(false);
    world.sim.run({ until: 11_000 });
    for (const l of listsAt(log, 11_000).values()) expect(l).not.toContain(p0!.address);
  });

  it('re-creates the nodes of providers cut from the registry once they are heard again', () => {
    const { world, log, registry } = zookeeper({ providers: [{ zone: 'zoneA' }, { zone: 'zoneB' }], consumers: [{ zone: 'zoneB' }] });
    const zoneA = providers(world).filter((p) => p.zone === 'zoneA');
    at(world, 20_000.5, () => world.registry.setZoneCut('zoneA', true));
    at(world, 80_000.5, () => world.registry.setZoneCut('zoneA', false));
    world.sim.run({ until: 79_000 });
    for (const p of zoneA) expect(registry.entryOf(p)?.registered).toBe(false);
    for (const l of listsAt(log, 79_000).values()) expect(l).toHaveLength(2);
    // Next ping after the heal (90 s): a new session, Dubbo recovers the nodes.
    world.sim.run({ until: 91_000 });
    for (const p of zoneA) expect(registry.entryOf(p)?.registered).toBe(true);
    for (const l of listsAt(log, 91_000).values()) expect(l).toHaveLength(4);
  });

  it('gives every session a fresh timeout when the ensemble comes back from registryDown', () => {
    const { world, log, registry } = zookeeper();
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setDown(true));
    at(world, 20_000.5, () => blackhole(world, p0!));
    at(world, 100_000, () => world.registry.setDown(false));
    world.sim.run({ until: 99_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    // Session re-tracked at 100 s: expires in the bucket after 140 s.
    world.sim.run({ until: 141_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    world.sim.run({ until: 142_000 });
    expect(registry.isKnownGone(p0!)).toBe(true);
    world.sim.run({ until: 143_000 });
    for (const l of listsAt(log, 143_000).values()) expect(l).not.toContain(p0!.address);
  });
});
