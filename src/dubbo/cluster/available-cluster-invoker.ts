/**
 * Available: the first invoker in list order that is available gets the call; no load balancing,
 * no retry. When none is available it fails with "No provider available in [...]" (code 0).
 * Follows dubbo-cluster `support/AvailableClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import { RpcCode } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { describeInvokers } from './describe-invokers.js';

/** Dubbo's `available` cluster: first available provider, in list order. */
export class AvailableClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'available';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], _loadbalance: LoadBalance): Proc<Result> {
    for (const invoker of invokers) {
      if (invoker.isAvailable()) return yield* this.invokeWithContextNow(invoker, invocation);
    }
    return this.error(
      RpcCode.UNKNOWN_EXCEPTION,
      `No provider available in ${describeInvokers(invokers)}`,
      'cluster:unavailable',
    );
  }
}
