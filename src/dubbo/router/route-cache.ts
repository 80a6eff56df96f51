/**
 * The route cache of a router chain (chain.ts): which routers' results may be shared by the chains
 * of every consumer instance of a service (`routesByParameters`), how a rule change made at run time
 * is told apart (`changeOf`), what a router's result depends on (`inputsOf`), the key of a call
 * (`keyOf`), and the store shared between chains (`SharedRouteCache`). A zonesim addition (PERF):
 * it changes how often routers run, never what a route returns.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { ConditionRuleRouter } from './condition/condition-rule-router.js';
import { ConditionStateRouter } from './condition/condition-state-router.js';
import { KeyedConditionRule, ListenableStateRouter } from './condition/listenable-state-router.js';
import { getMethodName, javaStringValueOf } from './invocation-values.js';
import { MockInvokersSelector } from './mock-invokers-selector.js';
import type { CountedEvent } from './router-events.js';
import type { RouteResult, RoutingInputs, StateRouter } from './router.js';
import { TagStateRouter } from './tag/tag-state-router.js';
import { ZoneStateRouter } from './zone-state-router.js';

/** One cached route: the result and the counters bumped while computing it. */
export interface CachedRoute {
  result: RouteResult;
  /** Counters the routers bumped while computing `result`, replayed on each hit. */
  events: readonly CountedEvent[] | null;
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
  /** One string per scope text (see `scopeKey`). */
  readonly #keys = new Map<string, string>();

  /**
   * The one string this store keeps for the scope text `scope`. PERF: each chain keeps its scope's key,
   * and the chains of a consumer group's instances (64,000 at the seed articles' scale) build equal texts
   * of some 170 bytes each: they keep one string instead.
   */
  scopeKey(scope: string): string {
    const known = this.#keys.get(scope);
    if (known !== undefined) return known;
    this.#keys.set(scope, scope);
    return scope;
  }

  /** The shared entries of one consumer-URL scope and one list. */
  entriesFor(scope: string, invokers: Invoker[]): Map<string, CachedRoute> {
    let byList = this.#scopes.get(scope);
    if (byList === undefined) this.#scopes.set(scope, (byList = new WeakMap()));
    let entries = byList.get(invokers);
    if (entries === undefined) byList.set(invokers, (entries = new Map()));
    return entries;
  }
}

/**
 * Routers whose result depends on nothing of the consumer URL but its parameters (not its host or
 * port), on no random stream and on no state but their rule and the last list they were notified of.
 * A tag router with keyed (published) rules is left out: which rule it applies depends on the order of
 * the provider applications it has seen, which two instances may have seen differently. So is a
 * condition rule that reads the consumer's address (`host = ...` when-parts, `$host` then-parts) and
 * every keyed condition rule (the listenable routers follow the providers' application).
 */
export function routesByParameters(router: StateRouter): boolean {
  if (router instanceof TagStateRouter) return router.publishedRules().size === 0;
  if (router instanceof ConditionRuleRouter) return router.routesByParameters();
  if (router instanceof ConditionStateRouter) return !router.thenReadsConsumerAddress();
  // Keyed rules: which apply is a function of the rules, the consumer's parameters and the router's
  // state, which its routeKey holds; each applied rule must route by parameters itself.
  if (router instanceof ListenableStateRouter) return router.heldRules().every((r) => routesByParameters(r.router));
  return router instanceof MockInvokersSelector || router instanceof ZoneStateRouter;
}

/**
 * A router added or removed at run time as chains that share results tell it apart: its kind, order and
 * rule (undefined for one this cannot describe, after which the chain keeps a private cache). A tag rule
 * set on the chain's tag router is described by `setTagRule`.
 */
export function changeOf(op: 'add' | 'remove', router: StateRouter): string | undefined {
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

/**
 * A router's cache inputs, or null when its result must not be cached.
 */
export function inputsOf(router: StateRouter): RoutingInputs | null {
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
export type KeyFn = (consumerUrl: URL, invocation: RpcInvocation) => string;

/**
 * One part of a chain's cache key: a router's key as a function of the call alone (`routeKeyOf`, one per
 * router class), its own `routeKey`, or the raw values of the inputs it declares (one per inputs object).
 */
export function keyPartFor(router: StateRouter, inputs: RoutingInputs): KeyFn | undefined {
  if (typeof router.routeKey === 'function') return typeof router.routeKeyOf === 'function' ? router.routeKeyOf : (u, i) => router.routeKey!(u, i);
  if (inputs.method || inputs.attachments.length > 0 || inputs.arguments.length > 0) return rawInputsKeyOf(inputs);
  return undefined;
}

/** The router's key part is the same function for every chain (not one made for this router). */
export function sharedKeyPart(router: StateRouter): boolean {
  return typeof router.routeKey !== 'function' || typeof router.routeKeyOf === 'function';
}

/** The key of a chain whose routers read nothing of the call. */
export const NO_KEY: KeyFn = () => '';
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
export function keyOf(parts: readonly KeyFn[], shared: boolean): KeyFn {
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
