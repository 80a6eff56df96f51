/**
 * The consumer filter that keeps RpcStatus counts: `beginCount` before an attempt and `endCount`
 * with the elapsed time when its result is known, for invokers whose URL carries an `actives`
 * parameter (interface- or method-level), as Dubbo activates it. These counts are what
 * `leastactive` and `shortestresponse` read. Owns no table: it writes the runtime's RpcStatus.
 * Follows dubbo-rpc-api `filter/ActiveLimitFilter.java`.
 */
import { ACTIVES_KEY } from '../constants.js';
import type { Invoker, Result, RpcInvocation } from '../rpc.js';
import type { RpcStatusTable } from '../rpc-status.js';
import type { ConsumerFilter, DubboRuntime } from '../runtime.js';
import { ServiceAddressURL, type URL } from '../url.js';
import { getMethodName } from '../loadbalance/rpc-utils.js';

const SUFFIX = `.${ACTIVES_KEY}`;

function hasActivesIn(params: ReadonlyMap<string, string>): boolean {
  for (const [k, v] of params) if (v !== '' && (k === ACTIVES_KEY || k.endsWith(SUFFIX))) return true;
  return false;
}

/** Dubbo's `@Activate(value = "actives")` test: any non-empty `actives` or `<method>.actives` key. */
export function hasActivesParameter(url: URL): boolean {
  if (hasActivesIn(url.params)) return true;
  return url instanceof ServiceAddressURL && hasActivesIn(url.consumerUrl.params);
}

export class ActiveLimitFilter implements ConsumerFilter {
  #rpcStatus: RpcStatusTable | null;
  // PERF: activation depends only on the invoker's URL, so it is decided once per invoker.
  readonly #active = new WeakMap<Invoker, boolean>();

  /** `rpcStatus` may be given now or later through `attach` (createRuntime calls it). */
  constructor(rpcStatus?: RpcStatusTable) {
    this.#rpcStatus = rpcStatus ?? null;
  }

  attach(runtime: DubboRuntime): void {
    this.#rpcStatus = runtime.rpcStatus;
  }

  before(invoker: Invoker, invocation: RpcInvocation, _nowMs: number): void {
    if (!this.#isActive(invoker)) return;
    // DIVERGENCE: with `actives > 0` Dubbo makes the caller wait (up to its timeout) for a slot and
    // then fails with LIMIT_EXCEEDED (code 7); zonesim only counts and never waits or rejects.
    this.#table().beginCount(invoker.getUrl(), getMethodName(invocation));
  }

  after(invoker: Invoker, invocation: RpcInvocation, result: Result, elapsedMs: number, _nowMs: number): void {
    if (!this.#isActive(invoker)) return;
    // A biz exception is a response (onResponse → succeeded); an RpcException is onError.
    this.#table().endCount(invoker.getUrl(), getMethodName(invocation), elapsedMs, result.kind === 'ok');
  }

  #isActive(invoker: Invoker): boolean {
    let active = this.#active.get(invoker);
    if (active === undefined) {
      active = hasActivesParameter(invoker.getUrl());
      this.#active.set(invoker, active);
    }
    return active;
  }

  #table(): RpcStatusTable {
    if (this.#rpcStatus === null) throw new Error('ActiveLimitFilter used before attach(runtime)');
    return this.#rpcStatus;
  }
}
