/**
 * Failover, Dubbo's default cluster: up to `retries + 1` attempts on different providers,
 * re-listing (and so re-routing) before each retry; biz errors are returned at once.
 * Follows dubbo-cluster `support/FailoverClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import { DEFAULT_RETRIES, DUBBO_VERSION, RETRIES_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import { isBiz, type Invoker, type Result, type RpcError, type RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

export class FailoverClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME: string = 'failover';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    let copyInvokers = invokers;
    const methodName = invocation.getMethodName();
    const len = this.calculateInvokeTimes(methodName, invocation);
    let le: RpcError | null = null;
    const invoked: Invoker[] = [];
    let failed: Invoker[] | null = null;
    for (let i = 0; i < len; i++) {
      if (i > 0) {
        const destroyed = this.checkWhetherDestroyed();
        if (destroyed) return { kind: 'error', error: destroyed };
        const listed = this.list(invocation);
        if (!Array.isArray(listed)) return { kind: 'error', error: listed };
        copyInvokers = listed;
        const empty = this.checkInvokers(copyInvokers, invocation);
        if (empty) return { kind: 'error', error: empty };
      }
      const invoker = this.selectForAttempt(loadbalance, invocation, copyInvokers, invoked)!;
      invoked.push(invoker);
      const result = yield* this.invokeWithContext(invoker, invocation);
      if (result.kind === 'ok') return result;
      if (isBiz(result.error)) return result;
      le = result.error;
      (failed ??= []).push(invoker);
    }
    const last = le!;
    const providers = new Set(failed!.map((inv) => inv.getUrl().getAddress()));
    return this.error(
      last.code,
      `Failed to invoke the method ${methodName} in the service ${this.getInterface()}. Tried ${len} times of the providers ` +
        `[${[...providers].join(', ')}] (${providers.size}/${copyInvokers.length}) from the registry ` +
        `${this.directory.getUrl().getAddress()} on the consumer ${this.runtime.consumerHost} using the dubbo version ` +
        `${DUBBO_VERSION}. Last error is: ${last.message}`,
      last.cause,
    );
  }

  /** The pick of one attempt: Dubbo's `select` avoiding the invokers already tried (zone-scoped variants override it). */
  protected selectForAttempt(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    invoked: Invoker[],
  ): Invoker | null {
    return this.select(loadbalance, invocation, invokers, invoked);
  }

  /** `retries + 1` from the consumer URL, or a numeric `retries` client attachment (then removed); at least 1. */
  protected calculateInvokeTimes(methodName: string, invocation: RpcInvocation): number {
    let len = this.getUrl().getMethodNumber(methodName, RETRIES_KEY, DEFAULT_RETRIES) + 1;
    const attached = invocation.getAttachment(RETRIES_KEY);
    if (attached !== undefined) {
      invocation.attachments.delete(RETRIES_KEY);
      const n = Number(attached);
      if (Number.isInteger(n)) len = n + 1;
    }
    return len <= 0 ? 1 : Math.trunc(len);
  }
}
