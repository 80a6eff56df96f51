import { describe, expect, it } from 'vitest';
import type { World } from '../../src/world/world.js';
import { NACOS_DELAY_ENGINE_INTERVAL_MS, NACOS_PUSH_TASK_DELAY_MS } from '../../src/world/registry-push-merge.js';
import { at, constant, makeWorld, NO_NOTIFICATION_DELAY, providers, scenario } from './registry-fixtures.js';

const INTERVAL_MS = 10_000;
const CONSUMERS = 3;

/** Restarts a live provider as the fault timeline does: a graceful stop (deregistration), then a new instance (registration). */
function restartOne(world: World): void {
  const p = providers(world).find((x) => x.state === 'up')!;
  world.registry.providerStopped(p, true);
  p.state = 'stopped';
  world.startProvider(p.group);
}

/** Pushes per consumer instance (the read at subscribe included). */
function pushesPerInstance(pushes: ReadonlyArray<{ instance: string }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pushes) out.set(p.instance, (out.get(p.instance) ?? 0) + 1);
  return out;
}

describe('push rate control (registry.pushRate)', () => {
  // Restarts at these times; each is two changes of the list (deregistration, registration) at the same instant.
  // 20 000 is exactly a window's end: it belongs to the next window.
  const RESTARTS_MS = [12_000, 15_500, 19_999, 20_000, 35_000, 36_000, 37_000, 58_000];

  it.each(['nacos', 'zookeeper'] as const)(
    '%s: each subscriber gets one push per interval in which its list changed, the read at subscribe aside',
    (type) => {
      const s = scenario({
        registry: { type, pushRate: { intervalMs: INTERVAL_MS } },
        consumers: [{ instances: CONSUMERS, dubbo: NO_NOTIFICATION_DELAY }],
      });
      const { world, observer } = makeWorld(s);
      for (const t of RESTARTS_MS) at(world, t, () => restartOne(world));
      world.sim.run({ until: 100_000 });
      // The running estate's registrations at t = 0 are the list each instance reads when it subscribes, not a
      // change of window 0 (which would push that list again at 10 s).
      const windows = new Set(RESTARTS_MS.map((t) => Math.floor(t / INTERVAL_MS)));
      const perInstance = pushesPerInstance(observer.pushes);
      expect(perInstance.size).toBe(CONSUMERS);
      for (const n of perInstance.values()) expect(n).toBe(1 + windows.size);
    },
  );

  it('sends each merged push at its window`s end, as the list is then', () => {
    const s = scenario({
      registry: { type: 'nacos', pushRate: { intervalMs: INTERVAL_MS }, pushLag: constant(0) },
      consumers: [{ instances: CONSUMERS, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    for (const t of RESTARTS_MS) at(world, t, () => restartOne(world));
    const live = new Map<number, string[]>();
    // What the registry lists just before a window's end is what that window's push carries (at 20 000 a
    // restart at the same instant may come first: the push carries the list as it is when it leaves).
    for (const end of [30_000, 40_000, 60_000]) at(world, end - 0.001, () => live.set(end, providers(world).filter((p) => p.state === 'up').map((p) => p.address)));
    world.sim.run({ until: 100_000 });
    const times = [...new Set(log.filter((d) => d.tMs > 0).map((d) => d.tMs))];
    expect(times).toEqual([20_000, 30_000, 40_000, 60_000]);
    for (const [end, addresses] of live) {
      const delivered = log.filter((d) => d.tMs === end);
      expect(delivered).toHaveLength(CONSUMERS);
      for (const d of delivered) expect([...d.addresses].sort()).toEqual([...addresses].sort());
    }
  });

  it('counts the pushes merged away per subscriber (registry.pushesMerged)', () => {
    const s = scenario({
      registry: { type: 'zookeeper', pushRate: { intervalMs: INTERVAL_MS } },
      consumers: [{ instances: CONSUMERS, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, observer } = makeWorld(s);
    for (const t of RESTARTS_MS) at(world, t, () => restartOne(world));
    let before = 0;
    // Window 0's registrations may come before the consumers subscribe: count from window 1 on.
    at(world, INTERVAL_MS - 1, () => (before = observer.counters.get('registry.pushesMerged') ?? 0));
    world.sim.run({ until: 100_000 });
    const changesPerWindow = new Map<number, number>();
    for (const t of RESTARTS_MS) changesPerWindow.set(Math.floor(t / INTERVAL_MS), (changesPerWindow.get(Math.floor(t / INTERVAL_MS)) ?? 0) + 2);
    const merged = [...changesPerWindow.values()].reduce((sum, c) => sum + (c - 1) * CONSUMERS, 0);
    expect(merged).toBeGreaterThan(0);
    expect((observer.counters.get('registry.pushesMerged') ?? 0) - before).toBe(merged);
  });

  it('does not delay the read at subscribe', () => {
    const s = scenario({
      registry: { type: 'nacos', pushRate: { intervalMs: INTERVAL_MS }, pushLag: constant(0) },
      consumers: [{ instances: CONSUMERS, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    world.sim.run({ until: 1 });
    const first = log.filter((d) => d.tMs === 0);
    expect(new Set(first.map((d) => d.instance)).size).toBe(CONSUMERS);
  });
});

describe('Nacos 2.x server push delay (PushDelayTaskExecuteEngine)', () => {
  const server = { servers: { zoneA: 1 } };

  it('pushes at the first engine tick 500 ms after the first change, merging the changes meanwhile', () => {
    const s = scenario({
      registry: { type: 'nacos', pushLag: constant(0), ...server },
      consumers: [{ instances: CONSUMERS, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log, observer } = makeWorld(s);
    // Two changes 300 ms apart make one push; a third 700 ms after the first makes its own.
    const first = 10_000;
    at(world, first, () => restartOne(world));
    at(world, first + 300, () => restartOne(world));
    at(world, first + 700, () => restartOne(world));
    let before = 0;
    at(world, first - 1, () => (before = observer.counters.get('registry.pushesMerged') ?? 0));
    world.sim.run({ until: 20_000 });
    const times = [...new Set(log.filter((d) => d.tMs > 1000).map((d) => d.tMs))];
    expect(times).toHaveLength(2);
    const [a, b] = times as [number, number];
    expect(a).toBeGreaterThanOrEqual(first + NACOS_PUSH_TASK_DELAY_MS);
    expect(a).toBeLessThan(first + NACOS_PUSH_TASK_DELAY_MS + NACOS_DELAY_ENGINE_INTERVAL_MS);
    // The third change came after the first push left: its own task, from its own time.
    expect(b).toBeGreaterThanOrEqual(first + 700 + NACOS_PUSH_TASK_DELAY_MS);
    expect(b).toBeLessThan(first + 700 + NACOS_PUSH_TASK_DELAY_MS + NACOS_DELAY_ENGINE_INTERVAL_MS);
    // Both on the engine's ticks.
    expect((b - a) % NACOS_DELAY_ENGINE_INTERVAL_MS).toBeCloseTo(0, 6);
    // Each restart is two changes: five of the six changes joined a waiting push.
    expect((observer.counters.get('registry.pushesMerged') ?? 0) - before).toBe((6 - 2) * CONSUMERS);
  });

  it('is the idealised immediate push without a server model (servers, capacity unset)', () => {
    const s = scenario({ registry: { type: 'nacos', pushLag: constant(0) }, consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }] });
    const { world, log } = makeWorld(s);
    at(world, 10_000, () => restartOne(world));
    world.sim.run({ until: 20_000 });
    expect(log.filter((d) => d.tMs > 1000).map((d) => d.tMs)).toEqual([10_000, 10_000]);
  });

  it('gives way to pushRate when both apply', () => {
    const s = scenario({
      registry: { type: 'nacos', pushLag: constant(0), pushRate: { intervalMs: INTERVAL_MS }, ...server },
      consumers: [{ instances: 1, dubbo: NO_NOTIFICATION_DELAY }],
    });
    const { world, log } = makeWorld(s);
    at(world, 12_000, () => restartOne(world));
    world.sim.run({ until: 30_000 });
    // The restart at 12 s goes out at its window's end; nothing at 10 s (the registrations at time 0 are no change).
    expect([...new Set(log.filter((d) => d.tMs > 0).map((d) => d.tMs))]).toEqual([20_000]);
  });
});
