import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { fail, invocation, runCall, setup } from './fixtures.js';

const failsafe = clusters.failsafe!;

describe('FailsafeClusterInvoker', () => {
  it('turns a failed attempt into an empty result and counts it as ignored', () => {
    const { sim, runtime, cluster, log } = setup({
      cluster: failsafe,
      scripts: [fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000), fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000)],
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: null });
    expect(endMs).toBe(1000);
    expect(log).toHaveLength(1);
    expect(runtime.counters.get('failsafe.ignored')).toBe(1);
  });

  it('ignores a biz RpcException too', () => {
    const { sim, cluster } = setup({ cluster: failsafe, scripts: [fail(RpcCode.BIZ_EXCEPTION)] });
    expect(runCall(sim, cluster.invoke(invocation())).result).toEqual({ kind: 'ok', value: null });
  });
});
