/**
 * Pushes held off the agenda (`RegistryModel.holdPushes`): a discovery registry keeps a push to a
 * consumer instance in its subscription and delivers it when the instance next reads its directory,
 * or when the push counts are read, with the effect it would have had when it arrived. The reference
 * is the same run with every push on the agenda (`holdPushes: false`): the summaries must be the same
 * byte for byte, and the held run must actually have held pushes.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import type { Scenario } from '../../src/model/types.js';
import { URGENT } from '../../src/engine/simulation.js';
import type { World } from '../../src/world/world.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import { at, constant, makeWorld, providers, scenario, SERVICE } from './registry-fixtures.js';
import { PUSH_SCENARIOS, shippedScenario } from '../helpers/push-scenarios.js';

/** The summary JSON with pushes held, the same with every push on the agenda, and the pushes held. */
function bothWays(scenario: Scenario): { held: string; queued: string; pushesHeld: number } {
  const run = runScenario(scenario, { version: 'test' });
  const queued = runScenario(scenario, { version: 'test', holdPushes: false });
  expect(queued.stats.pushesHeld).toBe(0);
  return { held: JSON.stringify(run.summary), queued: JSON.stringify(queued.summary), pushesHeld: run.stats.pushesHeld };
}

// Two zones, Nacos, a push lag, a rolling restart under load: every restart is pushed to every instance.
const BASE = `
name: held-pushes
seed: 7
duration: 12s
warmup: 1s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
network:
  rtt:
    same-zone: 0.3ms
    default: 3ms
registry:
  type: nacos
  pushLag: { dist: uniform, min: 20ms, max: 300ms }
services:
  com.example.UserService:
    methods:
      getUser: { serviceTime: { dist: lognormal, p50: 5ms, p99: 60ms } }
providers:
  - { name: users-a, service: com.example.UserService, zone: zoneA, count: 6, threads: 20 }
  - { name: users-b, service: com.example.UserService, zone: zoneB, count: 6, threads: 20 }
consumers:
  - application: web
    zone: zoneA
    instances: 40
    rate: 800/s
    calls: { com.example.UserService.getUser: 1 }
    reference:
      com.example.UserService: { timeout: 200ms, retries: 2 }
  - application: web
    zone: zoneB
    instances: 40
    rate: 800/s
    calls: { com.example.UserService.getUser: 1 }
    reference:
      com.example.UserService: { timeout: 200ms, retries: 2 }
faults:
  - { at: 2s, rollingRestart: { service: com.example.UserService, batch: 2, interval: 0.5s } }
`;

const variant = (overrides: string[]) => parseScenario(BASE, 'held-pushes.yaml', overrides);

