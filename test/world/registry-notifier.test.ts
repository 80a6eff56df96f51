/**
 * The consumer side's notification throttling (Dubbo 3's `delay-notification`, 5000 ms by default;
 * none in 2.7): RegistryNotifier behind Nacos at interface level and ZooKeeper at application level,
 * ZookeeperRegistryNotifier's sleep on the ZooKeeper event thread at interface level, and no
 * notifier behind Nacos at application level. Each test names the Java it follows.
 */
import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { ConsumerGroupSpec, FaultSpec, RegistrySpec } from '../../src/model/types.js';
import { scheduleFaults } from '../../src/world/faults.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { DEFAULT_DELAY_EXECUTE_TIMES, RegistryNotifier } from '../../src/world/registry-notifier.js';
import type { ProviderInstance } from '../../src/world/provider.js';
import type { World } from '../../src/world/world.js';
import { at, constant, makeWorld, providers, scenario, SERVICE, type Delivery } from './registry-fixtures.js';

const DELAY = defaultProfile('3.3').delayNotificationMs;
const V33 = defaultProfile('3.3');
const V27 = defaultProfile('2.7');

/** One consumer instance of `profile`, `count` providers in zoneA, a fixed 100 ms push lag. */
function world(registry: Partial<RegistrySpec>, profile: ConsumerGroupSpec['dubbo'], count: number, consumers: Partial<ConsumerGroupSpec>[] = [{}]) {
  return makeWorld(
    scenario({
      registry: { pushLag: constant(100), ...registry },
      providers: [{ count }],
      consumers: consumers.map((c) => ({ instances: 1, dubbo: profile, ...c })),
    }),
  );
}

/** Stops provider `i` gracefully at `10 s + 100 ms · i` (one deregistration, one change, each). */
function stopEvery100ms(w: World, n: number): ProviderInstance[] {
  const ps = providers(w).slice(0, n);
  ps.forEach((p, i) => at(w, 10_000 + 100 * i, () => w.registry.providerStopped(p, true)));
  return ps;
}

const times = (log: Delivery[]) => log.map((d) => d.tMs);

