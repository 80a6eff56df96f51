import { describe, expect, it } from 'vitest';
import { at, callOnce, crash, makeWorld, providers, scenario } from './registry-fixtures.js';

// Every provider crashes at 10 s; Nacos pushes them out as unhealthy by 30.3 s, leaving an empty list.

function allCrashed(emptyProtection: boolean, type: 'nacos' | 'zookeeper' = 'nacos') {
  const t = makeWorld(scenario({ registry: { type, emptyProtection }, consumers: [{ instances: 1 }] }), { stack: 'dubbo' });
  for (const p of providers(t.world)) at(t.world, 10_000.5, () => crash(t.world, p));
  return { ...t, consumer: t.world.consumerGroups[0]!.instances[0]! };
}

describe('empty pushes (dubbo-reference 4.2)', () => {
  it('calls the providers normally before anything fails', () => {
    const { world, consumer } = allCrashed(false);
    world.sim.run({ until: 5000 });
    expect(callOnce(world, consumer)).toEqual({ outcome: 'ok' });
  });

  it.each(['nacos', 'zookeeper'] as const)(
    '%s without empty protection: the empty push forbids the directory and calls fail with code 4',
    (type) => {
      const { world, consumer } = allCrashed(false, type);
      world.sim.run({ until: 70_000 });
      expect(callOnce(world, consumer)).toEqual({ outcome: 'forbidden', cause: 'registry:forbidden' });
    },
  );

  it('with empty protection the consumer keeps its old list and calls the gone providers (stale calls)', () => {
    const { world, consumer, observer } = allCrashed(true);
    world.sim.run({ until: 70_000 });
    const before = observer.attempts.length;
    const r = callOnce(world, consumer);
    // The first attempt is refused; connectivity validation then sets the dead invokers aside, so the
    // retry finds none (code 6). Never the forbidden variant.
    expect(r.outcome).not.toBe('forbidden');
    expect(['network', 'noProvider']).toContain(r.outcome);
    const attempts = observer.attempts.slice(before);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((a) => a.stale)).toBe(true);
  });

  it('counts attempts as stale only once the registry knows the provider is gone', () => {
    const { world, consumer, observer } = allCrashed(true);
    world.sim.run({ until: 12_000 });
    const before = observer.attempts.length;
    callOnce(world, consumer);
    expect(observer.attempts.slice(before).every((a) => !a.stale)).toBe(true);
  });
});
