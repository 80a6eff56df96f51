/**
 * The entry point for condition rules: `parseConditionRule` takes a URL rule (`host = a => host = b`),
 * a `condition://` rule URL, or a Dubbo Admin YAML rule (text or object) and returns a state router
 * named `condition`. A YAML rule becomes a ConditionRuleRouter: one router per condition, applied in
 * sequence (AND), reported as one trace entry with a step per condition. Not the grammar itself.
 * Follows dubbo-cluster `router/condition/config/ListenableStateRouter.java` (and its Service/App
 * subclasses for the order) and `ConditionStateRouterFactory.java` for `condition://` URLs.
 */
import type { Invoker, RpcInvocation } from '../../rpc.js';
import { URL } from '../../url.js';
import type { RouteTraceEntry, RouterResult, RoutingInputs, StateRouter } from '../router.js';
import type { RouterRuntime } from '../router-runtime.js';
import { loadRuleYaml, parseConditionRuleYaml, type ParsedConditionRule } from './condition-rule-parser.js';
import { RouterRuleError } from '../router-rule-error.js';
import { ConditionStateRouter, NO_INPUTS, SERVICE_CONDITION_ORDER } from './condition-state-router.js';
import { MultiDestConditionRouter } from './multi-dest-condition-router.js';

/** Dubbo's state-router orders for condition rules by where the rule is attached. */
export const CONDITION_ORDERS = {
  /** ServiceStateRouter: `<iface>:<version>:<group>.condition-router` (and explicit `condition://` rules in zonesim). */
  service: SERVICE_CONDITION_ORDER,
  /** ProviderAppStateRouter: `<providerApp>.condition-router`. */
  'provider-app': 145,
  /** AppStateRouter: `<consumerApp>.condition-router`. */
  app: 150,
} as const;

/** Where a condition rule is attached; decides its order in the chain. */
export type ConditionRouterScope = keyof typeof CONDITION_ORDERS;

/** Options of `parseConditionRule`. */
export interface ParseConditionRuleOptions {
  /** `force: true` for a URL rule (`--force`); when true it also forces a YAML rule. */
  force?: boolean;
  /** Events (force-empty counter) and the random stream for v3.1 weighted destinations. */
  runtime?: RouterRuntime;
  /** Overrides the order taken from the YAML `scope` (service → 140, application → 150). */
  routerScope?: ConditionRouterScope;
}

/** A condition router built from one rule: a single condition or a YAML rule's sequence. */
export type ConditionRouter = ConditionStateRouter | ConditionRuleRouter;

/** A YAML condition rule: its conditions applied in sequence, each filtering the previous output. */
export class ConditionRuleRouter implements StateRouter {
  readonly name = 'condition';
  readonly order: number;
  readonly rule: ParsedConditionRule;
  readonly routers: readonly (ConditionStateRouter | MultiDestConditionRouter)[];
  /** The rule for traces: the conditions joined with `; `. */
  readonly label: string;
  /** The rule's `force` (or `--force`). */
  readonly force: boolean;
  readonly #inputs: RoutingInputs;

  constructor(rule: ParsedConditionRule, options: { order: number; force: boolean; runtime?: RouterRuntime }) {
    // 2.7.23 builds `new ConditionRouter(null, ...)` for a null item, whose init throws "Illegal route rule!":
    // Dubbo 2.7 logs the rule as unparsable and drops it; zonesim refuses it (3.3 reads the text "null").
    if (options.runtime?.release?.version === '2.7' && rule.format === 'v3.0' && rule.nullItems !== undefined) {
      throw new RouterRuleError(
        `condition rule: conditions[${rule.nullItems[0]}] is null: Dubbo 2.7 cannot build a condition from it ("Illegal route rule!") and drops the whole rule`,
      );
    }
    this.rule = rule;
    this.order = options.order;
    this.force = options.force;
    const common = { force: options.force, enabled: rule.enabled, order: options.order, runtime: options.runtime };
    const routers =
      rule.format === 'v3.1'
        ? rule.conditions.map((c) => new MultiDestConditionRouter(c, common))
        : rule.conditions.map((c) => new ConditionStateRouter(c, common));
    // A rule with `valid: false` is ignored by Dubbo: no condition applies.
    this.routers = rule.valid ? routers : [];
    this.label = routers.map((r) => r.rule).join('; ');
    this.#inputs = mergeInputs(this.routers.map((r) => r.routingInputs()));
  }

  routingInputs(): RoutingInputs {
    return this.#inputs;
  }

  /** Whether every condition's result is a function of the consumer URL's parameters (no address, no random draw). */
  routesByParameters(): boolean {
    return this.routers.every((r) => r instanceof ConditionStateRouter && !r.thenReadsConsumerAddress());
  }

