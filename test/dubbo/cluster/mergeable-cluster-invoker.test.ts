import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { errorOf, fail, invocation, ok, runCall, setup } from './fixtures.js';

const mergeable = clusters.mergeable!;

describe('MergeableClusterInvoker', () => {
  it('without a merger skips a group that has no provider (code 6) and uses the next', () => {
    const { sim, cluster, log } = setup({
      cluster: mergeable,
      scripts: [fail(RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER, 'No provider available'), ok('group b')],
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'group b' });
    expect(log.map((r) => r.invoker.name)).toEqual(['p0', 'p1']);
  });

  it('without a merger returns any other error of the first group at once', () => {
    const { sim, cluster, log } = setup({ cluster: mergeable, scripts: [fail(RpcCode.TIMEOUT_EXCEPTION), ok('b')] });
    expect(errorOf(runCall(sim, cluster.invoke(invocation())).result).code).toBe(RpcCode.TIMEOUT_EXCEPTION);
    expect(log).toHaveLength(1);
  });

  it('treats merger=false as no merger', () => {
    const { sim, cluster, log } = setup({ cluster: mergeable, consumer: { merger: 'false' }, scripts: [ok('a'), ok('b')] });
    runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(1);
  });

  it('with a merger calls every group in parallel and collects the successful values', () => {
    const { sim, cluster, log } = setup({
      cluster: mergeable,
      consumer: { merger: 'true' },
      scripts: [ok('a', 30), fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 10), ok('c', 20)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: ['a', 'c'] });
    expect(endMs).toBe(30);
    expect(log.map((r) => r.startMs)).toEqual([0, 0, 0]);
  });

  it('with a merger fails with the last error when no group succeeded', () => {
    const { sim, cluster } = setup({
      cluster: mergeable,
      consumer: { 'sayHello.merger': 'true' },
      scripts: [fail(RpcCode.NETWORK_EXCEPTION, 'refused'), fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout')],
    });
    expect(errorOf(runCall(sim, cluster.invoke(invocation())).result).code).toBe(RpcCode.TIMEOUT_EXCEPTION);
  });
});
