/**
 * The consumer filter that keeps RpcStatus counts: `beginCount` before an attempt and `endCount`
 * with the elapsed time when its result is known, for invokers whose URL activates it the way
 * Dubbo's `@Activate(group = CONSUMER, value = "actives")` does (see `isActivatedBy`). These counts
 * are what `leastactive` and `shortestresponse` read. Owns no table: it writes the runtime's
 * RpcStatus. Follows dubbo-rpc-api `filter/ActiveLimitFilter.java`.
 */
import type { Proc, Simulation } from '../../engine/simulation.js';
import { ACTIVES_KEY, RpcCode, TIMEOUT_KEY } from '../constants.js';
import { InvokerMemoSlots, type Invoker, type Result, type RpcError, type RpcInvocation } from '../rpc.js';
import type { RpcStatusTable } from '../rpc-status.js';
import type { ConsumerFilter, DubboRuntime } from '../runtime.js';
import type { URL } from '../url.js';
import { getMethodName } from '../loadbalance/rpc-utils.js';

/** Dubbo `ConfigUtils.isNotEmpty`: not empty and none of `false`, `0`, `null`, `N/A` (any case). */
export function configIsNotEmpty(value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  return v !== 'false' && v !== '0' && v !== 'null' && v !== 'n/a';
}

/**
 * Dubbo `ExtensionLoader.isActive` for one `@Activate` value on the invoker's URL (ExtensionLoader.java
 * lines 470-495): the interface-level value (`getParameter`: on an invoker URL the consumer's, else the
 * provider's), or when that is empty the value of `getAnyMethodParameter`. With `expected`
 * (`key:value`) it must equal it; without, it must pass `ConfigUtils.isNotEmpty`, so `actives=0`
 * leaves the filter out of the chain, and an interface-level `actives=0` does so even when a method
 * sets `actives=5` (the method level is consulted only when the interface level is empty).
 */
export function isActivatedBy(url: URL, key: string, expected?: string): boolean {
  const value = url.getParameter(key) ?? url.getAnyMethodParameter(key);
  return expected !== undefined ? value === expected : configIsNotEmpty(value);
}

/** Whether Dubbo builds ActiveLimitFilter (`@Activate(value = "actives")`) into this invoker's chain. */
export function hasActivesParameter(url: URL): boolean {
  return isActivatedBy(url, ACTIVES_KEY);
}

// PERF: activation depends only on the invoker's URL, so it is decided once per invoker; invokers are
// shared by the instances of a consumer group, and so is this memo (a DubboInvoker keeps it in its own slot).
const activeFor = new WeakMap<Invoker, boolean>();

/** Whether Dubbo builds ActiveLimitFilter into this invoker's chain (its URL has `actives`), memoized. */
export function isActiveLimitFilterActive(invoker: Invoker): boolean {
  if (invoker instanceof InvokerMemoSlots) return (invoker.activeLimitFilterActive ??= hasActivesParameter(invoker.getUrl()));
  let active = activeFor.get(invoker);
  if (active === undefined) {
    active = hasActivesParameter(invoker.getUrl());
    activeFor.set(invoker, active);
  }
  return active;
}

export class ActiveLimitFilter implements ConsumerFilter {
  #rpcStatus: RpcStatusTable | null;
  #sim: Simulation | null = null;
  readonly activeFor = isActiveLimitFilterActive;

  /** `rpcStatus` may be given now or later through `attach` (createRuntime calls it). */
  constructor(rpcStatus?: RpcStatusTable) {
    this.#rpcStatus = rpcStatus ?? null;
  }

  attach(runtime: DubboRuntime): void {
    this.#rpcStatus = runtime.rpcStatus;
    this.#sim = runtime.sim;
  }

  /** Passes at once when the filter is not in the invoker's chain, or `beginCount` takes a slot now. */
  // PERF: most attempts pass at once (no `actives`, or a free slot): no generator for them.
  admitNow(invoker: Invoker, invocation: RpcInvocation): boolean {
    if (!isActiveLimitFilterActive(invoker)) return true;
    const url = invoker.getUrl();
    const methodName = getMethodName(invocation);
    return this.#table().beginCount(url, methodName, url.getMethodNumber(methodName, ACTIVES_KEY, 0));
  }

  /**
   * `beginCount(url, method, actives)`; when `actives` (> 0) calls are already in flight, wait on the
   * RpcStatus for a release, at most the URL's `timeout` (Dubbo reads it with default 0, which makes
   * `wait(0)` unbounded and fails on the first wake-up), then LIMIT_EXCEEDED (code 7).
   */
  *admit(invoker: Invoker, invocation: RpcInvocation): Proc<RpcError | null> {
    if (this.admitNow(invoker, invocation)) return null;
    const url = invoker.getUrl();
    const methodName = getMethodName(invocation);
    const max = url.getMethodNumber(methodName, ACTIVES_KEY, 0);
    const table = this.#table();
    const sim = this.#sim!;
    const timeout = url.getMethodNumber(methodName, TIMEOUT_KEY, 0);
    const start = sim.now;
    const status = table.getStatus(url, methodName);
    let remain = timeout;
    while (!table.beginCount(url, methodName, max)) {
      yield status.waitFor(sim, remain);
      // Whole milliseconds, as System.currentTimeMillis: each wait lasts at least 1 ms, so the loop
      // always reaches the timeout (float remainders of ~1e-13 ms would not advance the clock).
      const elapsed = Math.floor(sim.now - start);
      remain = timeout - elapsed;
      if (remain <= 0) {
        return {
          code: RpcCode.LIMIT_EXCEEDED_EXCEPTION,
          message:
            `Waiting concurrent invoke timeout in client-side for service:  ${url.getServiceInterface()}, method: ${methodName}, ` +
            `elapsed: ${elapsed}, timeout: ${timeout}. concurrent invokes: ${status.getActive()}. max concurrent invoke limit: ${max}`,
          cause: 'actives:limit',
        };
      }
    }
    return null;
  }

  before(_invoker: Invoker, _invocation: RpcInvocation, _nowMs: number): void {}

  after(invoker: Invoker, invocation: RpcInvocation, result: Result, elapsedMs: number, _nowMs: number): void {
    if (!isActiveLimitFilterActive(invoker)) return;
    // onError returns at once for a LIMIT_EXCEEDED exception, taking it for this filter's own refusal
    // (ActiveLimitFilter.java:104-108). Its own refusals never get here; a LIMIT_EXCEEDED a provider
    // rethrew (its downstream `actives` refusal), seen through RpcExceptionFilter, does, and its slot
    // is never given back, as in Dubbo.
    if (result.kind === 'error' && result.error.code === RpcCode.LIMIT_EXCEEDED_EXCEPTION) return;
    const url = invoker.getUrl();
    const methodName = getMethodName(invocation);
    // A biz exception is a response (onResponse → succeeded); an RpcException is onError.
    this.#table().endCount(url, methodName, elapsedMs, result.kind === 'ok');
    if (url.getMethodNumber(methodName, ACTIVES_KEY, 0) > 0) this.#table().getStatus(url, methodName).notifyAll();
  }

  #table(): RpcStatusTable {
    if (this.#rpcStatus === null) throw new Error('ActiveLimitFilter used before attach(runtime)');
    return this.#rpcStatus;
  }
}
