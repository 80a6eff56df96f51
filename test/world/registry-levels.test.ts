/**
 * Discovery levels in one registry (issue 39 item 4): a provider registers at the levels its group's
 * Dubbo profile says (3.3 `register-mode`: `interface`, `instance` = application level, `all` = both;
 * ConfigValidationUtils.java:277-297, CommonConstants DEFAULT_REGISTER_MODE = "all"), unless the
 * registry's explicit `registration` names one level for every group. Each level keeps its own
 * records, lists and pushes; a subscription names its level.
 */
import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { DubboProfile, RegisterMode } from '../../src/model/dubbo-profile.js';
import type { DiscoveryLevel } from '../../src/world/discovery-levels.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import type { ProviderExport } from '../../src/world/provider.js';
import { at, crash, makeWorld, providers, scenario, SERVICE } from './registry-fixtures.js';

const TYPES = ['nacos', 'zookeeper'] as const;

const profile = (registerMode: RegisterMode, version: '2.7' | '3.3' = '3.3'): DubboProfile => ({ ...defaultProfile(version), registerMode });

/** A 2.7 group (interface level) in zoneA and a 3.3 group of `mode` in zoneB, 2 processes each. */
function mixed(type: (typeof TYPES)[number], mode: RegisterMode, registration?: 'interface' | 'application') {
  return makeWorld(
    scenario({
      registry: { type, registration },
      providers: [
        { zone: 'zoneA', name: 'users-27', dubbo: defaultProfile('2.7') },
        { zone: 'zoneB', name: 'users-33', dubbo: profile(mode) },
      ],
      consumers: [{ instances: 1 }],
    }),
  );
}

/** A subscriber of its own (the world's consumer instances subscribe at interface level on their own). */
const WATCHER = { id: 'watcher', zone: 'zoneA' };

/** Subscribes a listener of `WATCHER` at `level`; returns the lists it gets. */
function watch(world: ReturnType<typeof makeWorld>['world'], level: DiscoveryLevel): Array<readonly ProviderExport[]> {
  const got: Array<readonly ProviderExport[]> = [];
  world.registry.subscribe(WATCHER, SERVICE, (list) => got.push(list), { level });
  return got;
}

const watcherPushes = (observer: ReturnType<typeof makeWorld>['observer']) => observer.pushes.filter((p) => p.instance === WATCHER.id);

const groupsOf = (list: readonly ProviderExport[]) => [...new Set(list.map((p) => p.group.spec.name))];

describe.each(TYPES)('discovery levels (%s)', (type) => {
  it.each<[RegisterMode, string[], string[]]>([
    ['all', ['users-27', 'users-33'], ['users-33']],
    ['interface', ['users-27', 'users-33'], []],
    ['instance', ['users-27'], ['users-33']],
  ])('register-mode %s: the interface-level and application-level lists', (mode, iface, app) => {
    const { world } = mixed(type, mode);
    const registry = world.registry as DiscoveryRegistry;
    expect(groupsOf(registry.currentList(SERVICE, 'interface'))).toEqual(iface);
    expect(groupsOf(registry.currentList(SERVICE, 'application'))).toEqual(app);
  });

  it.each<['interface' | 'application', string[], string[]]>([
    ['interface', ['users-27', 'users-33'], []],
    ['application', [], ['users-27', 'users-33']],
  ])('an explicit registration: %s wins over every group`s register-mode', (registration, iface, app) => {
    const { world } = mixed(type, 'all', registration);
    const registry = world.registry as DiscoveryRegistry;
    expect(groupsOf(registry.currentList(SERVICE, 'interface'))).toEqual(iface);
    expect(groupsOf(registry.currentList(SERVICE, 'application'))).toEqual(app);
  });

  it('keeps one record per level for a process registered at both, each found by its level', () => {
    const { world } = mixed(type, 'all');
    const registry = world.registry as DiscoveryRegistry;
    const p = providers(world).find((x) => x.group.spec.name === 'users-33')!;
    expect(registry.entryOf(p, 'interface')?.service).not.toBe(registry.entryOf(p, 'application')?.service);
    expect(registry.entryOf(p, 'application')?.service).toBe(p.group.spec.application);
    const old = providers(world).find((x) => x.group.spec.name === 'users-27')!;
    expect(registry.entryOf(old, 'application')).toBeUndefined();
  });

  it('pushes a change of a process registered at both levels once per level to a consumer watching both (SPEC 4 pushes)', () => {
    const { world, observer } = mixed(type, 'all');
    const iface = watch(world, 'interface');
    const app = watch(world, 'application');
    // The subscriptions' first reads: one push per level.
    expect(watcherPushes(observer).map((p) => p.level)).toEqual(['interface', 'application']);
    const p = providers(world).find((x) => x.group.spec.name === 'users-33')!;
    at(world, 1000, () => world.registry.providerStopped(p, true));
    world.sim.run({ until: 5000 });
    expect(watcherPushes(observer).map((x) => x.level).sort()).toEqual(['application', 'application', 'interface', 'interface']);
    expect(iface.at(-1)).toHaveLength(3);
    expect(app.at(-1)).toHaveLength(1);
    expect(world.registry.isKnownGone(p.exports[0]!)).toBe(true);
  });

  it('pushes a change of an interface-only (2.7) process at interface level only', () => {
    const { world, observer } = mixed(type, 'all');
    watch(world, 'interface');
    watch(world, 'application');
    const before = watcherPushes(observer).length;
    const p = providers(world).find((x) => x.group.spec.name === 'users-27')!;
    at(world, 1000, () => world.registry.providerStopped(p, true));
    world.sim.run({ until: 5000 });
    expect(watcherPushes(observer).slice(before).map((x) => x.level)).toEqual(['interface']);
  });

  it('drops both records of a crashed process at the same detection (one client, one liveness clock)', () => {
    const { world } = mixed(type, 'all');
    const registry = world.registry as DiscoveryRegistry;
    const p = providers(world).find((x) => x.group.spec.name === 'users-33')!;
    at(world, 1000, () => crash(world, p));
    let goneAt: Record<string, number> = {};
    for (let t = 2000; t <= 120_000; t += 500) {
      at(world, t, () => {
        for (const level of ['interface', 'application'] as const) {
          if (goneAt[level] === undefined && registry.entryOf(p, level)?.gone) goneAt = { ...goneAt, [level]: t };
        }
      });
    }
    world.sim.run({ until: 120_000 });
    expect(goneAt.interface).toBeDefined();
    expect(goneAt.application).toBe(goneAt.interface);
  });
});
