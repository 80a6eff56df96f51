/**
 * MockClusterInvoker and MockInvoker against Dubbo's code:
 * - 3.3 MockClusterInvoker.java:102-107 (`mock` read for the method, default "false"; ConfigUtils.isEmpty
 *   :63-69 means no mock), :108-118 (force: doMockInvoke, no provider called), :121-149 (fail: a
 *   result carrying an RpcException or a thrown one is mocked unless it is a business one),
 *   :155-194 (doMockInvoke: listed with invocation.need.mock=true, first mock invoker else a
 *   MockInvoker on the consumer URL; "mock error : ..." for a failing mock);
 * - 2.7.23 MockClusterInvoker.java:95-97 (no mock only for empty or "false");
 * - MockInvoker.java:100-138 (return / throw / implementation) and :233-265 (normalizeMock).
 */
import { describe, expect, it } from 'vitest';
import { clusters } from '../../../src/dubbo/extensions.js';
import { isNoMock, mockCauseOf, MockClusterInvoker } from '../../../src/dubbo/cluster/mock-cluster-invoker.js';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { StaticDirectory } from '../../../src/dubbo/directory/directory.js';
import { isJavaClassName, normalizeMock } from '../../../src/dubbo/mock-invoker.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../../src/dubbo/release.js';
import { INVOCATION_NEED_MOCK } from '../../../src/dubbo/router/mock-invokers-selector.js';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import { buildRouterChain } from '../../../src/stack/build-router-chain.js';
import { classify } from '../../../src/stack/consumer-stack.js';
import {
  biz,
  consumerUrl,
  errorOf,
  fail,
  invocation,
  ok,
  providerUrl,
  registryUrl,
  runCall,
  ScriptedInvoker,
  SERVICE,
  type Answer,
  type AttemptRecord,
} from './fixtures.js';

/** A failover cluster (2 retries, 3 providers) wrapped in MockClusterInvoker, for one release. */
function mocked(mock: Record<string, string>, answers: Answer[], release: DubboRelease = DUBBO_3_3) {
  const sim = new Simulation();
  const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('consumer'), consumerHost: '10.10.0.1', release });
  const cUrl = consumerUrl(mock);
  const log: AttemptRecord[] = [];
  const providers = answers.map((a, i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script: () => a, log }));
  const directory = new StaticDirectory(runtime, registryUrl(), cUrl, providers, buildRouterChain([], { service: SERVICE, runtime }));
  const cluster = new MockClusterInvoker(directory, clusters.failover!(directory, runtime), runtime);
  return { sim, cluster, log, directory, providers };
}

const timeouts = (delayMs = 1000) => [0, 1, 2].map(() => fail(RpcCode.TIMEOUT_EXCEPTION, 'Invoke remote method timeout', delayMs));

