import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { Network } from '../../src/world/network.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { REQUEST_OVERHEAD_BYTES, RegistryServers, registryNodeNames } from '../../src/world/registry-servers.js';
import { NO_NOTIFICATION_DELAY, at, constant, makeWorld, providers, registrySpec, scenario, type Delivery } from './registry-fixtures.js';

const grid = { fromMs: 0, bucketMs: 1000, buckets: 10 };

function nodes(servers: Record<string, number>, zones = ['zoneA', 'zoneB', 'zoneC']) {
  const network = new Network({ sameZone: constant(0.2), default: constant(2), pairs: [] }, zones, new RandomStreams(1).stream('network'));
  const set = new RegistryServers(registrySpec({ servers }), { network, rng: new RandomStreams(1).stream('registry/servers'), grid });
  return { set, network };
}

describe('registry nodes', () => {
  it('are named <zone>-<i> in the order of `servers`, one <zone>-1 or registry-1 without it, prefixed with several registries', () => {
    expect(registryNodeNames({ servers: { zoneA: 2, zoneB: 1 } }).map((n) => n.name)).toEqual(['zoneA-1', 'zoneA-2', 'zoneB-1']);
    expect(registryNodeNames({ zone: 'zoneB' })).toEqual([{ name: 'zoneB-1', zone: 'zoneB' }]);
    expect(registryNodeNames({})).toEqual([{ name: 'registry-1', zone: undefined }]);
    expect(registryNodeNames({ servers: { zoneC: 1 } }, 'east/').map((n) => n.name)).toEqual(['east/zoneC-1']);
  });

  it('spread clients evenly: each of three nodes gets a third of 3,000 clients within three binomial standard deviations', () => {
    const { set } = nodes({ zoneA: 1, zoneB: 1, zoneC: 1 });
    const count = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const node = set.connect(set.clientOf({}, 'zoneA'))!;
      count.set(node.name, (count.get(node.name) ?? 0) + 1);
    }
    const sd = Math.sqrt(3000 * (1 / 3) * (2 / 3));
    expect([...count.keys()].sort()).toEqual(['zoneA-1', 'zoneB-1', 'zoneC-1']);
    for (const n of count.values()) expect(Math.abs(n - 1000)).toBeLessThan(3 * sd);
  });

  it('keep a client on its node, and move it to the next node of its own order once it loses it', () => {
    const { set } = nodes({ zoneA: 2, zoneB: 1 });
    const client = set.clientOf({}, 'zoneA');
    const first = set.connect(client)!;
    expect(set.connect(client)).toBe(first);
    first.up = false;
    const second = set.connect(client)!;
    expect(second).toBe(set.nodes[client.order[1]!]);
    first.up = true;
    // Reconnected elsewhere, it stays there.
    expect(set.connect(client)).toBe(second);
  });

  it('give each client a shuffled order of every node, one array per distinct order (a few nodes), its own past eight', () => {
    // The reference: Collections.shuffle's Fisher-Yates from the end, with the same draws from the same stream.
    const rng = new RandomStreams(1).stream('registry/servers');
    const expected = (n: number) => {
      const order = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = rng.nextInt(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      return order;
    };
    const { set } = nodes({ zoneA: 3, zoneB: 2 });
    const orders = Array.from({ length: 2000 }, () => set.clientOf({}, 'zoneA').order);
    for (const order of orders) expect([...order]).toEqual(expected(5));
    const distinct = new Set(orders);
    const byDigits = new Set(orders.map((o) => o.join('')));
    // 2,000 draws of 120 equally likely orders: every one appears (each is missed with probability (119/120)^2000 < 1e-7).
    expect(byDigits.size).toBe(120);
    expect(distinct.size).toBe(120);
    const many = nodes({ zoneA: 5, zoneB: 4 }).set;
    const a = many.clientOf({}, 'zoneA').order;
    const b = many.clientOf({}, 'zoneA').order;
    expect(a).not.toBe(b);
    expect([...a].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('are out of reach of a client whose zone is partitioned from theirs', () => {
    const { set, network } = nodes({ zoneB: 1, zoneC: 1 });
    network.partition('zoneA', 'zoneB');
    for (let i = 0; i < 50; i++) expect(set.connect(set.clientOf({}, 'zoneA'))!.zone).toBe('zoneC');
    network.partition('zoneA', 'zoneC');
    expect(set.connect(set.clientOf({}, 'zoneA'))).toBeNull();
    expect(set.anyReachable('zoneA')).toBe(false);
    expect(set.anyReachable('zoneB')).toBe(true);
  });
});

describe('a registry node under Poisson pushes of one size', () => {
  /**
   * An M/D/1 queue: the mean wait of a push on the out NIC is Pollaczek–Khinchine's ρ·S / (2(1 − ρ)). As in
   * test/engine/fifo-link.test.ts, batch means bound the standard error to 1% of it, so 3% is a 3-sigma miss.
   */
  it.each([
    { rho: 0.5, arrivals: 1_000_000 },
    { rho: 0.9, arrivals: 8_000_000 },
  ])('delays a push by the M/D/1 mean within 3% at utilization $rho', ({ rho, arrivals }) => {
    const bandwidth = 125_000_000; // 1 Gbit/s
    const bytes = 50_000;
    const serviceMs = (bytes / bandwidth) * 1000;
    const network = new Network({ sameZone: constant(0.2), default: constant(2), pairs: [] }, ['zoneA'], new RandomStreams(1).stream('network'));
    const set = new RegistryServers(registrySpec({ capacity: { bandwidthBytesPerSec: bandwidth }, zone: 'zoneA' }), {
      network,
      rng: new RandomStreams(1).stream('registry/servers'),
      grid: { fromMs: 0, bucketMs: 1000, buckets: 0 },
    });
    const clients = Array.from({ length: 100 }, () => set.clientOf({}, 'zoneA'));
    const rng = new RandomStreams(41).stream('md1');
    const expected = (rho * serviceMs) / (2 * (1 - rho));
    const batches = 100;
    const perBatch = arrivals / batches;
    const means: number[] = [];
    let t = 0;
    for (let b = 0; b < batches; b++) {
      let wait = 0;
      for (let i = 0; i < perBatch; i++) {
        t += -Math.log(1 - rng.next()) * (serviceMs / rho);
        wait += set.push(clients[i % 100]!, t, bytes)! - t - serviceMs;
      }
      means.push(wait / perBatch);
    }
    const mean = means.reduce((s, m) => s + m, 0) / batches;
    const sd = Math.sqrt(means.reduce((s, m) => s + (m - mean) ** 2, 0) / (batches - 1));
    expect(sd / Math.sqrt(batches) / expected).toBeLessThan(0.01);
    expect(Math.abs(mean - expected) / expected).toBeLessThan(0.03);
  });
});

describe('pushes through a registry node', () => {
  // 1 MB/s per NIC direction, a constant 50 ms network push lag, ten consumer instances that see every push.
  const BANDWIDTH = 1_000_000;
  const LAG_MS = 50;
  const world = (servers: boolean) =>
    makeWorld(
      scenario({
        registry: {
          pushLag: constant(LAG_MS),
          // Nacos's own push delay off (pushTaskDelay 0): the node's queues alone.
          ...(servers ? { servers: { zoneA: 1 }, capacity: { bandwidthBytesPerSec: BANDWIDTH }, pushDelayMs: 0 } : {}),
        },
        consumers: [{ instances: 10, dubbo: NO_NOTIFICATION_DELAY }],
      }),
    );

  it('leave the node one after the other: the k-th push of a change arrives after k lists on the out NIC, plus the network lag', () => {
    const { world: w, log, observer } = world(true);
    const [p0] = providers(w);
    const stopMs = 12_345;
    at(w, stopMs, () => w.registry.providerStopped(p0!, true));
    w.sim.run({ until: 20_000 });
    const after = log.filter((d) => d.tMs > stopMs);
    expect(after).toHaveLength(10);
    const listBytes = observer.pushes.at(-1)!.bytes;
    // The deregistration is read off the in NIC, processed, answered (its reply first on the out NIC), then pushed.
    const processedMs = stopMs + ((REQUEST_OVERHEAD_BYTES + p0!.exports[0]!.url.length) / BANDWIDTH) * 1000;
    const expected = after.map((_, k) => processedMs + ((REQUEST_OVERHEAD_BYTES + (k + 1) * listBytes) / BANDWIDTH) * 1000 + LAG_MS);
    const arrivals = after.map((d) => d.tMs).sort((a, b) => a - b);
    arrivals.forEach((t, k) => expect(t).toBeCloseTo(expected[k]!, 6));
  });

  it('cost nothing on a node without capacity: every consumer gets the same lists at the same times as with no server', () => {
    const run = (servers: boolean): Delivery[] => {
      const t = makeWorld(
        scenario({
          registry: { pushLag: constant(LAG_MS), ...(servers ? { servers: { zoneA: 1 }, pushDelayMs: 0 } : {}) },
          providers: [{ count: 4 }],
          consumers: [{ instances: 10, dubbo: NO_NOTIFICATION_DELAY }],
        }),
      );
      const ps = providers(t.world);
      at(t.world, 12_000, () => t.world.registry.providerStopped(ps[0]!, true));
      at(t.world, 13_000, () => {
        ps[1]!.state = 'crashed';
        t.world.registry.providerStopped(ps[1]!, false);
      });
      t.world.sim.run({ until: 120_000 });
      expect((t.world.registry as DiscoveryRegistry).servers === null).toBe(!servers);
      return t.log;
    };
    const plain = run(false);
    expect(plain.length).toBeGreaterThan(30);
    expect(run(true)).toEqual(plain);
  });
});

describe('registry nodes going down (setServerZoneDown)', () => {
  const world = (type: 'zookeeper' | 'nacos', servers: Record<string, number>) => {
    const t = makeWorld(
      scenario({
        registry: { type, servers, pushLag: constant(LAG_MS) },
        providers: [{ count: 3 }],
        consumers: [{ instances: 6, dubbo: NO_NOTIFICATION_DELAY }],
      }),
    );
    return { ...t, registry: t.world.registry as DiscoveryRegistry };
  };
  const LAG_MS = 50;

  it('freeze a ZooKeeper ensemble that loses its majority: a crash is not detected until the nodes are back', () => {
    const { world: w, log, registry } = world('zookeeper', { zoneA: 2, zoneB: 1 });
    const [p0] = providers(w);
    at(w, 10_000, () => registry.setServerZoneDown('zoneA', true));
    at(w, 20_000.5, () => {
      p0!.state = 'crashed';
      w.registry.providerStopped(p0!, false);
    });
    w.sim.run({ until: 120_000 });
    expect(registry.down).toBe(true);
    expect(registry.isKnownGone(p0!)).toBe(false);
    // Back at 120 s: every session gets a full timeout from then (a new leader), so the crash shows 40-42 s later.
    at(w, 120_000, () => registry.setServerZoneDown('zoneA', false));
    w.sim.run({ until: 161_999 });
    expect(registry.isKnownGone(p0!)).toBe(false);
    w.sim.run({ until: 162_000 });
    expect(registry.isKnownGone(p0!)).toBe(true);
    w.sim.run({ until: 170_000 });
    expect([...new Set(log.filter((d) => d.tMs > 162_000).map((d) => d.instance))]).toHaveLength(6);
  });

  it('keep a ZooKeeper ensemble that keeps its majority: the clients of the lost node move and changes still reach them', () => {
    const { world: w, log, registry } = world('zookeeper', { zoneA: 1, zoneB: 1, zoneC: 1 });
    const [p0] = providers(w);
    at(w, 10_000, () => registry.setServerZoneDown('zoneC', true));
    at(w, 20_000, () => w.registry.providerStopped(p0!, true));
    w.sim.run({ until: 25_000 });
    expect(registry.down).toBe(false);
    const after = log.filter((d) => d.tMs > 20_000);
    expect(after.map((d) => d.instance).sort()).toEqual([...new Set(log.map((d) => d.instance))].sort());
    expect(after.every((d) => !d.addresses.includes(p0!.address))).toBe(true);
    const zoneC = registry.servers!.nodes.find((n) => n.zone === 'zoneC')!;
    const before = zoneC.out.figures().items;
    w.sim.run({ until: 60_000 });
    expect(zoneC.out.figures().items).toBe(before);
  });

  it('leave a Nacos cluster serving from the nodes that are up (each node serves its own clients)', () => {
    const { world: w, log, registry } = world('nacos', { zoneA: 1, zoneB: 1 });
    const [p0] = providers(w);
    at(w, 10_000, () => registry.setServerZoneDown('zoneA', true));
    at(w, 20_000, () => w.registry.providerStopped(p0!, true));
    w.sim.run({ until: 25_000 });
    expect(registry.down).toBe(false);
    const after = log.filter((d) => d.tMs > 20_000);
    expect(new Set(after.map((d) => d.instance)).size).toBe(6);
  });
});

describe('Nacos 2.x pushes to a busy connection', () => {
  // 200 providers make a list of about 47 KB; a 100 kB/s NIC sends it in about 0.5 s.
  const BANDWIDTH = 100_000;
  const world = (nacosClient: '1.x' | '2.x') =>
    makeWorld(
      scenario({
        registry: { type: 'nacos', pushLag: constant(10), capacity: { bandwidthBytesPerSec: BANDWIDTH }, pushDelayMs: 0 },
        providers: [{ count: 200 }],
        consumers: [{ instances: 2, dubbo: { ...NO_NOTIFICATION_DELAY, nacosClient } }],
      }),
    );

  it('fail while more than 32 KB wait for the consumer, and the consumer gets the list of then 1 s later (2.x)', () => {
    const { world: w, log, observer } = world('2.x');
    const listBytes = observer.pushes[0]!.bytes;
    expect(listBytes).toBeGreaterThan(40_000);
    const [p0, p1] = providers(w);
    at(w, 11_000, () => w.registry.providerStopped(p0!, true));
    // 50 ms later both consumers still have more than 32 KB of the first push unsent (no beat in between:
    // the providers' 400-byte beats, every 5 s, would hold the deregistration on the in NIC).
    at(w, 11_050, () => w.registry.providerStopped(p1!, true));
    w.sim.run({ until: 20_000 });
    const after = log.filter((d) => d.tMs > 11_000);
    for (const instance of new Set(after.map((d) => d.instance))) {
      const lists = after.filter((d) => d.instance === instance);
      expect(lists.map((d) => d.addresses.length)).toEqual([199, 198]);
      // The retry starts 1 s after the refused push.
      expect(lists[1]!.tMs).toBeGreaterThan(12_050 + 10);
    }
    expect(observer.counters.get('registry.pushBusy')).toBe(2);
  });

  it('queue behind each other for a 1.x consumer (UDP, no flow control): each change is its own push', () => {
    const { world: w, log, observer } = world('1.x');
    const [p0, p1] = providers(w);
    at(w, 11_000, () => w.registry.providerStopped(p0!, true));
    at(w, 11_050, () => w.registry.providerStopped(p1!, true));
    w.sim.run({ until: 20_000 });
    const after = log.filter((d) => d.tMs > 11_000);
    for (const instance of new Set(after.map((d) => d.instance))) {
      expect(after.filter((d) => d.instance === instance).map((d) => d.addresses.length)).toEqual([199, 198]);
    }
    expect(observer.counters.get('registry.pushBusy')).toBeUndefined();
    // FIFO: the four pushes leave one after the other, the last about 4 lists after the first change.
    expect(Math.max(...after.map((d) => d.tMs))).toBeLessThan(11_000 + 4 * ((listBytes(observer) + 2000) / BANDWIDTH) * 1000 + 100);
  });
});

function listBytes(observer: { pushes: Array<{ bytes: number }> }): number {
  return observer.pushes[0]!.bytes;
}
