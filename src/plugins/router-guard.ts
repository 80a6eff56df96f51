/**
 * A plugin's state router behind the guard: its factory (a function or a class) runs as one timed
 * call, and `route`, `notify`, `routingInputs` and `routeKey` are plugin calls whose results are
 * checked and copied (invokers from its input, a plain trace) before the chain sees them.
 */
import type { PluginRouterFactory } from '../stack/build-router-chain.js';
import type { RouteTraceEntry, RouterResult, RoutingInputs, StateRouter } from '../dubbo/router/router.js';
import type { Invoker } from '../dubbo/rpc.js';
import { describeValue } from './describe-value.js';
import { bad, guarded } from './plugin-guard.js';
import { guardedFactory } from './plugin-runtime.js';

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
