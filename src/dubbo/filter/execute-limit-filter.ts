/**
 * The provider filter that caps the calls of one method executing at once in one provider process:
 * `RpcStatus.beginCount(url, method, executes)` before the call runs, `endCount` when it ends, and
 * an immediate LIMIT_EXCEEDED refusal (code 7) above the limit. Pure: the simulated provider calls
 * `admit` on its thread and `onResponse` / `onError` when the call ends; it owns no clock, pool or
 * network. Follows dubbo-rpc-api `filter/ExecuteLimitFilter.java` (Dubbo 3.3).
 */
import { EXECUTES_KEY, METHODS_KEY, RpcCode } from '../constants.js';
import type { RpcError } from '../rpc.js';
import { RpcStatusTable } from '../rpc-status.js';
import type { URL } from '../url.js';

/**
 * Dubbo `ExtensionLoader.isActive` for a one-key `@Activate(value = key)`: the interface-level
 * value, else `URLParam.getAnyMethodParameter(key)`, must be "not empty" for `ConfigUtils`, which
 * also counts `0`, `false`, `null` and `N/A` (any case) as empty — so `executes=0` or `tps=0` leaves
 * the filter out of the chain altogether.
 */
export function isActivatedBy(url: URL, key: string): boolean {
  const value = url.getParameter(key) ?? getAnyMethodParameter(url, key);
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  return v !== 'false' && v !== '0' && v !== 'null' && v !== 'n/a';
}

/**
 * Dubbo `URLParam.getAnyMethodParameter`: with a `methods` list, the first listed method with a
 * non-empty `<method>.<key>`; without one, the first `<method>.<key>` value (split at the first dot).
 */
function getAnyMethodParameter(url: URL, key: string): string | undefined {
  const methods = url.getParameter(METHODS_KEY);
  if (methods !== undefined) {
    for (const m of methods.split(',')) {
      const v = url.params.get(`${m}.${key}`);
      if (v !== undefined && v !== '') return v;
    }
    return undefined;
  }
  // DIVERGENCE: Java takes the first value of a HashMap (unspecified order); this takes the first in URL order.
  for (const [k, v] of url.params) {
    const dot = k.indexOf('.');
    if (dot > 0 && k.slice(dot + 1) === key) return v;
  }
  return undefined;
}

// PERF: `toString` of a URL is only needed for a refusal message, but overload can refuse on every
// call; URLs are immutable, so the rendering is kept per URL.
const dubboStrings = new WeakMap<URL, string>();

/**
 * Dubbo `URL.toString()` (`buildString(false, true)`): `protocol://host[:port][/path]` without user
 * or password, then every parameter with a non-empty key in `TreeMap` order, values trimmed.
 */
export function dubboUrlString(url: URL): string {
  let s = dubboStrings.get(url);
  if (s === undefined) {
    s = url.protocol ? `${url.protocol}://` : '';
    if (url.host) s += url.port > 0 ? `${url.host}:${url.port}` : url.host;
    if (url.path) s += `/${url.path}`;
    // Java String.compareTo and the default sort both order by UTF-16 code units.
    const keys = [...url.params.keys()].filter((k) => k !== '').sort();
    for (let i = 0; i < keys.length; i++) s += `${i === 0 ? '?' : '&'}${keys[i]}=${url.params.get(keys[i]!)!.trim()}`;
    dubboStrings.set(url, s);
  }
  return s;
}

/**
 * The RpcException ExecuteLimitFilter throws above the limit: LIMIT_EXCEEDED_EXCEPTION (7) with
 * Dubbo's message, naming the provider URL as `URL.toString()` renders it.
 */
export function executeLimitExceeded(url: URL, methodName: string, max: number): RpcError {
  return {
    code: RpcCode.LIMIT_EXCEEDED_EXCEPTION,
    message:
      `Failed to invoke method ${methodName} in provider ${dubboUrlString(url)}, ` +
      `cause: The service using threads greater than <dubbo:service executes="${max}" /> limited.`,
    cause: 'executes:limit',
  };
}

// PERF: activation depends only on the provider URL, which every call of an export shares.
const activeFor = new WeakMap<URL, boolean>();

/**
 * ExecuteLimitFilter of one provider process. Dubbo's RpcStatus is JVM-wide: pass the process's
 * table to share it with that process's consumer side, or let the filter make its own.
 */
export class ExecuteLimitFilter {
  readonly rpcStatus: RpcStatusTable;

  constructor(rpcStatus: RpcStatusTable = new RpcStatusTable()) {
    this.rpcStatus = rpcStatus;
  }

  /** Dubbo's `@Activate(group = PROVIDER, value = "executes")` for the export's URL. */
  isActive(url: URL): boolean {
    let active = activeFor.get(url);
    if (active === undefined) {
      active = isActivatedBy(url, EXECUTES_KEY);
      activeFor.set(url, active);
    }
    return active;
  }

  /**
   * The part of `invoke` before `invoker.invoke`: takes an executing slot for `methodName` (the
   * call itself counts: with `executes=N`, N calls run and the N+1-th is refused) and returns null,
   * or returns the refusal. `<method>.executes` overrides `executes`; 0 or absent means no limit,
   * but an active filter still counts. Java throws the refusal from `invoke`, so the provider
   * answers with a SERVICE_ERROR response rather than a result.
   */
  admit(url: URL, methodName: string): RpcError | null {
    if (!this.isActive(url)) return null;
    const max = url.getMethodNumber(methodName, EXECUTES_KEY, 0);
    if (this.rpcStatus.beginCount(url, methodName, max)) return null;
    return executeLimitExceeded(url, methodName, max);
  }

  /**
   * The call produced a result, which includes a business exception and any refusal returned (not
   * thrown) by a filter further in, such as TpsLimitFilter: `endCount(succeeded = true)`.
   */
  onResponse(url: URL, methodName: string, elapsedMs: number): void {
    if (!this.isActive(url)) return;
    this.rpcStatus.endCount(url, methodName, elapsedMs, true);
  }

  /**
   * An exception was thrown through the filter: `endCount(succeeded = false)`, except for a
   * LIMIT_EXCEEDED one (code 7), which Java takes for this filter's own refusal, whose slot was
   * never taken. Elapsed is `currentTimeMillis` minus the start Dubbo stored on the invocation.
   */
  onError(error: RpcError, url: URL, methodName: string, elapsedMs: number): void {
    if (!this.isActive(url)) return;
    // DIVERGENCE: Java's isLimitExceed() also matches a LimitExceededException cause; an RpcError has no cause chain.
    if (error.code === RpcCode.LIMIT_EXCEEDED_EXCEPTION) return;
    this.rpcStatus.endCount(url, methodName, elapsedMs, false);
  }
}
