/**
 * The life of one call in a provider process, as exact timelines: it arrives, takes a thread (or
 * waits, or is refused), runs its service time (plus its downstream calls), frees the thread and
 * sends its response back over the network. Each test drives one process directly and logs, with
 * the simulated time, what the observer (executions, rejections, orphans), the trace observer
 * (received, executing, executed, not executed, orphaned) and the consumer (the delivered reply) see.
 * The process's state (crashed, black-holed, stopped), a partition, a consumer that gave up (a
 * settled call), provider filters and downstream calls each change that timeline in one place.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import type { Proc } from '../../src/engine/simulation.js';
import type { TraceObserver } from '../../src/metrics/trace-observer.js';
import type { IncomingCall, Reply } from '../../src/world/provider-call.js';
import type { ProviderFilterChain } from '../../src/world/provider-filters.js';
import type { ProviderExport, ProviderInstance } from '../../src/world/provider.js';
import type { ServiceCall } from '../../src/world/consumer.js';
import { World } from '../../src/world/world.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const S = 'com.example.UserService';
const D1 = 'com.example.InventoryService';
const D2 = 'com.example.PaymentService';

interface Options {
  /** YAML lines added to the provider group. */
  group?: string;
  /** The group's `threads` and `queues` (default 1 and 1). */
  threads?: number;
  queues?: number;
  /** YAML of the method `get`'s own extra fields (after serviceTime). */
  method?: string;
  /** The provider filter chain to plug in (default: none). */
  filters?: ProviderFilterChain<ProviderExport>;
  /** For downstream calls: how long each takes and what it returns (`{ outcome }`), by service. */
  downstream?: Record<string, { ms: number; outcome: string }>;
}

/**
 * One provider process in zoneA (method `get` of S takes 100 ms; same-zone RTT 2 ms, zoneA<->zoneB
 * 10 ms), with a log of everything that happened to its calls, each entry `[tMs, what]`.
 */
function processWith(o: Options = {}) {
  const scenario = parseScenario(
    `
zones: { zoneA: {}, zoneB: {} }
network: { rtt: { same-zone: 2ms, zoneA<->zoneB: 10ms } }
registry: { type: static }
services:
  ${S}: { methods: { get: { serviceTime: 100ms${o.method ?? ''} } } }
  ${D1}: { methods: { reserve: { serviceTime: 1ms } } }
  ${D2}: { methods: { pay: { serviceTime: 1ms } } }
providers:
  - name: users
    service: ${S}
    zone: zoneA
    count: 1
    threads: ${o.threads ?? 1}
    queues: ${o.queues ?? 1}
${o.group ?? ''}
consumers: []
`,
    'lifecycle.yaml',
  );
  const log: Array<[number, string]> = [];
  let world: World | undefined = undefined;
  const now = (): number => world!.sim.now;
  const name = (call: object): string => (call as { name?: string }).name ?? '?';
  const observer = quietObserver({
    execution: (req) => log.push([now(), `execution ${(req as { name?: string }).name ?? 'downstream'}`]),
    rejected: (group, service) => log.push([now(), `rejected at ${group} ${service}`]),
    orphaned: (req) => log.push([now(), `orphaned ${(req as { name?: string }).name ?? '?'}`]),
  });
  const tracer: TraceObserver = {
    request() {},
    requestEnded() {},
    attempt() {},
    attemptEnded() {},
    received: (call, atMs) => log.push([atMs, `trace received ${name(call)}`]),
    notExecuted: (call) => log.push([now(), `trace notExecuted ${name(call)}`]),
    executing: (call, atMs, serviceMs) => log.push([atMs, `trace executing ${name(call)} for ${serviceMs}`]),
    executed: (call, atMs) => log.push([atMs, `trace executed ${name(call)}`]),
    orphaned: (call) => log.push([now(), `trace orphaned ${name(call)}`]),
  };
  const downstream = o.downstream ?? {};
  const servers: Array<{ service: string; startedMs: number; attachments: ReadonlyMap<string, string>; call: unknown }> = [];
  world = new World(scenario, {
    seed: 1,
    observer,
    tracer,
    consumerStack: () => ({
      refer() {},
      *call(c: ServiceCall): Proc<unknown> {
        const d = downstream[c.service]!;
        log.push([now(), `downstream ${c.service} starts`]);
        servers.push({ service: c.service, startedMs: c.server!.startedMs, attachments: c.server!.attachments, call: c.server!.call });
        yield world!.sim.timeout(d.ms);
        log.push([now(), `downstream ${c.service} ends ${d.outcome}`]);
        return { outcome: d.outcome, cause: `${c.service} failed` };
      },
    }),
    providerFilters: () => o.filters ?? null,
  });
  const p: ProviderInstance = world.providerGroups[0]!.instances[0]!;
  const calls = new Map<string, IncomingCall & { settled: boolean }>();
  const replies: Reply[] = [];
  /** Sends the call `name` now from `consumerZone`; its request and its call both carry the name. */
  const send = (callName: string, consumerZone = 'zoneA'): IncomingCall & { settled: boolean } => {
    const c = {
      name: callName,
      service: S,
      method: 'get',
      consumerZone,
      request: { ended: false, name: callName },
      settled: false,
      attachments: new Map([['trace-id', callName]]),
      deliver: (reply: Reply) => {
        replies.push(reply);
        log.push([now(), `reply ${callName} ${reply.kind}${reply.kind === 'ok' && reply.biz ? ' biz' : ''}`]);
      },
    };
    calls.set(callName, c);
    p.receive(c);
    return c;
  };
  /** Runs `fn` at `tMs`. */
  const at = (tMs: number, fn: () => void): void => {
    world!.sim.schedule(tMs - world!.sim.now, fn);
  };
  const run = (): void => world!.sim.run();
  return { world, p, send, at, run, log, replies, calls, servers };
}

