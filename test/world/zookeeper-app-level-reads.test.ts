/**
 * ZooKeeper at application level with the registry as a server (3.3 ZookeeperServiceDiscoveryChangeWatcher
 * on a Curator ServiceCache): a change sends each subscription a watch event; the consumer's ServiceCache
 * thread reads the whole list for each event (`cacheChanged` → `getInstances`, the push counted), one read at
 * a time, and the RegistryNotifier then throttles the notifications, not the reads.
 */
import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { RegistrySpec } from '../../src/model/types.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { DEFAULT_DELAY_EXECUTE_TIMES } from '../../src/world/registry-notifier.js';
import { REQUEST_OVERHEAD_BYTES } from '../../src/world/registry-servers.js';
import { at, constant, makeWorld, providers, scenario } from './registry-fixtures.js';

const V33 = defaultProfile('3.3');
const DELAY = V33.delayNotificationMs;
const APPLICATION = 'user-provider';
/** A watch event: 32 bytes and the path /services/<application> (research-40 rule 13). */
const WATCH_EVENT = 32 + `/services/${APPLICATION}`.length;
const CONSUMERS = 3;
const PROVIDERS = 14;
const CHANGES = 13;

/**
 * `CONSUMERS` 3.3 consumer instances, `PROVIDERS` providers, a fixed 100 ms push lag, one registry node, and
 * `CHANGES` graceful stops 100 ms apart from 10 s (one change of the application's list each), run to 60 s.
 * Each read (push counted) is logged with its time and list size.
 */
function run(registry: Partial<RegistrySpec>) {
  const w = makeWorld(
    scenario({
      registry: { type: 'zookeeper', registration: 'application', pushLag: constant(100), servers: { zoneA: 1 }, ...registry },
      providers: [{ count: PROVIDERS }],
      consumers: [{ instances: CONSUMERS, dubbo: V33 }],
    }),
  );
  const reads: Array<{ instance: string; tMs: number; bytes: number }> = [];
  const push = w.observer.push.bind(w.observer);
  w.observer.push = (instance, group, bytes, level) => {
    reads.push({ instance, tMs: w.world.sim.now, bytes });
    push(instance, group, bytes, level);
  };
  providers(w.world)
    .slice(0, CHANGES)
    .forEach((p, i) => at(w.world, 10_000 + 100 * i, () => w.world.registry.providerStopped(p, true)));
  w.world.sim.run({ until: 60_000 });
  return { ...w, reads, node: (w.world.registry as DiscoveryRegistry).servers!.nodes[0]!.figures() };
}

describe('ZooKeeper application level through registry servers (3.3 ServiceCache)', () => {
  it('reads the whole list once per change, and notifies as the RegistryNotifier allows: 11 at once, then one 5 s after the last', () => {
    const { log, reads, node } = run({});
    const instances = [...new Set(log.map((d) => d.instance))];
    expect(instances).toHaveLength(CONSUMERS);
    // Without capacity nothing queues: each event arrives 100 ms after its change and its read is answered then.
    const arrivals = Array.from({ length: CHANGES }, (_, i) => 10_100 + 100 * i);
    for (const id of instances) {
      // Reads after `subscribe`'s: one per change (a persistent watch merges nothing).
      expect(reads.filter((r) => r.instance === id).map((r) => r.tMs)).toEqual(arrivals);
      // Notifications: `DEFAULT_DELAY_EXECUTE_TIMES + 1` at once, the rest merged into one at lastExecute + delay.
      const notified = log.filter((d) => d.instance === id);
      const immediate = arrivals.slice(0, DEFAULT_DELAY_EXECUTE_TIMES + 1);
      expect(notified.map((d) => d.tMs)).toEqual([0, ...immediate, immediate.at(-1)! + DELAY]);
      // Each read finds the list of its time, not of its change: the read at 10.1 s + k·100 ms comes after the
      // stop of that instant, k + 2 stops in. The deferred notification carries the last read's list.
      const readList = (k: number) => PROVIDERS - Math.min(k + 2, CHANGES);
      const sizes = notified.map((d) => d.addresses.length);
      expect(sizes).toEqual([PROVIDERS, ...immediate.map((_, k) => readList(k)), readList(CHANGES - 1)]);
    }
    // The node's requests: each read, and the providers' registrations and deregistrations (pings besides).
    const readBytes = reads.reduce((s, r) => s + r.bytes, 0);
    expect(node.requestsServed).toBeGreaterThanOrEqual(reads.length + PROVIDERS + CHANGES);
    // It sent each read's list and one watch event per change and subscription (and small replies besides).
    expect(node.out.work).toBeGreaterThanOrEqual(readBytes + CONSUMERS * CHANGES * WATCH_EVENT);
    expect(node.out.items).toBeGreaterThanOrEqual(reads.length + CONSUMERS * CHANGES);
    expect(node.in.work).toBeGreaterThanOrEqual(reads.length * (REQUEST_OVERHEAD_BYTES + APPLICATION.length));
  });

  it('reads one list at a time per consumer: events that arrive during a read wait for it, then each reads the list of its time', () => {
    // 5 requests/s: a read waits 200 ms or more for the node, so the 100 ms changes pile up behind it.
    const { log, reads } = run({ capacity: { requestsPerSec: 5 } });
    for (const id of new Set(log.map((d) => d.instance))) {
      const mine = reads.filter((r) => r.instance === id);
      // Still one read per change: nothing merges events that wait.
      expect(mine).toHaveLength(CHANGES);
      // One at a time, and the other consumers' reads in between: three requests of 200 ms apart.
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.tMs - mine[i - 1]!.tMs).toBeGreaterThanOrEqual(3 * 200 - 1e-9);
      // The reads made after the stops all read the final list.
      expect(mine.at(-1)!.bytes).toBe(reads.at(-1)!.bytes);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.bytes).toBeLessThanOrEqual(mine[i - 1]!.bytes);
      // The last notification (deferred or not) carries the final list.
      expect(log.filter((d) => d.instance === id).at(-1)!.addresses).toHaveLength(PROVIDERS - CHANGES);
    }
  });
});
