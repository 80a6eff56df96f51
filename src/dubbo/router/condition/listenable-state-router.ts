/**
 * Condition rules that carry a `key`, and the three Dubbo routers that read them by key:
 * `ServiceStateRouter` (order 140, rules keyed by this consumer's service), `ProviderAppStateRouter`
 * (145, rules keyed by the providers' application) and `AppStateRouter` (150, rules keyed by the
 * consumer application). A keyed rule is a `KeyedConditionRule`: the chain (chain.ts) hands every
 * one to all three routers instead of running it itself, and each applies the rules its key names,
 * whatever their `scope` says (no Dubbo router reads it), so a rule keyed to another service or
 * application never touches this consumer's providers. A rule that applies nowhere is reported by
 * the router of its scope; a router that applies and reports nothing leaves no trace row. Rules
 * without a key are plain condition routers and apply to every consumer, as before. Owns which
 * keyed rule applies and the trace that says why one is skipped; the rules themselves are
 * condition-rule-router.ts's.
 * Follows dubbo-cluster `router/condition/config/ListenableStateRouter.java`, `ServiceStateRouter.java`,
 * `ProviderAppStateRouter.java` and `AppStateRouter.java`.
 */
import type { Invoker, RpcInvocation } from '../../rpc.js';
import { ServiceAddressURL, type URL } from '../../url.js';
import type { RouteTraceEntry, RouterResult, RoutingInputs, StateRouter } from '../router.js';
import { consumerApplication, namesService, remoteApplication, serviceKeyMismatch, type RuleKey } from '../rule-key.js';
import { ConditionRuleRouter, mergeInputs, type ConditionRouter } from './condition-rule-router.js';
import { NO_INPUTS } from './condition-state-router.js';

/** Dubbo's orders of the listenable condition routers. */
export const LISTENABLE_ORDERS = { service: 140, 'provider-app': 145, app: 150 } as const;

/**
 * A condition rule with a key: as if stored in the config center at `<key>.condition-router`.
 * In a RouterChain it is applied by the router of its scope; on its own (`route`) it applies
 * unconditionally, as Dubbo's `process` of a rule does.
 */
export class KeyedConditionRule implements StateRouter {
  readonly name = 'condition';
  /** Where it sorts among the routers as added: its scope's router (service 140, application 150). */
  readonly order: number;
  readonly ruleKey: RuleKey;
  readonly router: ConditionRouter;
  /** The rule for traces (the conditions joined with `; `). */
  readonly label: string;
  readonly force: boolean;

  constructor(router: ConditionRouter, ruleKey: RuleKey) {
    this.router = router;
    this.ruleKey = ruleKey;
    this.order = ruleKey.scope === 'service' ? LISTENABLE_ORDERS.service : LISTENABLE_ORDERS.app;
    this.label = router instanceof ConditionRuleRouter ? router.label : router.rule;
    this.force = router instanceof ConditionRuleRouter ? router.force : router.force;
  }

  /** `<key>` as Dubbo Admin names it, with the scope: `service com.example.UserService`. */
  describeKey(): string {
    return `${this.ruleKey.scope} ${this.ruleKey.key}`;
  }

  routingInputs(): RoutingInputs {
    return this.router.routingInputs();
  }

  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    return this.router.routeKey(consumerUrl, invocation);
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    return this.router.route(invokers, consumerUrl, invocation);
  }
}

/** Which keyed rules one router applies for a consumer, and which it skips with why. */
interface Selection {
  apply: KeyedConditionRule[];
  skipped: { rule: KeyedConditionRule; reason: string }[];
  /** Said on the router's entry (e.g. which application the provider-app router follows). */
  note?: string;
}

/** The rules of a router that holds none. */
const NO_KEYED_RULES: readonly KeyedConditionRule[] = Object.freeze([]);

/**
 * ListenableStateRouter: applies the rules it holds for this consumer in sequence (AND), each
 * filtering the previous output; an empty intermediate result ends it.
 */
// DIVERGENCE: Dubbo's config center holds one rule per key; zonesim accepts several rules with one key and
// applies them in the order written.
export abstract class ListenableStateRouter implements StateRouter {
  readonly name = 'condition';
  abstract readonly order: number;
  /** Dubbo's class name, for trace notes. */
  abstract readonly dubboName: string;
  protected rules: readonly KeyedConditionRule[] = NO_KEYED_RULES;
  #inputs: RoutingInputs = NO_INPUTS;
  #selectionFor: URL | null = null;
  #selection: Selection | null = null;
  /** `stateKey` of `#selectionFor`, memoised with the selection. */
  #stateKey = '';