  /** The conditions' when-part decisions, in order. */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    let key = '';
    for (const r of this.routers) key += r.routeKey(consumerUrl, invocation);
    return key;
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    if (this.routers.length === 0) {
      return {
        invokers,
        trace: { router: this.name, rule: this.label, matchedWhen: false, before, after: before, note: 'valid: false, so Dubbo ignores the rule' },
      };
    }
    const steps: RouteTraceEntry[] = [];
    let current = invokers;
    // The first condition always runs, so that an empty list gets its trace ("no provider reached this
    // rule"); a condition that leaves no provider ends the sequence.
    for (const router of this.routers) {
      const result = router.route(current, consumerUrl, invocation);
      steps.push(result.trace);
      current = result.invokers;
      if (current.length === 0) break;
    }
    const matchedWhen = steps.some((s) => s.matchedWhen === true);
    if (this.routers.length === 1) {
      return { invokers: current, trace: { ...steps[0]!, steps } };
    }
    const last = steps[steps.length - 1]!;
    const note =
      current.length === 0 && before > 0
        ? `condition ${steps.length} of ${this.routers.length} ("${last.rule}"): ${last.note}`
        : `${this.routers.length} conditions in sequence: ` +
          steps.map((s, i) => `#${i + 1} ${s.matchedWhen ? `${s.before}→${s.after}` : 'not matched'}`).join(', ');
    return {
      invokers: current,
      trace: { router: this.name, rule: this.label, matchedWhen, before, after: current.length, note, steps },
    };
  }
}

/** The union of several routers' inputs. */
export function mergeInputs(all: readonly RoutingInputs[]): RoutingInputs {
  if (all.length === 0) return NO_INPUTS;
  if (all.length === 1) return all[0]!;
  const attachments = new Set<string>();
  const args = new Set<number>();
  let method = false;
  let random = false;
  for (const i of all) {
    method ||= i.method;
    random ||= i.random;
    for (const a of i.attachments) attachments.add(a);
    for (const n of i.arguments) args.add(n);
  }
  return { method, attachments: [...attachments], arguments: [...args], random };
}

function looksLikeYaml(text: string): boolean {
  const t = text.trim();
  return t.startsWith('---') || t.startsWith('{') || t.includes('\n') || /^[A-Za-z_][\w.-]*\s*:(\s|$)/.test(t);
}

// A rule without a key: its scope places it (application at 150, any other at 140). Dubbo reads no scope
// (AbstractRouterRule.java:81 only stores it), so any text is accepted.
function orderFor(rule: ParsedConditionRule, routerScope: ConditionRouterScope | undefined): number {
  if (routerScope !== undefined) return CONDITION_ORDERS[routerScope];
  return rule.scope === 'application' ? CONDITION_ORDERS.app : CONDITION_ORDERS.service;
}

// ConditionStateRouterFactory: `condition://0.0.0.0/<iface>?rule=<encoded>&force=..&enabled=..`.
function fromConditionUrl(text: string, options: ParseConditionRuleOptions): ConditionStateRouter {
  const url = URL.valueOf(text);
  const raw = url.getParameter('rule');
  if (raw === undefined) throw new RouterRuleError(`condition rule URL has no rule parameter: ${text}`);
  let rule: string;
  try {
    rule = decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    throw new RouterRuleError(`condition rule URL: the rule parameter is not URL-encoded text: ${raw}`);
  }
  return new ConditionStateRouter(rule, {
    force: options.force === true || url.getParameter('force', 'false').toLowerCase() === 'true',
    enabled: url.getParameter('enabled', 'true').toLowerCase() === 'true',
    order: options.routerScope !== undefined ? CONDITION_ORDERS[options.routerScope] : SERVICE_CONDITION_ORDER,
    runtime: options.runtime,
  });
}

/**
 * Builds the `condition` router for a rule given as URL-rule text, a `condition://` URL, YAML text or
 * a YAML object. URL rules and `condition://` URLs get order 140 (Dubbo only uses explicit
 * `condition://` routers outside the activated chain; zonesim places them with the service rules).
 * Throws RouterRuleError (bad input) when the rule does not parse.
 */
export function parseConditionRule(
  rule: string | Record<string, unknown>,
  options: ParseConditionRuleOptions = {},
): ConditionRouter {
  let loaded: unknown = rule;
  if (typeof rule === 'string' && looksLikeYaml(rule)) loaded = loadRuleYaml(rule, 'condition rule');
  // A URL rule, possibly from a file with `#` comment lines (which YAML strips to the bare text).
  if (typeof loaded === 'string') {
    if (loaded.trim().startsWith('condition://')) return fromConditionUrl(loaded.trim(), options);
    return new ConditionStateRouter(loaded, {
      force: options.force ?? false,
      order: options.routerScope !== undefined ? CONDITION_ORDERS[options.routerScope] : SERVICE_CONDITION_ORDER,
      runtime: options.runtime,
    });
  }
  const parsed = parseConditionRuleYaml(loaded as Record<string, unknown>);
  return new ConditionRuleRouter(parsed, {
    order: orderFor(parsed, options.routerScope),
    force: parsed.force || options.force === true,
    runtime: options.runtime,
  });
}
