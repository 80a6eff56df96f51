/**
 * Dubbo's eager thread pool (`threadpool: eager`) on a provider process, against the Java:
 * - 3.3 EagerThreadPool.java:49 (`threads` unset is Integer.MAX_VALUE) and :54 (a TaskQueue of
 *   `queues`, or of 1 when `queues` <= 0); 2.7.23 EagerThreadPool.java:51,56 alike;
 * - TaskQueue.offer (3.3 TaskQueue.java:46-63; 2.7.23 :46-64): a call is queued only for an idle
 *   thread or once the pool has `threads` threads; below that the executor starts a thread, so calls
 *   run at once until `threads` are busy;
 * - EagerThreadPoolExecutor.execute (3.3 :42-59; 2.7.23 :59-84): rejected by the full pool, the call
 *   is offered to the queue once more and refused with "Queue capacity is full.", which
 *   WrappedChannelHandler.sendFeedback sends as "Server side(ip,port) thread pool is exhausted,
 *   detail msg:Queue capacity is full.";
 * - FixedThreadPool for contrast: `queues` 0 is a SynchronousQueue (no queue), the 5th call of 4
 *   threads is refused with AbortPolicyWithReport's "Thread pool is EXHAUSTED!".
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import type { IncomingCall, Reply } from '../../src/world/provider-call.js';
import { World } from '../../src/world/world.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const S = 'com.example.SlowService';

/** One provider process whose method takes 1000 ms, with `pool` YAML lines on its group. */
function processWith(pool: string) {
  const scenario = parseScenario(
    `
zones: { zoneA: {} }
network: { rtt: { same-zone: 0ms } }
registry: { type: static }
services:
  ${S}: { methods: { slow: { serviceTime: 1000ms } } }
providers:
  - name: app
    service: ${S}
    zone: zoneA
    count: 1
${pool}
consumers: []
`,
    'eager.yaml',
  );
  let executions = 0;
  const observer = quietObserver({ execution: () => executions++ });
  const world = new World(scenario, { seed: 1, observer, consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }) });
  const p = world.providerGroups[0]!.instances[0]!;
  const replies: Array<{ reply: Reply; atMs: number; index: number }> = [];
  /** Sends `n` calls at once; returns nothing, replies land in `replies` with the call's index. */
  const burst = (n: number) => {
    for (let i = 0; i < n; i++) {
      const c: IncomingCall = {
        service: S,
        method: 'slow',
        consumerZone: 'zoneA',
        request: { ended: false },
        settled: false,
        attachments: new Map(),
        deliver: (reply) => replies.push({ reply, atMs: world.sim.now, index: i }),
      };
      p.receive(c);
    }
  };
  return { world, p, burst, replies, executions: () => executions };
}

const refused = (replies: Array<{ reply: Reply; index: number }>) => replies.filter((r) => r.reply.kind === 'exhausted');

describe('threadpool: eager', () => {
  it('threads 4, queues 0: 4 calls run, 1 waits in the TaskQueue of 1, the 6th is refused with "Queue capacity is full." (EagerThreadPool.java:54, TaskQueue.java:52-62)', () => {
    const t = processWith('    threadpool: eager\n    threads: 4\n    queues: 0');
    t.burst(6);
    t.world.sim.run({ until: 1 });
    const no = refused(t.replies);
    expect(no.map((r) => r.index)).toEqual([5]);
    expect(no[0]!.reply).toEqual({ kind: 'exhausted', detail: `Server side(${t.p.ip},${t.p.port}) thread pool is exhausted, detail msg:Queue capacity is full.` });
    t.world.sim.run({ until: 3000 });
    // The queued call starts when the first thread frees, at 1000 ms, and ends at 2000 ms.
    expect(t.replies.filter((r) => r.reply.kind === 'ok').map((r) => [r.index, r.atMs])).toEqual([
      [0, 1000],
      [1, 1000],
      [2, 1000],
      [3, 1000],
      [4, 2000],
    ]);
    expect(t.executions()).toBe(5);
  });

  it('threads unset: Integer.MAX_VALUE threads, so every call of a burst runs at once (EagerThreadPool.java:49)', () => {
    const t = processWith('    threadpool: eager');
    expect(t.world.scenario.providers[0]!.threads).toBe(2_147_483_647);
    t.burst(5000);
    t.world.sim.run({ until: 1001 });
    expect(refused(t.replies)).toHaveLength(0);
    expect(t.replies.every((r) => r.atMs === 1000)).toBe(true);
    expect(t.p.pool.peakInUse).toBe(5000);
  });

  it('queues < 0 is a queue of 1 too, where fixed would queue without bound; queues > 0 bounds the TaskQueue', () => {
    for (const [pool, admitted] of [
      ['    threadpool: eager\n    threads: 2\n    queues: -1', 3],
      ['    threadpool: eager\n    threads: 2\n    queues: 3', 5],
      ['    threads: 2\n    queues: -1', 10],
    ] as const) {
      const t = processWith(pool);
      t.burst(10);
      t.world.sim.run({ until: 1 });
      expect(10 - refused(t.replies).length, pool).toBe(admitted);
    }
  });

  it('fixed, for contrast: threads 4, queues 0 refuses the 5th call with "Thread pool is EXHAUSTED!" (FixedThreadPool: SynchronousQueue)', () => {
    const t = processWith('    threads: 4\n    queues: 0');
    t.burst(6);
    t.world.sim.run({ until: 1 });
    const no = refused(t.replies);
    expect(no.map((r) => r.index)).toEqual([4, 5]);
    const r = no[0]!.reply;
    expect(r.kind === 'exhausted' && r.detail).toContain('detail msg:Thread pool is EXHAUSTED! Thread Name: DubboServerHandler-');
  });
});
