/**
 * The shared part of every cluster invoker: list → checkInvokers → pick the load balancer from the
 * first invoker's URL → doInvoke, plus select / doSelect / reselect with sticky and availablecheck,
 * and invokeWithContext around each attempt. Follows dubbo-cluster
 * `support/AbstractClusterInvoker.java`.
 */
import type { Proc, Simulation } from '../../engine/simulation.js';
import {
  CLUSTER_AVAILABLE_CHECK_KEY,
  DEFAULT_LOADBALANCE,
  DEFAULT_RESELECT_COUNT,
  LOADBALANCE_KEY,
  RpcCode,
  STICKY_KEY,
} from '../constants.js';
import type { Directory } from '../directory/directory.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import { forgetDrawn, markDrawnFrom } from '../loadbalance/weight-table.js';
import {
  ended,
  isClusterInvoker,
  rpcError,
  type ClusterInvokerLike,
  type Invoker,
  type Result,
  type RpcError,
  type RpcInvocation,
} from '../rpc.js';
import type { ConsumerFilter, DubboRuntime } from '../runtime.js';
import { seenOutsideRpcExceptionFilter } from '../filter/rpc-exception-filter.js';
import type { URL } from '../url.js';

/** Builds a cluster invoker over a directory for one consumer instance. */
export type ClusterFactory = (directory: Directory, runtime: DubboRuntime) => ClusterInvokerLike;

export abstract class AbstractClusterInvoker implements ClusterInvokerLike {
  protected readonly directory: Directory;
  protected readonly runtime: DubboRuntime;
  protected readonly availableCheck: boolean;
  protected readonly reselectCount = DEFAULT_RESELECT_COUNT;
  protected readonly enableConnectivityValidation = true;
  #stickyInvoker: Invoker | null = null;
  #destroyed = false;
  // PERF: the runtime keeps one load balancer per name; the last one it gave is kept here too, so a
  // call does not read the instance's runtime table (thousands of instances: each read a cache miss).
  #lbName: string | undefined;
  #lb: LoadBalance | undefined;
  // PERF: the first invoker's URL is read on every call (load balancer name, sticky); URLs are immutable,
  // so both answers are kept for the last URL and method read (`#readFirst`).
  #firstUrl: URL | undefined;
  #firstMethod: string | undefined;
  #firstLbName = DEFAULT_LOADBALANCE;
  #firstSticky = false;
  // PERF: read on every attempt; kept here for the same reason (the runtime's array itself, not a copy).
  readonly #filters: ConsumerFilter[];
  // PERF: asked first on every attempt; shared by the instances' runtimes (see `filtersActiveFor`).
  readonly #filtersActiveFor: ((invoker: Invoker) => boolean) | undefined;
  readonly #sim: Simulation;
  /** RpcExceptionFilter is in the chain, innermost of the modelled filters (3.2.5+). */
  readonly #rpcExceptionFilter: boolean;
  /** 2.7's doSelect and reselect: every invoker is a reselect candidate, and none is ever set aside. */
  readonly #reselectAll: boolean;

  constructor(directory: Directory, runtime: DubboRuntime) {
    this.directory = directory;
    this.runtime = runtime;
    this.#filters = runtime.filters;
    this.#filtersActiveFor = runtime.filtersActiveFor;
    this.#sim = runtime.sim;
    this.#rpcExceptionFilter = runtime.release.rpcExceptionFilter;
    this.#reselectAll = runtime.release.reselect === 'all';
    // Dubbo reads this from directory.getUrl(): the registry URL, not the reference's parameters.
    this.availableCheck = directory.getUrl().getParameter(CLUSTER_AVAILABLE_CHECK_KEY, 'true').toLowerCase() === 'true';
  }

  /** The consumer URL: where cluster-level parameters (retries, forks, ...) are read. */
  getUrl(): URL {
    return this.directory.getConsumerUrl();
  }

  getRegistryUrl(): URL {
    return this.directory.getUrl();
  }

  getDirectory(): Directory {
    return this.directory;
  }

