/**
 * Mergeable: the cluster of group-merging references. Without a `merger` it calls the first
 * available invoker (normally a per-group cluster), skipping groups that fail with "No provider
 * available" (code 6). With a `merger` it calls every invoker asynchronously, one after the other,
 * and "merges" the successful results, failing the call when any group's future failed; zonesim has
 * no return values to merge (see below).
 * Follows dubbo-cluster `support/MergeableClusterInvoker.java`.
 */
import { Process, type Proc, type Simulation } from '../../engine/simulation.js';
import { ASYNC_KEY, MERGER_KEY, RpcCode } from '../constants.js';
import { carriedRpcException } from '../filter/rpc-exception-filter.js';
import { ServiceAddressURL } from '../url.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcError, RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/** Dubbo's `mergeable` cluster: one group, or all groups merged. */
export class MergeableClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'mergeable';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], _loadbalance: LoadBalance): Proc<Result> {
    const merger = this.getUrl().getMethodParameter(invocation.getMethodName(), MERGER_KEY);
    if (isEmptyConfig(merger)) {
      // A method without a merger calls one group.
      for (const invoker of invokers) {
        if (!invoker.isAvailable()) continue;
        const result = yield* this.invokeWithContextNow(invoker, invocation);
        // "No available provider for service ... on group ..., will continue to try another group."
        if (result.kind === 'error' && result.error.code === RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER) continue;
        return result;
      }
      return yield* this.invokeWithContextNow(invokers[0]!, invocation);
    }
    return yield* this.#invokeAll(invocation, invokers);
  }

  /**
   * MergeableClusterInvoker.java (3.3) lines 95-142: per group, in list order, a copy of the invocation
   * with the `async` attachment (:96-97) goes to the group's invoker. Async, an attempt's timeout or
   * error reply completes its future later and is never retried; only an error at send time is thrown
   * at once, which the group's failover retries. A thrown error other than "No provider available"
   * (code 6, skipped in 3.3 :100-109; 2.7 :88-92 skips nothing) fails the call at once, the later
   * groups never called. Then each group's future is waited for in turn (:119-136): a failed one fails
   * the whole call with code 0 (:134); a result carrying an exception is dropped (:123-129).
   */
  // DIVERGENCE: zonesim carries no return values, so "merge" is: the successful values (one value as is,
  // as Dubbo returns a single result unmerged; several in an array, in list order); none left gives
  // Dubbo's empty result. Dubbo keeps the results in a HashMap by service key (later groups with the same
  // key overwrite earlier ones, and the futures are waited for in the map's order); zonesim keeps every
  // group's and waits in list order.
  *#invokeAll(invocation: RpcInvocation, invokers: Invoker[]): Proc<Result> {
    const sim = this.runtime.sim;
    const release = this.runtime.release;
    const calls: Array<{ invoker: Invoker; call: Process<Result> }> = [];
    // The groups' sends are not this step's last action: none may run inline as one (`scheduleLast`).
    sim.takeTail();
    for (const invoker of invokers) {
      const sub = invocation.copy();
      sub.setAttachment(ASYNC_KEY, 'true');
      // The group's invoke runs now, up to its first wait: what it throws at send time is known at once.
      const call = startNow(sim, this.invokeWithContext(invoker, sub));
      const thrown = call.triggered ? (call.value as Result) : undefined;
      if (thrown !== undefined && thrown.kind === 'error') {
        if (thrown.error.code === RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER && release.version !== '2.7') continue;
        return thrown;
      }
      calls.push({ invoker, call });
    }
    const values: unknown[] = [];
    for (const { invoker, call } of calls) {
      const result = (call.triggered ? call.value : yield call) as Result;
      // DIVERGENCE: an error the group's cluster threw after waiting (an `actives` wait ending in
      // LIMIT_EXCEEDED) ends the call when its turn comes here; in Java its `invoke` threw it at once.
      if (result.kind === 'error') return result;
      const failed = failedFutureOf(result, release.rpcExceptionFilter);
      if (failed !== undefined) {
        return this.error(RpcCode.UNKNOWN_EXCEPTION, `Failed to invoke service ${groupServiceKey(invoker)}: ${failed.message}`, failed.cause);
      }
      if (result.kind === 'ok' && result.bizException === undefined) values.push(result.value);
    }
    if (values.length === 0) return { kind: 'ok', value: null };
    return { kind: 'ok', value: values.length === 1 ? values[0] : values };
  }
}

/**
 * The exception a group's future completed with, if any: an async attempt's failure, or (3.3) an
 * RpcException the result carries, which RpcExceptionFilter's listener rethrows into the future
 * (ExecutionException's message: the exception's `toString`).
 */
function failedFutureOf(result: Result & { kind: 'ok' }, rpcExceptionFilter: boolean): RpcError | undefined {
  if (result.failedFuture !== undefined) return result.failedFuture;
  if (!rpcExceptionFilter) return undefined;
  const carried = carriedRpcException(result);
  return carried === undefined ? undefined : { ...carried, message: `org.apache.dubbo.rpc.RpcException: ${carried.message}` };
}

/** `invoker.getUrl().getServiceKey()` of a group's invoker: its providers' group, interface and version. */
function groupServiceKey(invoker: Invoker): string {
  const url = invoker.getUrl();
  return (url instanceof ServiceAddressURL ? url.providerUrl : url).getServiceKey();
}

/** A process whose first step runs now (Java's `invoke`, which returns once the call is sent). */
function startNow(sim: Simulation, gen: Proc<Result>): Process<Result> {
  return new Process<Result>(sim, gen, true);
}

// Dubbo `ConfigUtils.isEmpty`: absent, blank, "false", "0", "null" or "N/A" (case-insensitive).
function isEmptyConfig(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  const v = value.toLowerCase();
  return v === 'false' || v === '0' || v === 'null' || v === 'n/a';
}
