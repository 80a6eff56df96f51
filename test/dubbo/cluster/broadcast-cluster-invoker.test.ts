import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { biz, errorOf, fail, invocation, ok, runCall, setup } from './fixtures.js';

const broadcast = clusters.broadcast!;
const fourFailures = () => Array.from({ length: 4 }, (_, i) => fail(RpcCode.NETWORK_EXCEPTION, `failure ${i}`, 10));

describe('BroadcastClusterInvoker', () => {
  it('calls every provider one after the other and returns the last result', () => {
    const { sim, cluster, log } = setup({ cluster: broadcast, scripts: [ok('a', 10), ok('b', 10), ok('c', 10)] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'c' });
    expect(log.map((r) => [r.invoker.name, r.startMs])).toEqual([
      ['p0', 0],
      ['p1', 10],
      ['p2', 20],
    ]);
  });

  it('gives each provider its own copy of the invocation', () => {
    const { sim, cluster, log } = setup({ cluster: broadcast, scripts: [ok('a'), ok('b')] });
    const inv = invocation();
    runCall(sim, cluster.invoke(inv));
    expect(log[0]!.invocation).not.toBe(inv);
    expect(log[0]!.invocation).not.toBe(log[1]!.invocation);
  });

  it('stops at broadcast.fail.percent of the list and fails with the last error', () => {
    const { sim, cluster, log } = setup({
      cluster: broadcast,
      consumer: { 'broadcast.fail.percent': '50' },
      scripts: fourFailures(),
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(2);
    expect(errorOf(result).message).toBe('failure 1');
  });

  it('treats broadcast.fail.percent=0 like 100: every provider is called', () => {
    const { sim, cluster, log } = setup({
      cluster: broadcast,
      consumer: { 'broadcast.fail.percent': '0' },
      scripts: fourFailures(),
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(4);
    expect(errorOf(result).message).toBe('failure 3');
  });

  it('resets an out-of-range broadcast.fail.percent to 100', () => {
    const { sim, cluster, log } = setup({
      cluster: broadcast,
      consumer: { 'broadcast.fail.percent': '150' },
      scripts: fourFailures(),
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(4);
  });

  it('counts a business exception result as a failure (code 0, its message)', () => {
    const { sim, cluster, log } = setup({ cluster: broadcast, scripts: [ok('a'), biz('IllegalStateException: stale'), ok('c')] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(3);
    expect(errorOf(result)).toMatchObject({ code: RpcCode.UNKNOWN_EXCEPTION, message: 'IllegalStateException: stale' });
  });
});