describe('a call in a provider process', () => {
  it('is received, executed for its service time and answered one way (half the RTT) later', () => {
    const t = processWith();
    t.at(10, () => t.send('a'));
    t.run();
    expect(t.log).toEqual([
      [10, 'trace received a'],
      [10, 'execution a'],
      [10, 'trace executing a for 100'],
      [110, 'trace executed a'],
      [111, 'reply a ok'],
    ]);
    expect(t.p.busy).toBe(false);
  });

  it('answers a consumer of another zone over that zone pair`s link', () => {
    const t = processWith();
    t.send('a', 'zoneB');
    t.run();
    expect(t.log.at(-1)).toEqual([105, 'reply a ok']);
  });

  it('waits in the queue for the thread and starts when the running call frees it', () => {
    const t = processWith();
    t.send('a');
    t.send('b');
    expect(t.p.busy).toBe(true);
    t.run();
    expect(t.log).toEqual([
      [0, 'trace received a'],
      [0, 'execution a'],
      [0, 'trace executing a for 100'],
      [0, 'trace received b'],
      [100, 'trace executed a'],
      [100, 'execution b'],
      [100, 'trace executing b for 100'],
      [101, 'reply a ok'],
      [200, 'trace executed b'],
      [201, 'reply b ok'],
    ]);
  });

  it('is refused with the pool`s state (completed, running and queued tasks) when the thread and the queue are taken', () => {
    const t = processWith();
    t.send('a');
    t.at(150, () => {
      t.send('b');
      t.send('c');
      t.send('d');
    });
    t.run();
    expect(t.log.filter(([, e]) => !e.startsWith('trace executing') && !e.startsWith('trace received'))).toEqual([
      [0, 'execution a'],
      [100, 'trace executed a'],
      [101, 'reply a ok'],
      [150, 'execution b'],
      [150, 'rejected at users com.example.UserService'],
      [150, 'trace notExecuted d'],
      [151, 'reply d exhausted'],
      [250, 'trace executed b'],
      [250, 'execution c'],
      [251, 'reply b ok'],
      [350, 'trace executed c'],
      [351, 'reply c ok'],
    ]);
    const r = t.replies.find((x) => x.kind === 'exhausted')!;
    // getTaskCount = completed (a) + running (b) + queued (c): 3 (3.3 AbortPolicyWithReport.java:102-106).
    expect(r.kind === 'exhausted' && r.detail).toBe(
      `Server side(${t.p.ip},20880) thread pool is exhausted, detail msg:Thread pool is EXHAUSTED! ` +
        `Thread Name: DubboServerHandler-${t.p.ip}:20880, Pool Size: 1 (active: 1, core: 1, max: 1, largest: 1), ` +
        `Task: 3 (completed: 1), Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), ` +
        `in dubbo://${t.p.ip}:20880!`,
    );
  });
});

