/**
 * The contract every registered cluster strategy shares: "No provider available" (code 6, Dubbo's
 * text) on an empty directory, a plain success through a single healthy provider, and an attempt
 * budget it never exceeds when every provider fails.
 */
import { describe, expect, it } from 'vitest';
import { DUBBO_VERSION, RpcCode } from '../../../src/dubbo/constants.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import { errorOf, fail, invocation, ok, runCall, SERVICE, setup } from './fixtures.js';

/** Attempts each strategy makes, by Dubbo's defaults, when all 5 providers fail with a network error. */
const ATTEMPT_BUDGET: Record<string, number> = {
  failover: 3, // retries 2 + 1
  failfast: 1,
  failsafe: 1,
  failback: 4, // 1 + 3 background retries (DEFAULT_FAILBACK_TIMES)
  forking: 2, // forks 2
  broadcast: 5, // every provider
  available: 1,
  mergeable: 1, // no merger: the first available one
  'zone-aware': 1, // one registry's cluster (here: a plain provider) gets the call
  zoneAwareFailover: 3,
};

const names = Object.keys(clusters);

describe('every cluster strategy', () => {
  it('has an attempt budget in this test for every registered name', () => {
    expect(Object.keys(ATTEMPT_BUDGET).sort()).toEqual([...names].sort());
  });

  it.each(names)('%s fails with code 6 and Dubbo\'s "No provider available" text on an empty directory', (name) => {
    const { sim, cluster, directory, log } = setup({ cluster: clusters[name]!, scripts: [] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    const error = errorOf(result);
    expect(error.code).toBe(RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER);
    expect(error.message.startsWith(
      `Failed to invoke the method sayHello in the service ${SERVICE}. No provider available for the service ` +
        `${SERVICE} from registry ${directory.toString()} on the consumer 10.10.0.1 using the dubbo version ` +
        `${DUBBO_VERSION}. Please check if the providers have been started and registered.`,
    )).toBe(true);
    expect(log).toHaveLength(0);
  });

  it.each(names)('%s returns the answer of a single healthy provider in one attempt', (name) => {
    const { sim, cluster, log } = setup({ cluster: clusters[name]!, scripts: [ok('hello', 5)] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'hello' });
    expect(log).toHaveLength(1);
  });

  it.each(names)('%s never makes more attempts than its strategy allows when every provider fails', (name) => {
    const { sim, cluster, log } = setup({
      cluster: clusters[name]!,
      scripts: Array.from({ length: 5 }, () => fail(RpcCode.NETWORK_EXCEPTION, 'connection refused', 3)),
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(log).toHaveLength(ATTEMPT_BUDGET[name]!);
  });
});
