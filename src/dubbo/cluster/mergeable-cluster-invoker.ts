/**
 * Mergeable: the cluster of group-merging references. Without a `merger` it calls the first
 * available invoker (normally a per-group cluster), skipping groups that fail with "No provider
 * available" (code 6). With a `merger` it calls every invoker in parallel and "merges" the
 * successful results; zonesim has no return values to merge (see below).
 * Follows dubbo-cluster `support/MergeableClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import { MERGER_KEY, RpcCode } from '../constants.js';
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

  // DIVERGENCE: zonesim carries no return values, so "merge" is: ok when at least one call
  // succeeded, with the successful values (one value as is, as Dubbo returns a single result
  // unmerged; several in an array, in list order). Dubbo keys results by service key (later
  // invokers with the same key overwrite earlier ones); zonesim keeps every result. Dubbo drops
  // results carrying exceptions and returns an empty result when none is left, but throws when a
  // call itself failed (a timeout); a Result cannot tell the two apart, so zonesim returns the last
  // error when no call succeeded, unless every group said "No provider available" (code 6), which
  // Dubbo skips and then answers with an empty result.
  *#invokeAll(invocation: RpcInvocation, invokers: Invoker[]): Proc<Result> {
    const sim = this.runtime.sim;
    const results: Array<Result | undefined> = new Array(invokers.length);
    let pending = invokers.length;
    const done = sim.event<void>();
    invokers.forEach((invoker, i) => {
      const call = sim.process(this.invokeWithContext(invoker, invocation.copy()));
      call.addCallback((ev) => {
        if (!ev.ok) throw ev.value; // a bug in an invoker, not an RPC outcome
        results[i] = ev.value as Result;
        if (--pending === 0) done.succeed();
      });
    });
    yield done;
    const values: unknown[] = [];
    let lastError: RpcError | null = null;
    for (const result of results) {
      if (result === undefined) continue;
      if (result.kind === 'ok') {
        if (result.bizException === undefined) values.push(result.value);
        else lastError = { code: RpcCode.UNKNOWN_EXCEPTION, message: result.bizException, cause: 'provider:biz' };
      } else if (result.error.code !== RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER) {
        lastError = result.error;
      }
    }
    if (values.length === 1) return { kind: 'ok', value: values[0] };
    if (values.length > 1) return { kind: 'ok', value: values };
    if (lastError !== null) return { kind: 'error', error: lastError };
    return { kind: 'ok', value: null };
  }
}

// Dubbo `ConfigUtils.isEmpty`: absent, blank, "false", "0", "null" or "N/A" (case-insensitive).
function isEmptyConfig(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  const v = value.toLowerCase();
  return v === 'false' || v === '0' || v === 'null' || v === 'n/a';
}
