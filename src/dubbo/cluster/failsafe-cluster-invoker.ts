/**
 * Failsafe: one select, one attempt; any failure is ignored and an empty result (value `null`) is
 * returned, counted as `failsafe.ignored`. The "No provider available" check of the base runs
 * before, so an empty list still fails. Follows dubbo-cluster `support/FailsafeClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/** Dubbo's `failsafe` cluster: errors become an empty success (for logging-style calls). */
export class FailsafeClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'failsafe';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    const invoker = this.select(loadbalance, invocation, invokers, null);
    if (invoker === null) return this.#ignore();
    const result = yield* this.invokeWithContextNow(invoker, invocation);
    // Dubbo catches every Throwable here, a thrown biz RpcException (code 3) included.
    if (result.kind === 'error') return this.#ignore();
    return result;
  }

  // "Failsafe ignore exception: ..." is only logged in Dubbo; zonesim counts it.
  #ignore(): Result {
    this.runtime.events.count('failsafe.ignored');
    return { kind: 'ok', value: null };
  }
}
