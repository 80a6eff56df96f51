/**
 * One condition of a v3.1 rule: consumers matching `from` go to one of several weighted `to`
 * destinations, drawn per call among the non-empty ones. Owns the draw and its trace entry; the
 * YAML parsing lives in condition-rule-parser.ts.
 * Follows dubbo-cluster `router/condition/MultiDestConditionRouter.java` and
 * `config/model/DestinationSet.java`, `ConditionSubSet.java`.
 */
import type { Invoker, RpcInvocation } from '../../rpc.js';
import type { URL } from '../../url.js';
import type { RouterResult, RoutingInputs, StateRouter } from '../router.js';
import { countRouterEvent } from '../router-events.js';
import type { RouterRuntime } from '../router-runtime.js';
import { describeWhenMiss, findWhenMiss, whenMissCode } from './condition-explain.js';
import { conditionSemantics, matchConditions, semanticsCode, whenInputs, type ConditionSemantics } from './condition-matcher.js';
import { parseConditionPart, type ConditionMap } from './condition-rule-text.js';
import { FORCE_EMPTY_EVENT, NO_INPUTS, SERVICE_CONDITION_ORDER } from './condition-state-router.js';

/** Weight of a destination without one, or with one <= 0 (DefaultRouteConditionSubSetWeight). */
export const DEFAULT_SUBSET_WEIGHT = 100;

/** A v3.1 condition as parsed from YAML: `from.match` and the `to` destinations. */
export interface MultiDestCondition {
  from: { match?: string };
  to: { match?: string; weight?: number }[];
}

interface ConditionSubSet {
  match: string | undefined;
  condition: ConditionMap;
  weight: number;
}

/** Options of one v3.1 condition. */
export interface MultiDestConditionRouterOptions {
  force?: boolean;
  enabled?: boolean;
  order?: number;
  /** `random` is required when a condition has more than one destination. */
  runtime?: RouterRuntime;
}

function isBlank(text: string | undefined): boolean {
  return text === undefined || text.trim().length === 0;
}

/** One v3.1 multi-destination condition (Dubbo's MultiDestConditionRouter). */
export class MultiDestConditionRouter implements StateRouter {
  readonly name = 'condition';
  readonly order: number;
  readonly rule: string;
  readonly force: boolean;
  readonly enabled: boolean;
  readonly whenCondition: ConditionMap;
  readonly thenCondition: readonly ConditionSubSet[];
  readonly #runtime: RouterRuntime | undefined;
  /** The release's semantics (v3.1 rules exist only in 3.x; `conditionMissingKey: pass` may still be set). */
  readonly #semantics: ConditionSemantics;
  readonly #inputs: RoutingInputs;
  #subsetMemo: WeakMap<URL, boolean>[] = [];
  #subsetMemoConsumer: URL | null = null;

  /** Parses the condition's match texts; throws RouterRuleError on bad text. */
  constructor(condition: MultiDestCondition, options: MultiDestConditionRouterOptions = {}) {
    this.force = options.force ?? false;
    this.enabled = options.enabled ?? true;
    this.order = options.order ?? SERVICE_CONDITION_ORDER;
    this.#runtime = options.runtime;
    this.#semantics = conditionSemantics(options.runtime?.release);
    const whenRule = condition.from.match;
    this.whenCondition = isBlank(whenRule) || whenRule === 'true' ? new Map() : parseConditionPart(whenRule!);
    // Unlike v3.0, a blank or `false` destination is an EMPTY map, which matches every provider.
    this.thenCondition = condition.to.map((to) => ({
      match: to.match,
      condition: isBlank(to.match) || to.match === 'false' ? new Map() : parseConditionPart(to.match!),
      weight: to.weight === undefined || to.weight <= 0 ? DEFAULT_SUBSET_WEIGHT : to.weight,
    }));
    this.rule = describe(condition.from.match, this.thenCondition);
    const random = this.enabled && this.thenCondition.length > 1;
    if (random && this.#runtime?.random === undefined) {
      throw new Error(`v3.1 condition "${this.rule}" has several destinations and needs a random stream (runtime.random)`);
    }
    this.#inputs = this.enabled ? { ...whenInputs(this.whenCondition), random } : NO_INPUTS;
  }