describe('a call to a process that is not up', () => {
  it('is refused by a crashed process at once, without running', () => {
    const t = processWith();
    t.p.state = 'crashed';
    t.send('a');
    t.run();
    expect(t.log).toEqual([
      [0, 'trace notExecuted a'],
      [1, 'reply a refused'],
    ]);
  });

  it('is refused by a stopped process at once, without running', () => {
    const t = processWith();
    t.p.state = 'stopped';
    t.send('a');
    t.run();
    expect(t.log).toEqual([
      [0, 'trace notExecuted a'],
      [1, 'reply a refused'],
    ]);
  });

  it('is ignored by a black-holed process: no reply ever comes', () => {
    const t = processWith();
    t.p.state = 'blackhole';
    t.send('a');
    t.run();
    expect(t.log).toEqual([[0, 'trace notExecuted a']]);
    expect(t.p.busy).toBe(false);
  });

  it('still runs when the process is black-holed mid-execution, but its response is lost: an orphan', () => {
    const t = processWith();
    t.send('a');
    t.at(50, () => (t.p.state = 'blackhole'));
    t.run();
    expect(t.log.slice(3)).toEqual([
      [100, 'trace executed a'],
      [100, 'orphaned a'],
      [100, 'trace orphaned a'],
    ]);
    expect(t.replies).toEqual([]);
  });

  it('finishes on a process that crashed mid-execution with no response (an orphan), and a queued call never runs', () => {
    const t = processWith();
    t.send('a');
    t.send('b');
    t.at(50, () => (t.p.state = 'crashed'));
    t.run();
    expect(t.log.slice(4)).toEqual([
      [100, 'trace executed a'],
      [100, 'orphaned a'],
      [100, 'trace orphaned a'],
      // b got the thread at 100 but the process is dead: the thread never runs it and is free again.
      [100, 'trace notExecuted b'],
    ]);
    expect(t.replies).toEqual([]);
    expect([t.p.pool.inUse, t.p.pool.queued, t.p.busy]).toEqual([0, 0, false]);
  });

  it('finishes on a process stopped mid-execution with no response, and a queued call never runs', () => {
    const t = processWith();
    t.send('a');
    t.send('b');
    t.at(50, () => (t.p.state = 'stopped'));
    t.run();
    expect(t.log.slice(4)).toEqual([
      [100, 'trace executed a'],
      [100, 'orphaned a'],
      [100, 'trace orphaned a'],
      [100, 'trace notExecuted b'],
    ]);
  });
});

describe('the response of a call', () => {
  it('is an orphan when the consumer has already given up on the call (settled) by the time it arrives', () => {
    const t = processWith();
    const a = t.send('a');
    t.at(50, () => (a.settled = true));
    t.run();
    expect(t.log.slice(3)).toEqual([
      [100, 'trace executed a'],
      [101, 'orphaned a'],
      [101, 'trace orphaned a'],
    ]);
  });

  it('of a refusal is dropped silently when the consumer has given up: a refusal is no execution', () => {
    const t = processWith();
    t.p.state = 'crashed';
    const a = t.send('a');
    a.settled = true;
    t.run();
    expect(t.log).toEqual([[0, 'trace notExecuted a']]);
  });

  it('is lost, an orphan, when the consumer`s zone is partitioned from the provider`s', () => {
    const t = processWith();
    t.send('a', 'zoneB');
    t.at(50, () => t.world.network.partition('zoneA', 'zoneB'));
    t.run();
    expect(t.log.slice(3)).toEqual([
      [100, 'trace executed a'],
      [100, 'orphaned a'],
      [100, 'trace orphaned a'],
    ]);
  });

  it('of a refusal is lost without an orphan when the zones are partitioned', () => {
    const t = processWith();
    t.p.state = 'stopped';
    t.world.network.partition('zoneA', 'zoneB');
    t.send('a', 'zoneB');
    t.run();
    expect(t.log).toEqual([[0, 'trace notExecuted a']]);
  });
});

/** A provider filter chain that answers `admit` with the given values in turn and logs `done`. */
function scriptedFilters(log: Array<[number, string]>, answers: Array<Reply | null | number>, now: () => number): ProviderFilterChain<ProviderExport> {
  return {
    admit: () => answers.shift() ?? null,
    done: (call, target, elapsedMs, failed) =>
      log.push([now(), `filters done ${(call as { name?: string }).name} on ${target.service} after ${elapsedMs}${failed ? ' failed' : ''}`]),
  };
}