  isAvailable(): boolean {
    if (this.#stickyInvoker !== null) return this.#stickyInvoker.isAvailable();
    return this.directory.isAvailable();
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  destroy(): void {
    this.#destroyed = true;
  }

  *invoke(invocation: RpcInvocation): Proc<Result> {
    return yield* this.#start(invocation);
  }

  /**
   * PERF: `invoke` for a caller that takes its first step at once (Invoker.invokeNow), without a
   * generator around `doInvoke`: the checks, the list and the load balancer now, then `doInvoke`'s
   * process (or one that ends with the checks' error). A subclass's own `invoke` is called as is.
   */
  invokeNow(invocation: RpcInvocation): Proc<Result> {
    return this.invoke === AbstractClusterInvoker.prototype.invoke ? this.#start(invocation) : this.invoke(invocation);
  }

  #start(invocation: RpcInvocation): Proc<Result> {
    const destroyed = this.checkWhetherDestroyed();
    if (destroyed) return ended({ kind: 'error', error: destroyed });
    const invokers = this.list(invocation);
    if (!Array.isArray(invokers)) return ended({ kind: 'error', error: invokers });
    const empty = this.checkInvokers(invokers, invocation);
    if (empty) return ended({ kind: 'error', error: empty });
    const lb = this.initLoadBalance(invokers, invocation);
    return this.doInvokeNow(invocation, invokers, lb);
  }

  /** The strategy: what to do with the routed invokers. */
  protected abstract doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result>;

  /**
   * `doInvoke` for a caller whose process takes its first step at once (see `invokeNow`): `doInvoke`'s
   * process, or one that makes the same decisions with less (FailoverClusterInvoker).
   */
  protected doInvokeNow(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    return this.doInvoke(invocation, invokers, loadbalance);
  }

  protected checkWhetherDestroyed(): RpcError | null {
    if (!this.#destroyed) return null;
    return {
      code: RpcCode.UNKNOWN_EXCEPTION,
      message: `Rpc cluster invoker for ${this.getInterface()} on consumer ${this.runtime.consumerHost} use dubbo version ${this.runtime.release.text} is now destroyed! Can not invoke any more.`,
    };
  }

  protected list(invocation: RpcInvocation): Invoker[] | RpcError {
    return this.directory.list(invocation);
  }

  protected getInterface(): string {
    return this.directory.getInterface();
  }

  /** The load balancer named on the first invoker's URL (method level first), default random. */
  protected initLoadBalance(invokers: Invoker[], invocation: RpcInvocation): LoadBalance {
    let name = DEFAULT_LOADBALANCE;
    if (invokers.length > 0) {
      this.#readFirst(invokers[0]!.getUrl(), invocation.getMethodName());
      name = this.#firstLbName;
    }
    if (name === this.#lbName) return this.#lb!;
    const lb = this.runtime.getLoadBalance(name);
    this.#lbName = name;
    this.#lb = lb;
    return lb;
  }

  // What the first invoker's URL says for `method`: the load balancer's name (method level first) and sticky.
  #readFirst(url: URL, method: string): void {
    if (url === this.#firstUrl && method === this.#firstMethod) return;
    this.#firstLbName = url.getMethodParameter(method, LOADBALANCE_KEY) ?? DEFAULT_LOADBALANCE;
    this.#firstSticky = url.getMethodBoolean(method, STICKY_KEY, false);
    this.#firstUrl = url;
    this.#firstMethod = method;
  }

  /**
   * Dubbo's "No provider available" (code 6) when the list is empty. zonesim adds which router
   * emptied the list, its rule and how many providers it received.
   */
  protected checkInvokers(invokers: Invoker[], invocation: RpcInvocation): RpcError | null {
    if (invokers.length > 0) return null;
    const emptied = this.directory.lastEmptiedBy();
    let message =
      `Failed to invoke the method ${invocation.getMethodName()} in the service ${this.getInterface()}. ` +
      `No provider available for the service ${this.directory.getConsumerUrl().getServiceKey()} from registry ` +
      `${this.directory.toString()} on the consumer ${this.runtime.consumerHost} using the dubbo version ${this.runtime.release.text}. ` +
      `Please check if the providers have been started and registered.`;
    let cause = 'directory:empty';
    if (emptied !== undefined) {
      cause = `router:${emptied.router}`;
      const rule = emptied.rule !== undefined ? ` "${emptied.rule}"` : '';
      message += ` [zonesim: ${emptied.router} rule${rule} left 0 of ${emptied.before} providers${emptied.note ? `: ${emptied.note}` : ''}]`;
    } else if (this.directory.getAllInvokers().length > 0) {
      cause = 'connectivity:unavailable';
      message += ' [zonesim: every provider was set aside by connectivity validation]';
    } else {
      message += ' [zonesim: the directory has no providers]';
    }
    return { code: RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER, message, cause };
  }

  /** Dubbo `select`: sticky first (only with availablecheck), then doSelect. */
  protected select(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    selected: Invoker[] | null,
  ): Invoker | null {
    if (invokers.length === 0) return null;
    const methodName = invocation.getMethodName();
    this.#readFirst(invokers[0]!.getUrl(), methodName);
    const sticky = this.#firstSticky;
    if (this.#stickyInvoker !== null && !invokers.includes(this.#stickyInvoker)) this.#stickyInvoker = null;
    if (sticky && this.#stickyInvoker !== null && (selected === null || !selected.includes(this.#stickyInvoker))) {
      if (this.availableCheck && this.#stickyInvoker.isAvailable()) return this.#stickyInvoker;
    }
    const invoker = this.doSelect(loadbalance, invocation, invokers, selected);
    if (sticky) this.#stickyInvoker = invoker;
    return invoker;
  }

  private doSelect(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    selected: Invoker[] | null,
  ): Invoker | null {
    if (invokers.length === 0) return null;
    if (invokers.length === 1) {
      const only = invokers[0]!;
      if (this.availableCheck && !only.isAvailable()) this.#invalidate(only);
      return only;
    }
    let invoker = loadbalance.select(invokers, this.getUrl(), invocation);
    if (invoker === null) return null;
    const isSelected = selected !== null && selected.includes(invoker);
    const isUnavailable = this.availableCheck && !invoker.isAvailable();
    if (isUnavailable) this.#invalidate(invoker);
    if (isSelected || isUnavailable) {
      const rInvoker = this.reselect(loadbalance, invocation, invokers, selected, this.availableCheck);
      if (rInvoker !== null) invoker = rInvoker;
      else {
        const index = invokers.indexOf(invoker);
        invoker = invokers[(index + 1) % invokers.length]!;
      }
    }
    return invoker;
  }

  private reselect(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    selected: Invoker[] | null,
    availableCheck: boolean,
  ): Invoker | null {
    const reselectInvokers: Invoker[] = [];
    // 2.7 AbstractClusterInvoker.java:214-250 always scans every invoker; 3.3 (:254-330) only up to reselectCount.
    if (this.#reselectAll || this.reselectCount >= invokers.length) {
      for (const invoker of invokers) {
        if (availableCheck && !invoker.isAvailable()) {
          this.#invalidate(invoker);
          continue;
        }
        if (selected === null || !selected.includes(invoker)) reselectInvokers.push(invoker);
      }
    } else {
      for (let i = 0; i < this.reselectCount; i++) {
        const invoker = invokers[this.runtime.random.nextInt(invokers.length)]!;
        if (availableCheck && !invoker.isAvailable()) {
          this.#invalidate(invoker);
          continue;
        }
        // Dubbo's condition is an OR, so an already-selected invoker can become a candidate again.
        if (selected === null || !selected.includes(invoker) || !reselectInvokers.includes(invoker)) {
          reselectInvokers.push(invoker);
        }
      }
    }
    if (reselectInvokers.length > 0) {
      markDrawnFrom(reselectInvokers, invokers);
      try {
        return loadbalance.select(reselectInvokers, this.getUrl(), invocation);
      } finally {
        forgetDrawn();
      }
    }
    if (selected !== null) {
      for (const invoker of selected) {
        if (invoker.isAvailable() && !reselectInvokers.includes(invoker)) reselectInvokers.push(invoker);
      }
    }
    if (reselectInvokers.length > 0) return loadbalance.select(reselectInvokers, this.getUrl(), invocation);
    return null;
  }

  // 2.7's doSelect and reselect (AbstractClusterInvoker.java:167-250) set nothing aside: its directory has no
  // connectivity validation.
  #invalidate(invoker: Invoker): void {
    if (this.enableConnectivityValidation && !this.#reselectAll) this.directory.addInvalidateInvoker(invoker);
  }

  /**
   * `invokeWithContext` for a caller that runs it at once (`yield*`, not a process started later): the
   * same steps. PERF: when no filter runs around the attempt, the invoker's own process is handed over,
   * without a generator around it that every step of the attempt would resume (one per attempt, cold
   * in memory between its steps).
   */
  protected invokeWithContextNow(invoker: Invoker, invocation: RpcInvocation): Proc<Result> {
    // A subclass's own invokeWithContext (a plugin's) is always called.
    if (this.invokeWithContext !== AbstractClusterInvoker.prototype.invokeWithContext || !this.#unfiltered(invoker)) {
      return this.invokeWithContext(invoker, invocation);
    }
    invocation.addInvokedInvoker(invoker);
    return invokeAtStart(invoker, invocation);
  }

  /** One attempt: record it on the invocation, run the consumer filters around the invoke. */
  protected *invokeWithContext(invoker: Invoker, invocation: RpcInvocation): Proc<Result> {
    invocation.addInvokedInvoker(invoker);
    if (this.#unfiltered(invoker)) return yield* invokeAtStart(invoker, invocation);
    const filters = this.#filters;
    if (filters.length === 0) return yield* invokeAtStart(invoker, invocation);
    for (let i = this.#nextToAdmit(invoker, invocation, 0); i < filters.length; i = this.#nextToAdmit(invoker, invocation, i + 1)) {
      // DIVERGENCE: a refused attempt (LIMIT_EXCEEDED) skips every filter's before/after; in Dubbo the
      // filters earlier in the chain would see onError.
      const refused = yield* filters[i]!.admit!(invoker, invocation);
      if (refused !== null) {
        invoker.refusedByFilter?.(invocation);
        return { kind: 'error', error: refused };
      }
    }
    const start = this.#sim.now;
    for (let i = 0; i < filters.length; i++) filters[i]!.before(invoker, invocation, start);
    const result = yield* invokeAtStart(invoker, invocation);
    this.#after(invoker, invocation, result, start);
    return result;
  }

  /** No consumer filter runs around an attempt on `invoker`. */
  #unfiltered(invoker: Invoker): boolean {
    // Dubbo's consumer Filter chain wraps protocol (provider) invokers; a nested cluster invoker
    // (mergeable over groups) runs the filters around its own attempts, so they must not run twice.
    if (isClusterInvoker(invoker)) return true;
    // An invoker whose chain Dubbo built without any of these filters (no `actives`, no adaptive balancer).
    return this.#filtersActiveFor !== undefined && !this.#filtersActiveFor(invoker);
  }

  // PERF: the loops that never wait run outside the generator, whose object (one per attempt) then
  // holds fewer registers.
  /**
   * From filter `from` on, the first whose gate must run as a process (`admit` without `admitNow`, or
   * `admitNow` said no); the gates passed on the way are taken (`admitNow` counts). `filters.length`: none.
   */
  #nextToAdmit(invoker: Invoker, invocation: RpcInvocation, from: number): number {
    const filters = this.#filters;
    for (let i = from; i < filters.length; i++) {
      const filter = filters[i]!;
      if (filter.admit === undefined) continue;
      if (filter.admitNow !== undefined && filter.admitNow(invoker, invocation)) continue;
      return i;
    }
    return filters.length;
  }

  #after(invoker: Invoker, invocation: RpcInvocation, result: Result, start: number): void {
    const filters = this.#filters;
    const now = this.#sim.now;
    let seen = result;
    if (result.kind === 'ok') {
      // An async call's failed future reaches every listener as onError (FilterChainBuilder.java:223).
      if (result.failedFuture !== undefined) seen = { kind: 'error', error: result.failedFuture };
      // ActivateComparator sorts RpcExceptionFilter (order 0) after ActiveLimitFilter (order 0, by simple name)
      // and AdaptiveLoadBalanceFilter (-200000): listeners run inner to outer, so both see what it rethrows.
      else if (this.#rpcExceptionFilter) seen = seenOutsideRpcExceptionFilter(result);
    }
    for (let i = 0; i < filters.length; i++) filters[i]!.after(invoker, invocation, seen, now - start, now);
  }

  /** Convenience for strategies: an error result with Dubbo's code. */
  protected error(code: number, message: string, cause?: string): Result {
    return rpcError(code, message, cause);
  }
}

/** `invoker.invoke(invocation)` for a caller whose process's first step comes next: its `invokeNow` when it has one. */
export function invokeAtStart(invoker: Invoker, invocation: RpcInvocation): Proc<Result> {
  return invoker.invokeNow !== undefined ? invoker.invokeNow(invocation) : invoker.invoke(invocation);
}
