/**
 * The router chain: state routers in ascending Dubbo order, each router's output feeding the next
 * (AND), output in directory order, fail-fast on an empty intermediate result, plus run-time rule
 * changes and a route cache. `buildRouterChain` turns a scenario's `routers:` list into the chain
 * of one consumer instance for one service. Condition rules with a `key` are not run as routers
 * of their own: the chain hands them to Dubbo's ServiceStateRouter / ProviderAppStateRouter /
 * AppStateRouter, which apply only the rules keyed by this consumer's service or applications;
 * tag rules with a `key` are published to the tag router, which reads the one keyed by the
 * providers' application. Routers themselves live in their own files.
 * Follows dubbo-cluster `RouterChain.java`, `SingleRouterChain.java` and `router/state/AbstractStateRouter.java`.
 */
import type { RouterSpec } from '../../model/types.js';
import { parentList } from '../per-list.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { ConditionRuleRouter, parseConditionRule } from './condition/condition-rule-router.js';
import { ConditionStateRouter } from './condition/condition-state-router.js';
import {
  AppStateRouter,
  KeyedConditionRule,
  ListenableStateRouter,
  ProviderAppStateRouter,
  ServiceStateRouter,
} from './condition/listenable-state-router.js';
import { getMethodName, javaStringValueOf } from './invocation-values.js';
import { MockInvokersSelector } from './mock-invokers-selector.js';
import { captureRouterEvents, replayRouterEvents, type CountedEvent } from './router-events.js';
import { parameterScope, type RouteResult, type RouteTraceEntry, type RouterChainLike, type RoutingInputs, type StateRouter } from './router.js';
import type { RouterRuntime } from './router-runtime.js';
import { conditionRuleKey } from './rule-key.js';
import { parseTagRule, TagRouterRule } from './tag/tag-router-rule.js';
import { TagStateRouter } from './tag/tag-state-router.js';
import { ZoneStateRouter } from './zone-state-router.js';

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
}

/**
 * PERF: route results shared by the chains of every consumer instance of one service built from one
 * `routers:` list. Thousands of instances receive the same pushed lists (the registry layer shares
 * each list version's invoker array); without sharing each instance would route every list version
 * itself, and keep its own cache cold in memory. A chain uses the store only while every router it
 * routes with is one whose result is a function of the invokers, the consumer URL's parameters and
 * the call (the mock selector, the tag router, the zone router, a condition rule whose then-part
 * reads no consumer address: a when-part that reads one only decides, and the decision is in the
 * key; keyed rules, with the listenable routers' state in the key) and every rule change made on it
 * since it was built could be described (condition rules and the zone router added or removed, an
 * unkeyed tag rule set, as a rule fault does on every instance). Entries are keyed by the consumer
 * URL's parameters (never its host), the rule changes made, the list (by identity) and the chain's
 * cache key. Anything else keeps a private cache, as before.
 */
export class SharedRouteCache {
  readonly #scopes = new Map<string, WeakMap<Invoker[], Map<string, CachedRoute>>>();

  /** The shared entries of one consumer-URL scope and one list. */
  entriesFor(scope: string, invokers: Invoker[]): Map<string, CachedRoute> {
    let byList = this.#scopes.get(scope);
    if (byList === undefined) this.#scopes.set(scope, (byList = new WeakMap()));
    let entries = byList.get(invokers);
    if (entries === undefined) byList.set(invokers, (entries = new Map()));
    return entries;
  }
}

// Routers whose result depends on nothing of the consumer URL but its parameters (not its host or
// port), on no random stream and on no state but their rule and the last list they were notified of.
// A tag router with keyed (published) rules is left out: which rule it applies depends on the order of
// the provider applications it has seen, which two instances may have seen differently. So is a
// condition rule that reads the consumer's address (`host = ...` when-parts, `$host` then-parts) and
// every keyed condition rule (the listenable routers follow the providers' application).
function routesByParameters(router: StateRouter): boolean {
  if (router instanceof TagStateRouter) return router.publishedRules().size === 0;
  if (router instanceof ConditionRuleRouter) return router.routesByParameters();
  if (router instanceof ConditionStateRouter) return !router.thenReadsConsumerAddress();
  // Keyed rules: which apply is a function of the rules, the consumer's parameters and the router's
  // state, which its routeKey holds; each applied rule must route by parameters itself.
  if (router instanceof ListenableStateRouter) return router.heldRules().every((r) => routesByParameters(r.router));
  return router instanceof MockInvokersSelector || router instanceof ZoneStateRouter;
}

// A router added or removed at run time as chains that share results tell it apart: its kind, order and
// rule (undefined for one this cannot describe, after which the chain keeps a private cache). A tag rule
// set on the chain's tag router is described by `setTagRule`.
function changeOf(op: 'add' | 'remove', router: StateRouter): string | undefined {
  const what = describeRouter(router);
  return what === undefined ? undefined : `${op} ${what}`;
}