  /** The keyed rules this router reads (in chain order); called by the chain on every change. */
  setRules(rules: readonly KeyedConditionRule[]): void {
    // PERF: three of these routers per chain, one chain per reference per consumer instance, and most hold no rule.
    this.rules = rules.length === 0 ? NO_KEYED_RULES : rules;
    this.#inputs = rules.length === 0 ? NO_INPUTS : mergeInputs(rules.map((r) => r.routingInputs()));
    this.invalidate();
  }

  /** Whether the router holds any rule (the chain leaves an empty one out). */
  hasRules(): boolean {
    return this.rules.length > 0;
  }

  /** The keyed rules it holds, in chain order. */
  heldRules(): readonly KeyedConditionRule[] {
    return this.rules;
  }

  /** Forgets the memoised selection (state changed, or a router it reads from may have changed). */
  invalidate(): void {
    this.#selectionFor = null;
    this.#selection = null;
  }

  protected abstract select(consumerUrl: URL): Selection;

  // PERF: the selection (and its state key) depends on the consumer URL (fixed per chain) and the router's
  // state, which only changes through notify/setRules/pushes (all of which invalidate); computed once per URL.
  selection(consumerUrl: URL): Selection {
    if (this.#selection === null || this.#selectionFor !== consumerUrl) {
      this.#selection = this.select(consumerUrl);
      this.#stateKey = this.stateKey(consumerUrl);
      this.#selectionFor = consumerUrl;
    }
    return this.#selection;
  }

  routingInputs(): RoutingInputs {
    return this.#inputs;
  }

  /**
   * The cache decision: each applied rule's decision, after what this router's own state makes of the
   * selection (`stateKey`), so that chains routing alike share results (see `SharedRouteCache`).
   */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    const { apply } = this.selection(consumerUrl);
    let key = this.#stateKey;
    for (const r of apply) key += `${r.routeKey(consumerUrl, invocation)}|`;
    return key;
  }

  /** What the selection and its notes depend on besides the rules and the consumer URL's parameters ('' when nothing). */
  protected stateKey(_consumerUrl: URL): string {
    return '';
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const { apply, skipped, note } = this.selection(consumerUrl);
    const steps: RouteTraceEntry[] = [];
    for (const { rule, reason } of skipped) {
      steps.push({ router: this.name, rule: rule.label, matchedWhen: false, before, after: before, note: `${this.dubboName}: skipped: ${reason}` });
    }
    let current = invokers;
    for (const rule of apply) {
      if (current.length === 0) break;
      const result = rule.route(current, consumerUrl, invocation);
      const prefix = `${this.dubboName}, rule keyed ${rule.describeKey()}`;
      const inner = result.trace.steps;
      if (inner !== undefined && inner.length > 1) {
        inner.forEach((s, i) => steps.push({ ...s, note: `${prefix}, condition ${i + 1} of ${inner.length}: ${s.note ?? ''}` }));
      } else {
        const { steps: _own, ...entry } = result.trace;
        steps.push({ ...entry, note: `${prefix}: ${entry.note ?? ''}` });
      }
      current = result.invokers;
    }
    const matchedWhen = steps.some((s) => s.matchedWhen === true);
    if (steps.length === 0) {
      return {
        invokers: current,
        trace: { router: this.name, matchedWhen: false, before, after: before, note: `${this.dubboName}: ${note ?? 'no rule applies to this consumer'}` },
        quiet: true,
      };
    }
    if (steps.length === 1) {
      const only = steps[0]!;
      return { invokers: current, trace: { ...only, note: note !== undefined ? `${only.note} (${note})` : only.note, steps } };
    }
    // Rows are shown one by one (route, check): the first applied one carries why the rule applies.
    const firstApplied = steps[skipped.length];
    if (note !== undefined && firstApplied !== undefined) firstApplied.note = `${firstApplied.note} (${note})`;
    const label = [...skipped.map((s) => s.rule.label), ...apply.map((r) => r.label)].join('; ');
    const emptied = current.length === 0 && before > 0 ? steps.find((s) => s.after === 0) : undefined;
    return {
      invokers: current,
      trace: {
        router: this.name,
        rule: label,
        matchedWhen,
        before,
        after: current.length,
        note: emptied?.note ?? `${this.dubboName}: ${apply.length} rule${apply.length === 1 ? '' : 's'} applied, ${skipped.length} skipped${note !== undefined ? ` (${note})` : ''}`,
        steps,
      },
    };
  }
}

/**
 * Whether any of the three routers applies a keyed rule for this consumer: its key names the consumer's
 * service, the consumer application, or the application ProviderAppStateRouter follows.
 */