describe('held pushes: the same summary as every push on the agenda', () => {
  it.each<[string, string[]]>([
    ['a rolling restart', []],
    // Pushes on their way when the zone is cut off from the registry are lost at arrival.
    ['a registry partition during the restart', ['faults[1]={ at: 4s, for: 3s, registryPartition: zoneB }']],
    // Instances that read seldom: many do not read while the zone is cut off, or until well after.
    ['a short registry partition, little traffic', ['consumers[1].rate=8/s', 'faults[1]={ at: 4.1s, for: 0.4s, registryPartition: zoneB }']],
    ['the push switch off, then the registry down', ['faults[1]={ at: 3s, for: 2s, pushSwitch: off }', 'faults[2]={ at: 6s, for: 1s, registryDown: true }']],
    // A fixed lag: pushes of one change arrive at one instant, with the timeouts of calls sent at a push.
    ['a fixed push lag', ['registry.pushLag=100ms', 'consumers[0].reference["com.example.UserService"].timeout=100ms']],
    // Dubbo 2.7 (no delay-notification): ZooKeeper pushes are held like Nacos ones.
    ['ZooKeeper and crashes (2.7)', ['dubbo=2.7', 'registry.type=zookeeper', 'faults[1]={ at: 5s, crash: { zone: zoneB, service: com.example.UserService, count: 3 } }']],
    ['application-level registration', ['registry.registration=application']],
    // Both levels: a MigrationInvoker reads its application-level directory on every call (issue 39).
    ['both levels, consumers at APPLICATION_FIRST', ['dubbo={ registerMode: all, migrationStep: APPLICATION_FIRST }']],
    ['both levels, users-b at interface level only', ['dubbo={ registerMode: all, migrationStep: APPLICATION_FIRST }', "providers[1].dubbo={ version: '2.7', registerMode: interface, migrationStep: FORCE_INTERFACE }"]],
    // A new metadata revision during the run: application-level lists wait for its MetadataInfo (issue 39 item 11).
    [
      'application level, a new revision scaled out',
      ['registry.registration=application', 'providers[2]={ name: users-c, service: com.example.UserService, zone: zoneB, count: 0, params: { v: 2 } }', 'faults[1]={ at: 4s, scale: { group: users-c, count: 3 } }'],
    ],
    [
      'application level, a new revision that does not answer its metadata fetches',
      [
        'registry.registration=application',
        'providers[2]={ name: users-c, service: com.example.UserService, zone: zoneB, count: 0, params: { v: 2 } }',
        'faults[1]={ at: 4s, scale: { group: users-c, count: 3 } }',
        'faults[2]={ at: 4s, zoneDown: { group: users-c } }',
      ],
    ],
    // Dubbo 3.3 ZooKeeper application level: RegistryNotifier defers and supersedes held lists.
    ['ZooKeeper application level (3.3)', ['registry.type=zookeeper', 'registry.registration=application']],
    // Both sides at once: a deferred notification whose list brings a revision to fetch (issue 39).
    [
      'ZooKeeper application level, a new revision scaled out (3.3)',
      [
        'registry.type=zookeeper',
        'registry.registration=application',
        'providers[2]={ name: users-c, service: com.example.UserService, zone: zoneB, count: 0, params: { v: 2 } }',
        'faults[1]={ at: 4s, scale: { group: users-c, count: 3 } }',
      ],
    ],
    ['ZooKeeper, both levels (3.3 defaults)', ['registry.type=zookeeper']],
    // A change every 20 ms on long lags: a hundred pushes on their way to each instance, few reads.
    [
      'pushes that pile up',
      [
        'registry.pushLag={ dist: uniform, min: 20ms, max: 2s }',
        'consumers[0].rate=20/s',
        'faults[0]={ at: 2s, rollingRestart: { service: com.example.UserService, batch: 1, interval: 0.02s } }',
      ],
    ],
    ['an empty:// push (the whole service stopped)', ['faults[1]={ at: 3s, for: 2s, zoneDown: zoneA, mode: crash }', 'faults[2]={ at: 3s, for: 2s, zoneDown: zoneB, mode: crash }']],
    // The registry as a server: pushes wait on the nodes' NICs (Nacos 2.x consumers: busy connections retry).
    ['registry servers, Nacos at 200 kB/s', ["registry.servers={ zoneA: 1, zoneB: 1 }", 'registry.capacity={ bandwidth: 200kB/s, requests: 2000/s }']],
    ['registry servers, Nacos 1.x consumers (FIFO)', ["registry.servers={ zoneA: 1, zoneB: 1 }", 'registry.capacity={ bandwidth: 200kB/s }', 'dubbo={ nacosClient: 1.x }']],
    ['registry servers, ZooKeeper (2.7) at 200 kB/s', ['dubbo=2.7', 'registry.type=zookeeper', "registry.servers={ zoneA: 2, zoneB: 1 }", 'registry.capacity={ bandwidth: 200kB/s, requests: 500/s }']],
    // 3.3 application level through the nodes (watch events read by the ServiceCache, never held) beside 2.7
    // interface-level consumers, whose pushes are held.
    [
      'registry servers, ZooKeeper application level (3.3) beside 2.7 consumers',
      ['registry.type=zookeeper', 'registry.servers={ zoneA: 2, zoneB: 1 }', 'registry.capacity={ bandwidth: 200kB/s, requests: 500/s }', "consumers[1].dubbo='2.7'"],
    ],
  ])('%s', (_name, overrides) => {
    const { held, queued, pushesHeld } = bothWays(variant(overrides));
    // Hundreds held: every variant holds several pushes per consumer instance (80 of them).
    expect(pushesHeld).toBeGreaterThan(400);
    expect(held).toBe(queued);
  });

  it('holds nothing with ZooKeeper at interface level under 3.3: a watch event reads the list when the event thread gets to it', () => {
    const { held, queued, pushesHeld } = bothWays(
      // Interface level only: 3.3's default registers and subscribes at application level too, whose pushes are held.
      variant([
        'registry.type=zookeeper',
        'dubbo={ registerMode: interface, migrationStep: FORCE_INTERFACE }',
        'faults[1]={ at: 5s, crash: { zone: zoneB, service: com.example.UserService, count: 3 } }',
      ]),
    );
    expect(pushesHeld).toBe(0);
    expect(held).toBe(queued);
  });

  it('holds nothing for a registry in a zone (a network partition decides whether a push arrives)', () => {
    const { held, queued, pushesHeld } = bothWays(
      variant(['registry.zone=zoneA', 'faults[1]={ at: 4s, for: 3s, partition: [zoneA, zoneB] }']),
    );
    expect(pushesHeld).toBe(0);
    expect(held).toBe(queued);
  });

  it.each(PUSH_SCENARIOS)('shipped scenario %s', (name) => {
    const { held, queued } = bothWays(shippedScenario(name));
    expect(held).toBe(queued);
  });
});