function describeRouter(router: StateRouter): string | undefined {
  if (router instanceof ConditionStateRouter) return JSON.stringify(['condition', router.order, router.rule, router.force, router.enabled]);
  if (router instanceof ConditionRuleRouter) return JSON.stringify(['conditions', router.order, router.rule, router.force]);
  if (router instanceof ZoneStateRouter) return JSON.stringify(['zone', router.order, router.fallback, router.zoneFrom]);
  // A tag router added without rules (a tag rule push to a chain that had none); its rule is a change of its own.
  if (router instanceof TagStateRouter && router.getRule() === null && router.publishedRules().size === 0) return JSON.stringify(['tag', router.order]);
  if (router instanceof KeyedConditionRule) {
    const inner = describeRouter(router.router as StateRouter);
    return inner === undefined ? undefined : JSON.stringify(['keyed', router.ruleKey.scope, router.ruleKey.key, inner]);
  }
  return undefined;
}

// A router's cache inputs, or null when its result must not be cached.
function inputsOf(router: StateRouter): RoutingInputs | null {
  if (typeof router.routingInputs === 'function') {
    const inputs = router.routingInputs();
    return inputs.random ? null : inputs;
  }
  switch (router.cacheKeyInputs) {
    case 'none':
      return { method: false, attachments: [], arguments: [], random: false };
    case 'method':
      return { method: true, attachments: [], arguments: [], random: false };
    default:
      return null;
  }
}

/** A chain's cache key, or one part of it, for a call. */
type KeyFn = (consumerUrl: URL, invocation: RpcInvocation) => string;

/**
 * One part of a chain's cache key: a router's key as a function of the call alone (`routeKeyOf`, one per
 * router class), its own `routeKey`, or the raw values of the inputs it declares (one per inputs object).
 */
function keyPartFor(router: StateRouter, inputs: RoutingInputs): KeyFn | undefined {
  if (typeof router.routeKey === 'function') return typeof router.routeKeyOf === 'function' ? router.routeKeyOf : (u, i) => router.routeKey!(u, i);
  if (inputs.method || inputs.attachments.length > 0 || inputs.arguments.length > 0) return rawInputsKeyOf(inputs);
  return undefined;
}

/** The router's key part is the same function for every chain (not one made for this router). */
function sharedKeyPart(router: StateRouter): boolean {
  return typeof router.routeKey !== 'function' || typeof router.routeKeyOf === 'function';
}

const NO_KEY: KeyFn = () => '';
interface KeyNode {
  readonly next: WeakMap<KeyFn, KeyNode>;
  key?: KeyFn;
}
const KEY_ROOT: KeyNode = { next: new WeakMap() };

/**
 * The cache key of `parts`: their values joined by NUL. PERF: one function per list of part functions, so
 * chains with the same routers (every instance of a consumer group) share it and the memo of the last
 * parts and key it keeps: most calls repeat them, and the key is then given again, not joined (and hashed)
 * anew. A chain routes from its own fields, the shared store and this, not its own arrays or routers,
 * which thousands of instances leave cold in memory.
 */
function keyOf(parts: readonly KeyFn[], shared: boolean): KeyFn {
  if (parts.length === 0) return NO_KEY;
  if (parts.length === 1) return parts[0]!;
  // A part made for one router (its own `routeKey`) is this chain's alone: so is the key.
  if (!shared) return joinedKey(parts);
  let node = KEY_ROOT;
  for (const part of parts) {
    let next = node.next.get(part);
    if (next === undefined) node.next.set(part, (next = { next: new WeakMap() }));
    node = next;
  }
  return (node.key ??= joinedKey(parts));
}

function joinedKey(parts: readonly KeyFn[]): KeyFn {
  const last: string[] = [];
  let lastKey = '';
  let lastValid = false;
  return (consumerUrl, invocation) => {
    // Not valid while the parts are being read: a part that throws leaves them half overwritten.
    let same = lastValid;
    lastValid = false;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!(consumerUrl, invocation);
      if (same && part !== last[i]) same = false;
      last[i] = part;
    }
    if (!same) {
      let key = last[0]!;
      for (let i = 1; i < parts.length; i++) key += `\u0000${last[i]!}`;
      lastKey = key;
    }
    lastValid = true;
    return lastKey;
  };
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

// PERF: one key function per declared inputs object, shared by every chain whose router declares it.
const rawKeys = new WeakMap<RoutingInputs, (consumerUrl: URL, invocation: RpcInvocation) => string>();
function rawInputsKeyOf(inputs: RoutingInputs): (consumerUrl: URL, invocation: RpcInvocation) => string {
  let key = rawKeys.get(inputs);
  if (key === undefined) rawKeys.set(inputs, (key = rawInputsKey(inputs)));
  return key;
}

// The key part of a router without `routeKey`: the raw values of the inputs it declared.
function rawInputsKey(inputs: RoutingInputs): (consumerUrl: URL, invocation: RpcInvocation) => string {
  const { method, attachments, arguments: args } = inputs;
  return (_url, invocation) => {
    let key = method ? (getMethodName(invocation) ?? '') : '';
    for (const a of attachments) {
      const v = invocation.getAttachment(a);
      key += v === undefined ? '\u0001\u0002' : `\u0001${v}`;
    }
    const argv = invocation.arguments;
    for (const i of args) key += i < argv.length ? `\u0001${javaStringValueOf(argv[i])}` : '\u0001\u0002';
    return key;
  };
}

