/**
 * What a plugin factory gets and what it adds, guarded like its other calls: the runtime whose
 * `sim` runs what the plugin schedules as plugin calls, the filters a factory pushes onto
 * `runtime.filters` (each wrapped, its `admit` steps checked), and the factory's own call
 * (`guardedFactory`). The slot and the marking of calls are plugin-guard.ts's.
 */
import type { ConsumerFilter, DubboRuntime } from '../dubbo/runtime.js';
import { describeValue } from './describe-value.js';
import { bad, guarded, guardSteps, type PluginCall } from './plugin-guard.js';

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
export function guardedFactory<T>(plugin: string, call: PluginCall, runtime: unknown, make: () => unknown, wrap: (made: unknown) => T): T {
  return guarded(plugin, call, () => {
    const before = filterCount(runtime);
    const made = make();
    guardNewFilters(plugin, call, runtime, before);
    return wrap(made);
  });
}

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
