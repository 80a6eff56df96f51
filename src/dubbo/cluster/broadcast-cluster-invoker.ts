/**
 * Broadcast: calls every invoker in list order, one after the other, each with a copy of the
 * invocation. An error or a result carrying a business exception is a failure; after
 * `broadcast.fail.percent` of the list has failed it stops. Any failure makes the call fail with the
 * last one; otherwise the last result is returned. No load balancing, no retry.
 * Follows dubbo-cluster `support/BroadcastClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import { BROADCAST_FAIL_PERCENT_KEY, RpcCode } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcError, RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

const MAX_BROADCAST_FAIL_PERCENT = 100;
const MIN_BROADCAST_FAIL_PERCENT = 0;

/** Dubbo's `broadcast` cluster: every provider gets the call (cache refresh, config push). */
export class BroadcastClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'broadcast';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], _loadbalance: LoadBalance): Proc<Result> {
    let percent = Math.trunc(this.getUrl().getNumber(BROADCAST_FAIL_PERCENT_KEY, MAX_BROADCAST_FAIL_PERCENT));
    if (percent < MIN_BROADCAST_FAIL_PERCENT || percent > MAX_BROADCAST_FAIL_PERCENT) percent = MAX_BROADCAST_FAIL_PERCENT;
    // Integer division, then an equality test after each failure: percent=0 (threshold 0) never
    // stops early and so behaves like 100, although Dubbo's comment says the opposite.
    const failThresholdIndex = Math.trunc((invokers.length * percent) / MAX_BROADCAST_FAIL_PERCENT);
    let failIndex = 0;
    let exception: RpcError | null = null;
    let result: Result | null = null;
    for (const invoker of invokers) {
      result = yield* this.invokeWithContextNow(invoker, invocation.copy());
      const failure = failureOf(result);
      if (failure === null) continue;
      exception = failure;
      failIndex++;
      if (failIndex === failThresholdIndex) break;
    }
    if (exception !== null) return { kind: 'error', error: exception };
    return result!;
  }
}

// Dubbo `getRpcException`: an RpcException as is; a business exception wrapped (code 0, its message).
function failureOf(result: Result): RpcError | null {
  if (result.kind === 'error') return result.error;
  if (result.bizException !== undefined) {
    return { code: RpcCode.UNKNOWN_EXCEPTION, message: result.bizException, cause: 'provider:biz' };
  }
  return null;
}
