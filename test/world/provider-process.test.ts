/**
 * A provider process as the rest of the world reads it: the URLs it registers (one per service),
 * whether it accepts connections in each state, whether it still has work (the drain's question),
 * the service-time factors of slowdowns (group-wide and per instance, per service of an application),
 * the exhaustion message of each kind of pool, and its group's busy time and peak threads.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import type { WorldObserver } from '../../src/metrics/observer.js';
import type { IncomingCall, Reply } from '../../src/world/provider-call.js';
import { EPOCH_MS, slowdownFactor, slowdownKey, type ProviderInstance, type ProviderState } from '../../src/world/provider.js';
import { World } from '../../src/world/world.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const A = 'com.example.OrderService';
const B = 'com.example.PaymentService';

const OBSERVER = quietObserver();

/** A world of the `providers:` YAML given (services A with methods place/cancel, B with pay; each 100 ms). */
function worldWith(providers: string, observer: WorldObserver = OBSERVER): World {
  const scenario = parseScenario(
    `
zones: { zoneA: {} }
network: { rtt: { same-zone: 0ms } }
registry: { type: static }
services:
  ${A}: { methods: { place: { serviceTime: 100ms }, cancel: { serviceTime: 100ms } } }
  ${B}: { methods: { pay: { serviceTime: 100ms } } }
providers:
${providers}
consumers: []
`,
    'process.yaml',
  );
  return new World(scenario, { seed: 1, observer, consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }) });
}

/** Sends a call of `service.method` to process `p`; its replies land in `replies` with the time. */
function sender(world: World, p: ProviderInstance) {
  const replies: Array<{ name: string; reply: Reply; atMs: number }> = [];
  const send = (name: string, service: string, method: string): void => {
    const c: IncomingCall = {
      service,
      method,
      consumerZone: 'zoneA',
      request: { ended: false },
      settled: false,
      attachments: new Map(),
      deliver: (reply) => replies.push({ name, reply, atMs: world.sim.now }),
    };
    p.exports.find((e) => e.service === service)!.receive(c);
  };
  return { send, replies };
}

describe('the registered URL of a provider process', () => {
  it('lists Dubbo`s provider parameters in order, then the group`s params, then the export`s filter keys and params', () => {
    const world = worldWith(`  - name: orders
    application: shop
    services: [${A}, ${B}]
    zone: zoneA
    weight: 150
    warmup: 2m
    params: { version: 1.0.0 }
    exports:
      ${B}: { executes: 7, tps: 50, tps.interval: 2s, methods: { pay: { executes: 3 } }, params: { timeout: 3000 } }`);
    world.sim.run({ until: 1500 });
    const p = world.startProvider(world.providerGroups[0]!);
    const head = `dubbo://${p.ip}:20880`;
    const common = `anyhost=true&application=shop&dubbo=2.0.2`;
    const tail = `release=3.3.2&side=provider&zone=zoneA&timestamp=${EPOCH_MS + 1500}&weight=150&warmup=120000&version=1.0.0`;
    expect(p.exports.map((e) => e.url)).toEqual([
      `${head}/${A}?${common}&interface=${A}&methods=place,cancel&${tail}`,
      `${head}/${B}?${common}&interface=${B}&methods=pay&${tail}&executes=7&pay.executes=3&tps=50&tps.interval=2000&timeout=3000`,
    ]);
    // The process's own URL is its first export's.
    expect(p.url).toBe(p.exports[0]!.url);
  });

  it('carries no filter keys for an export that sets none', () => {
    const world = worldWith(`  - name: orders
    service: ${A}
    zone: zoneA
    exports: { ${A}: { executor: { threads: 5 }, methods: { place: {} }, params: { timeout: 3000 } } }`);
    const url = world.providerGroups[0]!.instances[0]!.url;
    expect(url.split('&').slice(-2)).toEqual(['warmup=600000', 'timeout=3000']);
  });

  it('keeps a whole-millisecond timestamp for a process started within a millisecond', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA }`);
    world.sim.run({ until: 2.75 });
    const p = world.startProvider(world.providerGroups[0]!);
    expect(new URLSearchParams(p.url.split('?')[1]).get('timestamp')).toBe(String(EPOCH_MS + 2));
  });

  it('is each process`s own: processes started at one instant differ only in address, a later one in its timestamp too', () => {
    const world = worldWith(`  - { name: orders, services: [${A}, ${B}], zone: zoneA, count: 2 }`);
    const [p0, p1] = world.providerGroups[0]!.instances;
    world.sim.run({ until: 4000 });
    const p2 = world.startProvider(world.providerGroups[0]!);
    const rest = (url: string, p: { address: string }) => url.replace(`dubbo://${p.address}/`, '');
    for (const i of [0, 1]) {
      expect(p0!.exports[i]!.url.startsWith(`dubbo://${p0!.address}/${[A, B][i]}?`)).toBe(true);
      expect(rest(p1!.exports[i]!.url, p1!)).toBe(rest(p0!.exports[i]!.url, p0!));
      expect(rest(p2.exports[i]!.url, p2)).toBe(rest(p0!.exports[i]!.url, p0!).replace(`timestamp=${EPOCH_MS}&`, `timestamp=${EPOCH_MS + 4000}&`));
    }
    expect(new Set([p0!.address, p1!.address, p2.address]).size).toBe(3);
  });
});

