/**
 * One condition (`when => then`) as a state router: consumers matching `when` are routed to the
 * providers matching `then`. Owns the routing outcomes (pass through, blocklist, filter, force
 * empty, ignore) and explains each in its trace entry; parsing lives in condition-rule-text.ts.
 * Follows dubbo-cluster `router/condition/ConditionStateRouter.java`.
 */
import type { Invoker, RpcInvocation } from '../../rpc.js';
import type { URL } from '../../url.js';
import { keptOfSubList, parentList } from '../../per-list.js';
import { parameterScope, type RouterResult, type RoutingInputs, type StateRouter } from '../router.js';
import { countRouterEvent } from '../router-events.js';
import type { RouterRuntime } from '../router-runtime.js';
import { getMethodName } from '../invocation-values.js';
import { describeWhenMiss, explainThenMiss, findWhenMiss, keyHazards, ruleTextHazards, whenMissCode } from './condition-explain.js';
import { conditionSemantics, matchConditions, semanticsCode, whenInputs, type ConditionSemantics } from './condition-matcher.js';
import { parseConditionText, type ConditionMap } from './condition-rule-text.js';

/** The event counted when a forced rule leaves no provider (Dubbo logs "The route result is empty and force execute"). */
export const FORCE_EMPTY_EVENT = 'router.forceEmpty';

/** Order of a condition router built from a service-scoped or explicit `condition://` rule (ServiceStateRouter). */
export const SERVICE_CONDITION_ORDER = 140;

/** Inputs of a router whose result depends on nothing in the invocation. */
export const NO_INPUTS: RoutingInputs = Object.freeze({
  method: false,
  attachments: [],
  arguments: [],
  random: false,
}) as RoutingInputs;

// The names a then-part `$ref` reads from the consumer URL's address (not its parameters).
const ADDRESS_REFS = new Set(['host', 'port', 'username', 'password']);

/** Options of one condition router. */
export interface ConditionStateRouterOptions {
  force?: boolean;
  enabled?: boolean;
  /** Chain order; default 140. */
  order?: number;
  runtime?: RouterRuntime;
}

// What the then-parts kept of each whole list, by rule and consumer scope (see `#keptByThen`).
const thenKept = new WeakMap<readonly Invoker[], Map<string, Invoker[]>>();

/** A single `when => then` condition (Dubbo's ConditionStateRouter). */
export class ConditionStateRouter implements StateRouter {
  readonly name = 'condition';
  readonly order: number;
  /** The rule as written (trimmed), for traces. */
  readonly rule: string;
  readonly force: boolean;
  readonly enabled: boolean;
  readonly whenCondition: ConditionMap;
  /** Null is a blocklist: matching consumers get no provider, whatever `force` says. */
  readonly thenCondition: ConditionMap | null;
  readonly #runtime: RouterRuntime | undefined;
  /** How keys are evaluated: the release of the runtime (3.3 without one). */
  readonly #semantics: ConditionSemantics;
  /** `semanticsCode(#semantics)`: '' for 3.3, else a prefix of every cache key and then-part scope. */
  readonly #semanticsCode: string;
  readonly #inputs: RoutingInputs;
  /** Silent changes Dubbo makes to the rule text (said in every trace note), joined; '' when none. */
  readonly #hazards: string;
  #readsAddress: boolean | undefined;
  #thenMemo = new WeakMap<URL, boolean>();
  #thenMemoConsumer: URL | null = null;
  #thenScopeKey = '';
  #thenScopeConsumer: URL | null = null;
  /** The when-part reads no attachment and no argument: its decision is a function of consumer URL and method. */
  readonly #keyByMethod: boolean;
  #keyMemo = new Map<string | undefined, string>();
  #keyMemoConsumer: URL | null = null;

