/**
 * The router chain: state routers in ascending Dubbo order, each router's output feeding the next
 * (AND), output in directory order, fail-fast on an empty intermediate result, plus run-time rule
 * changes and a route cache (route-cache.ts). stack/build-router-chain.ts builds the chain of one
 * consumer instance for one service from a scenario's `routers:` list. Condition rules with a `key` are not run as routers
 * of their own: the chain hands them to Dubbo's ServiceStateRouter / ProviderAppStateRouter /
 * AppStateRouter, which apply only the rules keyed by this consumer's service or applications;
 * tag rules with a `key` are published to the tag router, which reads the one keyed by the
 * providers' application. Routers themselves live in their own files.
 * Follows dubbo-cluster `RouterChain.java`, `SingleRouterChain.java` and `router/state/AbstractStateRouter.java`.
 */
import { parentList } from '../per-list.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import {
  AppStateRouter,
  KeyedConditionRule,
  ProviderAppStateRouter,
  ServiceStateRouter,
} from './condition/listenable-state-router.js';
import { MockInvokersSelector } from './mock-invokers-selector.js';
import { captureRouterEvents, replayRouterEvents } from './router-events.js';
import { parameterScope, type RouteResult, type RouteTraceEntry, type RouterChainLike, type StateRouter } from './router.js';
import {
  changeOf,
  inputsOf,
  keyOf,
  keyPartFor,
  NO_KEY,
  routesByParameters,
  sharedKeyPart,
  type CachedRoute,
  type KeyFn,
  type SharedRouteCache,
} from './route-cache.js';
import type { RouterRuntime } from './router-runtime.js';
import type { DubboRelease } from '../release.js';
import { parseTagRule, TagRouterRule } from './tag/tag-router-rule.js';
import { TagStateRouter } from './tag/tag-state-router.js';

/** Default bound of the route cache (entries per chain) before it is cleared. */
export const DEFAULT_ROUTE_CACHE_ENTRIES = 1024;

/** Options of a chain. */
export interface RouterChainOptions {
  /** Cache route results (default true). */
  cache?: boolean;
  /** Entries kept before the cache is cleared (default 1024). */
  cacheMaxEntries?: number;
  /**
   * Route results shared with the chains of other consumer instances built from the same routers
   * (one store per service and `routers:` list); see `SharedRouteCache`.
   */
  sharedCache?: SharedRouteCache;
  /** The consumer's runtime: its release decides whether ProviderAppStateRouter exists (3.2+; not in 2.7). */
  runtime?: RouterRuntime;
}

// The built-in routers whose `notify` keeps nothing of a list but the last, as long as the lists' first
// providers are of one application: the mock selector splits the list, the tag router re-initialises its
// rule from it (and processes a rule only when the application changes), the provider-application router
// re-reads the application. A router without `notify` keeps nothing either; any other (a plugin's) may.
const COLLAPSIBLE_NOTIFY: ReadonlySet<unknown> = new Set([
  MockInvokersSelector.prototype.notify,
  TagStateRouter.prototype.notify,
  ProviderAppStateRouter.prototype.notify,
]);
function keepsLastListOnly(router: StateRouter): boolean {
  return router.notify === undefined || COLLAPSIBLE_NOTIFY.has(router.notify);
}

// AbstractStateRouter: `invokers.and(result)`, so the output keeps the input's order and members.
function keepInputOrder(input: Invoker[], result: Invoker[]): Invoker[] {
  let j = 0;
  for (let i = 0; i < input.length && j < result.length; i++) if (input[i] === result[j]) j++;
  if (j === result.length) return result;
  const keep = new Set(result);
  return input.filter((inv) => keep.has(inv));
}

/** The route cache of a chain before its first route (never written to: `route` replaces it first). */
const NO_ENTRIES: Map<string, CachedRoute> = new Map();