describe('the provider filters on a call', () => {
  it('hold the thread for the queueing they ask for (a number) on top of the service time', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    t = processWith({ filters: scriptedFilters(log, [30], () => t!.world.sim.now) });
    t.at(50, () => t!.send('a'));
    t.run();
    expect(t.log).toContainEqual([50, 'trace executing a for 130']);
    expect(t.log.at(-1)).toEqual([181, 'reply a ok']);
    expect(log).toEqual([[180, 'filters done a on com.example.UserService after 130']]);
  });

  it('refuse a call with their reply: the thread is freed at once for the next call, and it counts as rejected, not executed', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    const limited: Reply = { kind: 'limited', filter: 'executes', detail: 'no' };
    t = processWith({ filters: scriptedFilters(log, [limited, null], () => t!.world.sim.now) });
    t.send('a');
    t.send('b');
    t.run();
    expect(t.log).toEqual([
      [0, 'trace received a'],
      [0, 'rejected at users com.example.UserService'],
      [0, 'trace notExecuted a'],
      [0, 'trace received b'],
      [0, 'execution b'],
      [0, 'trace executing b for 100'],
      [1, 'reply a limited'],
      [100, 'trace executed b'],
      [101, 'reply b ok'],
    ]);
    expect(t.replies[0]).toBe(limited);
    // A refused call never finished an execution: only b's end reaches the filters.
    expect(log).toEqual([[100, 'filters done b on com.example.UserService after 100']]);
  });

  it('hear that an execution failed when it ends in a business exception', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    t = processWith({ method: ', bizErrorRate: 1', filters: scriptedFilters(log, [], () => t!.world.sim.now) });
    t.send('a');
    t.run();
    expect(log).toEqual([[100, 'filters done a on com.example.UserService after 100 failed']]);
    expect(t.log.at(-1)).toEqual([101, 'reply a ok biz']);
  });
});

describe('the provider filters and the process state', () => {
  it('hear of no exception from an execution whose process died before it ended (no business outcome is drawn)', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    t = processWith({ method: ', bizErrorRate: 1', filters: scriptedFilters(log, [], () => t!.world.sim.now) });
    t.send('a');
    t.at(50, () => (t!.p.state = 'crashed'));
    t.run();
    expect(log).toEqual([[100, 'filters done a on com.example.UserService after 100']]);
    expect(t.replies).toEqual([]);
  });

  it('refuse a call that got its thread after the process was black-holed: no reply, and no orphan (it never ran)', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    const limited: Reply = { kind: 'limited', filter: 'executes', detail: 'no' };
    t = processWith({ filters: scriptedFilters(log, [null, limited], () => t!.world.sim.now) });
    t.send('a');
    t.send('b');
    t.at(50, () => (t!.p.state = 'blackhole'));
    t.run();
    expect(t.log.slice(4)).toEqual([
      [100, 'trace executed a'],
      [100, 'orphaned a'],
      [100, 'trace orphaned a'],
      [100, 'rejected at users com.example.UserService'],
      [100, 'trace notExecuted b'],
    ]);
  });
});

describe('business exceptions', () => {
  it('end every execution of a method with bizErrorRate 1 in a biz reply, and none of a method with rate 0', () => {
    for (const [rate, expected] of [
      [1, 'biz'],
      [0, 'plain'],
    ] as const) {
      const t = processWith({ method: `, bizErrorRate: ${rate}`, threads: 10, queues: 0 });
      for (let i = 0; i < 10; i++) t.send(`c${i}`);
      t.run();
      expect(
        t.replies.map((r) => (r.kind === 'ok' ? (r.biz ? 'biz' : 'plain') : r.kind)),
        `bizErrorRate ${rate}`,
      ).toEqual(Array(10).fill(expected));
    }
  });

  it('end about bizErrorRate of the executions in a biz reply', () => {
    const t = processWith({ method: ', bizErrorRate: 0.3', threads: 4000, queues: 0 });
    const n = 4000;
    for (let i = 0; i < n; i++) t.send(`c${i}`);
    t.run();
    const biz = t.replies.filter((r) => r.kind === 'ok' && r.biz).length;
    // Binomial(4000, 0.3): sd = sqrt(4000 * 0.3 * 0.7) ≈ 29; 5 sd either side.
    expect(Math.abs(biz - 0.3 * n)).toBeLessThan(5 * 29);
  });
});

