import { describe, expect, it } from 'vitest';
import { RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { errorOf, invocation, ok, runCall, setup } from './fixtures.js';

const available = clusters.available!;

describe('AvailableClusterInvoker', () => {
  it('calls the first available provider in list order', () => {
    const { sim, cluster, log } = setup({
      cluster: available,
      scripts: [ok('a'), ok('b'), ok('c')],
      available: [false, true, true],
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'b' });
    expect(log.map((r) => r.invoker.name)).toEqual(['p1']);
  });

  it('fails with "No provider available in [...]" (code 0) when none is available', () => {
    const { sim, cluster, log } = setup({ cluster: available, scripts: [ok('a'), ok('b')], available: [false, false] });
    const error = errorOf(runCall(sim, cluster.invoke(invocation())).result);
    expect(error.code).toBe(RpcCode.UNKNOWN_EXCEPTION);
    expect(error.message).toBe(
      'No provider available in [com.example.DemoService -> 10.0.0.1:20880, com.example.DemoService -> 10.0.0.2:20880]',
    );
    expect(log).toHaveLength(0);
  });
});
