/**
 * The router chain of one consumer instance for one service, built from the scenario's `routers:`
 * list (the model's RouterSpec): Dubbo's always-active mock selector and tag router, the condition,
 * tag and zone routers the specs name, and router plugins as the plugin loader passed them in. The
 * chain itself is the port's (dubbo/router/chain.ts); this file binds it to the model.
 */
import type { RouterSpec } from '../model/types.js';
import { RouterChain, type RouterChainOptions } from '../dubbo/router/chain.js';
import { MockInvokersSelector } from '../dubbo/router/mock-invokers-selector.js';
import type { StateRouter } from '../dubbo/router/router.js';
import type { RouterRuntime } from '../dubbo/router/router-runtime.js';
import { conditionRouter, tagRouter } from '../dubbo/router/rule-routers.js';
import { TagStateRouter } from '../dubbo/router/tag/tag-state-router.js';
import { ZoneStateRouter } from '../dubbo/router/zone-state-router.js';

/** A plugin router module as the scenario layer loads it: a factory, a class, or a module exporting one as `default`/`createRouter`. */
export type PluginRouterFactory = (options: Record<string, unknown>, runtime: RouterRuntime) => StateRouter;

/** What `buildRouterChain` needs besides the specs. */
export interface BuildRouterChainContext extends RouterChainOptions {
  /** The service (interface name) the chain routes; specs with another `service` are skipped. */
  service: string;
  /** Events (force-empty counter), the random stream (v3.1 weighted destinations) and the release. */
  runtime?: RouterRuntime;
  /**
   * Already-loaded plugin routers by the `module` path the scenario names.
   * TODO(scenario): the scenario layer loads `{ type: plugin, module }` modules and passes them here.
   */
  pluginRouters?: Record<string, unknown>;
  /** Alias of `pluginRouters`. */
  plugins?: Record<string, unknown>;
  /** Add Dubbo's always-activated routers (mock -100 and tag 100 with static tags); default true. */
  defaults?: boolean;
}

function isClass(fn: Function): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

function pluginRouter(spec: Extract<RouterSpec, { type: 'plugin' }>, ctx: BuildRouterChainContext): StateRouter {
  const loaded = ctx.pluginRouters?.[spec.module] ?? ctx.plugins?.[spec.module];
  if (loaded === undefined) {
    throw new Error(`router plugin "${spec.module}" is not loaded (the scenario layer must pass it in pluginRouters)`);
  }
  const module = loaded as { default?: unknown; createRouter?: unknown };
  const factory = typeof loaded === 'function' ? loaded : (module.createRouter ?? module.default);
  if (typeof factory !== 'function') {
    throw new Error(`router plugin "${spec.module}" must export a router factory (default or createRouter)`);
  }
  const runtime = ctx.runtime ?? {};
  const router = (isClass(factory) ? new (factory as new (o: unknown, r: unknown) => unknown)(spec.options, runtime) : factory(spec.options, runtime)) as Partial<StateRouter>;
  if (typeof router?.route !== 'function' || typeof router.name !== 'string' || typeof router.order !== 'number') {
    throw new Error(`router plugin "${spec.module}" returned something that is not a StateRouter (needs name, order, route)`);
  }
  return router as StateRouter;
}

/** Builds the router for one spec, or null when the spec is for another service. Throws on a rule that does not parse. */
export function buildRouter(spec: RouterSpec, ctx: BuildRouterChainContext): StateRouter | null {
  if (spec.service !== undefined && spec.service !== ctx.service) return null;
  switch (spec.type) {
    case 'condition':
      return conditionRouter(spec.rule, { force: spec.force, runtime: ctx.runtime });
    case 'tag':
      return tagRouter(spec.rule, { runtime: ctx.runtime });
    case 'zone':
      return new ZoneStateRouter({ fallback: spec.fallback, zoneFrom: spec.zoneFrom, zoneDistance: ctx.runtime?.zoneDistance });
    case 'plugin':
      return pluginRouter(spec, ctx);
  }
}

/**
 * The chain of one consumer instance for one service: Dubbo's always-active mock selector and tag
 * router (the tag router gets the scenario's tag rules, if any), then the specs' routers by order.
 * Tag rules with distinct keys share the one tag router, which reads the rule keyed by the
 * providers' application. Throws when two tag rules could apply at once (two without a key, one
 * with and one without, or two with the same key): Dubbo has one tag rule per provider application.
 */
export function buildRouterChain(specs: readonly RouterSpec[], ctx: BuildRouterChainContext): RouterChain {
  const routers: StateRouter[] = [];
  let tag: TagStateRouter | undefined;
  for (const spec of specs) {
    const router = buildRouter(spec, ctx);
    if (router === null) continue;
    if (router instanceof TagStateRouter) {
      if (tag === undefined) tag = router;
      else mergeTagRouters(tag, router, ctx.service);
      if (tag !== router) continue;
    }
    routers.push(router);
  }
  if (ctx.defaults ?? true) {
    routers.push(new MockInvokersSelector());
    if (tag === undefined) routers.push(new TagStateRouter(null, { release: ctx.runtime?.release }));
  }
  return new RouterChain(routers, ctx);
}

// A second tag spec joins the chain's tag router when both are keyed, by different applications.
function mergeTagRouters(into: TagStateRouter, from: TagStateRouter, service: string): void {
  const clash = `two tag rules apply to ${service}; Dubbo keeps one tag rule per provider application`;
  const published = from.publishedRules();
  if (published.size === 0 || into.publishedRules().size === 0) {
    throw new Error(`${clash} (give each tag rule the key of its provider application)`);
  }
  for (const [key, rule] of published) {
    if (into.publishedRules().has(key)) throw new Error(`${clash}: two are keyed ${key}`);
    into.publishRule(rule);
  }
}