// AbstractStateRouter: `invokers.and(result)`, so the output keeps the input's order and members.
function keepInputOrder(input: Invoker[], result: Invoker[]): Invoker[] {
  let j = 0;
  for (let i = 0; i < input.length && j < result.length; i++) if (input[i] === result[j]) j++;
  if (j === result.length) return result;
  const keep = new Set(result);
  return input.filter((inv) => keep.has(inv));
}

interface CachedRoute {
  result: RouteResult;
  /** Counters the routers bumped while computing `result`, replayed on each hit. */
  events: readonly CountedEvent[] | null;
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
  readonly #serviceRouter = new ServiceStateRouter();
  readonly #providerAppRouter = new ProviderAppStateRouter();
  readonly #appRouter = new AppStateRouter(this.#providerAppRouter);
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
    // A keyed application rule is a config-center write to a key ProviderAppStateRouter may listen to.
    if (router instanceof KeyedConditionRule && router.ruleKey.scope === 'application') this.#providerAppRouter.ruleAdded(router);
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
    if (router instanceof KeyedConditionRule && router.ruleKey.scope === 'application') this.#providerAppRouter.ruleRemoved(router);
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
      tag = new TagStateRouter();
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

  // `#routers` with keyed condition rules handed to the listenable routers of their scope; each
  // listenable router that holds a rule takes the place of its first rule, then all sort by order.
  #buildEffective(): void {
    const service: KeyedConditionRule[] = [];
    const app: KeyedConditionRule[] = [];
    const out: StateRouter[] = [];
    for (const r of this.#routers) {
      if (!(r instanceof KeyedConditionRule)) {
        out.push(r);
        continue;
      }
      if (r.ruleKey.scope === 'service') {
        service.push(r);
        if (service.length === 1) out.push(this.#serviceRouter);
      } else {
        app.push(r);
        if (app.length === 1) out.push(this.#providerAppRouter, this.#appRouter);
      }
    }
    this.#serviceRouter.setRules(service);
    this.#providerAppRouter.setRules(app);
    this.#appRouter.setRules(app);
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
      this.#storeKey = `${parameterScope(url)}\u0005${this.#changes}`;
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
      trace.push(entry);
      // dubbo.router.should-fail-fast=true (the default): an empty intermediate result ends the chain.
      if (out.length === 0) return { invokers: out, trace, emptiedBy: entry };
      current = out;
    }
    return { invokers: current, trace };
  }
}

/** A plugin router module as the scenario layer loads it: a factory, a class, or a module exporting one as `default`/`createRouter`. */
export type PluginRouterFactory = (options: Record<string, unknown>, runtime: RouterRuntime) => StateRouter;

/** What `buildRouterChain` needs besides the specs. */
export interface BuildRouterChainContext extends RouterChainOptions {
  /** The service (interface name) the chain routes; specs with another `service` are skipped. */
  service: string;
  /** Events (force-empty counter) and the random stream (v3.1 weighted destinations). */
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

/**
 * A condition rule as the chain takes it: a YAML rule with a `key` becomes a KeyedConditionRule
 * (applied only where its key names the consumer's service or an application); any other rule
 * applies to every consumer. Throws RouterRuleError on a rule that does not parse.
 */
export function conditionRouter(
  rule: string | Record<string, unknown>,
  options: { force?: boolean; runtime?: RouterRuntime } = {},
): StateRouter {
  // DIVERGENCE: Dubbo has no rule without a key (every rule is stored under one); zonesim applies a URL
  // rule, a `condition://` URL or a YAML rule without `key:` to every consumer, at the order of its scope.
  const router = parseConditionRule(rule, options);
  if (!(router instanceof ConditionRuleRouter)) return router;
  const key = conditionRuleKey(router.rule);
  return key === null ? router : new KeyedConditionRule(router, key);
}

/** A tag router for one tag rule: a rule with a `key` is published under it, one without is its rule. */
export function tagRouter(rule: string | Record<string, unknown>): TagStateRouter {
  const parsed = parseTagRule(rule);
  if (parsed.meta.key === undefined || parsed.meta.key === '') return new TagStateRouter(parsed);
  const router = new TagStateRouter();
  router.publishRule(parsed);
  return router;
}

/** Builds the router for one spec, or null when the spec is for another service. Throws on a rule that does not parse. */
export function buildRouter(spec: RouterSpec, ctx: BuildRouterChainContext): StateRouter | null {
  if (spec.service !== undefined && spec.service !== ctx.service) return null;
  switch (spec.type) {
    case 'condition':
      return conditionRouter(spec.rule, { force: spec.force, runtime: ctx.runtime });
    case 'tag':
      return tagRouter(spec.rule);
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
    if (tag === undefined) routers.push(new TagStateRouter());
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
