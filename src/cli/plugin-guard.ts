/**
 * The boundary between the model and plugin code, on the thread that runs the simulation. Every
 * plugin factory is wrapped here when it is loaded, so that each call the model makes into plugin
 * code (`select`, `route`, `invoke` steps, the filters a plugin adds, ...) first writes which plugin
 * and which call into a shared slot, for the watchdog on the main thread (plugin-watchdog.ts), and
 * its result is checked before the model sees it: a wrong result or a thrown error becomes one
 * PluginError naming the plugin and what was wrong, instead of an internal TypeError later. The
 * wrappers only write the slot (no clock here); the watchdog reads wall time. Owns the slot layout,
 * the call names and the checks; loading modules belongs to plugins.ts.
 */
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import type { LoadBalance, LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import type { PluginRouterFactory } from '../dubbo/router/chain.js';
import type { RouterResult, StateRouter } from '../dubbo/router/router.js';
import type { ClusterInvokerLike, Invoker } from '../dubbo/rpc.js';
import type { ConsumerFilter, DubboRuntime } from '../dubbo/runtime.js';

/** The plugin calls the watchdog can name; the slot holds the index. */
export const PLUGIN_CALLS = [
  'load',
  'createLoadBalance',
  'createCluster',
  'createRouter',
  'select',
  'invoke',
  'route',
  'notify',
  'routingInputs',
  'routeKey',
  'getUrl',
  'isAvailable',
  'getRegistryUrl',
  'isDestroyed',
  'destroy',
  'filter.admit',
  'filter.before',
  'filter.after',
  'scheduled',
  'process',
] as const;
export type PluginCall = (typeof PLUGIN_CALLS)[number];
const CALL = Object.fromEntries(PLUGIN_CALLS.map((c, i) => [c, i])) as Record<PluginCall, number>;

/** How a call is named in messages: `select()`, or `loading the module`. */
export function callLabel(call: PluginCall): string {
  return call === 'load' ? 'loading the module' : `${call}()`;
}

/**
 * Int32 fields per slot: the sequence number of the outermost plugin call running (0: none), the
 * nesting depth, the innermost running call's plugin (1-based index into the slot's `plugins`, 0:
 * unknown) and its call (index into PLUGIN_CALLS).
 */
export const SLOT_FIELDS = 4;
export const F_SEQ = 0;
export const F_DEPTH = 1;
export const F_PLUGIN = 2;
export const F_CALL = 3;

/** Where one simulation's plugin calls report themselves: a slot of a shared buffer and the plugin names by index. */
export interface PluginSlot {
  buffer: SharedArrayBuffer;
  index: number;
  /** Plugin module names as the scenario writes them; the slot stores 1 + the index. */
  plugins: readonly string[];
}

/** A plugin broke its contract (bad result, thrown error): the message names the plugin and the call. */
export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

// The slot this thread writes now (one simulation at a time per thread); a private one when unwatched.
let view: Int32Array<ArrayBufferLike> = new Int32Array(SLOT_FIELDS);
let base = 0;
let pluginIndex = new Map<string, number>();
let seq = 0;

/** Points this thread's plugin calls at `slot` (undefined: an unwatched slot of its own). */
export function usePluginSlot(slot: PluginSlot | undefined): void {
  if (slot === undefined) {
    view = new Int32Array(SLOT_FIELDS);
    base = 0;
    pluginIndex = new Map();
    return;
  }
  view = new Int32Array(slot.buffer);
  base = slot.index * SLOT_FIELDS;
  pluginIndex = new Map(slot.plugins.map((p, i) => [p, i + 1]));
}

// Enters a plugin call: returns the caller's (plugin, call) to restore on leaving.
function enter(plugin: string, call: number): number {
  const v = view;
  const b = base;
  const saved = v[b + F_PLUGIN]! * 65536 + v[b + F_CALL]!;
  v[b + F_PLUGIN] = pluginIndex.get(plugin) ?? 0;
  v[b + F_CALL] = call;
  const depth = v[b + F_DEPTH]! + 1;
  v[b + F_DEPTH] = depth;
  if (depth === 1) {
    seq = seq >= 0x7fffffff ? 1 : seq + 1;
    Atomics.store(v, b + F_SEQ, seq);
  }
  return saved;
}

function leave(saved: number): void {
  const v = view;
  const b = base;
  const depth = v[b + F_DEPTH]! - 1;
  v[b + F_DEPTH] = depth;
  v[b + F_PLUGIN] = Math.floor(saved / 65536);
  v[b + F_CALL] = saved % 65536;
  if (depth === 0) Atomics.store(v, b + F_SEQ, 0);
}

/** A short description of a value a plugin returned. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (typeof (value as { then?: unknown }).then === 'function') return 'a Promise (plugin calls are synchronous)';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const getUrl = (value as Partial<Invoker>).getUrl;
  if (typeof getUrl === 'function') {
    try {
      return `an invoker (${String((getUrl.call(value) as { getAddress?: () => string }).getAddress?.() ?? '?')})`;
    } catch {
      return 'an invoker';
    }
  }
  return typeof value === 'function' ? 'a function' : 'an object';
}

// An error thrown inside a plugin call: kept when it is already a plugin's, else attributed to this one.
function failure(plugin: string, call: PluginCall, error: unknown): Error {
  if (error instanceof PluginError || (error as { name?: string } | null)?.name === 'PluginError') return error as Error;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : describeValue(error);
  const e = new PluginError(`plugin ${plugin}: ${callLabel(call)} threw ${what}`);
  if (error instanceof Error && error.stack !== undefined) e.stack = `${e.name}: ${e.message}\n  caused by ${error.stack}`;
  return e;
}

/** Runs `f` as plugin `plugin`'s call `call`: the slot says so while it runs; errors name the plugin. */
export function guarded<T>(plugin: string, call: PluginCall, f: () => T): T {
  const saved = enter(plugin, CALL[call]);
  try {
    return f();
  } catch (error) {
    throw failure(plugin, call, error);
  } finally {
    leave(saved);
  }
}

/** An import (or any asynchronous step) of plugin `plugin`, marked as `load` until it settles. */
export async function guardedLoad<T>(plugin: string, load: () => Promise<T>): Promise<T> {
  const saved = enter(plugin, CALL.load);
  try {
    return await load();
  } finally {
    leave(saved);
  }
}

// ---- results ----

function bad(plugin: string, call: PluginCall, what: string): PluginError {
  return new PluginError(`plugin ${plugin}: ${callLabel(call)} ${what}`);
}

// True when every element of `out` is an element of `input` (PERF: a Set only for long lists).
function allIn(out: readonly unknown[], input: readonly unknown[]): unknown {
  if (out.length === 0) return undefined;
  if (input.length <= 16 || out.length <= 2) {
    for (const x of out) if (!input.includes(x)) return x;
    return undefined;
  }
  const set = new Set(input);
  for (const x of out) if (!set.has(x)) return x;
  return undefined;
}

/** Why `r` is not a Result, or undefined when it is one. */
export function resultProblem(r: unknown): string | undefined {
  const shape = "a result ({ kind: 'ok', value } or { kind: 'error', error: { code, message } })";
  if (r === null || typeof r !== 'object') return `returned ${describeValue(r)}, not ${shape}`;
  const x = r as { kind?: unknown; error?: { code?: unknown; message?: unknown } };
  if (x.kind === 'ok') return undefined;
  if (x.kind === 'error') {
    if (x.error === null || typeof x.error !== 'object' || typeof x.error.code !== 'number' || typeof x.error.message !== 'string') {
      return 'returned an error result without error.code (a number) and error.message (a string)';
    }
    return undefined;
  }
  return `returned ${describeValue(r)} with kind ${describeValue(x.kind)}, not ${shape}`;
}

// ---- filters a plugin adds to the runtime ----

function guardFilter(plugin: string, filter: ConsumerFilter): ConsumerFilter {
  if (filter === null || typeof filter !== 'object') return filter;
  const g = Object.create(filter) as ConsumerFilter;
  if (typeof filter.before === 'function') g.before = (...a) => guarded(plugin, 'filter.before', () => filter.before(...a));
  if (typeof filter.after === 'function') g.after = (...a) => guarded(plugin, 'filter.after', () => filter.after(...a));
  if (typeof filter.admit === 'function') {
    const admit = filter.admit;
    g.admit = (...a) => guardSteps(plugin, 'filter.admit', guarded(plugin, 'filter.admit', () => admit.apply(filter, a)), () => undefined);
  }
  // A plugin's gate always runs through the guarded `admit` (the fast path is for built-in filters), and
  // the filter runs for every invoker.
  g.admitNow = undefined;
  Object.defineProperty(g, 'activeFor', { value: undefined });
  return g;
}

// Filters the factory pushed onto `runtime.filters` run plugin code on every attempt: guard them too.
function guardNewFilters(plugin: string, runtime: unknown, before: number): void {
  const filters = (runtime as { filters?: unknown } | null)?.filters;
  if (!Array.isArray(filters)) return;
  for (let i = before; i < filters.length; i++) filters[i] = guardFilter(plugin, filters[i] as ConsumerFilter);
}

const filterCount = (runtime: unknown): number => {
  const filters = (runtime as { filters?: unknown } | null)?.filters;
  return Array.isArray(filters) ? filters.length : 0;
};

// ---- generator steps (cluster invoke, filter admit) ----

type Step = IteratorResult<unknown, unknown>;

/**
 * Wraps the generator a plugin's `invoke` (or `admit`) returned: each step runs as a plugin call,
 * yields must be simulation events, and the returned value is checked by `check`.
 */
function guardSteps<T>(plugin: string, call: PluginCall, gen: unknown, check: (value: unknown) => string | undefined): T {
  const it = gen as Partial<Generator<unknown, unknown, unknown>> | null;
  if (it === null || typeof it !== 'object' || typeof it.next !== 'function') {
    throw bad(plugin, call, `returned ${describeValue(gen)}, not a generator (write it as function* and yield* the invokers' invoke())`);
  }
  const index = CALL[call];
  const step = (kind: 0 | 1 | 2, arg: unknown): Step => {
    const saved = enter(plugin, index);
    let r: Step;
    try {
      if (kind === 0) r = it.next!(arg);
      else if (kind === 1) {
        if (typeof it.throw !== 'function') throw arg;
        r = it.throw(arg);
      } else r = typeof it.return === 'function' ? it.return(arg) : { done: true, value: arg };
    } catch (error) {
      // An error thrown into the generator that it did not catch is not the plugin's.
      if (kind === 1 && error === arg) throw error;
      throw failure(plugin, call, error);
    } finally {
      leave(saved);
    }
    if (r === null || typeof r !== 'object') throw bad(plugin, call, `stepped to ${describeValue(r)}, not an iterator result`);
    if (r.done === true) {
      const problem = check(r.value);
      if (problem !== undefined) throw bad(plugin, call, problem);
      return r;
    }
    const v = r.value as { addCallback?: unknown } | null;
    if (v === null || typeof v !== 'object' || typeof v.addCallback !== 'function') {
      throw bad(plugin, call, `yielded ${describeValue(r.value)}, not a simulation event (yield* an invoker's invoke(), or yield an event of runtime.sim)`);
    }
    return r;
  };
  const wrapper = {
    next: (v?: unknown) => step(0, v),
    throw: (e?: unknown) => step(1, e),
    return: (v?: unknown) => step(2, v),
    [Symbol.iterator]() {
      return wrapper;
    },
  };
  return wrapper as T;
}

// ---- load balancers ----

function guardLoadBalance(plugin: string, lb: unknown): LoadBalance {
  const inner = lb as Partial<LoadBalance> | null;
  if (inner === null || typeof inner !== 'object' || typeof inner.select !== 'function') {
    throw bad(plugin, 'createLoadBalance', `returned ${describeValue(lb)}, not a load balancer { select(invokers, url, invocation) }`);
  }
  const select = inner.select;
  const g = Object.create(inner) as LoadBalance;
  g.select = (invokers, url, invocation) => {
    const picked = guarded(plugin, 'select', () => select.call(inner, invokers, url, invocation));
    if (picked === null && invokers.length === 0) return null;
    if (picked === null || !invokers.includes(picked)) {
      throw bad(plugin, 'select', `returned ${describeValue(picked)}, not one of the ${invokers.length} invokers it was given`);
    }
    return picked;
  };
  return g;
}

// ---- the runtime a plugin gets ----

/**
 * The runtime as a plugin sees it: the same, except that what the plugin hands to `runtime.sim`
 * runs guarded too. A callback it schedules is a `scheduled()` call and each step of a process it
 * starts a `process()` call, timed by the watchdog like its other calls. (Callbacks it adds to events
 * with `addCallback` are not wrapped.)
 */
export function pluginRuntime(plugin: string, runtime: DubboRuntime): DubboRuntime {
  const sim = runtime.sim;
  const schedule = (delayMs: number, fire: (arg: unknown) => void, priority?: number, arg?: unknown) =>
    sim.schedule(delayMs, (a) => guarded(plugin, 'scheduled', () => fire(a)), priority, arg);
  const process = (gen: unknown) => sim.process(guardSteps(plugin, 'process', gen, () => undefined));
  // The kernel's other methods bound to it once (its private fields need the real `this`).
  const bound = new Map<PropertyKey, unknown>([
    ['schedule', schedule],
    ['process', process],
    ['processLast', process],
  ]);
  const guardedSim = new Proxy(sim, {
    get(target, prop) {
      const own = bound.get(prop);
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value.bind(target);
      bound.set(prop, method);
      return method;
    },
  });
  return Object.create(runtime, { sim: { value: guardedSim, enumerable: true } }) as DubboRuntime;
}

/** A load-balancer factory whose balancers report their calls and have their picks checked. */
export function guardLoadBalanceFactory(plugin: string, factory: Function): LoadBalanceFactory {
  return (runtime: DubboRuntime) => {
    const before = filterCount(runtime);
    const lb = guarded(plugin, 'createLoadBalance', () => factory(pluginRuntime(plugin, runtime)));
    guardNewFilters(plugin, runtime, before);
    return guardLoadBalance(plugin, lb);
  };
}

// ---- clusters ----

const CLUSTER_METHODS = ['getUrl', 'isAvailable', 'getRegistryUrl', 'isDestroyed', 'destroy'] as const;

function guardCluster(plugin: string, invoker: unknown): ClusterInvokerLike {
  const inner = invoker as Partial<ClusterInvokerLike> | null;
  if (inner === null || typeof inner !== 'object' || typeof inner.invoke !== 'function' || typeof inner.getUrl !== 'function') {
    throw bad(plugin, 'createCluster', `returned ${describeValue(invoker)}, not a cluster invoker { invoke(invocation), getUrl(), isAvailable(), ... }`);
  }
  const g = Object.create(inner) as ClusterInvokerLike;
  const invoke = inner.invoke;
  g.invoke = (invocation) =>
    guardSteps(plugin, 'invoke', guarded(plugin, 'invoke', () => invoke.call(inner, invocation)), resultProblem);
  for (const name of CLUSTER_METHODS) {
    const method = inner[name] as ((...a: unknown[]) => unknown) | undefined;
    if (typeof method !== 'function') continue;
    (g as unknown as Record<string, unknown>)[name] = (...a: unknown[]) => guarded(plugin, name, () => method.apply(inner, a));
  }
  return g;
}

/** A cluster factory whose invokers report their calls and have their results checked. */
export function guardClusterFactory(plugin: string, factory: Function): ClusterFactory {
  return (directory, runtime) => {
    const before = filterCount(runtime);
    const invoker = guarded(plugin, 'createCluster', () => factory(directory, pluginRuntime(plugin, runtime)));
    guardNewFilters(plugin, runtime, before);
    return guardCluster(plugin, invoker);
  };
}

// ---- routers ----

function routeProblem(r: unknown, input: readonly Invoker[]): string | undefined {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return `returned ${describeValue(r)}, not { invokers, trace }`;
  const x = r as Partial<RouterResult>;
  if (!Array.isArray(x.invokers)) return `returned invokers: ${describeValue(x.invokers)}, not an array`;
  const stranger = allIn(x.invokers, input);
  if (stranger !== undefined) return `returned ${describeValue(stranger)}, which is not one of the ${input.length} invokers it was given`;
  if (x.trace === null || typeof x.trace !== 'object') return `returned trace: ${describeValue(x.trace)}, not { router, before, after }`;
  return undefined;
}

function guardRouter(plugin: string, router: unknown): StateRouter {
  const inner = router as Partial<StateRouter> | null;
  if (inner === null || typeof inner !== 'object' || typeof inner.route !== 'function' || typeof inner.name !== 'string' || typeof inner.order !== 'number') {
    throw bad(plugin, 'createRouter', `returned ${describeValue(router)}, not a state router { name, order, route(invokers, consumerUrl, invocation) }`);
  }
  const g = Object.create(inner) as StateRouter;
  const route = inner.route;
  g.route = (invokers, url, invocation) => {
    const r = guarded(plugin, 'route', () => route.call(inner, invokers, url, invocation));
    const problem = routeProblem(r, invokers);
    if (problem !== undefined) throw bad(plugin, 'route', problem);
    return r;
  };
  const notify = inner.notify;
  if (typeof notify === 'function') g.notify = (invokers) => guarded(plugin, 'notify', () => notify.call(inner, invokers));
  const inputs = inner.routingInputs;
  if (typeof inputs === 'function') {
    g.routingInputs = () => {
      const r = guarded(plugin, 'routingInputs', () => inputs.call(inner));
      const ok =
        r !== null && typeof r === 'object' && typeof r.method === 'boolean' && typeof r.random === 'boolean' &&
        Array.isArray(r.attachments) && Array.isArray(r.arguments);
      if (!ok) throw bad(plugin, 'routingInputs', `returned ${describeValue(r)}, not { method, attachments, arguments, random }`);
      return r;
    };
  }
  const routeKey = inner.routeKey;
  if (typeof routeKey === 'function') {
    g.routeKey = (url, invocation) => {
      const r = guarded(plugin, 'routeKey', () => routeKey.call(inner, url, invocation));
      if (typeof r !== 'string') throw bad(plugin, 'routeKey', `returned ${describeValue(r)}, not a string`);
      return r;
    };
  }
  // The chain calls a plugin's key only through the guarded `routeKey`.
  Object.defineProperty(g, 'routeKeyOf', { value: undefined });
  return g;
}

function isClass(fn: Function): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/** A router factory (a function or a class, as the chain accepts) whose routers report their calls and have their results checked. */
export function guardRouterFactory(plugin: string, factory: Function): PluginRouterFactory {
  return (options, runtime) => {
    const before = filterCount(runtime);
    const router = guarded(plugin, 'createRouter', () =>
      isClass(factory) ? new (factory as new (o: unknown, r: unknown) => unknown)(options, runtime) : factory(options, runtime),
    );
    guardNewFilters(plugin, runtime, before);
    return guardRouter(plugin, router);
  };
}
