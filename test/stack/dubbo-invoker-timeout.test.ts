/**
 * How DubboInvoker reads and writes an attempt's timeout, per release: a URL value of 0 or less is the
 * default 1000 ms (RpcUtils.getTimeout with `getMethodPositiveParameter`), a `timeout` attachment is
 * taken as is (`convertToNumber`), and 3.3 writes the attempt's timeout into the attachment, which a
 * failover retry then reads before its own URL.
 */
import { describe, expect, it } from 'vitest';
import { FailoverClusterInvoker } from '../../src/dubbo/cluster/failover-cluster-invoker.js';
import { StaticDirectory } from '../../src/dubbo/directory/directory.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../src/dubbo/release.js';
import { URL } from '../../src/dubbo/url.js';
import { attachedTimeout } from '../../src/stack/dubbo-invoker.js';
import { protocolWorld, runToEnd as run, type StubProvider } from './protocol-fixtures.js';

const EXACT_2_7: DubboRelease = { ...DUBBO_2_7, timeoutDetection: 'exact' };
const world = (release: DubboRelease, providers: StubProvider[]) => protocolWorld(release, providers, '&loadbalance=first&retries=1');

describe('a timeout of 0 or less', () => {
  it.each([DUBBO_3_3, DUBBO_2_7])('on the URL is the default 1000 ms (%s: RpcUtils.java:280, URL.java:896-902 getMethodPositiveParameter)', (release) => {
    const w = world(release, [{ params: 'timeout=0', serviceMs: null }, { params: 'timeout=-5', serviceMs: null }, { params: 'reserve.timeout=0&timeout=300', serviceMs: null }]);
    expect(w.invokers.map((i) => i.timeoutMs(w.invocation()))).toEqual([1000, 1000, 1000]);
  });

  it('3.3: every call of a `timeout: 0` reference is sent, and times out after 1000 ms (the probe failed 827 of 827)', () => {
    const w = world(DUBBO_3_3, [{ params: 'timeout=0', serviceMs: null }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation()));
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(1000);
    expect(w.log).toEqual(['10.0.1.1:20880 @1']);
  });

  it('3.3: in the `timeout` attachment stays as is and ends the attempt with TIMEOUT_TERMINATE before sending (RpcUtils.java:272-278, DubboInvoker.java:108-115)', () => {
    const w = world(DUBBO_3_3, [{ params: 'timeout=500', serviceMs: 5 }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation({ timeout: '0' })));
    expect(result).toMatchObject({ kind: 'ok', rpcException: { code: 8 } });
    expect(at).toBe(0);
    expect(w.log).toEqual([]);
  });

  it('2.7: in the `timeout` attachment is sent, and DefaultFuture waits the URL`s timeout instead (no check in 2.7 DubboInvoker.java:99-114; DefaultFuture.java:81)', () => {
    const w = world(EXACT_2_7, [{ params: 'timeout=500', serviceMs: 600 }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation({ timeout: '-1' })));
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(500);
    expect(w.log).toEqual(['10.0.1.1:20880 @1']);
  });
});

describe('a `timeout` attachment is parsed as Long.parseLong, then cast to int', () => {
  it.each([
    ['250', 250, 250],
    ['+250', 250, 250],
    ['1.5', 1000, 0],
    ['1e3', 1000, 0],
    [' 250', 1000, 0],
    ['fast', 1000, 0],
    ['4294967546', 250, 250],
  ])('"%s" gives %d ms in 3.3 (convertToNumber default, RpcUtils.java:308-327) and %d ms in 2.7 (its convertToNumber starts from 0)', (text, v33, v27) => {
    expect(attachedTimeout(text, DUBBO_3_3)).toBe(v33);
    expect(attachedTimeout(text, DUBBO_2_7)).toBe(v27);
  });
});

describe('a failover retry`s timeout', () => {
  // Provider A (timeout 1000 on its URL) never answers; B (timeout 3000) answers after 1500 ms.
  const retryOver = (release: DubboRelease) => {
    const w = world(release, [
      { params: 'timeout=1000', serviceMs: null },
      { params: 'timeout=3000', serviceMs: 1500 },
    ]);
    const directory = new StaticDirectory(w.runtime, URL.valueOf('registry://r/x?registry=static'), w.consumerUrl, w.invokers);
    const cluster = new FailoverClusterInvoker(directory, w.runtime);
    const invocation = w.invocation();
    const { result, at } = run(w.sim, cluster.invoke(invocation));
    return { result, at, log: w.log, invocation };
  };

  it('3.3: keeps the first attempt`s timeout, written into the `timeout` attachment (DubboInvoker.java:117, read first at RpcUtils.java:277)', () => {
    const { result, at, log, invocation } = retryOver(DUBBO_3_3);
    expect(log.map((l) => l.split(' ')[0])).toEqual(['10.0.1.1:20880', '10.0.1.2:20880']);
    // 1000 ms on A, then 1000 ms (not B's 3000) on B, which needs 1502 ms to answer.
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(2000);
    expect(invocation.getAttachment('timeout')).toBe('1000');
  });

  it('2.7 (retryTimeout: each): reads each attempt`s own URL (2.7 DubboInvoker.java:100 writes an attribute, not the attachment)', () => {
    const { result, at, invocation } = retryOver(EXACT_2_7);
    expect(result).toEqual({ kind: 'ok' });
    expect(at).toBe(1000 + 1502);
    expect(invocation.getAttachment('timeout')).toBeUndefined();
  });
});

describe('how a sync call`s timeout is detected, and its message', () => {
  it('3.3 (timeoutDetection: exact): the attempt ends exactly at its timeout, "Timeout after 1000ms waiting for result." (AsyncRpcResult.java:222-223, AbstractInvoker.java:327-332)', () => {
    const w = world(DUBBO_3_3, [{ params: 'timeout=1000', serviceMs: null }]);
    w.sim.schedule(7, () => undefined);
    w.sim.run();
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation()));
    expect(at).toBe(1007);
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: 2,
        message: `Invoke remote method timeout. method: reserve, provider: ${w.invokers[0]!.getUrl()}, cause: Timeout after 1000ms waiting for result.`,
        cause: 'timeout',
      },
    });
  });

  it('2.7 (timeoutDetection: timer): the 30 ms wheel ends it, 0-30 ms late, with the scan timer`s message (DefaultFuture.java:245-256, AsyncToSyncInvoker.java:61,69-71)', () => {
    const w = world(DUBBO_2_7, [{ params: 'timeout=1000', serviceMs: null }]);
    // The JVM's first request, at 7 ms, started the wheel; this one leaves at 20 ms.
    w.timer.sent(7);
    w.sim.schedule(20, () => undefined);
    w.sim.run();
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation()));
    // Deadline 1020 = 7 + 1013 → tick 33 (997..1027 after the start) ends at 7 + 34 x 30 = 1027.
    expect(at).toBe(1027);
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: 2,
        message:
          `Invoke remote method timeout. method: reserve, provider: ${w.invokers[0]!.getUrl()}, cause: ` +
          'org.apache.dubbo.remoting.TimeoutException: Waiting server-side response timeout by scan timer. ' +
          'start time: 2026-01-01 00:00:00.020, end time: 2026-01-01 00:00:01.027, client elapsed: 0 ms, server elapsed: 1007 ms, ' +
          'timeout: 1000 ms, request: Request [id=1, version=2.0.2, twoway=true, event=false, broken=false, data=null], ' +
          'channel: /10.0.0.9 -> /10.0.1.1:20880',
        cause: 'timeout',
      },
    });
  });
});