describe('held pushes: random combinations of registry, strategy and faults (fixed seed)', () => {
  // A linear congruential generator: the same combinations on every run.
  let state = 20261203;
  const rnd = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const ref = (i: number) => `consumers[${i}].reference["com.example.UserService"]`;
  const combos = Array.from({ length: 16 }, () => {
    const lb = pick(['random', 'roundrobin', 'leastactive', 'shortestresponse', 'consistenthash', 'adaptive']);
    const cluster = pick(['failover', 'failover', 'failfast', 'forking', 'broadcast', 'failback', 'available', 'failsafe']);
    const sets = [
      `registry.type=${pick(['nacos', 'zookeeper'])}`,
      `registry.registration=${pick(['interface', 'application'])}`,
      `registry.pushLag=${pick(['100ms', '{ dist: uniform, min: 20ms, max: 2s }', '{ dist: exponential, mean: 500ms }'])}`,
      `registry.emptyProtection=${pick(['true', 'false'])}`,
      `consumers[0].rate=${pick(['20/s', '200/s', '800/s'])}`,
      `consumers[1].rate=${pick(['8/s', '400/s'])}`,
      `${ref(0)}.loadbalance=${lb}`,
      `${ref(1)}.loadbalance=${lb}`,
      `${ref(0)}.cluster=${cluster}`,
      `${ref(1)}.cluster=${cluster}`,
      `${ref(0)}.timeout=${pick(['100ms', '200ms', '1s'])}`,
      `faults[0]={ at: ${pick(['1s', '2s'])}, rollingRestart: { service: com.example.UserService, batch: ${pick([1, 2, 4])}, interval: ${pick(['0.02s', '0.2s', '0.5s'])} } }`,
      `faults[1]=${pick([
        '{ at: 3s, for: 2s, registryPartition: zoneB }',
        '{ at: 3s, for: 1s, pushSwitch: off }',
        '{ at: 4s, for: 1s, registryDown: true }',
        '{ at: 3s, for: 2s, zoneDown: zoneA, mode: crash }',
        '{ at: 3s, for: 2s, zoneDown: zoneB }',
        '{ at: 3s, crash: { zone: zoneB, service: com.example.UserService, count: 3 } }',
        '{ at: 3s, for: 2s, partition: [zoneA, zoneB] }',
        '{ at: 3s, rule: { add: { type: condition, rule: "=> zone = $zone" } } }',
        '{ at: 3s, scale: { zone: zoneA, service: com.example.UserService, count: 2 } }',
      ])}`,
    ];
    if (rnd() < 0.3) sets.push(`${ref(0)}.actives=${pick([1, 3])}`);
    if (rnd() < 0.3) sets.push(`${ref(0)}.sticky=true`);
    if (rnd() < 0.3) sets.push('routers=[{type: condition, rule: "=> zone = $zone"}]');
    return sets;
  });

  it.each(combos.map((sets, i) => [i, sets] as const))('combination %i', (_i, sets) => {
    const { held, queued, pushesHeld } = bothWays(variant([...sets]));
    // Under 3.3 a ZooKeeper interface-level push is a watch event, never held.
    const zkInterface = sets.includes('registry.type=zookeeper') && sets.includes('registry.registration=interface');
    if (zkInterface) expect(pushesHeld).toBe(0);
    else expect(pushesHeld).toBeGreaterThan(0);
    expect(held).toBe(queued);
  });
});