describe('RegistryNotifier (3.3 RegistryNotifier.java)', () => {
  it('runs 11 notifications at once, defers the 12th to lastExecute + delay, supersedes the 13th (:86-94, :128)', () => {
    const n = new RegistryNotifier<string>(DELAY);
    // `executeTime` counts to 10, the 11th call sets shouldDelay and is still submitted at once (:90-93).
    for (let i = 0; i <= DEFAULT_DELAY_EXECUTE_TIMES; i++) expect(n.event(1000 + 100 * i, `l${i}`)).toBe('now');
    expect(n.lastExecuteMs).toBe(2000);
    expect(n.event(2100, 'l11')).toBe('deferred');
    expect(n.pendingAtMs).toBe(2000 + DELAY);
    expect(n.event(2200, 'l12')).toBe('superseded');
    expect(n.pendingAtMs).toBe(2000 + DELAY);
    // The task runs the latest list and becomes the last execution (:129-130).
    expect(n.takePending()).toBe('l12');
    expect(n.lastExecuteMs).toBe(2000 + DELAY);
    // Within the delay of that execution: deferred again; past it: at once.
    expect(n.event(2000 + DELAY + 10, 'l13')).toBe('deferred');
    expect(n.takePending()).toBe('l13');
    expect(n.event(2000 + 3 * DELAY, 'l14')).toBe('now');
  });

  it('Nacos interface level (3.3): 11 pushes refresh at once, the 12th at lastExecute + 5 s with the latest list (NacosRegistry.java:785-799)', () => {
    const { world: w, log, observer } = world({ type: 'nacos' }, V33, 14);
    const stopped = stopEvery100ms(w, 13);
    w.sim.run({ until: 60_000 });
    // The read at subscribe (t = 0) bypasses the notifier and is not one of the 11 (NacosRegistry.java:272-276).
    const arrivals = stopped.map((_, i) => 10_100 + 100 * i);
    expect(times(log)).toEqual([0, ...arrivals.slice(0, 11), arrivals[10]! + DELAY]);
    // The deferred refresh carries the list after all 13 deregistrations: the 13th superseded the 12th.
    expect(log.at(-1)!.addresses).toHaveLength(1);
    expect(observer.counters.get('registry.notificationsDeferred')).toBe(1);
    expect(observer.counters.get('registry.notificationsSuperseded')).toBe(1);
    // Every push still reached the consumer instance (and is counted).
    expect(observer.pushes).toHaveLength(1 + 13);
  });

  it('Nacos interface level (2.7, no RegistryNotifier): every push refreshes the list on arrival (2.7 NacosRegistry.java:515-530)', () => {
    const { world: w, log, observer } = world({ type: 'nacos' }, V27, 14);
    stopEvery100ms(w, 13);
    w.sim.run({ until: 60_000 });
    expect(times(log)).toEqual([0, ...Array.from({ length: 13 }, (_, i) => 10_100 + 100 * i)]);
    expect(observer.counters.get('registry.notificationsDeferred')).toBeUndefined();
  });

  it('Nacos application level (3.3): no notifier, every push refreshes (NacosServiceDiscovery.java:213-219)', () => {
    const { world: w, log } = world({ type: 'nacos', registration: 'application' }, V33, 14);
    stopEvery100ms(w, 13);
    w.sim.run({ until: 60_000 });
    expect(times(log)).toEqual([0, ...Array.from({ length: 13 }, (_, i) => 10_100 + 100 * i)]);
  });

  it('ZooKeeper application level (3.3): RegistryNotifier too (ZookeeperServiceDiscoveryChangeWatcher.java:67-80)', () => {
    const { world: w, log } = world({ type: 'zookeeper', registration: 'application' }, V33, 14);
    stopEvery100ms(w, 13);
    w.sim.run({ until: 60_000 });
    const arrivals = Array.from({ length: 13 }, (_, i) => 10_100 + 100 * i);
    expect(times(log)).toEqual([0, ...arrivals.slice(0, 11), arrivals[10]! + DELAY]);
    expect(log.at(-1)!.addresses).toHaveLength(1);
  });
});

