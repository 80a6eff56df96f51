/**
 * A cluster plugin over Dubbo's real failover cluster that lets a test watch every call: `before`
 * sees the invocation as the cluster invoker receives it, `after` sees it with the final Result.
 */
import { FailoverClusterInvoker } from '../../src/dubbo/cluster/failover-cluster-invoker.js';
import type { ClusterInvokerLike, Result, RpcInvocation } from '../../src/dubbo/rpc.js';
import type { Proc } from '../../src/engine/simulation.js';
import type { Plugins } from '../../src/scenario/run.js';

/** Plugins whose `failover` is the real FailoverClusterInvoker, observed around each invoke. */
export function observedFailover(watch: {
  before?: (invocation: RpcInvocation) => void;
  after?: (invocation: RpcInvocation, result: Result) => void;
}): Plugins {
  return {
    clusters: {
      failover: (directory, runtime) => {
        const inner = new FailoverClusterInvoker(directory, runtime);
        const wrapper: ClusterInvokerLike = {
          getUrl: () => inner.getUrl(),
          getRegistryUrl: () => inner.getRegistryUrl(),
          isAvailable: () => inner.isAvailable(),
          isDestroyed: () => inner.isDestroyed(),
          destroy: () => inner.destroy(),
          *invoke(invocation: RpcInvocation): Proc<Result> {
            watch.before?.(invocation);
            const result = yield* inner.invoke(invocation);
            watch.after?.(invocation, result);
            return result;
          },
        };
        return wrapper;
      },
    },
  };
}