describe('a method that calls other services', () => {
  const calls = `, calls: [{ service: ${D1}, method: reserve }, { service: ${D2}, method: pay }]`;

  it('makes its calls one after the other after its own service time, holding the thread until the last answers', () => {
    const t = processWith({ method: calls, downstream: { [D1]: { ms: 20, outcome: 'ok' }, [D2]: { ms: 30, outcome: 'ok' } } });
    t.send('a');
    t.send('b');
    t.run();
    expect(t.log.filter(([, e]) => !e.startsWith('trace received'))).toEqual([
      [0, 'execution a'],
      [0, 'trace executing a for 100'],
      [100, `downstream ${D1} starts`],
      [120, `downstream ${D1} ends ok`],
      [120, `downstream ${D2} starts`],
      [150, `downstream ${D2} ends ok`],
      [150, 'trace executed a'],
      [150, 'execution b'],
      [150, 'trace executing b for 100'],
      [151, 'reply a ok'],
      [250, `downstream ${D1} starts`],
      [270, `downstream ${D1} ends ok`],
      [270, `downstream ${D2} starts`],
      [300, `downstream ${D2} ends ok`],
      [300, 'trace executed b'],
      [301, 'reply b ok'],
    ]);
  });

  it('with parallel: true makes every call at once and waits for the slowest', () => {
    const t = processWith({ method: `${calls}, parallel: true`, downstream: { [D1]: { ms: 20, outcome: 'ok' }, [D2]: { ms: 30, outcome: 'ok' } } });
    t.send('a');
    t.run();
    expect(t.log.filter(([, e]) => e.startsWith('downstream') || e.startsWith('reply'))).toEqual([
      [100, `downstream ${D1} starts`],
      [100, `downstream ${D2} starts`],
      [120, `downstream ${D1} ends ok`],
      [130, `downstream ${D2} ends ok`],
      [131, 'reply a ok'],
    ]);
  });

  it('rethrows the first failure in call order as a business exception, even when a later call failed first', () => {
    for (const parallel of [false, true]) {
      const t = processWith({
        method: `${calls}, parallel: ${parallel}`,
        downstream: { [D1]: { ms: 30, outcome: 'timeout' }, [D2]: { ms: 10, outcome: 'noProvider' } },
      });
      t.send('a');
      t.run();
      expect(t.replies, `parallel: ${parallel}`).toEqual([{ kind: 'ok', biz: true, thrown: { outcome: 'timeout', cause: `${D1} failed` } }]);
    }
  });

  it('gives each downstream call the incoming call, its attachments and when its thread took it', () => {
    const t = processWith({ method: calls, downstream: { [D1]: { ms: 20, outcome: 'ok' }, [D2]: { ms: 30, outcome: 'ok' } } });
    t.send('a');
    t.at(10, () => t.send('b'));
    t.run();
    expect(t.servers.map((x) => [x.service, x.startedMs, x.attachments.get('trace-id'), x.call === t.calls.get(x.attachments.get('trace-id')!)])).toEqual([
      [D1, 0, 'a', true],
      [D2, 0, 'a', true],
      [D1, 150, 'b', true],
      [D2, 150, 'b', true],
    ]);
  });

  it('makes the response that carries a downstream failure an orphan when the consumer has given up', () => {
    const t = processWith({ method: calls, downstream: { [D1]: { ms: 20, outcome: 'timeout' }, [D2]: { ms: 30, outcome: 'ok' } } });
    const a = t.send('a');
    t.at(120, () => (a.settled = true));
    t.run();
    expect(t.log.slice(-3)).toEqual([
      [150, 'trace executed a'],
      [151, 'orphaned a'],
      [151, 'trace orphaned a'],
    ]);
    expect(t.replies).toEqual([]);
  });

  it('rethrows a later call`s failure when the earlier ones answered', () => {
    const t = processWith({ method: calls, downstream: { [D1]: { ms: 30, outcome: 'ok' }, [D2]: { ms: 10, outcome: 'noProvider' } } });
    t.send('a');
    t.run();
    expect(t.replies).toEqual([{ kind: 'ok', biz: true, thrown: { outcome: 'noProvider', cause: `${D2} failed` } }]);
  });

  it('tells the filters the execution failed when a downstream call failed, after its whole time on the thread', () => {
    const log: Array<[number, string]> = [];
    let t: ReturnType<typeof processWith> | undefined = undefined;
    t = processWith({
      method: calls,
      downstream: { [D1]: { ms: 30, outcome: 'ok' }, [D2]: { ms: 10, outcome: 'timeout' } },
      filters: scriptedFilters(log, [], () => t!.world.sim.now),
    });
    t.send('a');
    t.run();
    expect(log).toEqual([[140, 'filters done a on com.example.UserService after 140 failed']]);
  });

  it('does not draw a business exception on top of a failed downstream call: the downstream failure is what is thrown', () => {
    const t = processWith({ method: `${calls}, bizErrorRate: 1`, downstream: { [D1]: { ms: 1, outcome: 'timeout' }, [D2]: { ms: 1, outcome: 'ok' } } });
    t.send('a');
    t.run();
    expect(t.replies).toEqual([{ kind: 'ok', biz: true, thrown: { outcome: 'timeout', cause: `${D1} failed` } }]);
  });
});
