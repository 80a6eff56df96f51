import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { fail, invocation, ok, runCall, setup } from './fixtures.js';

const failback = clusters.failback!;

describe('FailbackClusterInvoker', () => {
  it('returns an empty result as soon as the call fails', () => {
    const { sim, cluster } = setup({ cluster: failback, scripts: [fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000)] });
    const proc = sim.process(cluster.invoke(invocation()));
    sim.run({ until: 1000 });
    expect(proc.value).toEqual({ kind: 'ok', value: null });
  });

  // FailbackClusterInvoker.java lines 94-106: a HashedWheelTimer with 1 s ticks, created at the first
  // failure, and newTimeout(task, 5, SECONDS). HashedWheelTimer.java: the timeout goes to the bucket of
  // tick floor(deadline / 1 s) (deadline counted from the timer's start, lines 405 and 490), and the
  // worker expires that bucket once the clock reaches the end of that tick (waitForNextTick, line 526).
  // A timeout added 5 s after a tick boundary, as the first one is, therefore fires after 6 s.
  it('schedules the default 3 background retries on the 1 s timer ticks after 5 s (+6 s each here), then abandons', () => {
    const { sim, runtime, cluster, log } = setup({ cluster: failback, scripts: [fail(RpcCode.NETWORK_EXCEPTION)] });
    runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.startMs)).toEqual([0, 6000, 12000, 18000]);
    expect(runtime.counters.get('failback.retry')).toBe(3);
    expect(runtime.counters.get('failback.abandoned')).toBe(1);
  });

  it('counts each 5 s period from the end of the failed attempt, rounded up to the next timer tick', () => {
    const { sim, cluster, log } = setup({
      cluster: failback,
      consumer: { retries: '2' },
      scripts: [fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000)],
    });
    runCall(sim, cluster.invoke(invocation()));
    // Timer started at 1000 (first failure): deadline 5000 → tick 5 → 1000 + 6000. The retry times out at
    // 8000: deadline 7000 + 5000 → tick 12 → 1000 + 13000.
    expect(log.map((r) => r.startMs)).toEqual([0, 7000, 14000]);
  });

  it('keeps its ticks from the timer\'s start: a later failure waits between 5 and 6 s', () => {
    const { sim, cluster, log } = setup({
      cluster: failback,
      consumer: { retries: '1' },
      scripts: [fail(RpcCode.NETWORK_EXCEPTION, 'refused', 300)],
    });
    sim.process(cluster.invoke(invocation()));
    sim.schedule(2500, () => sim.process(cluster.invoke(invocation())));
    sim.run();
    // Timer started at 300. Second failure at 2800: deadline 2500 + 5000 → tick 7 → 300 + 8000 = 8300.
    expect(log.map((r) => r.startMs)).toEqual([0, 2500, 6300, 8300]);
  });

  it('runs due retries one after another on the timer\'s single worker, each blocking it until it ends', () => {
    // Three calls fail at once; every retry times out after 1000 ms. HashedWheelBucket.expireTimeouts
    // (HashedWheelTimer.java lines 724-733) runs each expired task on the worker thread, and RetryTimerTask
    // invokes synchronously (AbstractInvoker.waitForResultIfSync), so the three retries due at 6 s start
    // at 6, 7 and 8 s. Each failed retry is re-put 5 s after it ended: ticks 12, 13 and 14.
    const { sim, runtime, cluster, log } = setup({
      cluster: failback,
      consumer: { retries: '2' },
      scripts: [(attempt) => (attempt < 3 ? fail(RpcCode.NETWORK_EXCEPTION) : fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000))],
    });
    for (let i = 0; i < 3; i++) sim.process(cluster.invoke(invocation()));
    sim.run();
    expect(log.map((r) => [r.startMs, r.endMs])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [6000, 7000],
      [7000, 8000],
      [8000, 9000],
      [13000, 14000],
      [14000, 15000],
      [15000, 16000],
    ]);
    expect(runtime.counters.get('failback.abandoned')).toBe(3);
  });

  it('retries on another provider than the last one tried, from the original list', () => {
    const { sim, cluster, log } = setup({
      cluster: failback,
      scripts: [fail(RpcCode.NETWORK_EXCEPTION), fail(RpcCode.NETWORK_EXCEPTION)],
    });
    runCall(sim, cluster.invoke(invocation()));
    const names = log.map((r) => r.invoker.name);
    expect(names).toHaveLength(4);
    for (let i = 1; i < names.length; i++) expect(names[i]).not.toBe(names[i - 1]);
  });

  it('stops retrying once a retry succeeds', () => {
    const { sim, runtime, cluster, log } = setup({
      cluster: failback,
      scripts: [(attempt) => (attempt === 0 ? fail(RpcCode.NETWORK_EXCEPTION) : ok('done'))],
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.startMs)).toEqual([0, 6000]);
    expect(runtime.counters.get('failback.abandoned')).toBeUndefined();
  });

  it('drops failures beyond `failbacktasks` pending retries', () => {
    const { sim, runtime, cluster, log } = setup({
      cluster: failback,
      consumer: { failbacktasks: '2', retries: '1' },
      scripts: [fail(RpcCode.NETWORK_EXCEPTION)],
    });
    for (let i = 0; i < 3; i++) sim.process(cluster.invoke(invocation()));
    sim.run();
    expect(runtime.counters.get('failback.rejected')).toBe(1);
    expect(log.filter((r) => r.startMs === 6000)).toHaveLength(2);
  });

  it('does not return a success as an empty result', () => {
    const { sim, cluster, log } = setup({ cluster: failback, scripts: [ok('fine', 3)] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'fine' });
    expect(log).toHaveLength(1);
  });
});
