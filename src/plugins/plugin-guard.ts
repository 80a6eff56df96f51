/**
 * The boundary between the model and plugin code, on the thread that runs the simulation. Every
 * plugin factory is wrapped when it is loaded, so that each call the model makes into plugin
 * code (`select`, `route`, `invoke` steps, the filters a plugin adds, ...) first writes which plugin
 * and which call into a shared slot, for the watchdog on the main thread (plugin-watchdog.ts), and
 * its result is checked before the model sees it: a wrong result or a thrown error becomes one
 * PluginError naming the plugin and what was wrong, instead of an internal TypeError later. Reading
 * a plugin's object can run its code too (a getter, a Proxy), so every read of what a plugin hands
 * over happens inside the timed call, once: the methods of the object a factory returns are copied
 * onto a plain wrapper there, and a call's result is checked (and copied where the model keeps it)
 * before the call counts as returned. The wrappers only write the slot (no clock here); the watchdog
 * reads wall time. Owns the slot layout, the call names, the marking of calls (`guarded`, and each
 * step of a plugin's generator) and the errors; the wrappers and checks per kind of plugin are
 * load-balance-guard.ts, cluster-guard.ts and router-guard.ts, the runtime a plugin gets and the
 * filters it adds plugin-runtime.ts; loading modules belongs to plugins.ts.
 */
import { isMainThread } from 'node:worker_threads';
import { describeThrown, describeValue } from './describe-value.js';

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

/** A PluginError for plugin `plugin`'s call `call` that did `what` (a wrong result, shape or step). */
export function bad(plugin: string, call: PluginCall, what: string): PluginError {
  return new PluginError(`plugin ${plugin}: ${callLabel(call)} ${what}`);
}

// ---- generator steps (cluster invoke, filter admit) ----

type Step = IteratorResult<unknown, unknown>;

/**
 * Wraps the generator a plugin's `invoke` (or `admit`) returned: each step runs as a plugin call,
 * yields must be simulation events, and the returned value is checked by `check`, all inside the
 * step's call. Call it inside the plugin call that returned `gen`.
 */
export function guardSteps<T>(plugin: string, call: PluginCall, gen: unknown, check: (value: unknown) => string | undefined): T {
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
