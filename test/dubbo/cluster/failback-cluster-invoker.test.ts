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

  it('schedules the default 3 background retries at +5 s each, then abandons', () => {
    const { sim, runtime, cluster, log } = setup({ cluster: failback, scripts: [fail(RpcCode.NETWORK_EXCEPTION)] });
    runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.startMs)).toEqual([0, 5000, 10000, 15000]);
    expect(runtime.counters.get('failback.retry')).toBe(3);
    expect(runtime.counters.get('failback.abandoned')).toBe(1);
  });

  it('counts each 5 s period from the end of the failed attempt', () => {
    const { sim, cluster, log } = setup({
      cluster: failback,
      consumer: { retries: '2' },
      scripts: [fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000)],
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.startMs)).toEqual([0, 6000, 12000]);
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
    expect(log.map((r) => r.startMs)).toEqual([0, 5000]);
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
    expect(log.filter((r) => r.startMs === 5000)).toHaveLength(2);
  });

  it('does not return a success as an empty result', () => {
    const { sim, cluster, log } = setup({ cluster: failback, scripts: [ok('fine', 3)] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'fine' });
    expect(log).toHaveLength(1);
  });
});
