/**
 * A 3.3 consumer's MigrationInvoker over a real registry (issue 39 item 4): with 2.7 providers at
 * interface level and 3.3 providers registering both levels, an APPLICATION_FIRST consumer calls the
 * 3.3 providers only while any is listed at application level (3.3 MigrationInvoker.java:499-518 with
 * DefaultMigrationAddressComparator's threshold 0), a FORCE_INTERFACE (or 2.7) consumer calls everyone.
 */
import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { DubboProfile, MigrationStep } from '../../src/model/dubbo-profile.js';
import type { ConsumerGroupSpec } from '../../src/model/types.js';
import type { DubboConsumerStack } from '../../src/stack/consumer-stack.js';
import { MigrationInvoker } from '../../src/dubbo/registry/migration-invoker.js';
import { at, callOnce, makeWorld, providers, scenario, SERVICE } from './registry-fixtures.js';

const TYPES = ['nacos', 'zookeeper'] as const;

const v33 = (over: Partial<DubboProfile>): DubboProfile => ({ ...defaultProfile('3.3'), ...over });

/** 2.7 providers in zoneA, 3.3 providers (register-mode all) in zoneB; one consumer group of `dubbo`. */
function estate(type: (typeof TYPES)[number], consumer: Partial<ConsumerGroupSpec>) {
  return makeWorld(
    scenario({
      registry: { type, registration: undefined },
      providers: [
        { zone: 'zoneA', name: 'users-27', dubbo: defaultProfile('2.7'), count: 3 },
        { zone: 'zoneB', name: 'users-33', dubbo: v33({ registerMode: 'all' }), count: 2 },
      ],
      consumers: [{ instances: 1, ...consumer }],
    }),
    { stack: 'dubbo' },
  );
}

const step = (migrationStep: MigrationStep) => ({ dubbo: v33({ migrationStep }) });

/** The provider groups `n` calls of the world's consumer went to. */
function groupsCalled(world: ReturnType<typeof estate>['world'], observer: ReturnType<typeof estate>['observer'], n = 60): Set<string> {
  const before = observer.attempts.length;
  const consumer = world.consumerGroups[0]!.instances[0]!;
  for (let i = 0; i < n; i++) expect(callOnce(world, consumer)).toEqual({ outcome: 'ok' });
  return new Set(observer.attempts.slice(before).map((a) => a.providerGroup));
}

describe.each(TYPES)('migration (%s)', (type) => {
  it('APPLICATION_FIRST: every call goes to the 3.3 providers, the only ones listed at application level', () => {
    const { world, observer } = estate(type, step('APPLICATION_FIRST'));
    const ref = (world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack).references.get(SERVICE)!;
    expect(ref.invoker).toBeInstanceOf(MigrationInvoker);
    expect(ref.directories).toHaveLength(2);
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-33']));
  });

  it.each<[string, Partial<ConsumerGroupSpec>]>([
    ['FORCE_INTERFACE', step('FORCE_INTERFACE')],
    ['a 2.7 consumer', { dubbo: defaultProfile('2.7') }],
    ['migration.step=FORCE_INTERFACE on the reference', { ...step('APPLICATION_FIRST'), reference: { [SERVICE]: { parameters: { 'migration.step': 'FORCE_INTERFACE' }, methods: {} } } }],
  ])('%s: calls go to every provider, at interface level', (_name, consumer) => {
    const { world, observer } = estate(type, consumer);
    const ref = (world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack).references.get(SERVICE)!;
    expect(ref.invoker).not.toBeInstanceOf(MigrationInvoker);
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-27', 'users-33']));
  });

  it('FORCE_APPLICATION: only the 3.3 providers exist for the consumer', () => {
    const { world, observer } = estate(type, step('FORCE_APPLICATION'));
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-33']));
  });

  it('APPLICATION_FIRST: back to interface level (everyone left) when the last 3.3 provider leaves, and to application level when one registers again', () => {
    const { world, observer } = estate(type, step('APPLICATION_FIRST'));
    const newer = providers(world).filter((p) => p.group.spec.name === 'users-33');
    for (const p of newer) at(world, 1000, () => world.registry.providerStopped(p, true));
    world.sim.run({ until: 2000 });
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-27']));
    const group = world.providerGroups.find((g) => g.spec.name === 'users-33')!;
    at(world, world.sim.now + 1000, () => world.startProvider(group));
    world.sim.run({ until: world.sim.now + 2000 });
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-33']));
  });

  it('an explicit registration: interface keeps every group at interface level, whatever the profiles', () => {
    const { world, observer } = makeWorld(
      scenario({
        registry: { type, registration: 'interface' },
        providers: [
          { zone: 'zoneA', name: 'users-27', dubbo: defaultProfile('2.7') },
          { zone: 'zoneB', name: 'users-33', dubbo: v33({ registerMode: 'all' }) },
        ],
        consumers: [{ instances: 1, ...step('APPLICATION_FIRST') }],
      }),
      { stack: 'dubbo' },
    );
    expect(groupsCalled(world, observer)).toEqual(new Set(['users-27', 'users-33']));
    expect(observer.pushes.every((p) => p.level === 'interface')).toBe(true);
  });
});