describe('held pushes: where a push arrives among the entries of its instant', () => {
  // One subscriber that reads its list at chosen agenda places; pushes arrive exactly 100 ms after a change.
  function setup() {
    const { world, observer } = makeWorld(scenario({ registry: { pushLag: constant(100) }, providers: [{ count: 3 }], consumers: [] }));
    const registry = world.registry as DiscoveryRegistry;
    let list: string[] = [];
    let heldAt = Infinity;
    const catchUp = registry.subscribe(
      { id: 'reader', zone: 'zoneA' },
      SERVICE,
      (providers) => {
        list = providers.map((p) => p.address);
      },
      undefined,
      (atMs) => {
        heldAt = Math.min(heldAt, atMs);
      },
    );
    // What the subscriber sees when it reads (a directory catches up before every read).
    const read = (): number => {
      if (catchUp) catchUp();
      return list.length;
    };
    registry.holdPushes(true);
    return { world, registry, observer, read, heldAt: () => heldAt };
  }

  // Each probe reads once at t = 1100, the instant the push of the change at 1000 arrives. Probes that
  // set their timers at once are placed on the agenda before the change (so before the push); those
  // that set them at 1050 are placed after it.
  it.each<[string, number, (world: World, read: () => number, done: (n: number) => void) => void]>([
    ['a timer placed before the push', 3, (world, read, done) => at(world, 1100, () => done(read()))],
    ['a timer placed after the push', 2, (world, read, done) => at(world, 1050, () => world.sim.schedule(50, () => done(read())))],
    // URGENT entries of an instant run before its timers...
    ['an URGENT entry placed after the push', 3, (world, read, done) => at(world, 1050, () => world.sim.schedule(50, () => done(read()), URGENT))],
    // ...but one added by a timer fired after the push runs after it.
    [
      'an URGENT entry added by a timer fired after the push',
      2,
      (world, read, done) => at(world, 1050, () => world.sim.schedule(50, () => world.sim.schedule(0, () => done(read()), URGENT))),
    ],
    [
      'a process started at once by a timer fired after the push',
      2,
      (world, read, done) =>
        at(world, 1050, () =>
          world.sim.schedule(50, () =>
            world.sim.processLast(
              (function* () {
                done(read());
              })(),
            ),
          ),
        ),
    ],
    // A timer placed before the push that sets one for the same instant: that one is placed after the push.
    ['a timer set now by a timer placed before the push', 2, (world, read, done) => at(world, 1100, () => world.sim.scheduleLast(0, () => done(read())))],
  ])('a read in %s sees %d providers', (_name, expected, probe) => {
    const { world, registry, read, heldAt } = setup();
    let seen: number | undefined;
    probe(world, read, (n) => (seen = n));
    at(world, 1000, () => world.registry.providerStopped(providers(world)[0]!, true));
    world.sim.run({ until: 1099 });
    expect(registry.pushesHeld).toBe(1);
    expect(heldAt()).toBe(1100);
    world.sim.run({ until: 2000 });
    expect(seen).toBe(expected);
  });

  it('counts a held push once delivered, and delivers what has arrived when holding stops', () => {
    const { world, registry, observer } = setup();
    const readerPushes = () => observer.pushes.filter((p) => p.instance === 'reader').length;
    // Its first list is read at once when it subscribes.
    expect(readerPushes()).toBe(1);
    at(world, 1000, () => world.registry.providerStopped(providers(world)[0]!, true));
    world.sim.run({ until: 1200 });
    // Arrived at 1100, not read since: held.
    expect(readerPushes()).toBe(1);
    registry.catchUpAll();
    expect(readerPushes()).toBe(2);
    at(world, 1300, () => world.registry.providerStopped(providers(world)[1]!, true));
    at(world, 1350, () => world.registry.providerStopped(providers(world)[2]!, true));
    world.sim.run({ until: 1420 });
    // The push of 1300 arrived at 1400; the one of 1350 arrives at 1450: it goes on the agenda.
    registry.holdPushes(false);
    expect(readerPushes()).toBe(3);
    world.sim.run({ until: 2000 });
    expect(readerPushes()).toBe(4);
  });

  it('puts the pushes still on their way when holding stops on the agenda one at a time, each delivered at its place', () => {
    const { world, registry, observer, read } = setup();
    const readerPushes = () => observer.pushes.filter((p) => p.instance === 'reader').length;
    const [a, b, c] = providers(world);
    // Six changes 10 ms apart: their pushes arrive at 1100, 1110, ..., 1150.
    const changes = [() => world.registry.providerStopped(a!, true), () => world.registry.providerStopped(b!, true), () => world.registry.providerStarted(a!)];
    changes.push(() => world.registry.providerStopped(c!, true), () => world.registry.providerStarted(b!), () => world.registry.providerStarted(c!));
    changes.forEach((change, k) => at(world, 1000 + 10 * k, change));
    // A read at the instant the third push arrives, placed before it (its timer is set now): two pushes seen.
    let seenAt1120: number | undefined;
    at(world, 1120, () => (seenAt1120 = read()));
    world.sim.run({ until: 1099 });
    expect(registry.pushesHeld).toBe(6);
    const before = world.sim.agendaSize;
    registry.holdPushes(false);
    // The first of the six is on the agenda; each of the others goes there once the one before it is delivered.
    expect(world.sim.agendaSize).toBe(before + 1);
    world.sim.run({ until: 1115 });
    expect(readerPushes()).toBe(1 + 2);
    world.sim.run({ until: 2000 });
    // After the first push (a stopped) and the second (b stopped): one provider left.
    expect(seenAt1120).toBe(1);
    expect(readerPushes()).toBe(1 + 6);
    expect(read()).toBe(3);
  });

  it('delivers what has arrived to a subscriber that never reads once it holds 64 pushes', () => {
    const { world, registry, observer } = setup();
    const readerPushes = () => observer.pushes.filter((p) => p.instance === 'reader').length;
    const p = providers(world)[0]!;
    // 200 changes, 10 ms apart: the first push of each arrives 100 ms after it.
    for (let k = 0; k < 200; k++) {
      at(world, 1000 + 10 * k, () => (k % 2 === 0 ? world.registry.providerStopped(p, true) : world.registry.providerStarted(p)));
    }
    world.sim.run({ until: 5000 });
    expect(registry.pushesHeld).toBe(200);
    // Its first list (subscribe) and every push that had arrived when the 64th held one was added.
    const delivered = readerPushes();
    expect(delivered).toBeGreaterThanOrEqual(1 + 200 - 64);
    expect(delivered).toBeLessThan(1 + 200);
    registry.catchUpAll();
    expect(readerPushes()).toBe(1 + 200);
  });
});