/** Dubbo's state-router chain for one consumer instance and one service, with a route cache. */
export class RouterChain implements RouterChainLike {
  // PERF: what `route` reads on every call comes first, so that it shares as few cache lines as V8's
  // in-object layout (declaration order) allows: thousands of chains, each read once per call.
  /** `#effective` is not empty. */
  #routes = false;
  /** A list was notified since the last `#rekey`: the cache and key parts are redone at the next route. */
  #rekeyPending = false;
  #cacheable = false;
  /** Route results for `#cacheInvokers` and `#cacheConsumerUrl`: this chain's own, or shared ones. */
  // PERF: thousands of chains (one per reference per consumer instance) start with the shared empty map;
  // `route` puts a map of its own (or a shared store's) in place before it writes any entry.
  #cache: Map<string, CachedRoute> = NO_ENTRIES;
  #cacheInvokers: Invoker[] | null = null;
  #cacheConsumerUrl: URL | null = null;
  /** The cache key of a call: one part per router that depends on the call (see `keyOf`). */
  #key: KeyFn = NO_KEY;
  #hits = 0;
  /** What routes: `#routers` with keyed condition rules replaced by the listenable routers holding them. */
  #effective: StateRouter[] = [];
  /** The routers as added (keyed condition rules included), in order. */
  #routers: StateRouter[] = [];
  readonly #providerAppRouter: ProviderAppStateRouter;
  readonly #serviceRouter: ServiceStateRouter;
  readonly #appRouter: AppStateRouter;
  /** The consumer's release (a tag router the chain adds routes as it). */
  readonly #release: DubboRelease | undefined;
  #allInvokers: Invoker[] | null = null;
  readonly #cacheEnabled: boolean;
  readonly #cacheMaxEntries: number;
  readonly #shared: SharedRouteCache | null;
  /** True while the routers are as built and all route by parameters (see `SharedRouteCache`). */
  #sharing = false;
  /** The constructor has set the routers up; changes after this are rule changes. */
  #built = false;
  /**
   * The rule changes made on this chain since it was built, described ('' as built), or null once a
   * change could not be described (a keyed tag rule, a plugin router, `replaceRouters`, `clearCache`):
   * then it never shares again. Chains with the same changes (a rule fault reaches every instance)
   * route alike and share results with each other.
   */
  #changes: string | null = '';
  #storeKeyUrl: URL | null = null;
  #storeKeyChanges: string | null = null;
  /** The shared store's key for `#storeKeyUrl` and `#storeKeyChanges`: the URL's parameter scope and the rule changes. */
  #storeKey = '';
  #misses = 0;

  constructor(routers: readonly StateRouter[] = [], options: RouterChainOptions = {}) {
    this.#cacheEnabled = options.cache ?? true;
    this.#cacheMaxEntries = Math.max(1, options.cacheMaxEntries ?? DEFAULT_ROUTE_CACHE_ENTRIES);
    this.#shared = options.sharedCache ?? null;
    this.#release = options.runtime?.release;
    // Dubbo 2.7 has ServiceRouter (140) and AppRouter (150) only.
    this.#providerAppRouter = new ProviderAppStateRouter(options.runtime?.release?.version !== '2.7');
    this.#serviceRouter = new ServiceStateRouter(this.#providerAppRouter);
    this.#appRouter = new AppStateRouter(this.#providerAppRouter);
    this.replaceRouters(routers);
    // The routers as built: a later replaceRouters, addRouter, removeRouter or setTagRule diverges.
    this.#built = true;
    this.#rekey();
  }

  /** The routers in chain order, as added (a keyed condition rule is listed as itself). */
  getRouters(): readonly StateRouter[] {
    return this.#routers;
  }

  /** The routers that route, in order: keyed condition rules are inside Dubbo's listenable routers. */
  getEffectiveRouters(): readonly StateRouter[] {
    return this.#effective;
  }

