/**
 * The boundary between the model and plugin code, on the thread that runs the simulation. Every
 * plugin factory is wrapped here when it is loaded, so that each call the model makes into plugin
 * code (`select`, `route`, `invoke` steps, the filters a plugin adds, ...) first writes which plugin
 * and which call into a shared slot, for the watchdog on the main thread (plugin-watchdog.ts), and
 * its result is checked before the model sees it: a wrong result or a thrown error becomes one
 * PluginError naming the plugin and what was wrong, instead of an internal TypeError later. Reading
 * a plugin's object can run its code too (a getter, a Proxy), so every read of what a plugin hands
 * over happens inside the timed call, once: the methods of the object a factory returns are copied
 * onto a plain wrapper there, and a call's result is checked (and copied where the model keeps it)
 * before the call counts as returned. The wrappers only write the slot (no clock here); the watchdog
 * reads wall time. Owns the slot layout, the call names and the checks; loading modules belongs to
 * plugins.ts.
 */
import { isMainThread } from 'node:worker_threads';
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import type { LoadBalance, LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import type { PluginRouterFactory } from '../stack/build-router-chain.js';
import type { RouteTraceEntry, RouterResult, RoutingInputs, StateRouter } from '../dubbo/router/router.js';
import type { ClusterInvokerLike, Invoker, RpcInvocation } from '../dubbo/rpc.js';
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

/**
 * On a worker thread that runs plugins: what plugin code prints (`console.log`, `process.stdout`)
 * goes to stderr, so that stdout holds only zonesim's own output (one JSON document with `--json`).
 * zonesim itself never writes to stdout from a worker. No-op on the main thread.
 */
export function routePluginStdout(): void {
  if (isMainThread) return;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
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

/**
 * A short description of a value a plugin returned or threw. Never throws: a value whose reading
 * throws (a Proxy, a getter) is `an object that throws when read`.
 */
export function describeValue(value: unknown): string {
  try {
    return describe(value);
  } catch {
    return 'an object that throws when read';
  }
}

function describe(value: unknown): string {
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

/** What a plugin threw, for a message: `TypeError: ...` for an Error, else a description. Never throws. */
export function describeThrown(error: unknown, withName = true): string {
  try {
    if (error instanceof Error) return withName ? `${String(error.name)}: ${String(error.message)}` : String(error.message);
  } catch {
    // An Error subclass whose name or message getter throws: described as a value below.
  }
  return describeValue(error);
}

// `instanceof` walks the prototype chain, where a Proxy's getPrototypeOf trap may throw (a loop is timed).
function isPluginError(error: unknown): error is PluginError {
  try {
    return error instanceof PluginError;
  } catch {
    return false;
  }
}

// An error thrown inside a plugin call: kept when it is already a plugin's (a nested call's), else
// attributed to this one. Runs while the call is still marked, since reading a thrown value can run
// plugin code; nothing here throws.
function failure(plugin: string, call: PluginCall, error: unknown): Error {
  if (isPluginError(error)) return error;
  const e = new PluginError(`plugin ${plugin}: ${callLabel(call)} threw ${describeThrown(error)}`);
  try {
    if (error instanceof Error && typeof error.stack === 'string') e.stack = `${e.name}: ${e.message}\n  caused by ${error.stack}`;
  } catch {
    // No stack then: the message already names the plugin and the call.
  }
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

/**
 * An import (or any asynchronous step) of plugin `plugin`, marked as `load` until it settles. A
 * failure becomes an Error whose message describes what was thrown, read while still marked.
 */
export async function guardedLoad<T>(plugin: string, load: () => Promise<T>): Promise<T> {
  const saved = enter(plugin, CALL.load);
  try {
    return await load();
  } catch (error) {
    throw new Error(describeThrown(error, false));
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

/** Why `r` is not a Result, or undefined when it is one (each field read once: it may be a getter). */
export function resultProblem(r: unknown): string | undefined {
  const shape = "a result ({ kind: 'ok', value } or { kind: 'error', error: { code, message } })";
  if (r === null || typeof r !== 'object') return `returned ${describeValue(r)}, not ${shape}`;
  const kind = (r as { kind?: unknown }).kind;
  if (kind === 'ok') return undefined;
  if (kind === 'error') {
    const error = (r as { error?: unknown }).error as { code?: unknown; message?: unknown } | null | undefined;
    if (error === null || typeof error !== 'object' || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return 'returned an error result without error.code (a number) and error.message (a string)';
    }
    return undefined;
  }
  return `returned ${describeValue(r)} with kind ${describeValue(kind)}, not ${shape}`;
}

// ---- filters a plugin adds to the runtime ----

const noop = (): void => undefined;

/** Why the value an `admit` process returned is not `null` or an error `{ code, message }`, or undefined. */
function admitProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  const e = value as { code?: unknown; message?: unknown } | undefined;
  if (e !== undefined && typeof e === 'object' && typeof e.code === 'number' && typeof e.message === 'string') return undefined;
  return `returned ${describeValue(value)}, not null (admitted) or an error { code, message } (refused)`;
}

// A filter the plugin added, as a plain wrapper of its methods read once (called inside its factory's call).
function guardFilter(plugin: string, call: PluginCall, filter: unknown): ConsumerFilter {
  if (filter === null || typeof filter !== 'object') {
    throw bad(plugin, call, `added ${describeValue(filter)} to runtime.filters, not a filter { before(), after() }`);
  }
  const f = filter as Partial<ConsumerFilter>;
  const before = f.before;
  const after = f.after;
  const admit = f.admit;
  // A plugin's gate always runs through the guarded `admit` (the fast path `admitNow` is for built-in
  // filters), and the filter runs for every invoker (no `activeFor`).
  const g: ConsumerFilter = {
    before: typeof before === 'function' ? (...a) => guarded(plugin, 'filter.before', () => before.apply(filter, a)) : noop,
    after: typeof after === 'function' ? (...a) => guarded(plugin, 'filter.after', () => after.apply(filter, a)) : noop,
  };
  if (typeof admit === 'function') {
    g.admit = (...a) => guarded(plugin, 'filter.admit', () => guardSteps(plugin, 'filter.admit', admit.apply(filter, a), admitProblem));
  }
  return g;
}

// Filters the factory pushed onto `runtime.filters` run plugin code on every attempt: guard them too.
function guardNewFilters(plugin: string, call: PluginCall, runtime: unknown, before: number): void {
  const filters = (runtime as { filters?: unknown } | null)?.filters;
  if (!Array.isArray(filters)) return;
  for (let i = before; i < filters.length; i++) filters[i] = guardFilter(plugin, call, filters[i]);
}

const filterCount = (runtime: unknown): number => {
  const filters = (runtime as { filters?: unknown } | null)?.filters;
  return Array.isArray(filters) ? filters.length : 0;
};

/**
 * Runs plugin factory `call` as one timed call: the factory itself, the filters it added to
 * `runtime.filters` and `wrap`, which reads and checks the object it returned.
 */
function guardedFactory<T>(plugin: string, call: PluginCall, runtime: unknown, make: () => unknown, wrap: (made: unknown) => T): T {
  return guarded(plugin, call, () => {
    const before = filterCount(runtime);
    const made = make();
    guardNewFilters(plugin, call, runtime, before);
    return wrap(made);
  });
}

// ---- generator steps (cluster invoke, filter admit) ----

type Step = IteratorResult<unknown, unknown>;

/**
 * Wraps the generator a plugin's `invoke` (or `admit`) returned: each step runs as a plugin call,
 * yields must be simulation events, and the returned value is checked by `check`, all inside the
 * step's call. Call it inside the plugin call that returned `gen`.
 */
function guardSteps<T>(plugin: string, call: PluginCall, gen: unknown, check: (value: unknown) => string | undefined): T {
  const it = gen as Partial<Generator<unknown, unknown, unknown>> | null;
  if (it === null || typeof it !== 'object' || typeof it.next !== 'function') {
    throw bad(plugin, call, `returned ${describeValue(gen)}, not a generator (write it as function* and yield* the invokers' invoke())`);
  }
  const index = CALL[call];
  const advance = (kind: 0 | 1 | 2, arg: unknown): unknown => {
    if (kind === 0) return it.next!(arg);
    if (kind === 1) {
      const thrower = it.throw;
      if (typeof thrower !== 'function') throw arg;
      return thrower.call(it, arg);
    }
    const returner = it.return;
    return typeof returner === 'function' ? returner.call(it, arg) : { done: true, value: arg };
  };
  const step = (kind: 0 | 1 | 2, arg: unknown): Step => {
    const saved = enter(plugin, index);
    try {
      const r = advance(kind, arg) as Step | null;
      if (r === null || typeof r !== 'object') throw bad(plugin, call, `stepped to ${describeValue(r)}, not an iterator result`);
      const done = r.done;
      const value = r.value;
      if (done === true) {
        const problem = check(value);
        if (problem !== undefined) throw bad(plugin, call, problem);
        return { done: true, value };
      }
      const v = value as { addCallback?: unknown } | null;
      if (v === null || typeof v !== 'object' || typeof v.addCallback !== 'function') {
        throw bad(plugin, call, `yielded ${describeValue(value)}, not a simulation event (yield* an invoker's invoke(), or yield an event of runtime.sim)`);
      }
      return { done: false, value };
    } catch (error) {
      // An error thrown into the generator that it did not catch is not the plugin's.
      if (kind === 1 && error === arg) throw error;
      throw failure(plugin, call, error);
    } finally {
      leave(saved);
    }
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
  const select = lb !== null && typeof lb === 'object' ? (lb as Partial<LoadBalance>).select : undefined;
  if (typeof select !== 'function') {
    throw bad(plugin, 'createLoadBalance', `returned ${describeValue(lb)}, not a load balancer { select(invokers, url, invocation) }`);
  }
  return {
    select: (invokers, url, invocation) =>
      guarded(plugin, 'select', () => {
        const picked = select.call(lb, invokers, url, invocation);
        if (picked === null && invokers.length === 0) return null;
        if (picked === null || !invokers.includes(picked)) {
          throw bad(plugin, 'select', `returned ${describeValue(picked)}, not one of the ${invokers.length} invokers it was given`);
        }
        return picked;
      }),
  };
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
  return (runtime: DubboRuntime) =>
    guardedFactory(plugin, 'createLoadBalance', runtime, () => factory(pluginRuntime(plugin, runtime)), (lb) => guardLoadBalance(plugin, lb));
}

// ---- clusters ----

const CLUSTER_METHODS = ['getUrl', 'isAvailable', 'getRegistryUrl', 'isDestroyed', 'destroy'] as const;

function guardCluster(plugin: string, invoker: unknown): ClusterInvokerLike {
  const inner = (invoker !== null && typeof invoker === 'object' ? invoker : {}) as Partial<ClusterInvokerLike>;
  const invoke = inner.invoke;
  const methods = new Map(CLUSTER_METHODS.map((name) => [name, inner[name]]));
  if (invoker !== inner || typeof invoke !== 'function' || typeof methods.get('getUrl') !== 'function') {
    throw bad(plugin, 'createCluster', `returned ${describeValue(invoker)}, not a cluster invoker { invoke(invocation), getUrl(), isAvailable(), ... }`);
  }
  const g: Record<string, unknown> = {
    invoke: (invocation: RpcInvocation) => guarded(plugin, 'invoke', () => guardSteps(plugin, 'invoke', invoke.call(inner, invocation), resultProblem)),
  };
  for (const [name, method] of methods) {
    if (typeof method !== 'function') continue;
    g[name] = (...a: unknown[]) => guarded(plugin, name, () => (method as (...a: unknown[]) => unknown).apply(inner, a));
  }
  return g as unknown as ClusterInvokerLike;
}

/** A cluster factory whose invokers report their calls and have their results checked. */
export function guardClusterFactory(plugin: string, factory: Function): ClusterFactory {
  return (directory, runtime) =>
    guardedFactory(plugin, 'createCluster', runtime, () => factory(directory, pluginRuntime(plugin, runtime)), (invoker) => guardCluster(plugin, invoker));
}

// ---- routers ----

const TRACE_SCALARS = new Set(['string', 'number', 'boolean']);

// A plain copy of a router's trace entry: its scalar fields, and `steps` (nested entries) copied the same way.
function copyTrace(trace: object, depth = 0): RouteTraceEntry {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(trace)) {
    const value: unknown = (trace as Record<string, unknown>)[key];
    if (TRACE_SCALARS.has(typeof value)) out[key] = value;
    else if (key === 'steps' && Array.isArray(value) && depth < 8) {
      out.steps = Array.from(value, (s: unknown) => (s !== null && typeof s === 'object' ? copyTrace(s, depth + 1) : s));
    }
  }
  return out as unknown as RouteTraceEntry;
}

// A router's result checked and copied (invokers from its input, trace an object), or why not.
function takeRoute(plugin: string, r: unknown, input: Invoker[]): RouterResult {
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw bad(plugin, 'route', `returned ${describeValue(r)}, not { invokers, trace }`);
  const x = r as Partial<RouterResult>;
  const invokers: unknown = x.invokers;
  if (!Array.isArray(invokers)) throw bad(plugin, 'route', `returned invokers: ${describeValue(invokers)}, not an array`);
  const kept = invokers === input ? input : (Array.from(invokers) as Invoker[]);
  const stranger = allIn(kept, input);
  if (stranger !== undefined) throw bad(plugin, 'route', `returned ${describeValue(stranger)}, which is not one of the ${input.length} invokers it was given`);
  const trace: unknown = x.trace;
  if (trace === null || typeof trace !== 'object') throw bad(plugin, 'route', `returned trace: ${describeValue(trace)}, not { router, before, after }`);
  return { invokers: kept, trace: copyTrace(trace) };
}

function takeRoutingInputs(plugin: string, r: unknown): RoutingInputs {
  const x = (r !== null && typeof r === 'object' ? r : {}) as Partial<RoutingInputs>;
  const method = x.method;
  const random = x.random;
  const attachments: unknown = x.attachments;
  const args: unknown = x.arguments;
  const copy = {
    method,
    random,
    attachments: Array.isArray(attachments) ? Array.from(attachments as unknown[]) : undefined,
    arguments: Array.isArray(args) ? Array.from(args as unknown[]) : undefined,
  };
  const ok =
    r === x && typeof method === 'boolean' && typeof random === 'boolean' &&
    copy.attachments?.every((a) => typeof a === 'string') === true && copy.arguments?.every((a) => typeof a === 'number') === true;
  if (!ok) throw bad(plugin, 'routingInputs', `returned ${describeValue(r)}, not { method, attachments, arguments, random }`);
  return copy as RoutingInputs;
}

function guardRouter(plugin: string, router: unknown): StateRouter {
  const inner = (router !== null && typeof router === 'object' ? router : {}) as Partial<StateRouter>;
  const { route, name, order, notify, routingInputs: inputs, routeKey, cacheKeyInputs } = inner;
  if (inner !== router || typeof route !== 'function' || typeof name !== 'string' || typeof order !== 'number') {
    throw bad(plugin, 'createRouter', `returned ${describeValue(router)}, not a state router { name, order, route(invokers, consumerUrl, invocation) }`);
  }
  const g: { -readonly [K in keyof StateRouter]: StateRouter[K] } = {
    name,
    order,
    route: (invokers, url, invocation) => guarded(plugin, 'route', () => takeRoute(plugin, route.call(inner, invokers, url, invocation), invokers)),
  };
  if (cacheKeyInputs !== undefined) g.cacheKeyInputs = cacheKeyInputs;
  if (typeof notify === 'function') g.notify = (invokers) => guarded(plugin, 'notify', () => notify.call(inner, invokers));
  if (typeof inputs === 'function') g.routingInputs = () => guarded(plugin, 'routingInputs', () => takeRoutingInputs(plugin, inputs.call(inner)));
  if (typeof routeKey === 'function') {
    g.routeKey = (url, invocation) =>
      guarded(plugin, 'routeKey', () => {
        const r = routeKey.call(inner, url, invocation);
        if (typeof r !== 'string') throw bad(plugin, 'routeKey', `returned ${describeValue(r)}, not a string`);
        return r;
      });
  }
  // The chain calls a plugin's key only through the guarded `routeKey` (no `routeKeyOf`).
  return g;
}

function isClass(fn: Function): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/** A router factory (a function or a class, as the chain accepts) whose routers report their calls and have their results checked. */
export function guardRouterFactory(plugin: string, factory: Function): PluginRouterFactory {
  return (options, runtime) =>
    guardedFactory(
      plugin,
      'createRouter',
      runtime,
      () => (isClass(factory) ? new (factory as new (o: unknown, r: unknown) => unknown)(options, runtime) : factory(options, runtime)),
      (router) => guardRouter(plugin, router),
    );
}
