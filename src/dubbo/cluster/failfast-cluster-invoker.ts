/**
 * Failfast: one select, one attempt, no retry. Follows dubbo-cluster
 * `support/FailfastClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import { isBiz, type Invoker, type Result, type RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

export class FailfastClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'failfast';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    const invoker = this.select(loadbalance, invocation, invokers, null)!;
    const result = yield* this.invokeWithContextNow(invoker, invocation);
    if (result.kind === 'ok' || isBiz(result.error)) return result;
    return this.error(
      result.error.code,
      `Failfast invoke providers ${invoker.getUrl()} ${loadbalance.constructor.name} for service ${this.getInterface()} ` +
        `method ${invocation.getMethodName()} on consumer ${this.runtime.consumerHost} use dubbo version ${this.runtime.release.text}, ` +
        `but no luck to perform the invocation. Last error is: ${result.error.message}`,
      result.error.cause,
    );
  }
}
