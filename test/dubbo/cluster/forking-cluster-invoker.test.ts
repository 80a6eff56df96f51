import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { errorOf, fail, invocation, ok, runCall, setup } from './fixtures.js';

const forking = clusters.forking!;

describe('ForkingClusterInvoker', () => {
  it('returns the first success while the losing forks keep running to their end', () => {
    const { sim, cluster, log } = setup({
      cluster: forking,
      consumer: { forks: '3' },
      scripts: [ok('fast', 10), ok('slow', 300), fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 500)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'fast' });
    expect(endMs).toBe(10);
    expect(log.map((r) => [r.invoker.name, r.startMs, r.endMs])).toEqual([
      ['p0', 0, 10],
      ['p1', 0, 300],
      ['p2', 0, 500],
    ]);
  });

  it('waits for a success after earlier failures', () => {
    const { sim, cluster } = setup({
      cluster: forking,
      scripts: [fail(RpcCode.NETWORK_EXCEPTION, 'refused', 1), ok('second', 50)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'second' });
    expect(endMs).toBe(50);
  });

  it('fails only when every fork failed, with the last error and the forked providers', () => {
    const { sim, cluster } = setup({
      cluster: forking,
      scripts: [fail(RpcCode.NETWORK_EXCEPTION, 'refused', 1), fail(RpcCode.TIMEOUT_EXCEPTION, 'timed out', 40)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    const error = errorOf(result);
    expect(endMs).toBe(40);
    expect(error.code).toBe(RpcCode.TIMEOUT_EXCEPTION);
    expect(error.message).toBe(
      'Failed to forking invoke provider [com.example.DemoService -> 10.0.0.1:20880, com.example.DemoService -> 10.0.0.2:20880], ' +
        'but no luck to perform the invocation. Last error is: timed out',
    );
  });

  it('fails the call with the NullPointerException Dubbo users get when no fork answers before the timeout, and counts it', () => {
    // ForkingClusterInvoker.java lines 115 and 126: `poll(timeout)` gives null and doInvoke returns it; the
    // consumer's cluster filter chain then throws in FilterChainBuilder.CopyOfFilterChainNode.invoke
    // (lines 349-354: `asyncResult.getClass()` on the null result) and the caller gets that exception.
    const { sim, runtime, cluster, log } = setup({
      cluster: forking,
      consumer: { timeout: '1000' },
      scripts: [ok('too late', 2000), ok('too late', 3000)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: RpcCode.UNKNOWN_EXCEPTION,
        message: 'java.lang.NullPointerException: Cannot invoke "Object.getClass()" because "asyncResult" is null',
        cause: 'forking:pollTimeout',
      },
    });
    expect(endMs).toBe(1000);
    expect(runtime.counters.get('forking.pollTimeout')).toBe(1);
    expect(log.map((r) => r.endMs)).toEqual([2000, 3000]);
  });

  it('forks to `forks` distinct providers when there are more', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { sim, cluster, log } = setup({
        cluster: forking,
        seed,
        consumer: { forks: '3' },
        scripts: Array.from({ length: 6 }, () => fail(RpcCode.NETWORK_EXCEPTION)),
      });
      runCall(sim, cluster.invoke(invocation()));
      expect(new Set(log.map((r) => r.invoker.name)).size).toBe(3);
      expect(log).toHaveLength(3);
    }
  });

  it('forks to every provider when forks <= 0', () => {
    const { sim, cluster, log } = setup({
      cluster: forking,
      consumer: { forks: '0' },
      scripts: Array.from({ length: 4 }, () => ok('x', 5)),
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.invoker.name)).toEqual(['p0', 'p1', 'p2', 'p3']);
  });

  it('stops looking for distinct forks when the only unselected providers are unavailable', () => {
    const { sim, runtime, cluster, log } = setup({
      cluster: forking,
      consumer: { forks: '2' },
      scripts: [ok('a'), ok('b'), ok('c')],
      available: [true, false, false],
      ignoreInvalidation: true,
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'a' });
    expect(log.map((r) => r.invoker.name)).toEqual(['p0']);
    expect(runtime.counters.get('forking.selectCapped')).toBe(1);
  });
});