function appliesAnywhere(rule: KeyedConditionRule, consumerUrl: URL, providerApp: ProviderAppStateRouter): boolean {
  const key = rule.ruleKey.key;
  return namesService(key, consumerUrl) || key === consumerApplication(consumerUrl) || key === providerApp.currentKey(consumerUrl);
}

/** The applications whose rules this consumer reads (its own, the one the provider-app router follows). */
function readApplications(consumerUrl: URL, providerApp: ProviderAppStateRouter): string[] {
  return [consumerApplication(consumerUrl), providerApp.application].filter((a): a is string => a !== undefined);
}

/** ServiceStateRouter (order 140): the rules keyed by this reference's `interface:version:group`. */
export class ServiceStateRouter extends ListenableStateRouter {
  readonly order = LISTENABLE_ORDERS.service;
  readonly dubboName = 'ServiceStateRouter';
  readonly #providerApp: ProviderAppStateRouter;

  /** `providerApp` is the chain's ProviderAppStateRouter: a rule it applies is not reported as skipped here. */
  constructor(providerApp: ProviderAppStateRouter) {
    super();
    this.#providerApp = providerApp;
  }

  // Which rules are reported as skipped depends on the application the provider-app router follows.
  protected override stateKey(consumerUrl: URL): string {
    return `${this.#providerApp.currentKey(consumerUrl) ?? ''}\u0001${this.#providerApp.application ?? ''}\u0002`;
  }

