/**
 * A dark room as the discovery registries see it (`RegistryModel.setRoomDown`, SPEC 2.8 `roomDown`):
 * a registry placed in the room (no `servers`) goes down with it, so the surviving rooms keep stale
 * lists until it returns; a registry elsewhere loses only the room's instances; `registryDown`,
 * `registryPartition` and `roomDown` do not undo each other.
 */
import { describe, expect, it } from 'vitest';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { at, crash, firstDelivery, listsAt, makeWorld, providers, scenario } from './registry-fixtures.js';

// ZooKeeper with a 40 s session: pings every 10 s (0, 10, 20 s...). Providers (3) in zoneB, one consumer
// group of two instances in each of zoneA and zoneB. zoneA goes dark at 10 s and comes back at 100 s; a
// zoneB provider crashes at 20 000.5 ms, last heard at 20 s.
function outage(registryZone: string) {
  const s = scenario({
    registry: { type: 'zookeeper', zone: registryZone },
    providers: [{ zone: 'zoneB', count: 3 }],
    consumers: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
  });
  const t = makeWorld(s);
  const registry = t.world.registry as DiscoveryRegistry;
  const [p0] = providers(t.world);
  at(t.world, 10_000, () => t.world.registry.setRoomDown('zoneA', true));
  at(t.world, 20_000.5, () => crash(t.world, p0!));
  at(t.world, 100_000, () => t.world.registry.setRoomDown('zoneA', false));
  const inZone = (zone: string, tMs: number) => [...listsAt(t.log, tMs)].filter(([id]) => id.includes(`@${zone}#`)).map(([, l]) => l);
  return { ...t, registry, p0: p0!, inZone };
}

describe('a dark room and the registry', () => {
  it('takes down a registry placed in the room: a crash elsewhere is not seen until the room returns', () => {
    const { world, log, registry, p0, inZone } = outage('zoneA');
    world.sim.run({ until: 10_000 });
    expect(registry.down).toBe(true);
    // Without the room's registry, the session of the crashed provider never expires during the outage:
    // zoneB's consumers keep calling it (a stale list).
    world.sim.run({ until: 99_999 });
    expect(registry.isKnownGone(p0)).toBe(false);
    for (const l of inZone('zoneB', 99_999)) expect(l).toContain(p0.address);
    const pushesBefore = log.filter((d) => d.tMs > 10_000 && d.tMs < 100_000);
    expect(pushesBefore).toEqual([]);
    // Back at 100 s: every session re-tracked then, so the crashed one expires in the bucket after 140 s.
    world.sim.run({ until: 100_000 });
    expect(registry.down).toBe(false);
    world.sim.run({ until: 141_999 });
    expect(registry.isKnownGone(p0)).toBe(false);
    world.sim.run({ until: 142_000 });
    expect(registry.isKnownGone(p0)).toBe(true);
    world.sim.run({ until: 143_000 });
    const gone = firstDelivery(log, 142_000, (l) => !l.includes(p0.address));
    expect(gone.size).toBe(4);
  });

  it('cuts off only the room when the registry is elsewhere: the room gets no push until it returns and re-reads', () => {
    const { world, log, registry, p0, inZone } = outage('zoneB');
    world.sim.run({ until: 99_999 });
    expect(registry.down).toBe(false);
    // The session expires on time (62 s) and zoneB hears of it; zoneA, dark, does not.
    expect(registry.isKnownGone(p0)).toBe(true);
    for (const l of inZone('zoneB', 99_999)) expect(l).not.toContain(p0.address);
    for (const l of inZone('zoneA', 99_999)) expect(l).toContain(p0.address);
    expect(log.filter((d) => d.tMs > 10_000 && d.tMs < 100_000 && d.zone === 'zoneA')).toEqual([]);
    // Back: each zoneA subscription reads the current list after one push lag (20..300 ms).
    world.sim.run({ until: 100_300 });
    const reread = firstDelivery(log, 100_000, (l) => !l.includes(p0.address));
    expect([...reread.keys()].sort()).toEqual(['web@zoneA#0', 'web@zoneA#1']);
    for (const tMs of reread.values()) expect(tMs).toBeGreaterThanOrEqual(100_020);
  });

  it('does not let registryDown and roomDown undo each other', () => {
    const { world, registry } = outage('zoneA');
    at(world, 30_000, () => world.registry.setDown(true));
    at(world, 40_000, () => world.registry.setDown(false));
    at(world, 110_000, () => world.registry.setDown(true));
    at(world, 120_000, () => world.registry.setDown(false));
    const downAt = (tMs: number) => {
      world.sim.run({ until: tMs });
      return registry.down;
    };
    // registryDown ends at 40 s while the room is still dark (down until 100 s); at 110 s the reverse.
    expect([downAt(35_000), downAt(45_000), downAt(105_000), downAt(115_000), downAt(125_000)]).toEqual([true, true, false, true, false]);
  });

  it('does not let a registryPartition of the room end its outage, nor the outage end the partition', () => {
    const s = scenario({ registry: { type: 'zookeeper', zone: 'zoneB' }, providers: [{ zone: 'zoneB' }], consumers: [{ zone: 'zoneA' }] });
    const { world, log } = makeWorld(s);
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setRoomDown('zoneA', true));
    at(world, 11_000, () => world.registry.setZoneCut('zoneA', true));
    at(world, 12_000, () => world.registry.setZoneCut('zoneA', false));
    at(world, 20_000.5, () => crash(world, p0!));
    at(world, 100_000, () => world.registry.setRoomDown('zoneA', false));
    world.sim.run({ until: 99_999 });
    // Expired at 62 s, but zoneA is still dark: nothing reaches it.
    expect(log.filter((d) => d.tMs > 10_000)).toEqual([]);
    world.sim.run({ until: 101_000 });
    expect(firstDelivery(log, 100_000, (l) => !l.includes(p0!.address)).size).toBe(2);
  });
});
