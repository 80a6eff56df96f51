/**
 * The router contract: a state router filters the invoker list for one invocation and can explain
 * what it did. The chain (chain.ts) runs routers in Dubbo's order; the directory owns the chain.
 */
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';

/** One router's step in a route, as `zonesim route --json` prints it (SPEC 1.1). */
export interface RouteTraceEntry {
  router: string;
  rule?: string;
  matchedWhen?: boolean;
  before: number;
  after: number;
  note?: string;
  /** zonesim addition: the steps of a composite router (one per condition of a YAML rule), in order. */
  steps?: RouteTraceEntry[];
}

/**
 * zonesim addition for the route cache: exactly which invocation inputs a router's result depends
 * on (besides the invoker list, the consumer URL and the router's own state, which change only
 * through `notify` or chain mutations). A router that draws random numbers must say `random: true`.
 */
export interface RoutingInputs {
  /** Reads the (generic-unwrapped) method name. */
  method: boolean;
  /** Attachment keys read. */
  attachments: string[];
  /** Argument indexes read (as `String.valueOf(args[i])`). */
  arguments: number[];
  /** Draws from a random stream: results must never be cached. */
  random: boolean;
}

/** What a router returns: the surviving invokers (in input order) and its trace entry. */
export interface RouterResult {
  invokers: Invoker[];
  trace: RouteTraceEntry;
  /** zonesim addition: the router did nothing worth a row (it returned its input); the chain leaves its entry out of the trace. */
  quiet?: boolean;
}

/** A Dubbo StateRouter. Routers are synchronous and never reorder their input. */
export interface StateRouter {
  /** Name in traces and messages, e.g. `condition`, `tag`, `zone`. */
  readonly name: string;
  /** Dubbo's activation order (mock -100, tag 100, service 140, provider-app 145, app 150). */
  readonly order: number;
  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult;
  /** Called with the full (unrouted) list whenever the directory's address list changes. */
  notify?(invokers: Invoker[]): void;
  /**
   * zonesim addition for the route cache: which invocation inputs the result depends on.
   * `'none'` = only the invoker list; `'method'` = the list and the method name; `'all'` (default) = never cached.
   */
  readonly cacheKeyInputs?: 'none' | 'method' | 'all';
  /** zonesim addition, preferred over `cacheKeyInputs`: the precise inputs (see RoutingInputs). */
  routingInputs?(): RoutingInputs;
  /**
   * zonesim addition, optional refinement of `routingInputs` for the route cache: a short key of
   * the decision this call leads to (e.g. whether a condition's when-part matches), such that two
   * calls with the same key get the same result from the same input list. Never called for a
   * router whose inputs say `random: true`.
   */
  routeKey?(consumerUrl: URL, invocation: RpcInvocation): string;
  /**
   * zonesim addition, optional with `routeKey` when that reads nothing of the router: the same key as
   * one function for every router of the class, so that chains share their key (see chain.ts `keyOf`).
   */
  readonly routeKeyOf?: (consumerUrl: URL, invocation: RpcInvocation) => string;
}

/** The chain's result: surviving invokers, each router's trace, and the router that emptied the list. */
export interface RouteResult {
  invokers: Invoker[];
  trace: RouteTraceEntry[];
  /** Set when the result is empty because of a router (Dubbo never says which; zonesim does). */
  emptiedBy?: RouteTraceEntry;
}

/** What a directory needs from a router chain. */
export interface RouterChainLike {
  route(consumerUrl: URL, invokers: Invoker[], invocation: RpcInvocation): RouteResult;
  setInvokers(invokers: Invoker[]): void;
  /**
   * True when setting several lists one after another, with no route in between and the first provider
   * of each list of one application, leaves the routers as setting only the last one would (their
   * `notify` keeps nothing of a list but the last). A directory may then skip a list that a later one
   * replaces before it is read. Absent: false.
   */
  notifyCollapsible?(): boolean;
  /**
   * `hook` (null: none) runs before the chain changes its routers (a rule added, removed or replaced at
   * run time), so that a directory holding a list it has not set yet sets it first.
   */
  onBeforeChange?(hook: (() => void) | null): void;
}

/** A chain with no routers: passes everything through. */
export const EMPTY_CHAIN: RouterChainLike = {
  route: (_url, invokers) => ({ invokers, trace: [] }),
  setInvokers: () => {},
  notifyCollapsible: () => true,
};

/**
 * The part of a consumer URL that routers shared by consumer instances can read: everything but the
 * host and port (instances of one group differ only there).
 */
export function parameterScope(url: URL): string {
  let scope = `${url.protocol}\u0000${url.path}`;
  for (const k of [...url.params.keys()].sort()) scope += `\u0000${k}=${url.params.get(k)}`;
  return scope;
}
