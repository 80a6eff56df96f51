/**
 * Provider applications (SPEC 2.3): one process exports several services on one port and, unless
 * a service is isolated, they share the process's one Dubbo thread pool. Each test drives one
 * process directly with calls and reads its replies: which pool a call takes, when the pool is
 * exhausted, what the provider filters (ExecuteLimitFilter, TpsLimitFilter) refuse, and how dynamic
 * isolation moves a slow method out and back.
 */
import { describe, expect, it } from 'vitest';
import { providerFilterChain } from '../../src/stack/provider-filter-chain.js';
import { parseScenario } from '../../src/scenario/load.js';
import type { IncomingCall, Reply } from '../../src/world/provider-call.js';
import type { ProviderInstance } from '../../src/world/provider.js';
import { World } from '../../src/world/world.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const A = 'com.example.SlowService';
const B = 'com.example.FastService';

/** One provider process of application `app` exporting A (1000 ms) and B (10 ms), with `extra` YAML on the group. */
function processWith(extra = '', threads = 2) {
  const yaml = `
zones: { zoneA: {} }
registry: { type: static }
services:
  ${A}: { methods: { slow: { serviceTime: 1000ms } } }
  ${B}: { methods: { fast: { serviceTime: 10ms } } }
providers:
  - name: app-a
    application: app
    services: [${A}, ${B}]
    zone: zoneA
    count: 1
    threads: ${threads}
${extra}
consumers: []
`;
  const scenario = parseScenario(yaml, 'app.yaml');
  const rejected: string[] = [];
  const executed: string[] = [];
  const events = new Map<string, number>();
  const observer = quietObserver({
    execution: (_r, _g, service) => executed.push(service),
    rejected: (_g, service) => rejected.push(service),
    count: (name, by = 1) => events.set(name, (events.get(name) ?? 0) + by),
  });
  const world = new World(scenario, {
    seed: 1,
    observer,
    consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }),
    providerFilters: (p) => providerFilterChain(p),
  });
  const p: ProviderInstance = world.providerGroups[0]!.instances[0]!;
  const replies: Array<{ service: string; reply: Reply; atMs: number }> = [];
  /** Sends one call to `service` now. */
  const call = (service: string) => {
    const c: IncomingCall = {
      service,
      method: service === A ? 'slow' : 'fast',
      consumerZone: 'zoneA',
      request: { ended: false },
      settled: false,
      attachments: new Map(),
      deliver: (reply) => replies.push({ service, reply, atMs: world.sim.now }),
    };
    p.exports.find((e) => e.service === service)!.receive(c);
  };
  const kinds = (service?: string) => replies.filter((r) => service === undefined || r.service === service).map((r) => r.reply.kind);
  const runTo = (tMs: number) => world.sim.run({ until: tMs });
  return { world, p, call, replies, kinds, runTo, rejected, executed, events };
}