describe('a provider process`s export', () => {
  it('shows its process`s group, zone, address, start and state', () => {
    const world = worldWith(`  - { name: orders, services: [${A}, ${B}], zone: zoneA }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const e = p.exports[1]!;
    expect([e.group, e.zone, e.ip, e.port, e.address, e.startMs]).toEqual([p.group, 'zoneA', p.ip, 20880, `${p.ip}:20880`, 0]);
    p.state = 'blackhole';
    expect([e.state, e.connectable]).toEqual(['blackhole', true]);
  });

  it('accepts connections while up or black-holed, not when crashed or stopped', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const seen: Array<[ProviderState, boolean]> = [];
    for (const s of ['up', 'blackhole', 'crashed', 'stopped', 'up'] as const) {
      p.state = s;
      seen.push([p.state, p.connectable]);
    }
    expect(seen).toEqual([
      ['up', true],
      ['blackhole', true],
      ['crashed', false],
      ['stopped', false],
      ['up', true],
    ]);
  });
});

describe('a provider process still has work (busy)', () => {
  it('while a call runs on or waits for its shared pool', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA, threads: 1, queues: 1 }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send } = sender(world, p);
    expect(p.busy).toBe(false);
    send('a', A, 'place');
    send('b', A, 'place');
    const busy: Array<[number, boolean]> = [];
    for (const t of [50, 150, 250]) {
      world.sim.run({ until: t });
      busy.push([t, p.busy]);
    }
    expect(busy).toEqual([
      [50, true],
      [150, true],
      [250, false],
    ]);
  });

  it('while a call runs on or waits for a service`s own executor', () => {
    const world = worldWith(`  - name: orders
    services: [${A}, ${B}]
    zone: zoneA
    exports: { ${B}: { executor: { threads: 1, queues: 1 } } }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send } = sender(world, p);
    send('a', B, 'pay');
    send('b', B, 'pay');
    const busy: Array<[number, boolean]> = [];
    for (const t of [50, 150, 250]) {
      world.sim.run({ until: t });
      busy.push([t, p.busy]);
    }
    expect(busy).toEqual([
      [50, true],
      [150, true],
      [250, false],
    ]);
    // The shared pool never saw them.
    expect(p.pool.peakInUse).toBe(0);
  });

  it('refuses a call to an isolated service once its executor`s thread and queue are taken, though the shared pool is free', () => {
    const world = worldWith(`  - name: orders
    services: [${A}, ${B}]
    zone: zoneA
    exports: { ${B}: { executor: { threads: 1, queues: 1 } } }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    send('a', B, 'pay');
    send('b', B, 'pay');
    send('c', B, 'pay');
    world.sim.run();
    // The executor's own thread and queue: c is refused, a and b run one after the other.
    expect(p.pool.peakInUse).toBe(0);
    expect(replies.map((r) => [r.name, r.reply.kind, r.atMs])).toEqual([
      ['c', 'exhausted', 0],
      ['a', 'ok', 100],
      ['b', 'ok', 200],
    ]);
  });
});

describe('a provider process without traces', () => {
  it('lets a call queued when the process crashed go without running it, and frees its thread', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA, threads: 1, queues: 1 }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    send('a', A, 'place');
    send('b', A, 'place');
    world.sim.run({ until: 50 });
    p.state = 'crashed';
    world.sim.run();
    expect(replies).toEqual([]);
    expect([p.pool.inUse, p.pool.queued, p.pool.completed, p.busy]).toEqual([0, 0, 2, false]);
  });

  it('counts the execution whose response a black hole swallowed as orphaned', () => {
    let orphans = 0;
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA }`, { ...OBSERVER, orphaned: () => orphans++ });
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    send('a', A, 'place');
    world.sim.run({ until: 50 });
    p.state = 'blackhole';
    world.sim.run();
    expect([replies.length, orphans]).toEqual([0, 1]);
  });
});

describe('the pools of a provider process', () => {
  it('free a service`s own executor, not the shared pool, when its call ends, also when every service has one', () => {
    const world = worldWith(`  - name: orders
    service: ${A}
    zone: zoneA
    threads: 1
    exports: { ${A}: { executor: { threads: 1, queues: 0 } } }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    send('a', A, 'place');
    world.sim.run({ until: 150 });
    send('b', A, 'place');
    world.sim.run();
    expect(replies.map((r) => [r.name, r.reply.kind, r.atMs])).toEqual([
      ['a', 'ok', 100],
      ['b', 'ok', 250],
    ]);
    expect([p.pool.inUse, p.pool.completed, p.exports[0]!.executor!.completed]).toEqual([0, 0, 2]);
  });

  it('free the thread of the pool dynamic isolation moved a method to when its call ends', () => {
    const world = worldWith(`  - name: orders
    service: ${A}
    zone: zoneA
    threads: 10
    isolation: { dynamic: { concurrency: 1, rt: 50ms, threads: 1, window: 10s, restoreAfter: 30s } }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    // Three slow calls at once: at the first finish (100 ms > 50 ms, two still running) place moves out.
    for (const n of ['1', '2', '3']) send(n, A, 'place');
    world.sim.run({ until: 200 });
    // Now each call of place takes the isolated pool's one thread, one after the other.
    send('4', A, 'place');
    world.sim.run({ until: 350 });
    send('5', A, 'place');
    world.sim.run();
    expect(replies.map((r) => [r.name, r.reply.kind, r.atMs])).toEqual([
      ['1', 'ok', 100],
      ['2', 'ok', 100],
      ['3', 'ok', 100],
      ['4', 'ok', 300],
      ['5', 'ok', 450],
    ]);
    expect([p.pool.inUse, p.pool.completed, p.pool.peakInUse]).toEqual([0, 3, 3]);
  });
});

describe('the exhaustion message of a pool', () => {
  it('is the eager pool`s "Queue capacity is full." for the shared pool, AbortPolicyWithReport`s for a service`s own executor', () => {
    const world = worldWith(`  - name: orders
    services: [${A}, ${B}]
    zone: zoneA
    threadpool: eager
    threads: 1
    queues: 1
    exports: { ${B}: { executor: { threads: 1, queues: 0 } } }`);
    const p = world.providerGroups[0]!.instances[0]!;
    const { send, replies } = sender(world, p);
    for (const n of ['a1', 'a2', 'a3']) send(n, A, 'place');
    for (const n of ['b1', 'b2']) send(n, B, 'pay');
    world.sim.run({ until: 1 });
    const head = `Server side(${p.ip},20880) thread pool is exhausted, detail msg:`;
    expect(replies.map((r) => [r.name, r.reply])).toEqual([
      ['a3', { kind: 'exhausted', detail: `${head}Queue capacity is full.` }],
      [
        'b2',
        {
          kind: 'exhausted',
          detail:
            `${head}Thread pool is EXHAUSTED! Thread Name: DubboServerHandler-${p.ip}:20880, Pool Size: 1 (active: 1, core: 1, max: 1, largest: 1), ` +
            `Task: 1 (completed: 0), Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), in dubbo://${p.ip}:20880!`,
        },
      ],
    ]);
  });
});

describe('slowdowns', () => {
  it('key a one-service group by method (or *), and a group of several services by service#method (or service#*)', () => {
    const one = { services: [A] };
    const two = { services: [A, B] };
    expect([slowdownKey(one, A, 'place'), slowdownKey(one, undefined, 'place'), slowdownKey(one, A, undefined), slowdownKey(one, undefined, undefined)]).toEqual([
      'place',
      'place',
      '*',
      '*',
    ]);
    expect([slowdownKey(two, A, 'place'), slowdownKey(two, A, undefined), slowdownKey(two, undefined, 'place'), slowdownKey(two, undefined, undefined)]).toEqual([
      `${A}#place`,
      `${A}#*`,
      'place',
      '*',
    ]);
  });

  it('multiply: the method`s, every method`s, and for a group of several services the service`s method`s and the whole service`s', () => {
    const s = new Map([
      ['place', 2],
      ['*', 3],
      [`${A}#place`, 5],
      [`${A}#*`, 7],
      [`${B}#pay`, 11],
    ]);
    expect(slowdownFactor(s, { services: [A] }, A, 'place')).toBe(2 * 3);
    expect(slowdownFactor(s, { services: [A, B] }, A, 'place')).toBe(2 * 3 * 5 * 7);
    expect(slowdownFactor(s, { services: [A, B] }, A, 'cancel')).toBe(3 * 7);
    expect(slowdownFactor(s, { services: [A, B] }, B, 'pay')).toBe(3 * 11);
    expect(slowdownFactor(new Map(), { services: [A, B] }, B, 'pay')).toBe(1);
  });

  it('of the group and of one instance both stretch the service time of the calls that start while they last', () => {
    const world = worldWith(`  - { name: orders, services: [${A}, ${B}], zone: zoneA, count: 2, threads: 10 }`);
    const group = world.providerGroups[0]!;
    const [p, q] = group.instances as [ProviderInstance, ProviderInstance];
    group.slowdown.set(group.slowdownKey(A, 'place'), 2);
    p.slowdown.set(group.slowdownKey(A, undefined), 3);
    expect([group.factor('place', A), group.factor('cancel', A), group.factor('pay', B)]).toEqual([2, 1, 1]);
    const sp = sender(world, p);
    const sq = sender(world, q);
    sp.send('p-place', A, 'place');
    sp.send('p-cancel', A, 'cancel');
    sp.send('p-pay', B, 'pay');
    sq.send('q-place', A, 'place');
    world.sim.run();
    expect([...sp.replies, ...sq.replies].map((r) => [r.name, r.atMs]).sort()).toEqual([
      ['p-cancel', 300],
      ['p-pay', 100],
      ['p-place', 600],
      ['q-place', 200],
    ]);
  });

  it('of a one-service group apply to the group`s default service', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA }`);
    const group = world.providerGroups[0]!;
    expect(group.factor('place')).toBe(1);
    group.slowdown.set('*', 4);
    expect([group.factor('place'), group.factor('cancel', A)]).toEqual([4, 4]);
  });
});

describe('a provider group`s figures', () => {
  it('add up the busy thread time of every instance`s shared pool and take the highest peak of one', () => {
    const world = worldWith(`  - { name: orders, service: ${A}, zone: zoneA, count: 2, threads: 5 }`);
    const group = world.providerGroups[0]!;
    const [p, q] = group.instances as [ProviderInstance, ProviderInstance];
    const sp = sender(world, p);
    const sq = sender(world, q);
    sp.send('1', A, 'place');
    sq.send('2', A, 'place');
    sq.send('3', A, 'place');
    sq.send('4', A, 'place');
    world.sim.run();
    expect(group.busyMs()).toBe(400);
    expect(group.peakActiveThreads()).toBe(3);
  });
});