  /**
   * Routes one invocation. The result (and its arrays) may be shared with later calls through the
   * cache: callers must not mutate it. Invoker lists are assumed replaced, never mutated in place.
   */
  route(consumerUrl: URL, invokers: Invoker[], invocation: RpcInvocation): RouteResult {
    if (invokers.length === 0 || !this.#routes) return { invokers, trace: [] };
    if (this.#rekeyPending) this.#rekey();
    if (!this.#cacheable) return this.#route(consumerUrl, invokers, invocation);
    if (invokers !== this.#cacheInvokers || consumerUrl !== this.#cacheConsumerUrl) {
      // PERF: a directory's own sub-list (providers set aside) is never another instance's list: its results
      // are kept by this chain alone, not entered in the shared store's weak map (one entry per instance and
      // list version read, after a zone crash).
      this.#cache = this.#sharing && parentList(invokers) === undefined ? this.#shared!.entriesFor(this.#storeKeyOf(consumerUrl), invokers) : new Map();
      this.#cacheInvokers = invokers;
      this.#cacheConsumerUrl = consumerUrl;
    }
    const key = this.#key(consumerUrl, invocation);
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      this.#hits++;
      // Dubbo logs (zonesim counts) e.g. the force-empty warning on every call, cached or not.
      if (hit.events !== null) replayRouterEvents(hit.events);
      return hit.result;
    }
    this.#misses++;
    const { value: result, events } = captureRouterEvents(() => this.#route(consumerUrl, invokers, invocation));
    if (this.#cache.size >= this.#cacheMaxEntries) this.#cache.clear();
    this.#cache.set(key, { result, events });
    return result;
  }

  /** A new address list: every router is notified (tag rules re-initialise) and the cache is dropped. */
  setInvokers(invokers: Invoker[]): void {
    this.#allInvokers = invokers;
    for (const router of this.#notifiedRouters) router.notify?.(invokers);
    // PERF: a push changes no router's place in the chain, so the effective routers are not rebuilt
    // (every consumer instance gets every push); the listenable routers forget their selections, as
    // the providers' application may have changed, and the route cache and its key parts are redone
    // at the next route (an instance often gets several pushes between two calls).
    this.#serviceRouter.invalidate();
    this.#providerAppRouter.invalidate();
    this.#appRouter.invalidate();
    this.#rekeyPending = true;
  }

  /** Adds a router at its order (after routers of the same order), as a rule pushed at run time. */
  addRouter(router: StateRouter): void {
    this.#beforeChange?.();
    let at = this.#routers.length;
    while (at > 0 && this.#routers[at - 1]!.order > router.order) at--;
    this.#routers.splice(at, 0, router);
    if (this.#allInvokers !== null && !(router instanceof KeyedConditionRule)) router.notify?.(this.#allInvokers);
    this.#reconfigure(changeOf('add', router));
    // A keyed rule is a config-center write to a key ProviderAppStateRouter may listen to.
    if (router instanceof KeyedConditionRule) this.#providerAppRouter.ruleAdded(router);
  }

  /** Replaces every router (stable sort by order). */
  replaceRouters(routers: readonly StateRouter[]): void {
    this.#beforeChange?.();
    this.#routers = [...routers].sort((a, b) => a.order - b.order);
    if (this.#allInvokers !== null) for (const r of this.#routers) if (!(r instanceof KeyedConditionRule)) r.notify?.(this.#allInvokers);
    this.#reconfigure();
  }

  /** Removes a router; false when it is not in the chain. */
  removeRouter(router: StateRouter): boolean {
    this.#beforeChange?.();
    const at = this.#routers.indexOf(router);
    if (at < 0) return false;
    this.#routers.splice(at, 1);
    this.#reconfigure(changeOf('remove', router));
    if (router instanceof KeyedConditionRule) this.#providerAppRouter.ruleRemoved(router);
    return true;
  }

  /**
   * A tag rule push: a rule with a `key` is published as `<key>.tag-router` (the tag router reads it
   * when the providers' application is that key); one without is set as the chain's tag rule. The
   * tag router is added if the chain has none. Null deletes every tag rule, leaving static tags.
   */
  setTagRule(rule: TagRouterRule | string | Record<string, unknown> | null): TagStateRouter {
    this.#beforeChange?.();
    let tag = this.#routers.find((r): r is TagStateRouter => r instanceof TagStateRouter);
    if (tag === undefined) {
      tag = new TagStateRouter(null, { release: this.#release });
      this.addRouter(tag);
    }
    // A keyed rule is not described: which rule applies then depends on the applications seen (and the
    // chain stops sharing anyway, see routesByParameters).
    let change: string | undefined;
    if (rule === null) {
      tag.clearRules();
      change = 'tag cleared';
    } else {
      const parsed = rule instanceof TagRouterRule ? rule : parseTagRule(rule);
      if (parsed.meta.key !== undefined && parsed.meta.key !== '') tag.publishRule(parsed);
      else {
        tag.setRule(parsed);
        change = `tag ${JSON.stringify(parsed.rawRule)}`;
      }
    }
    this.#reconfigure(change);
    return tag;
  }

  // Routers that get address notifications: the chain's routers and the listenable ones (which keep
  // following the providers' application even while they hold no rule, as Dubbo's always exist).
  #notified(): StateRouter[] {
    const out = this.#routers.filter((r) => !(r instanceof KeyedConditionRule));
    out.push(this.#serviceRouter, this.#providerAppRouter, this.#appRouter);
    return out;
  }

  /** `#notified()` as of the last change of `#routers`. */
  #notifiedRouters: StateRouter[] = [];
  /** Every router notified keeps only the last list it was given (see `notifyCollapsible`). */
  #collapsible = true;

  notifyCollapsible(): boolean {
    return this.#collapsible;
  }

  #beforeChange: (() => void) | null = null;

  onBeforeChange(hook: (() => void) | null): void {
    this.#beforeChange = hook;
  }

  // `#routers` with keyed condition rules handed to the three listenable routers, which take the place of
  // the first keyed rule, then all sort by order. Each router applies the rules its own key names, whatever
  // their scope says (Dubbo reads no scope: AbstractRouterRule.java:81 only stores it).
  #buildEffective(): void {
    const keyed: KeyedConditionRule[] = [];
    const out: StateRouter[] = [];
    for (const r of this.#routers) {
      if (!(r instanceof KeyedConditionRule)) {
        out.push(r);
        continue;
      }
      keyed.push(r);
      if (keyed.length === 1) out.push(this.#serviceRouter, this.#providerAppRouter, this.#appRouter);
    }
    this.#serviceRouter.setRules(keyed);
    this.#providerAppRouter.setRules(keyed);
    this.#appRouter.setRules(keyed);
    this.#effective = out.map((r, i) => [r, i] as const).sort((a, b) => a[0].order - b[0].order || a[1] - b[1]).map(([r]) => r);
    this.#routes = this.#effective.length > 0;
  }

  /** Drops cached results; call after changing a router's state from outside the chain (it then stops sharing results). */
  clearCache(): void {
    this.#changes = null;
    this.#sharing = false;
    this.#dropCache();
  }

  #dropCache(): void {
    // A shared map is never cleared here: other chains still use it.
    this.#cache = NO_ENTRIES;
    this.#cacheInvokers = null;
  }

  // PERF: kept while the URL and the changes stay: every instance looks its store up again after each push,
  // and one string (whose hash V8 keeps) is looked up faster than one built per lookup.
  #storeKeyOf(url: URL): string {
    if (url !== this.#storeKeyUrl || this.#changes !== this.#storeKeyChanges) {
      this.#storeKeyUrl = url;
      this.#storeKeyChanges = this.#changes;
      const key = `${parameterScope(url)}\u0005${this.#changes}`;
      this.#storeKey = this.#shared !== null ? this.#shared.scopeKey(key) : key;
    }
    return this.#storeKey;
  }

  /** Route cache counters (for tests and benchmarks). */
  cacheStats(): { hits: number; misses: number; entries: number; cacheable: boolean; shared: boolean } {
    if (this.#rekeyPending) this.#rekey();
    return { hits: this.#hits, misses: this.#misses, entries: this.#cache.size, cacheable: this.#cacheable, shared: this.#sharing };
  }

  #reconfigure(change?: string): void {
    if (this.#built) this.#changes = this.#changes === null || change === undefined ? null : `${this.#changes}\u0004${change}`;
    this.#buildEffective();
    this.#notifiedRouters = this.#notified();
    this.#collapsible = this.#notifiedRouters.every(keepsLastListOnly);
    this.#rekey();
  }

  // Drops the route cache and recomputes whether and by what the routes can be cached.
  #rekey(): void {
    this.#rekeyPending = false;
    this.#dropCache();
    let cacheable = this.#cacheEnabled;
    const parts: KeyFn[] = [];
    let shared = true;
    for (const router of this.#effective) {
      const inputs = cacheable ? inputsOf(router) : null;
      if (inputs === null) {
        cacheable = false;
        break;
      }
      const part = keyPartFor(router, inputs);
      if (part === undefined) continue;
      parts.push(part);
      shared &&= sharedKeyPart(router);
    }
    this.#cacheable = cacheable;
    this.#key = cacheable ? keyOf(parts, shared) : NO_KEY;
    this.#sharing = cacheable && this.#shared !== null && this.#built && this.#changes !== null && this.#effective.every(routesByParameters);
  }

  #route(consumerUrl: URL, invokers: Invoker[], invocation: RpcInvocation): RouteResult {
    let current = invokers;
    const trace: RouteTraceEntry[] = [];
    for (const router of this.#effective) {
      const result = router.route(current, consumerUrl, invocation);
      let entry = result.trace;
      let out = result.invokers;
      if (out !== current) {
        out = keepInputOrder(current, out);
        if (out.length !== entry.after) entry = { ...entry, after: out.length };
      }
      if (result.quiet !== true) trace.push(entry);
      // dubbo.router.should-fail-fast=true (the default): an empty intermediate result ends the chain.
      if (out.length === 0) return { invokers: out, trace, emptiedBy: entry };
      current = out;
    }
    return { invokers: current, trace };
  }
}
