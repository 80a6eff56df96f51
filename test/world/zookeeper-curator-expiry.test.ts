import { describe, expect, it } from 'vitest';
import type { ProviderInstance } from '../../src/world/provider.js';
import type { ZookeeperRegistry } from '../../src/world/registry-zookeeper.js';
import { zookeeperExpiryMs, zookeeperPingIntervalMs } from '../../src/world/registry-zookeeper.js';
import { failbackRetryAtMs } from '../../src/world/registry-push-delivery.js';
import { NO_NOTIFICATION_DELAY, at, listsAt, makeWorld, providers, scenario, startStaggered } from './registry-fixtures.js';

const SESSION_MS = 40_000;
const READ_TIMEOUT_MS = (SESSION_MS * 2) / 3;
const BANDWIDTH = 1_000_000; // bytes per second, each NIC direction of the one node
const FLOOD_AT_MS = 31_000;
const FLOOD_END_MS = 121_000;

/**
 * One ZooKeeper node (so the connect timeout is the whole session, 40 s, and a new handle's 60 s) with
 * 1 MB/s NICs and no request limit: requests are processed as they arrive, so pings and connect requests
 * touch sessions at once, but their answers leave on the out NIC. Two providers start at 0 s, ten more at
 * 1.25 s, 2.25 s, ... 10.25 s (pings out of step). At 31 s a push of 90 MB fills the out NIC until 121 s:
 * every answer sent meanwhile arrives after that.
 */
function saturated() {
  const t = makeWorld(
    scenario({
      registry: { type: 'zookeeper', sessionTimeoutMs: SESSION_MS, capacity: { bandwidthBytesPerSec: BANDWIDTH } },
      consumers: [{ instances: 2, dubbo: NO_NOTIFICATION_DELAY }],
    }),
  );
  const registry = t.world.registry as ZookeeperRegistry;
  const late = startStaggered(t.world, 10);
  at(t.world, FLOOD_AT_MS, () => {
    const servers = registry.servers!;
    servers.push(servers.clientOf({}, 'zoneA'), FLOOD_AT_MS, ((FLOOD_END_MS - FLOOD_AT_MS) / 1000) * BANDWIDTH);
  });
  return { ...t, registry, late };
}

describe("Curator's own session expiry", () => {
  it('gives a session up a whole session after the loss; the server expires it after its last touch; the new session re-registers from the retry timer', () => {
    const { world, registry, late, observer, log } = saturated();
    world.sim.run({ until: FLOOD_AT_MS - 1 });
    const everyone = [...providers(world).slice(0, 2).map((p) => ({ p, startMs: 0 })), ...late];
    expect(everyone.length).toBe(12);

    // The rules, per provider. Its last answer heard is its last ping's before the flood (answers take
    // microseconds on an idle NIC); nothing after it → connection loss a read timeout later (`lossMs`).
    // The first reconnect comes after a [0, 1 s) sleep; its connect request is processed at once, which
    // re-attaches (touches) the session, and its answer waits until the NIC drains: with one node the
    // connect timeout is a whole session, so that attempt is still waiting when Curator, a session after
    // the loss, injects the expiration. The old session's last touch is in [loss, loss + 1 s); the
    // server expires it in the tickTime bucket after that plus a session.
    const pingMs = zookeeperPingIntervalMs(SESSION_MS);
    const rules = everyone.map(({ p, startMs }) => {
      const lastPingMs = startMs + pingMs * Math.floor((FLOOD_AT_MS - startMs) / pingMs);
      const lossMs = lastPingMs + READ_TIMEOUT_MS;
      return { p, lossMs, abandonMs: lossMs + SESSION_MS, expiry: [zookeeperExpiryMs(lossMs, SESSION_MS), zookeeperExpiryMs(lossMs + 1000, SESSION_MS)] as const };
    });
    // The construction holds: each first attempt's answer comes after Curator gives up, and the new
    // handle's connect (60 s timeout) is answered when the NIC drains.
    for (const r of rules) {
      expect(FLOOD_END_MS).toBeGreaterThan(r.lossMs + 1000 + SESSION_MS);
      expect(FLOOD_END_MS).toBeLessThan(r.abandonMs + 60_000);
    }

    // Walk the expiry ticks (every 2 s): when does each record go?
    const goneAt = new Map<ProviderInstance, number>();
    for (let t = 32_000; t <= FLOOD_END_MS; t += 2000) {
      world.sim.run({ until: t + 1 });
      for (const { p } of rules) if (!goneAt.has(p) && registry.entryOf(p)?.registered !== true) goneAt.set(p, t);
      // Curator has given up exactly the sessions whose abandonment time has passed, and the server still held each then.
      const abandoned = rules.filter((r) => r.abandonMs <= t + 1).length;
      expect(observer.counters.get('registry.sessionAbandoned') ?? 0).toBe(abandoned);
    }
    for (const r of rules) {
      const gone = goneAt.get(r.p);
      expect(gone).toBeDefined();
      expect(gone!).toBeGreaterThanOrEqual(r.expiry[0]);
      expect(gone!).toBeLessThanOrEqual(r.expiry[1]);
      // "Even if the server still holds the old one": Curator gave up before the server expired it.
      expect(r.abandonMs).toBeLessThan(gone!);
    }
    const node = registry.servers!.nodes[0]!;
    expect(node.sessionsExpired).toBe(12);
    expect(observer.counters.get('registry.connectionLoss')).toBe(12);

    // The new sessions connect when the NIC drains (their answers are the first after the flood); Dubbo's
    // recover() re-registers from the retry timer, 5 to 10 s later, on its 5 s grid.
    const registerMs = failbackRetryAtMs(FLOOD_END_MS);
    world.sim.run({ until: registerMs - 1 });
    expect(observer.counters.get('registry.sessionRenewed')).toBe(12);
    expect(observer.counters.get('registry.sessionReattached')).toBeUndefined();
    for (const { p } of rules) expect(registry.entryOf(p)?.registered).toBe(false);
    // The consumers were pushed the shrinking lists once the NIC let the pushes out: nothing left (no empty protection).
    const before = listsAt(log, registerMs - 1);
    expect(before.size).toBe(2);
    for (const addresses of before.values()) expect(addresses).toEqual([]);

    // Twelve registrations of under 1 KB each cross the 1 MB/s in NIC in under 12 ms.
    for (const { p } of rules) expect(p.exports[0]!.url.length).toBeLessThan(900);
    world.sim.run({ until: registerMs + 12 });
    for (const { p } of rules) expect(registry.entryOf(p)?.registered).toBe(true);
    expect(node.registrationsRetried).toBe(12);
    // A push (its lag at most 300 ms) brings every provider back.
    world.sim.run({ until: registerMs + 1000 });
    const after = listsAt(log, registerMs + 1000);
    for (const addresses of after.values()) expect([...addresses].sort()).toEqual(rules.map((r) => r.p.address).sort());
  });
});