  protected select(consumerUrl: URL): Selection {
    const out: Selection = { apply: [], skipped: [] };
    for (const rule of this.rules) {
      if (namesService(rule.ruleKey.key, consumerUrl)) out.apply.push(rule);
      else if (rule.ruleKey.scope === 'service' && !appliesAnywhere(rule, consumerUrl, this.#providerApp)) {
        out.skipped.push({ rule, reason: serviceKeyMismatch(rule.ruleKey, consumerUrl, readApplications(consumerUrl, this.#providerApp)) });
      }
    }
    return out;
  }
}

/** What ProviderAppStateRouter's one `routerRule` currently is. */
type ProviderAppRule = { from: 'consumer' } | { from: 'provider'; key: string } | { from: 'none' };
const FROM_CONSUMER: ProviderAppRule = Object.freeze({ from: 'consumer' });
const FROM_NONE: ProviderAppRule = Object.freeze({ from: 'none' });

/**
 * ProviderAppStateRouter (order 145): the rules keyed by the providers' application, i.e. the
 * `remote.application` of the first provider of the address list. A port of its state: it is
 * created listening to `<consumer application>.condition-router` (its constructor passes the
 * consumer URL's application to ListenableStateRouter), so until a rule exists for the
 * providers' application it holds the consumer application's rule, which then runs here and
 * again in AppStateRouter. On an address list whose first provider has another application it
 * subscribes that application and takes its rule if there is one (else it keeps what it had); the
 * consumer-application listener is never removed, so a push to that key replaces the rule.
 */
export class ProviderAppStateRouter extends ListenableStateRouter {
  readonly order = LISTENABLE_ORDERS['provider-app'];
  readonly dubboName = 'ProviderAppStateRouter';
  /** False for a Dubbo 2.7 consumer, which has no such router (first in 3.2): it then follows and applies nothing. */
  readonly enabled: boolean;
  /** Dubbo's `application`: the provider application it subscribed to. */
  #application: string | undefined;
  #current: ProviderAppRule = FROM_CONSUMER;
  /** The consumer application, once known (from a ServiceAddressURL or the first route). */
  #consumerApp: string | undefined;

  constructor(enabled = true) {
    super();
    this.enabled = enabled;
  }

  /** The provider application it follows (Dubbo's `application`), if any. */
  get application(): string | undefined {
    return this.#application;
  }

  // Which application's rule it follows, and the providers' application it subscribed to (the note names both).
  protected override stateKey(consumerUrl: URL): string {
    return `${this.#current.from}\u0001${this.currentKey(consumerUrl) ?? ''}\u0001${this.#application ?? ''}\u0002`;
  }

  /** The key whose rules it currently applies, or undefined. */
  currentKey(consumerUrl: URL): string | undefined {
    if (!this.enabled) return undefined;
    this.#learn(consumerUrl);
    if (this.#current.from === 'provider') return this.#current.key;
    if (this.#current.from === 'consumer') return this.#consumerApp;
    return undefined;
  }

  notify(invokers: Invoker[]): void {
    if (invokers.length === 0 || !this.enabled) return;
    const url = invokers[0]!.getUrl();
    if (url instanceof ServiceAddressURL && this.#consumerApp === undefined) this.#consumerApp = consumerApplication(url.consumerUrl);
    const providerApp = remoteApplication(url);
    // Dubbo warns "condition router get providerApplication is empty" and keeps its rule.
    if (providerApp === undefined) return;
    if (providerApp === this.#consumerApp) return;
    if (providerApp !== this.#application) {
      this.#application = providerApp;
      if (this.rules.some((r) => r.ruleKey.key === providerApp)) this.#current = { from: 'provider', key: providerApp };
      this.invalidate();
    }
  }

  /** A keyed application rule pushed at run time (`process` of a config change for its key). */
  ruleAdded(rule: KeyedConditionRule): void {
    const key = rule.ruleKey.key;
    if (key === this.#application) this.#current = { from: 'provider', key };
    else if (key === this.#consumerApp) this.#current = FROM_CONSUMER;
    this.invalidate();
  }

  /** A keyed application rule deleted at run time: a DELETED event on a key it listens to clears its rule. */
  ruleRemoved(rule: KeyedConditionRule): void {
    const key = rule.ruleKey.key;
    // zonesim may hold several rules under one key: the key is only deleted with the last of them.
    if (this.rules.some((r) => r.ruleKey.key === key)) return this.ruleAdded(rule);
    if (key === this.#application || key === this.#consumerApp) this.#current = FROM_NONE;
    this.invalidate();
  }

  #learn(consumerUrl: URL): void {
    if (this.#consumerApp === undefined) this.#consumerApp = consumerApplication(consumerUrl);
  }

  protected select(consumerUrl: URL): Selection {
    if (!this.enabled) return { apply: [], skipped: [] };
    this.#learn(consumerUrl);
    const consumerApp = this.#consumerApp;
    const providerApp = this.#application;
    const key = this.currentKey(consumerUrl);
    const apply = key === undefined ? [] : this.rules.filter((r) => r.ruleKey.key === key);
    let note: string;
    if (this.#current.from === 'provider') {
      note = `the first provider's application is ${key}`;
    } else if (this.#current.from === 'none') {
      note = 'its rule was deleted';
    } else {
      const why =
        providerApp === undefined
          ? 'no provider application to follow yet'
          : `no rule is keyed by the providers' application ${providerApp}`;
      note =
        apply.length > 0
          ? `${why}, so it keeps the consumer application's rule (${consumerApp}.condition-router, subscribed when it was created); AppStateRouter applies it again`
          : `${why}; no rule for the consumer application ${consumerApp ?? '(none)'} either`;
    }
    return { apply, skipped: [], note };
  }
}

/** AppStateRouter (order 150): the rules keyed by the consumer application. */
export class AppStateRouter extends ListenableStateRouter {
  readonly order = LISTENABLE_ORDERS.app;
  readonly dubboName = 'AppStateRouter';
  readonly #providerApp: ProviderAppStateRouter;

  // The provider-app router's key and application decide which rules are skipped here, and how that is said.
  protected override stateKey(consumerUrl: URL): string {
    return `${this.#providerApp.currentKey(consumerUrl) ?? ''}\u0001${this.#providerApp.application ?? ''}\u0002`;
  }

  /** `providerApp` is the chain's ProviderAppStateRouter: rules it applies are not reported as skipped here. */
  constructor(providerApp: ProviderAppStateRouter) {
    super();
    this.#providerApp = providerApp;
  }

  protected select(consumerUrl: URL): Selection {
    const consumerApp = consumerApplication(consumerUrl);
    const providerKey = this.#providerApp.currentKey(consumerUrl);
    const out: Selection = { apply: [], skipped: [] };
    for (const rule of this.rules) {
      const key = rule.ruleKey.key;
      if (key === consumerApp) out.apply.push(rule);
      else if (rule.ruleKey.scope === 'application' && key !== providerKey && !namesService(key, consumerUrl)) {
        const providers = this.#providerApp.enabled
          ? ` nor the providers' application ${this.#providerApp.application ?? '(unknown)'}`
          : '';
        const v27 = this.#providerApp.enabled ? '' : '; Dubbo 2.7 reads no rule keyed by the providers\' application (ProviderAppStateRouter is first in 3.2)';
        out.skipped.push({
          rule,
          reason:
            `scope: application, key ${key} names neither this consumer's application ${consumerApp ?? '(none)'}` +
            `${providers} (nor its service, ${consumerUrl.getColonSeparatedKey()})${v27}`,
        });
      }
    }
    return out;
  }
}
