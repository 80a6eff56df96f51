/**
 * RpcExceptionFilter (3.3 RpcExceptionFilter.java:44-52, on by default since 3.2.5): a result carrying
 * an RpcException is rethrown in its listener, and FilterChainBuilder.java:242-243 hands the rethrown
 * exception to the listeners outside it as onError. So ActiveLimitFilter ends its count as a failure
 * (ActiveLimitFilter.java:110, skipping a LIMIT_EXCEEDED one, :104-108) and AdaptiveLoadBalanceFilter
 * counts an error (AdaptiveLoadBalanceFilter.java:146-152). 2.7 has no such filter: the same results
 * are responses. The cluster sees the returned result either way (no failover retry).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FailoverClusterInvoker } from '../../../src/dubbo/cluster/failover-cluster-invoker.js';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { consumerFilters } from '../../../src/dubbo/filter/index.js';
import { AdaptiveMetrics } from '../../../src/dubbo/loadbalance/adaptive-metrics.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../../src/dubbo/release.js';
import type { Result } from '../../../src/dubbo/rpc.js';
import { invocation, runCall, setup, type Answer } from '../cluster/fixtures.js';

const failover = (d: ConstructorParameters<typeof FailoverClusterInvoker>[0], r: ConstructorParameters<typeof FailoverClusterInvoker>[1]) =>
  new FailoverClusterInvoker(d, r);

const TPS: Result = { kind: 'ok', bizException: 'Failed to invoke service com.example.DemoService.sayHello because exceed max service tps.', limited: 'tps' };
const TERMINATE: Result = {
  kind: 'ok',
  bizException: 'No time left',
  rpcException: { code: RpcCode.TIMEOUT_TERMINATE, message: 'No time left' },
};
const remote = (code: number): Result => ({ kind: 'ok', bizException: 'downstream', remoteRpcException: { code, message: 'downstream' } });
const BIZ: Result = { kind: 'ok', bizException: 'IllegalArgumentException' };

/** One call through failover (retries 2) to the first of three providers with `actives`, answering `result` after 40 ms. */
function callWith(release: DubboRelease, result: Result, consumer: Record<string, string> = { actives: '10' }) {
  const answer: Answer = { delayMs: 40, result };
  const t = setup({
    cluster: failover,
    scripts: [answer, answer, answer],
    consumer: { loadbalance: 'roundrobin', ...consumer },
    release,
    filters: consumerFilters(),
  });
  const inv = invocation();
  const { result: got } = runCall(t.sim, t.cluster.invoke(inv));
  const status = t.runtime.rpcStatus.getStatus(t.providers[0]!.getUrl(), 'sayHello');
  return { got, log: t.log, status };
}

describe('RpcExceptionFilter (3.3) and its absence (2.7)', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['a TpsLimitFilter refusal (TpsLimitFilter.java:48-54)', TPS],
    ['a TIMEOUT_TERMINATE result (DubboInvoker.java:108-115)', TERMINATE],
    ['a rethrown downstream RpcException (ExceptionFilter passes it through)', remote(RpcCode.TIMEOUT_EXCEPTION)],
  ])('3.3: %s ends ActiveLimitFilter`s count as a failure; 2.7: as a success', (_name, result) => {
    const v33 = callWith(DUBBO_3_3, result);
    expect([v33.status.getActive(), v33.status.getSucceeded(), v33.status.failed]).toEqual([0, 0, 1]);
    expect(v33.status.failedElapsed).toBe(40);
    const v27 = callWith(DUBBO_2_7, result);
    expect([v27.status.getActive(), v27.status.getSucceeded(), v27.status.failed]).toEqual([0, 1, 0]);
    expect(v27.status.getSucceededElapsed()).toBe(40);
  });

  it('either way the cluster returns the result as is, after one attempt (failover does not retry a returned result)', () => {
    for (const release of [DUBBO_3_3, DUBBO_2_7]) {
      const { got, log } = callWith(release, TPS);
      expect(got).toBe(TPS);
      expect(log).toHaveLength(1);
    }
  });

  it('a plain biz exception is a response in both (not an RpcException)', () => {
    for (const release of [DUBBO_3_3, DUBBO_2_7]) {
      const { status } = callWith(release, BIZ);
      expect([status.getSucceeded(), status.failed]).toEqual([1, 0]);
    }
  });

  it('3.3: a rethrown LIMIT_EXCEEDED never gives its slot back (ActiveLimitFilter.java:104-108 returns before endCount)', () => {
    const v33 = callWith(DUBBO_3_3, remote(RpcCode.LIMIT_EXCEEDED_EXCEPTION));
    expect([v33.status.getActive(), v33.status.getSucceeded(), v33.status.failed]).toEqual([1, 0, 0]);
    const v27 = callWith(DUBBO_2_7, remote(RpcCode.LIMIT_EXCEEDED_EXCEPTION));
    expect([v27.status.getActive(), v27.status.getSucceeded()]).toEqual([0, 1]);
  });

  it('3.3 with loadbalance=adaptive: AdaptiveLoadBalanceFilter counts an error, no success and no report; with the filter off, a success', () => {
    const errors = vi.spyOn(AdaptiveMetrics.prototype, 'addErrorReq');
    const successes = vi.spyOn(AdaptiveMetrics.prototype, 'addConsumerSuccess');
    const reports = vi.spyOn(AdaptiveMetrics.prototype, 'setProviderMetrics');
    callWith(DUBBO_3_3, TPS, { loadbalance: 'adaptive' });
    expect([errors.mock.calls.length, successes.mock.calls.length, reports.mock.calls.length]).toEqual([1, 0, 0]);
    callWith({ ...DUBBO_3_3, rpcExceptionFilter: false }, TPS, { loadbalance: 'adaptive' });
    expect([errors.mock.calls.length, successes.mock.calls.length, reports.mock.calls.length]).toEqual([1, 1, 1]);
  });
});
