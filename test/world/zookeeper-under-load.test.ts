import { describe, expect, it } from 'vitest';
import type { ProviderInstance } from '../../src/world/provider.js';
import type { ZookeeperRegistry } from '../../src/world/registry-zookeeper.js';
import { zookeeperExpiryMs, zookeeperPingIntervalMs } from '../../src/world/registry-zookeeper.js';
import { failbackRetryAtMs, juteRefuses } from '../../src/world/registry-push-delivery.js';
import { NO_NOTIFICATION_DELAY, at, listsAt, makeWorld, providers, scenario, startStaggered } from './registry-fixtures.js';

const SESSION_MS = 40_000;
const RATE = 1000; // requests per second on the one node
const FLOOD_AT_MS = 31_000;
const FLOOD = 36_050; // requests: the pipeline is busy until 67.05 s

/**
 * One ZooKeeper node that serves 1,000 requests/s. Two providers start at 0 s, ten more at 1.25 s,
 * 2.25 s, ... 10.25 s (their pings, every 10 s, are out of step). At 31 s a flood of requests fills the
 * request pipeline until 67.05 s: every ping and every connect request sent meanwhile is processed
 * after it, and its answer comes back after it (so every client also hits its read timeout and reconnects).
 */
function flooded() {
  const t = makeWorld(scenario({ registry: { type: 'zookeeper', sessionTimeoutMs: SESSION_MS, capacity: { requestsPerSec: RATE } } }));
  const registry = t.world.registry as ZookeeperRegistry;
  const late = startStaggered(t.world, 10);
  at(t.world, FLOOD_AT_MS, () => {
    const servers = registry.servers!;
    const flood = servers.clientOf({}, 'zoneA');
    for (let i = 0; i < FLOOD; i++) servers.request(flood, FLOOD_AT_MS, 20);
  });
  return { ...t, registry, late };
}

describe('ZooKeeper under load', () => {
  it('expires exactly the sessions whose last touch before the flood is more than a session (bucketed) before it ends', () => {
    const { world, registry, late, observer } = flooded();
    const floodEndMs = FLOOD_AT_MS + (FLOOD / RATE) * 1000;
    world.sim.run({ until: FLOOD_AT_MS - 1 });
    // ZooKeeper's rule: a session expires in the tickTime bucket after its last touch + the session
    // timeout; the first touch after the flood starts is processed once the flood is through.
    const pingMs = zookeeperPingIntervalMs(SESSION_MS);
    const lastTouch = (startMs: number) => startMs + pingMs * Math.floor((FLOOD_AT_MS - startMs) / pingMs);
    const everyone = [...providers(world).slice(0, 2).map((p) => ({ p, startMs: 0 })), ...late];
    const expected = everyone.filter(({ startMs }) => zookeeperExpiryMs(lastTouch(startMs), SESSION_MS) < floodEndMs).map(({ p }) => p.address);
    // The derivation splits the estate: some expire, some survive.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(everyone.length);

    world.sim.run({ until: floodEndMs - 1 });
    // Every client lost its connection waiting for answers (read timeout = 2/3 of the session).
    expect(observer.counters.get('registry.connectionLoss')).toBe(everyone.length);
    const gone = everyone.filter(({ p }) => registry.isKnownGone(p)).map(({ p }) => p.address);
    expect(gone.sort()).toEqual([...expected].sort());
    expect(observer.counters.get('registry.sessionExpired')).toBe(expected.length);
    expect(registry.servers!.nodes[0]!.sessionsExpired).toBe(expected.length);

    // After the flood: the survivors re-attach their sessions, the expired ones get new sessions and
    // Dubbo re-registers them from its retry timer, 5 to 10 s after they reconnected.
    world.sim.run({ until: floodEndMs + 1000 });
    expect(observer.counters.get('registry.sessionReattached')).toBe(everyone.length - expected.length);
    expect(observer.counters.get('registry.sessionRenewed')).toBe(expected.length);
    for (const { p } of everyone) expect(registry.entryOf(p)?.registered).toBe(!expected.includes(p.address));
    world.sim.run({ until: failbackRetryAtMs(floodEndMs + 1000) + 100 });
    for (const { p } of everyone) expect(registry.entryOf(p)?.registered).toBe(true);
    expect(registry.servers!.nodes[0]!.registrationsRetried).toBe(expected.length);
  });
});

describe('jute.maxbuffer', () => {
  it("defaults to each client's limit: over 0xfffff bytes of frame for 3.3 (ZooKeeper 3.7), 4 MiB or more for 2.7 (3.4.13)", () => {
    // A reply's bytes include the frame's 4-byte length.
    expect(juteRefuses(0xfffff + 4, { version: '3.3' }, undefined)).toBe(false);
    expect(juteRefuses(0xfffff + 5, { version: '3.3' }, undefined)).toBe(true);
    expect(juteRefuses(4 * 1024 * 1024 + 3, { version: '2.7' }, undefined)).toBe(false);
    expect(juteRefuses(4 * 1024 * 1024 + 4, { version: '2.7' }, undefined)).toBe(true);
    expect(juteRefuses(1004, { version: '3.3' }, 1000)).toBe(false);
    expect(juteRefuses(1005, { version: '3.3' }, 1000)).toBe(true);
  });

  it.each([
    ['a 3.3 consumer (watch event, then its read)', {}],
    ['a consumer without a notification delay (each change its read)', { dubbo: NO_NOTIFICATION_DELAY }],
  ])('refuses a list one byte over it for %s: the consumer keeps its last list and reads again from the retry timer', (_label, consumer) => {
    // The two providers' list, as the first read carries it, sets the limit: its frame fits exactly.
    const probe = makeWorld(scenario({ registry: { type: 'zookeeper' }, consumers: [{ instances: 3, ...consumer }] }));
    const listBytes = probe.observer.pushes[0]!.bytes;
    const t = makeWorld(scenario({ registry: { type: 'zookeeper', juteMaxBufferBytes: listBytes - 4 }, consumers: [{ instances: 3, ...consumer }] }));
    const group = t.world.providerGroups[0]!;
    const original = providers(t.world).map((p) => p.address).sort();
    let third: ProviderInstance | undefined;
    at(t.world, 10_000, () => (third = t.world.startProvider(group)));
    at(t.world, 30_000, () => t.world.registry.providerStopped(third!, true));
    t.world.sim.run({ until: 29_000 });
    expect(t.observer.counters.get('registry.juteMaxBufferExceeded')).toBeGreaterThanOrEqual(3);
    expect(t.log.every((d) => d.addresses.length <= 2)).toBe(true);
    // Refused reads are retried on the FailbackRegistry grid: none delivered the three-provider list.
    t.world.sim.run({ until: 60_000 });
    expect(t.log.every((d) => !d.addresses.includes(third!.address))).toBe(true);
    for (const addresses of listsAt(t.log, 60_000).values()) expect([...addresses].sort()).toEqual(original);
    expect(listsAt(t.log, 60_000).size).toBe(3);
  });
});
