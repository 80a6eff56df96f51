import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../../src/scenario/types.js';
import { scheduleFaults } from '../../src/world/faults.js';
import { StaticRegistry } from '../../src/world/registry.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { PushSizer } from '../../src/world/registry-push-size.js';
import type { World } from '../../src/world/world.js';
import {
  at,
  blackhole,
  firstDelivery,
  listsAt,
  makeWorld,
  providers,
  scenario,
  SERVICE,
} from './registry-fixtures.js';

const registryOf = (world: World) => world.registry as DiscoveryRegistry;

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
    const { world, log, observer } = makeWorld(scenario());
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setDown(true));
    at(world, 10_000.5, () => blackhole(world, p0!));
    at(world, 60_000, () => world.registry.setDown(false));
    world.sim.run({ until: 59_999 });
    expect(registryOf(world).isKnownGone(p0!)).toBe(false);
    const pushesBefore = observer.pushes.length;
    expect(log.filter((d) => d.tMs > 10_000)).toEqual([]);
    // Back up: every consumer reads the current list (p0 still in it), then p0 times out from 60 s on.
    world.sim.run({ until: 60_300 });
    expect(observer.pushes.length - pushesBefore).toBe(2);
    for (const l of listsAt(log, 60_300).values()) expect(l).toContain(p0!.address);
    world.sim.run({ until: 90_000 });
    const out = firstDelivery(log, 60_300, (l) => !l.includes(p0!.address));
    expect(out.size).toBe(2);
    for (const t of out.values()) {
      expect(t).toBeGreaterThan(75_000);
      expect(t).toBeLessThanOrEqual(80_300);
    }
  });

  it('keeps consumers on their old list while the push switch is off, then sends the current list', () => {
    const { world, log } = makeWorld(scenario());
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.setPushSwitch(false));
    at(world, 20_000, () => world.registry.providerStopped(p0!, true));
    at(world, 30_000, () => world.registry.setPushSwitch(true));
    world.sim.run({ until: 29_999 });
    expect(registryOf(world).isKnownGone(p0!)).toBe(true);
    for (const l of listsAt(log, 29_999).values()) expect(l).toContain(p0!.address);
    world.sim.run({ until: 30_300 });
    for (const l of listsAt(log, 30_300).values()) expect(l).not.toContain(p0!.address);
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
    const { world, observer } = makeWorld(scenario({ registry: { type }, providers: [{ count: N }], consumers: [{ instances: M }] }));
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

  it('sizes an interface-level push as the envelope plus each provider URL', () => {
    const { world, observer } = makeWorld(scenario({ consumers: [{ instances: 1 }] }));
    const [p0, p1] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    const [full, one] = observer.pushes.map((p) => p.bytes);
    expect(full! - one!).toBe(p0!.url.length);
    expect(one! - p1!.url.length).toBe(new PushSizer('interface', 'nacos').envelopeBytes(SERVICE));
  });

  it('sizes a ZooKeeper interface-level child as the URL-encoded URL', () => {
    const { world, observer } = makeWorld(scenario({ registry: { type: 'zookeeper' }, consumers: [{ instances: 1 }] }));
    const [p0] = providers(world);
    at(world, 10_000, () => world.registry.providerStopped(p0!, true));
    world.sim.run({ until: 11_000 });
    const [full, one] = observer.pushes.map((p) => p.bytes);
    expect(full! - one!).toBe(encodeURIComponent(p0!.url).length + 4);
  });

  it.each(['nacos', 'zookeeper'] as const)('%s: application-level registration pushes fewer bytes than interface-level', (type) => {
    const bytes = (registration: 'interface' | 'application') => {
      const { world, observer } = makeWorld(
        scenario({ registry: { type, registration }, providers: [{ count: 5, params: { owner: 'team-users', env: 'prod' } }] }),
      );
      providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
      world.sim.run({ until: 60_000 });
      return { pushes: observer.pushes.length, bytes: observer.pushBytes };
    };
    const iface = bytes('interface');
    const app = bytes('application');
    expect(app.pushes).toBe(iface.pushes);
    expect(app.bytes).toBeLessThan(iface.bytes);
  });

  it('fetches each metadata revision once per consumer instance (application level)', () => {
    const { world, observer } = makeWorld(
      scenario({
        registry: { registration: 'application' },
        providers: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
        consumers: [{ instances: 3 }],
      }),
    );
    providers(world).forEach((p, i) => at(world, 10_000 + 5000 * i, () => restart(world, p)));
    world.sim.run({ until: 60_000 });
    // Two provider groups (different zone parameter) = two revisions, each fetched by 3 instances.
    expect(observer.counters.get('registry.metadataFetches')).toBe(6);
  });

  it('keeps the static registry: the true list at once, no pushes counted', () => {
    const { world, log, observer } = makeWorld(scenario({ registry: { type: 'static' } }));
    expect(world.registry).toBeInstanceOf(StaticRegistry);
    expect([...listsAt(log, 0).values()].every((l) => l.length === 2)).toBe(true);
    expect(observer.pushes).toEqual([]);
  });
});