  /** Parses `rule`; throws RouterRuleError on bad text. */
  constructor(rule: string, options: ConditionStateRouterOptions = {}) {
    this.rule = rule.trim();
    this.force = options.force ?? false;
    this.enabled = options.enabled ?? true;
    this.order = options.order ?? SERVICE_CONDITION_ORDER;
    this.#runtime = options.runtime;
    this.#semantics = conditionSemantics(options.runtime?.release);
    this.#semanticsCode = semanticsCode(this.#semantics);
    // DIVERGENCE: Dubbo does not parse a disabled rule; zonesim parses it anyway so mistakes show before it is enabled.
    const parsed = parseConditionText(rule);
    this.whenCondition = parsed.when;
    this.thenCondition = parsed.then;
    const hazards = [...ruleTextHazards(this.rule), ...keyHazards(this.whenCondition, this.thenCondition, this.#semantics)];
    this.#hazards = hazards.length === 0 ? '' : ` [${hazards.join('; ')}]`;
    this.#inputs = this.enabled ? { ...whenInputs(this.whenCondition, this.#semantics), random: false } : NO_INPUTS;
    this.#keyByMethod = this.#inputs.attachments.length === 0 && this.#inputs.arguments.length === 0;
  }

  /**
   * Whether the result can depend on the consumer URL's address beyond the when-part's decision: a
   * then-part `$host`/`$port`/`$username`/`$password` reference. A when-part key read from the host
   * or port (`host`, `address`, `port`, `username`, `password`) only decides whether the rule
   * applies, which `routeKey` holds, and its trace note names no address. Consumer instances of a
   * group differ only in their address, so a rule whose then-part reads none routes every instance
   * with the same decision alike (see `SharedRouteCache`).
   */
  thenReadsConsumerAddress(): boolean {
    return (this.#readsAddress ??= this.#findAddressRead());
  }

  #findAddressRead(): boolean {
    for (const m of this.thenCondition?.values() ?? []) {
      for (const set of [m.matches, m.mismatches]) for (const p of set) if (p.startsWith('$') && ADDRESS_REFS.has(p.slice(1))) return true;
    }
    return false;
  }

  /** Whether the consumer (and this invocation) matches the when-part; an empty when matches all. */
  matchWhen(consumerUrl: URL, invocation: RpcInvocation | null): boolean {
    if (this.whenCondition.size === 0) return true;
    return matchConditions(this.whenCondition, consumerUrl, null, invocation, true, this.#semantics);
  }

  /** Whether a provider matches the then-part; an empty then-map matches no provider. */
  matchThen(providerUrl: URL, consumerUrl: URL): boolean {
    if (this.thenCondition === null || this.thenCondition.size === 0) return false;
    // PERF: the then-part reads only the provider URL and the consumer URL ($refs), both immutable,
    // so its answer is memoised per provider URL for the current consumer URL.
    if (consumerUrl !== this.#thenMemoConsumer) {
      this.#thenMemo = new WeakMap();
      this.#thenMemoConsumer = consumerUrl;
    }
    let matched = this.#thenMemo.get(providerUrl);
    if (matched === undefined) {
      matched = matchConditions(this.thenCondition, providerUrl, consumerUrl, null, false, this.#semantics);
      this.#thenMemo.set(providerUrl, matched);
    }
    return matched;
  }

  routingInputs(): RoutingInputs {
    return this.#inputs;
  }

  /**
   * The cache decision: whether the when-part matches (the result depends on nothing else in the
   * call), and if not, which key failed and how (the trace note says so).
   */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    // Chains of consumers on other releases may share a store (one per service): their keys differ.
    if (!this.enabled || this.whenCondition.size === 0) return this.#semanticsCode;
    if (!this.#keyByMethod) return this.#decide(consumerUrl, invocation);
    // PERF: the chain asks on every call; a when-part that reads neither attachments nor arguments
    // decides by the consumer URL (immutable) and the method alone, so the decision is memoised per
    // method for the current consumer URL.
    if (consumerUrl !== this.#keyMemoConsumer) {
      this.#keyMemo = new Map();
      this.#keyMemoConsumer = consumerUrl;
    }
    // 2.7 reads a generic call's own name ($invoke), 3.3 the method it names.
    const method = this.#semantics.v27 ? invocation.methodName : getMethodName(invocation);
    let key = this.#keyMemo.get(method);
    if (key === undefined) this.#keyMemo.set(method, (key = this.#decide(consumerUrl, invocation)));
    return key;
  }

  #decide(consumerUrl: URL, invocation: RpcInvocation): string {
    const decision = this.matchWhen(consumerUrl, invocation)
      ? '1'
      : `0${whenMissCode(findWhenMiss(this.whenCondition, consumerUrl, invocation, this.#semantics), this.whenCondition.size)}`;
    return this.#semanticsCode + decision;
  }

  // `invokers.filter((inv) => this.matchThen(inv.getUrl(), consumerUrl))`, or `invokers` itself when all match.
  // PERF: the then-part judges each provider alone by its URL and the consumer URL, so what it keeps of a
  // whole list is kept per list for every router with this rule and consumer instance whose URL it reads
  // alike, and a sub-list's (an instance's providers with some set aside) is worked out from its parent's
  // (see `keptOfSubList`).
  #keptByThen(invokers: Invoker[], consumerUrl: URL): Invoker[] {
    const parent = parentList(invokers) as Invoker[] | undefined;
    const list = parent ?? invokers;
    let byScope = thenKept.get(list);
    if (byScope === undefined) thenKept.set(list, (byScope = new Map()));
    const scope = this.#thenScope(consumerUrl);
    let kept = byScope.get(scope);
    if (kept === undefined) {
      const matched = list.filter((inv) => this.matchThen(inv.getUrl(), consumerUrl));
      byScope.set(scope, (kept = matched.length === list.length ? list : matched));
    }
    return parent === undefined ? kept : keptOfSubList(invokers, parent, kept);
  }

  // What the then-part can read of the consumer URL: the rule, and the URL's parameters (its address too
  // when a `$host`-style reference reads it).
  #thenScope(consumerUrl: URL): string {
    if (consumerUrl !== this.#thenScopeConsumer) {
      const where = this.thenReadsConsumerAddress() ? consumerUrl.toString() : parameterScope(consumerUrl);
      this.#thenScopeKey = `${this.#semanticsCode}${this.rule}\u0000${where}`;
      this.#thenScopeConsumer = consumerUrl;
    }
    return this.#thenScopeKey;
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const entry = (out: Invoker[], matchedWhen: boolean, note: string): RouterResult => ({
      invokers: out,
      trace: { router: this.name, rule: this.rule, matchedWhen, before, after: out.length, note: note + this.#hazards },
    });
    if (!this.enabled) return entry(invokers, false, 'enabled: false, so the rule passes every provider through');
    if (before === 0) return entry(invokers, false, 'no provider reached this rule');
    if (!this.matchWhen(consumerUrl, invocation)) {
      const miss = findWhenMiss(this.whenCondition, consumerUrl, invocation, this.#semantics);
      // A malformed key is explained by the hazards every note carries.
      const why = miss === undefined || miss.kind === 'malformed' ? '' : `: ${describeWhenMiss(this.whenCondition, miss, consumerUrl, this.#semantics)}`;
      return entry(invokers, false, `the when-part does not match this consumer/call, so the rule is skipped${why}`);
    }
    if (this.thenCondition === null) {
      return entry([], true, 'the then-part is empty or false: a blocklist, this consumer gets no provider (force does not matter)');
    }
    const result = this.#keptByThen(invokers, consumerUrl);
    if (result.length > 0) return entry(result, true, `the then-part matched ${result.length} of ${before} providers`);
    const why = explainThenMiss(this.thenCondition, invokers, this.#semantics);
    const because = why === undefined ? '' : ` (${why})`;
    if (this.force) {
      countRouterEvent(this.#runtime, FORCE_EMPTY_EVENT);
      return entry([], true, `force: true and the then-part matched none of ${before} providers${because}`);
    }
    return entry(
      invokers,
      true,
      `the then-part matched none of ${before} providers${because}; force: false, so the rule is ignored and all pass`,
    );
  }
}