  /** Whether the consumer (and this invocation) matches `from`; an empty `from` matches all. */
  matchWhen(consumerUrl: URL, invocation: RpcInvocation | null): boolean {
    if (this.whenCondition.size === 0) return true;
    return matchConditions(this.whenCondition, consumerUrl, null, invocation, true, this.#semantics);
  }

  // PERF: a destination's match reads only the provider and consumer URLs: memoised per provider URL.
  #matchSubset(index: number, subset: ConditionSubSet, providerUrl: URL, consumerUrl: URL): boolean {
    if (consumerUrl !== this.#subsetMemoConsumer) {
      this.#subsetMemo = this.thenCondition.map(() => new WeakMap());
      this.#subsetMemoConsumer = consumerUrl;
    }
    const memo = this.#subsetMemo[index]!;
    let matched = memo.get(providerUrl);
    if (matched === undefined) {
      matched = matchConditions(subset.condition, providerUrl, consumerUrl, null, false, this.#semantics);
      memo.set(providerUrl, matched);
    }
    return matched;
  }

  routingInputs(): RoutingInputs {
    return this.#inputs;
  }

  /** The cache decision of a single-destination condition: whether `from` matches. */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    const code = semanticsCode(this.#semantics);
    if (!this.enabled || this.whenCondition.size === 0) return code;
    if (this.matchWhen(consumerUrl, invocation)) return `${code}1`;
    return `${code}0${whenMissCode(findWhenMiss(this.whenCondition, consumerUrl, invocation, this.#semantics), this.whenCondition.size)}`;
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const entry = (out: Invoker[], matchedWhen: boolean, note: string): RouterResult => ({
      invokers: out,
      trace: { router: this.name, rule: this.rule, matchedWhen, before, after: out.length, note },
    });
    if (!this.enabled) return entry(invokers, false, 'enabled: false, so the rule passes every provider through');
    if (before === 0) return entry(invokers, false, 'no provider reached this rule');
    if (!this.matchWhen(consumerUrl, invocation)) {
      const miss = findWhenMiss(this.whenCondition, consumerUrl, invocation, this.#semantics);
      const why = miss === undefined ? '' : `: ${describeWhenMiss(this.whenCondition, miss, consumerUrl, this.#semantics)}`;
      return entry(invokers, false, `the from-part does not match this consumer/call, so the condition is skipped${why}`);
    }
    if (this.thenCondition.length === 0) {
      return entry([], true, 'no `to` destinations: a blocklist, this consumer gets no provider (force does not matter)');
    }
    const destinations: { index: number; weight: number; invokers: Invoker[] }[] = [];
    let weightSum = 0;
    this.thenCondition.forEach((subset, index) => {
      const res = invokers.filter((inv) => this.#matchSubset(index, subset, inv.getUrl(), consumerUrl));
      if (res.length > 0) {
        destinations.push({ index, weight: subset.weight, invokers: res.length === before ? invokers : res });
        weightSum += subset.weight;
      }
    });
    if (destinations.length === 1) {
      const d = destinations[0]!;
      return entry(d.invokers, true, `only destination ${d.index + 1} matched providers: ${d.invokers.length} of ${before}`);
    }
    if (destinations.length > 1) {
      // DestinationSet.randDestination: r = nextLong(sum); subtract in order; first with r <= 0 wins.
      let r = this.#runtime!.random!.nextInt(weightSum);
      for (const d of destinations) {
        r -= d.weight;
        if (r <= 0) {
          return entry(
            d.invokers,
            true,
            `drew destination ${d.index + 1} of ${destinations.length} non-empty (weight ${d.weight} of ${weightSum}): ${d.invokers.length} of ${before} providers`,
          );
        }
      }
      return entry([], true, 'no destination drawn');
    }
    if (this.force) {
      countRouterEvent(this.#runtime, FORCE_EMPTY_EVENT);
      return entry([], true, `force: true and no destination matched any of ${before} providers`);
    }
    return entry(
      invokers,
      true,
      `no destination matched any of ${before} providers; force: false, so the condition is ignored and all pass`,
    );
  }
}

function describe(from: string | undefined, to: readonly ConditionSubSet[]): string {
  const when = isBlank(from) ? 'true' : from!.trim();
  if (to.length === 0) return `${when} => (blocklist)`;
  const dests = to.map((t) => `${isBlank(t.match) ? '(all)' : t.match!.trim()} [weight ${t.weight}]`);
  return `${when} => ${dests.join(' | ')}`;
}