describe('ZookeeperRegistryNotifier (3.3 ZookeeperRegistry.java:441-474)', () => {
  it('reads the list when the watch event is processed, sleeps until 5 s after the last notification, one event per set watch', () => {
    const { world: w, log, observer } = world({ type: 'zookeeper', registration: 'interface' }, V33, 6);
    const ps = providers(w);
    const addresses = (stoppedUpTo: number) => ps.slice(stoppedUpTo + 1).map((p) => p.address);
    // Stops at 10, 11, 12 and 13 s; each watch event arrives 100 ms after the change that fired it.
    ps.slice(0, 4).forEach((p, i) => at(w, 10_000 + 1000 * i, () => w.registry.providerStopped(p, true)));
    w.sim.run({ until: 60_000 });
    expect(log.map((d) => [d.tMs, d.addresses])).toEqual([
      [0, addresses(-1)],
      // The first watch-driven notification runs at once (lastExecuteTime starts at 0).
      [10_100, addresses(0)],
      // The 11 s event reads at 11.1 s, then sleeps until 10.1 + 5 s: the 12 s stop is not in its list.
      [10_100 + DELAY, addresses(1)],
      // The 12 s stop fired the watch set again at 11.1 s; its event waits for the sleeping thread, reads
      // at 15.1 s (the 13 s stop too: it found the watch unset) and sleeps until 20.1 s.
      [10_100 + 2 * DELAY, addresses(3)],
    ]);
    // Reads of the children: at subscribe and per processed event (three), not per change (four).
    expect(observer.pushes).toHaveLength(4);
  });

  it('holds up the consumer process`s other subscriptions while it sleeps (one ZooKeeper event thread)', () => {
    const OTHER = 'com.example.OrderService';
    const s = scenario({
      registry: { type: 'zookeeper', registration: 'interface', pushLag: constant(100) },
      providers: [
        { name: 'users', count: 3 },
        { name: 'orders', service: OTHER, services: [OTHER], count: 2 },
      ],
      consumers: [{ instances: 1, dubbo: V33, calls: { [`${SERVICE}.getUserById`]: 1, [`${OTHER}.getUserById`]: 1 } }],
    });
    s.services[OTHER] = s.services[SERVICE]!;
    const { world: w, log } = makeWorld(s);
    const [u0, u1] = providers(w);
    const o0 = providers(w).find((p) => p.group.spec.name === 'orders')!;
    at(w, 10_000, () => w.registry.providerStopped(u0!, true));
    at(w, 11_000, () => w.registry.providerStopped(u1!, true));
    at(w, 12_000, () => w.registry.providerStopped(o0, true));
    w.sim.run({ until: 60_000 });
    const ordersAddresses = new Set(providers(w).filter((p) => p.group === o0.group).map((p) => p.address));
    const isOrders = (d: Delivery) => d.addresses.every((x) => ordersAddresses.has(x));
    const users = log.filter((d) => d.tMs > 0 && !isOrders(d));
    const orders = log.filter((d) => d.tMs > 0 && isOrders(d));
    // The users notifier: 10.1 s at once, then the 11 s stop read at 11.1 s and slept on until 15.1 s.
    expect(users.map((d) => d.tMs)).toEqual([10_100, 10_100 + DELAY]);
    // The orders event arrives at 12.1 s, while that sleep holds the event thread: it is processed, and
    // notified (its first, so at once), when the sleep ends; alone, it would have been at 12.1 s.
    expect(orders.map((d) => d.tMs)).toEqual([10_100 + DELAY]);
    expect(orders[0]!.addresses).not.toContain(o0.address);
  });

  it.each([
    ['3.3', V33],
    ['2.7', V27],
  ] as const)('a rolling restart under %s: list updates per consumer at least 5 s apart under 3.3, every change under 2.7', (version, profile) => {
    const N = 6;
    const s = scenario({
      registry: { type: 'zookeeper', registration: 'interface' },
      providers: [{ count: N }],
      consumers: [{ instances: 3, dubbo: profile }],
    });
    const fault: FaultSpec = { atMs: 10_000, action: { kind: 'rollingRestart', service: SERVICE, batch: 1, intervalMs: 1000 }, label: 'faults[0]' };
    const { world: w, log } = makeWorld({ ...s, faults: [fault] });
    scheduleFaults(w);
    w.sim.run({ until: 120_000 });
    const registry = w.registry as DiscoveryRegistry;
    const finalList = registry.currentList(SERVICE).map((p) => p.address).sort();
    for (const id of new Set(log.map((d) => d.instance))) {
      const updates = log.filter((d) => d.instance === id && d.tMs > 0);
      const gaps = updates.slice(1).map((d, i) => d.tMs - updates[i]!.tMs);
      if (version === '3.3') {
        // ZookeeperRegistry.java:463-471: each notification at least `delay` after the previous one.
        for (const g of gaps) expect(g).toBeGreaterThanOrEqual(DELAY);
        // The restart's 12 changes in 6 s end in 3 notifications at most (10 s, 15 s, 20 s and up).
        expect(updates.length).toBeLessThanOrEqual(3);
      } else {
        // 2.7 ZookeeperRegistry.java:344-350 notifies at once: each change its own push, 1 s apart or less.
        expect(updates).toHaveLength(2 * N);
        expect(Math.min(...gaps)).toBeLessThan(1000);
      }
      expect([...updates.at(-1)!.addresses].sort()).toEqual(finalList);
    }
  });
});