describe("Curator's own session expiry across an election", () => {
  it('gives up sessions the frozen ensemble still holds; the new sessions re-register them before the new leader expires the old ones', () => {
    const DOWN_AT_MS = 30_000;
    const UP_AT_MS = 100_000;
    const t = makeWorld(scenario({ registry: { type: 'zookeeper', sessionTimeoutMs: SESSION_MS, capacity: { bandwidthBytesPerSec: BANDWIDTH } } }));
    const registry = t.world.registry as ZookeeperRegistry;
    at(t.world, DOWN_AT_MS, () => registry.setDown(true));
    at(t.world, UP_AT_MS, () => registry.setDown(false));
    const both = providers(t.world);
    // Both providers ping at 0, 10, 20 s; nothing is answered from 30 s: loss a read timeout after 20 s,
    // Curator gives up a session later, before the ensemble is back.
    const pingMs = zookeeperPingIntervalMs(SESSION_MS);
    const abandonMs = pingMs * Math.floor(DOWN_AT_MS / pingMs) + READ_TIMEOUT_MS + SESSION_MS;
    expect(abandonMs).toBeLessThan(UP_AT_MS);
    t.world.sim.run({ until: UP_AT_MS - 1 });
    expect(t.observer.counters.get('registry.sessionAbandoned')).toBe(2);
    // The new leader gives every session a full timeout from its start: the old nodes would go at expiryMs(100 s).
    // The new handles connect within 2 s of it (attempts every 1 to 2 s while frozen), and recover()
    // re-registers 5 to 10 s after that, before then.
    const recoverMs = failbackRetryAtMs(UP_AT_MS + 2000);
    expect(failbackRetryAtMs(UP_AT_MS)).toBe(recoverMs);
    expect(recoverMs).toBeLessThan(zookeeperExpiryMs(UP_AT_MS, SESSION_MS));
    t.world.sim.run({ until: recoverMs + 100 });
    expect(t.observer.counters.get('registry.sessionRenewed')).toBe(2);
    expect(t.observer.counters.get('registry.sessionReattached')).toBeUndefined();
    const node = registry.servers!.nodes[0]!;
    expect(node.registrationsRetried).toBe(2);
    // Re-created under the new sessions, the nodes outlive the old sessions' expiry, and nothing was ever unlisted.
    t.world.sim.run({ until: zookeeperExpiryMs(UP_AT_MS, SESSION_MS) + 20_000 });
    expect(node.sessionsExpired).toBe(0);
    for (const p of both) {
      expect(registry.isKnownGone(p)).toBe(false);
      expect(registry.entryOf(p)?.registered).toBe(true);
    }
  });
});
