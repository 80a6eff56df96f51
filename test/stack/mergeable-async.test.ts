/**
 * A merged multi-group call over real DubboInvokers (MergeableClusterInvoker.java, 3.3, lines 95-136):
 * each group's sub-invocation is async (:97), so a group that does not answer is not retried by its
 * failover, its timeout comes from DefaultFuture's 30 ms wheel, and its failed future fails the whole
 * call (:134).
 */
import { describe, expect, it } from 'vitest';
import { FailoverClusterInvoker } from '../../src/dubbo/cluster/failover-cluster-invoker.js';
import { MergeableClusterInvoker } from '../../src/dubbo/cluster/mergeable-cluster-invoker.js';
import { StaticDirectory } from '../../src/dubbo/directory/directory.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../src/dubbo/release.js';
import { URL } from '../../src/dubbo/url.js';
import { classify } from '../../src/stack/consumer-stack.js';
import { protocolWorld, runToEnd, SERVICE } from './protocol-fixtures.js';

const REGISTRY = URL.valueOf('registry://r/x?registry=static');

/** Group `good` (two providers answering after 5 ms) and group `bad` (two that never answer), merged. */
function merged(release: DubboRelease) {
  const w = protocolWorld(
    release,
    [
      { params: 'group=good&timeout=200', serviceMs: 5 },
      { params: 'group=good&timeout=200', serviceMs: 5 },
      { params: 'group=bad&timeout=200', serviceMs: null },
      { params: 'group=bad&timeout=200', serviceMs: null },
    ],
    '&merger=true&loadbalance=first',
  );
  const groups = [w.invokers.slice(0, 2), w.invokers.slice(2)].map(
    // As toMergeInvokerList builds them: each group's directory reads its first invoker's URL (its group).
    (invokers) => new FailoverClusterInvoker(new StaticDirectory(w.runtime, REGISTRY, invokers[0]!.getUrl(), invokers), w.runtime),
  );
  const cluster = new MergeableClusterInvoker(new StaticDirectory(w.runtime, REGISTRY, w.consumerUrl, groups), w.runtime);
  return { ...w, cluster };
}

describe('a merged call with one group that never answers', () => {
  it.each([DUBBO_3_3, DUBBO_2_7])('fails after one attempt per group, at the wheel`s tick after the timeout (%s)', (release) => {
    const m = merged(release);
    // The JVM's wheel started 11 ms before this call.
    m.timer.sent(0);
    m.sim.schedule(11, () => undefined);
    m.sim.run();
    const { result, at } = runToEnd(m.sim, m.cluster.invoke(m.invocation()));
    // One attempt per group: the failover of the silent group does not retry an async timeout.
    expect(m.log).toEqual(['10.0.1.1:20880 @12', '10.0.1.3:20880 @12']);
    // Deadline 11 + 200 → tick 7 (210..240 after the start) ends at 240.
    expect(at).toBe(240);
    expect(result).toMatchObject({
      kind: 'error',
      error: { code: 0, cause: 'timeout' },
    });
    const message = (result as { error: { message: string } }).error.message;
    // The request's outcome is the failure the code 0 wraps: a timeout.
    expect(classify(result!)).toEqual({ outcome: 'timeout' });
    expect(message.startsWith(`Failed to invoke service bad/${SERVICE}: org.apache.dubbo.remoting.TimeoutException: Waiting server-side response timeout by scan timer.`)).toBe(true);
  });
});
