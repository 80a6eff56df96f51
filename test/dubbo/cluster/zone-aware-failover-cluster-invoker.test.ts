import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { fail, invocation, ok, runCall, setup } from './fixtures.js';

const zoneAwareFailover = clusters.zoneAwareFailover!;
const zoneOf = (name: string): string => (Number(name.slice(1)) % 2 === 0 ? 'zoneA' : 'zoneB');

describe('ZoneAwareFailoverClusterInvoker', () => {
  it('fails over inside the consumer zone until every local provider was tried, then crosses', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { sim, runtime, cluster, log } = setup({
        cluster: zoneAwareFailover,
        seed,
        consumer: { zone: 'zoneA', retries: '3' },
        scripts: [0, 1, 2, 3].map(() => fail(RpcCode.NETWORK_EXCEPTION)),
        providerParams: [0, 1, 2, 3].map((i) => ({ zone: zoneOf(`p${i}`) })),
      });
      runCall(sim, cluster.invoke(invocation()));
      const names = log.map((r) => r.invoker.name);
      expect(names.map(zoneOf)).toEqual(['zoneA', 'zoneA', 'zoneB', 'zoneB']);
      expect(new Set(names).size).toBe(4);
      expect(runtime.counters.get('zoneAwareFailover.crossZone')).toBe(2);
    }
  });

  it("reads each provider's registered zone, not the consumer-first merged URL value", () => {
    const { sim, cluster, log } = setup({
      cluster: zoneAwareFailover,
      consumer: { zone: 'zoneA' },
      scripts: Array.from({ length: 10 }, () => ok('x')),
      providerParams: Array.from({ length: 10 }, (_, i) => ({ zone: i === 7 ? 'zoneA' : 'zoneB' })),
    });
    for (let i = 0; i < 50; i++) runCall(sim, cluster.invoke(invocation()));
    expect(new Set(log.map((r) => r.invoker.name))).toEqual(new Set(['p7']));
  });

  it('crosses zones at once when the consumer zone has no provider', () => {
    const { sim, cluster, log } = setup({
      cluster: zoneAwareFailover,
      consumer: { zone: 'zoneC' },
      scripts: [ok('a'), ok('b')],
      providerParams: [{ zone: 'zoneA' }, { zone: 'zoneB' }],
    });
    expect(runCall(sim, cluster.invoke(invocation())).result?.kind).toBe('ok');
    expect(log).toHaveLength(1);
  });

  it('keeps retrying inside the zone when every provider is local', () => {
    const { sim, runtime, cluster, log } = setup({
      cluster: zoneAwareFailover,
      consumer: { zone: 'zoneA', retries: '3' },
      scripts: [fail(RpcCode.NETWORK_EXCEPTION), fail(RpcCode.NETWORK_EXCEPTION)],
      providerParams: [{ zone: 'zoneA' }, { zone: 'zoneA' }],
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(4);
    expect(runtime.counters.get('zoneAwareFailover.crossZone')).toBeUndefined();
  });

  it('behaves as failover when the consumer URL has no zone', () => {
    const { sim, cluster, log } = setup({
      cluster: zoneAwareFailover,
      scripts: [0, 1, 2, 3].map(() => ok('x')),
      providerParams: [0, 1, 2, 3].map((i) => ({ zone: zoneOf(`p${i}`) })),
    });
    for (let i = 0; i < 100; i++) runCall(sim, cluster.invoke(invocation()));
    expect(new Set(log.map((r) => zoneOf(r.invoker.name)))).toEqual(new Set(['zoneA', 'zoneB']));
  });

  it('returns failover\'s final error after the last attempt', () => {
    const { sim, cluster } = setup({
      cluster: zoneAwareFailover,
      consumer: { zone: 'zoneA' },
      scripts: [0, 1, 2].map(() => fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout')),
      providerParams: [0, 1, 2].map((i) => ({ zone: zoneOf(`p${i}`) })),
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result?.kind === 'error' && result.error.message).toContain('Tried 3 times of the providers');
  });
});