describe('a provider application', () => {
  it('registers one URL per exported service, all on the process`s one ip:port', () => {
    const { p } = processWith();
    expect(p.exports.map((e) => e.service)).toEqual([A, B]);
    expect(p.exports.map((e) => e.url.split('?')[0])).toEqual([`dubbo://${p.address}/${A}`, `dubbo://${p.address}/${B}`]);
    expect(p.exports.map((e) => new URLSearchParams(e.url.split('?')[1]).get('methods'))).toEqual(['slow', 'fast']);
    expect(p.exports.every((e) => e.url.includes('application=app&'))).toBe(true);
  });

  it('shares one pool: a slow service that fills it gets the other service rejected with "thread pool is EXHAUSTED"', () => {
    const t = processWith('', 2);
    t.call(A);
    t.call(A);
    t.call(B);
    t.runTo(1);
    expect(t.kinds(B)).toEqual(['exhausted']);
    expect(t.rejected).toEqual([B]);
    const r = t.replies[0]!.reply;
    // 3.3 AbortPolicyWithReport.java:102-106, field by field: 2 completed-or-running tasks, none completed yet.
    expect(r.kind === 'exhausted' && r.detail).toBe(
      `Server side(${t.p.ip},${t.p.port}) thread pool is exhausted, detail msg:Thread pool is EXHAUSTED! ` +
        `Thread Name: DubboServerHandler-${t.p.address}, Pool Size: 2 (active: 2, core: 2, max: 2, largest: 2), ` +
        `Task: 2 (completed: 0), Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), ` +
        `in dubbo://${t.p.address}!`,
    );
    t.runTo(1001);
    // Once the slow calls finish their threads serve B again.
    t.call(B);
    t.runTo(1100);
    expect(t.kinds(B)).toEqual(['exhausted', 'ok']);
  });

  it('with static isolation (exports.<service>.executor) the slow service fills only its own executor', () => {
    const t = processWith(`    exports:\n      ${A}: { executor: { threads: 2 } }`, 2);
    t.call(A);
    t.call(A);
    t.call(A);
    t.call(B);
    t.call(B);
    t.runTo(50);
    expect(t.kinds(A)).toEqual(['exhausted']);
    expect(t.kinds(B)).toEqual(['ok', 'ok']);
    expect(t.p.pool.peakInUse).toBe(2); // the two B calls, never an A call
    expect(t.rejected).toEqual([A]);
  });

  it('ExecuteLimitFilter (executes) refuses the call beyond the limit on the thread, at once, with Dubbo`s message', () => {
    const t = processWith(`    exports:\n      ${A}: { executes: 1 }`, 10);
    t.call(A);
    t.call(A);
    t.runTo(1);
    expect(t.kinds(A)).toEqual(['limited']);
    const r = t.replies[0]!.reply;
    expect(r.kind === 'limited' && r.filter).toBe('executes');
    // The SERVICE_ERROR response carries StringUtils.toString(t): class and message, then the stack trace
    // (3.3 HeaderExchangeHandler.java:130-131; thrown at 3.3 ExecuteLimitFilter.java:51).
    const message =
      /Failed to invoke method slow in provider dubbo:\/\/[^\n]*, cause: The service using threads greater than <dubbo:service executes="1" \/> limited\./
        .source;
    expect(r.kind === 'limited' && r.detail).toMatch(
      new RegExp(
        `^org\\.apache\\.dubbo\\.rpc\\.RpcException: ${message}\\norg\\.apache\\.dubbo\\.rpc\\.RpcException: ${message}\\n` +
          `\\tat org\\.apache\\.dubbo\\.rpc\\.filter\\.ExecuteLimitFilter\\.invoke\\(ExecuteLimitFilter\\.java:51\\)\\n$`,
      ),
    );
    // The refused call held its thread for an instant only, and is not an execution.
    expect(t.p.pool.inUse).toBe(1);
    expect(t.executed).toEqual([A]);
    expect(t.rejected).toEqual([A]);
    // The count ends with the first call: the next one runs.
    t.runTo(1000);
    t.call(A);
    t.runTo(1001);
    expect(t.executed).toEqual([A, A]);
  });

  it('executes on one export limits only that export`s calls: the other export, whose URL activates no limit filter, is not counted', () => {
    const t = processWith(`    exports:\n      ${A}: { executes: 1 }`, 10);
    for (let i = 0; i < 3; i++) t.call(B);
    t.call(A);
    t.call(A);
    t.runTo(1);
    expect(t.kinds(B)).toEqual([]);
    expect(t.kinds(A)).toEqual(['limited']);
    t.runTo(20);
    // B's three calls ran and answered; the limit on A still counts A's one running call only.
    expect(t.kinds(B)).toEqual(['ok', 'ok', 'ok']);
    t.call(A);
    t.runTo(21);
    expect(t.kinds(A)).toEqual(['limited', 'limited']);
    expect(t.executed).toEqual([B, B, B, A]);
  });

  it('methods.<m>.executes limits one method (method level over service level)', () => {
    const t = processWith(`    exports:\n      ${A}: { executes: 5, methods: { slow: { executes: 2 } } }`, 10);
    for (let i = 0; i < 3; i++) t.call(A);
    t.runTo(1);
    expect(t.executed).toEqual([A, A]);
    expect(t.kinds(A)).toEqual(['limited']);
  });

  it('TpsLimitFilter (tps, tps.interval) allows `tps` calls per interval and refuses the rest until the interval has passed', () => {
    const t = processWith(`    exports:\n      ${B}: { tps: 2, tps.interval: 1000ms }`, 10);
    for (let i = 0; i < 3; i++) t.call(B);
    t.runTo(100);
    expect(t.kinds(B).sort()).toEqual(['limited', 'ok', 'ok']);
    const refused = t.replies.find((r) => r.reply.kind === 'limited')!.reply;
    expect(refused.kind === 'limited' && [refused.filter, refused.detail]).toEqual([
      'tps',
      `Failed to invoke service ${B}.fast because exceed max service tps.`,
    ]);
    // StatItem resets only when now > lastResetTime + interval (whole Java milliseconds): at 1000 ms
    // (and 1000.5 ms) still refused, at 1001 ms allowed.
    t.runTo(1000.5);
    t.call(B);
    t.runTo(1001);
    t.call(B);
    t.runTo(1100);
    expect(t.kinds(B).slice(3)).toEqual(['limited', 'ok']);
  });

  it('TpsLimitFilter of a 2.7 provider throws its refusal (2.7 TpsLimitFilter.java:48): a reply the consumer gets as SERVICE_ERROR', () => {
    const t = processWith(`    dubbo: '2.7'\n    exports:\n      ${B}: { tps: 1, tps.interval: 1000ms }`, 10);
    for (let i = 0; i < 2; i++) t.call(B);
    t.runTo(100);
    const refused = t.replies.find((r) => r.reply.kind === 'limited')!.reply;
    const head = `org.apache.dubbo.rpc.RpcException: Failed to invoke service ${B}.fast because exceed max service tps.`;
    expect(refused).toEqual({
      kind: 'limited',
      filter: 'tps',
      detail: `${head}\n${head}\n\tat org.apache.dubbo.rpc.filter.TpsLimitFilter.invoke(TpsLimitFilter.java:48)\n`,
      thrown: true,
    });
  });

  it('dynamic isolation moves a method with more than `concurrency` calls and a slow mean time out, and back after `restoreAfter` of normal time', () => {
    const t = processWith(
      `    isolation:\n      dynamic: { concurrency: 1, rt: 300ms, threads: 1, window: 2s, restoreAfter: 3s }`,
      10,
    );
    // Three slow calls at once: nothing has finished, so no mean time yet and no move.
    for (let i = 0; i < 3; i++) t.call(A);
    t.runTo(0);
    expect(t.events.get('isolation.movedOut')).toBeUndefined();
    expect(t.p.pool.inUse).toBe(3);
    // At 1000 ms they finish (1000 ms > 300 ms) while the others still run: moved out at the first finish.
    t.runTo(999);
    t.call(A); // still into the shared pool
    t.runTo(1000);
    expect(t.events.get('isolation.movedOut')).toBe(1);
    // Now A goes to its own one-thread pool: the second call at once is rejected there; B is untouched.
    t.call(A);
    t.call(A);
    t.call(B);
    t.runTo(1001);
    expect(t.kinds(A)).toEqual(['ok', 'ok', 'ok', 'exhausted']);
    expect(t.kinds(B)).toEqual([]);
    // A becomes fast (a 0.1 slowdown factor: 100 ms); once the 2 s window holds only fast calls the
    // mean is normal, and 3 s of normal mean later A moves back.
    t.p.group.slowdown.set('*', 0.1);
    let now = 2500;
    for (; now <= 9000; now += 500) {
      t.runTo(now);
      t.call(A);
    }
    t.runTo(now);
    expect(t.events.get('isolation.movedBack')).toBe(1);
  });
});