describe('MockClusterInvoker', () => {
  it('calls the cluster as is without mock or with mock=false (MockClusterInvoker.java:105-107)', () => {
    for (const mock of [{}, { mock: 'false' }, { mock: 'FALSE' }, { mock: '' }] as Array<Record<string, string>>) {
      const { sim, cluster, log } = mocked(mock, timeouts());
      const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
      expect(errorOf(result).code).toBe(RpcCode.TIMEOUT_EXCEPTION);
      expect(log).toHaveLength(3);
      expect(endMs).toBe(3000);
      expect(mockCauseOf(result!)).toBeUndefined();
    }
  });

  it('3.3 reads 0, null and N/A as no mock (ConfigUtils.isEmpty, ConfigUtils.java:63-69); 2.7.23 only empty and false (MockClusterInvoker.java:96)', () => {
    for (const value of ['0', 'null', 'N/A', 'n/a', 'false', '']) expect(isNoMock(value, '3.3'), value).toBe(true);
    expect(['0', 'null', 'N/A'].map((v) => isNoMock(v, '2.7'))).toEqual([false, false, false]);
    expect(['', 'false', 'False'].map((v) => isNoMock(v, '2.7'))).toEqual([true, true, true]);
    // Under 2.7.23 mock=0 is a fail mock whose implementation class "0" cannot exist: the failed call
    // ends with the mock's own error, code 0, the call's exception appended.
    const { sim, cluster, log } = mocked({ mock: '0' }, timeouts(), DUBBO_2_7);
    const error = errorOf(runCall(sim, cluster.invoke(invocation())).result);
    expect(log).toHaveLength(3);
    expect(error.code).toBe(RpcCode.UNKNOWN_EXCEPTION);
    expect(error.message).toMatch(/^mock error : Failed to create mock implementation class 0, invoke error is :org\.apache\.dubbo\.rpc\.RpcException: /);
    expect(classify({ kind: 'error', error }).outcome).toBe('network');
    // 3.3: the same value is no mock at all.
    const v33 = mocked({ mock: '0' }, timeouts(), DUBBO_3_3);
    expect(errorOf(runCall(v33.sim, v33.cluster.invoke(invocation())).result).code).toBe(RpcCode.TIMEOUT_EXCEPTION);
  });

  it('force: answers at once without calling any provider (MockClusterInvoker.java:108-118)', () => {
    const { sim, cluster, log } = mocked({ mock: 'force:return null' }, timeouts());
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(0);
    expect(endMs).toBe(0);
    expect(result).toEqual({ kind: 'ok', value: null, mocked: 'force:return' });
    expect(classify(result!)).toEqual({ outcome: 'mock', cause: 'force:return' });
  });

  it('fail: answers after the cluster has failed, retries included (MockClusterInvoker.java:134-148)', () => {
    const { sim, cluster, log } = mocked({ mock: 'fail:return {"name":"guest"}' }, timeouts(1000));
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(log.map((r) => r.invoker.name).sort()).toEqual(['p0', 'p1', 'p2']);
    expect(endMs).toBe(3000);
    expect(result).toEqual({ kind: 'ok', value: '{"name":"guest"}', mocked: 'fail:return' });
  });

  it('fail: a call that succeeds is not mocked, and `return …` without a prefix is a fail mock', () => {
    const { sim, cluster, log } = mocked({ mock: 'return 42' }, [fail(RpcCode.NETWORK_EXCEPTION), ok('real')]);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toMatchObject({ kind: 'ok', value: 'real' });
    expect(mockCauseOf(result!)).toBeUndefined();
    expect(log.length).toBeGreaterThanOrEqual(1);
  });

  it('fail: a business RpcException (code 3) goes to the caller unmocked (MockClusterInvoker.java:135-137)', () => {
    const { sim, cluster } = mocked({ mock: 'fail:return null' }, [fail(RpcCode.BIZ_EXCEPTION, 'bad id')]);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result)).toMatchObject({ code: RpcCode.BIZ_EXCEPTION, message: 'bad id' });
    expect(classify(result!).outcome).toBe('biz');
  });

  it('fail: a Throwable that is no RpcException passes unmocked: forking\'s poll timeout (NullPointerException, MockClusterInvoker.java:134 catches RpcException only)', () => {
    const sim = new Simulation();
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('consumer'), consumerHost: '10.10.0.1' });
    const cUrl = consumerUrl({ mock: 'fail:return null', timeout: '100' });
    const log: AttemptRecord[] = [];
    const providers = [0, 1].map((i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script: () => ok('late', 500), log }));
    const directory = new StaticDirectory(runtime, registryUrl(), cUrl, providers, buildRouterChain([], { service: SERVICE, runtime }));
    const cluster = new MockClusterInvoker(directory, clusters.forking!(directory, runtime), runtime);
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()), 200);
    expect(endMs).toBe(100);
    expect(errorOf(result).cause).toBe('forking:pollTimeout');
    expect(mockCauseOf(result!)).toBeUndefined();
  });

  it("fail: a provider's business exception in the result is returned as is (not an RpcException)", () => {
    const { sim, cluster } = mocked({ mock: 'fail:return null' }, [biz('IllegalArgumentException: bad id')]);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toMatchObject({ kind: 'ok', bizException: 'IllegalArgumentException: bad id' });
    expect(classify(result!).outcome).toBe('biz');
  });

  it('fail: a result that carries an RpcException is mocked, TpsLimitFilter refusal and TIMEOUT_TERMINATE (MockClusterInvoker.java:125-132, fix #4585)', () => {
    const tps: Answer = { result: { kind: 'ok', bizException: 'Failed to invoke service ... because exceed max service tps.', limited: 'tps' } };
    const terminate: Answer = {
      result: { kind: 'ok', bizException: 'no time left', rpcException: { code: RpcCode.TIMEOUT_TERMINATE, message: 'no time left' } },
    };
    for (const answer of [tps, terminate]) {
      const { sim, cluster, log } = mocked({ mock: 'fail:return null' }, [answer]);
      const { result } = runCall(sim, cluster.invoke(invocation()));
      // Failover does not retry a result: one attempt, then the mock.
      expect(log).toHaveLength(1);
      expect(classify(result!)).toEqual({ outcome: 'mock', cause: 'fail:return' });
    }
    // A result carrying a business RpcException is thrown to the caller (MockClusterInvoker.java:127-128).
    const bizCarried: Answer = { result: { kind: 'ok', bizException: 'x', rpcException: { code: RpcCode.BIZ_EXCEPTION, message: 'x' } } };
    const { sim, cluster } = mocked({ mock: 'fail:return null' }, [bizCarried]);
    expect(errorOf(runCall(sim, cluster.invoke(invocation())).result).code).toBe(RpcCode.BIZ_EXCEPTION);
  });

  it('throw: the RpcException "mocked exception for service degradation." as a mock error, code 0 (MockInvoker.java:122-125, MockClusterInvoker.java:173-176)', () => {
    const force = mocked({ mock: 'force:throw' }, timeouts());
    const forced = errorOf(runCall(force.sim, force.cluster.invoke(invocation())).result);
    expect(forced).toEqual({ code: 0, message: 'mock error : mocked exception for service degradation.', cause: 'mock:force:throw' });
    expect(force.log).toHaveLength(0);
    const failMock = mocked({ mock: 'fail:throw' }, timeouts());
    const failed = errorOf(runCall(failMock.sim, failMock.cluster.invoke(invocation())).result);
    expect(failed.message).toMatch(/^mock error : mocked exception for service degradation\., invoke error is :org\.apache\.dubbo\.rpc\.RpcException: /);
    expect(classify({ kind: 'error', error: failed })).toEqual({ outcome: 'mock', cause: 'fail:throw' });
  });

  it('throw <class>: the caller gets that exception in the result (RpcException BIZ, MockClusterInvoker.java:171-172)', () => {
    const { sim, cluster } = mocked({ mock: 'force:throw com.example.DegradedException' }, timeouts());
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({
      kind: 'ok',
      bizException: 'com.example.DegradedException: mocked exception for service degradation.',
      mocked: 'force:throw',
    });
  });

  it('true / default / a class: the mock implementation answers; a name no class can have fails the mock (MockInvoker.java:130-136)', () => {
    for (const mock of ['true', 'default', 'force', 'fail', 'force:com.example.DemoServiceMock', 'com.example.DemoServiceMock']) {
      const { sim, cluster } = mocked({ mock }, timeouts());
      const { result } = runCall(sim, cluster.invoke(invocation()));
      expect(classify(result!).cause, mock).toMatch(/^(force|fail):impl$/);
    }
    // "force:return" normalizes to "return", which is not "return <value>": an implementation class named
    // `return`, which Java cannot have.
    const { sim, cluster } = mocked({ mock: 'force:return' }, timeouts());
    const error = errorOf(runCall(sim, cluster.invoke(invocation())).result);
    expect(error).toEqual({ code: 0, message: 'mock error : Failed to create mock implementation class return' });
    expect(classify({ kind: 'error', error }).outcome).toBe('network');
  });

  it('reads the method-level mock first (MockClusterInvoker.java:102-103, getMethodParameter)', () => {
    const { sim, cluster, log } = mocked({ mock: 'force:return 1', 'sayHello.mock': 'false' }, [ok('real')]);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toMatchObject({ kind: 'ok', value: 'real' });
    expect(log).toHaveLength(1);
    const other = new RpcInvocation({ methodName: 'other', serviceName: SERVICE });
    const forOther = runCall(sim, cluster.invoke(other));
    expect(forOther.result).toEqual({ kind: 'ok', value: '1', mocked: 'force:return' });
  });

  it('lists the directory with invocation.need.mock=true and uses its first mock:// provider, as MockInvokersSelector serves it (MockClusterInvoker.java:162-167,205-228)', () => {
    const sim = new Simulation();
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('consumer'), consumerHost: '10.10.0.1' });
    const cUrl = consumerUrl({ mock: 'force:return fromConsumer' });
    const log: AttemptRecord[] = [];
    const normal = [0, 1].map((i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script: () => ok('real'), log }));
    // A mock:// provider whose method-level mock wins over the consumer's interface-level one (ServiceAddressURL).
    const mockUrl = new ServiceAddressURL(URL.valueOf(`mock://10.0.0.9:0/${SERVICE}?interface=${SERVICE}&sayHello.mock=return+fromProvider`), cUrl);
    const mockProvider = new ScriptedInvoker({ name: 'm', url: mockUrl, sim, script: () => ok('never invoked'), log });
    const directory = new StaticDirectory(runtime, registryUrl(), cUrl, [...normal, mockProvider], buildRouterChain([], { service: SERVICE, runtime }));
    const cluster = new MockClusterInvoker(directory, clusters.failover!(directory, runtime), runtime);
    const inv = invocation();
    const { result } = runCall(sim, cluster.invoke(inv));
    expect(inv.getAttachment(INVOCATION_NEED_MOCK)).toBe('true');
    expect(log).toHaveLength(0);
    expect(result).toEqual({ kind: 'ok', value: 'fromProvider', mocked: 'force:return' });
  });
});

describe('MockInvoker.normalizeMock (MockInvoker.java:233-265)', () => {
  it.each([
    ['return', 'return null'],
    ['RETURN', 'return null'],
    ['true', 'default'],
    ['Default', 'default'],
    ['fail', 'default'],
    ['force', 'default'],
    ['fail:return x', 'return x'],
    ['force:return `x`', 'return "x"'],
    ['force:throw', 'throw'],
    ['  fail:  throw com.example.E ', 'throw com.example.E'],
    ['force:return', 'return'],
    ['com.example.DemoServiceMock', 'com.example.DemoServiceMock'],
  ])('%s -> %s', (mock, normalized) => {
    expect(normalizeMock(mock)).toBe(normalized);
  });

  it('takes dotted Java identifiers as class names, not keywords, numbers or other text', () => {
    expect(['com.example.FooMock', 'FooMock', 'a.$b_1'].every(isJavaClassName)).toBe(true);
    expect(['0', 'N/A', 'return', 'com.example.', 'a b', 'null'].some(isJavaClassName)).toBe(false);
  });
});
