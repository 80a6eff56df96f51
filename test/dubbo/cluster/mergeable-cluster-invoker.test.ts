import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { DUBBO_2_7 } from '../../../src/dubbo/release.js';
import { biz, errorOf, fail, invocation, ok, runCall, SERVICE, setup, type Answer } from './fixtures.js';

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

  // With a merger: MergeableClusterInvoker.java (3.3) lines 95-142.
  const failedFuture = (message: string, delayMs: number, code = RpcCode.TIMEOUT_EXCEPTION): Answer => ({
    delayMs,
    result: { kind: 'ok', failedFuture: { code, message, cause: 'timeout' } },
  });

  it('with a merger calls every group asynchronously (the `async` attachment, :97) and collects the values', () => {
    const { sim, cluster, log } = setup({
      cluster: mergeable,
      consumer: { merger: 'true' },
      scripts: [ok('a', 30), ok('b', 10), ok('c', 20)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: ['a', 'b', 'c'] });
    expect(endMs).toBe(30);
    expect(log.map((r) => r.startMs)).toEqual([0, 0, 0]);
    expect(log.map((r) => r.invocation.getAttachment('async'))).toEqual(['true', 'true', 'true']);
  });

  it('with a merger fails the whole call when one group`s future failed, code 0 "Failed to invoke service <key>: <cause>" (:119-136)', () => {
    const { sim, cluster, log } = setup({
      cluster: mergeable,
      consumer: { merger: 'true' },
      scripts: [ok('a', 30), failedFuture('org.apache.dubbo.remoting.TimeoutException: Waiting server-side response timeout by scan timer.', 10), ok('c', 20)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result)).toEqual({
      code: RpcCode.UNKNOWN_EXCEPTION,
      message: `Failed to invoke service ${SERVICE}: org.apache.dubbo.remoting.TimeoutException: Waiting server-side response timeout by scan timer.`,
      cause: 'timeout',
    });
    // The futures are waited for in turn: the first group's until 30 ms, then the failed one.
    expect(endMs).toBe(30);
    expect(log).toHaveLength(3);
  });

  it('with a merger drops a group whose result carries a biz exception (:123-129); with none left, the empty result', () => {
    const one = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts: [biz(), ok('b')] });
    expect(runCall(one.sim, one.cluster.invoke(invocation())).result).toEqual({ kind: 'ok', value: 'b' });
    const none = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts: [biz(), biz()] });
    expect(runCall(none.sim, none.cluster.invoke(invocation())).result).toEqual({ kind: 'ok', value: null });
  });

  it('with a merger, 3.3: a group whose result carries an RpcException (a TPS refusal) fails the call, rethrown into its future by RpcExceptionFilter; 2.7 drops it', () => {
    const tps: Answer = { result: { kind: 'ok', bizException: 'because exceed max service tps.', limited: 'tps' } };
    const v33 = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts: [ok('a'), tps] });
    expect(errorOf(runCall(v33.sim, v33.cluster.invoke(invocation())).result)).toMatchObject({
      code: 0,
      message: `Failed to invoke service ${SERVICE}: org.apache.dubbo.rpc.RpcException: because exceed max service tps.`,
    });
    const v27 = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts: [ok('a'), tps], release: DUBBO_2_7 });
    expect(runCall(v27.sim, v27.cluster.invoke(invocation())).result).toEqual({ kind: 'ok', value: 'a' });
  });

  it('with a merger, an error thrown at send fails the call at once: the later groups are never called (:110-111)', () => {
    const { sim, cluster, log } = setup({
      cluster: mergeable,
      consumer: { merger: 'true' },
      scripts: [ok('a', 30), fail(RpcCode.NETWORK_EXCEPTION, 'channel is closed'), ok('c')],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result)).toEqual({ code: RpcCode.NETWORK_EXCEPTION, message: 'channel is closed' });
    expect(endMs).toBe(0);
    expect(log.map((r) => r.invoker.name)).toEqual(['p0', 'p1']);
  });

  it('with a merger, 3.3 skips a group with no provider (code 6, :100-109); 2.7 fails the call (2.7 :88-92 catches nothing)', () => {
    const scripts = [fail(RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER, 'No provider available'), ok('b')];
    const v33 = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts });
    expect(runCall(v33.sim, v33.cluster.invoke(invocation())).result).toEqual({ kind: 'ok', value: 'b' });
    const v27 = setup({ cluster: mergeable, consumer: { merger: 'true' }, scripts, release: DUBBO_2_7 });
    expect(errorOf(runCall(v27.sim, v27.cluster.invoke(invocation())).result).code).toBe(RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER);
  });
});
