/**
 * Dubbo Admin condition rules in YAML (or as an already-parsed object): the common fields of
 * AbstractRouterRule, v3.0 `conditions` (strings) and v3.1 `conditions` (`from`/`to` with
 * weights). Owns YAML-level validation and its messages; the condition texts are parsed later
 * by the routers. Follows dubbo-cluster `router/condition/config/model/ConditionRuleParser.java`,
 * `ConditionRouterRule.java`, `MultiDestConditionRouterRule.java` and `router/AbstractRouterRule.java`.
 */
import { parse as parseYaml } from 'yaml';
import { RouterRuleError } from '../router-rule-error.js';
import type { MultiDestCondition } from './multi-dest-condition-router.js';

/** The fields every Dubbo router rule has (AbstractRouterRule). `runtime` and `priority` are parsed and unused, as in 3.x. */
export interface RouterRuleMeta {
  configVersion?: string;
  scope?: string;
  key?: string;
  force: boolean;
  runtime: boolean;
  enabled: boolean;
  priority: number;
  /** `valid: false` in the rule: Dubbo ignores the rule. */
  valid: boolean;
}

/** A parsed condition rule: v3.0 (each string its own router) or v3.1 (multi-destination). */
export type ParsedConditionRule =
  | (RouterRuleMeta & { format: 'v3.0'; conditions: string[]; /** Indexes of null items (read as "null"). */ nullItems?: number[] })
  | (RouterRuleMeta & { format: 'v3.1'; conditions: MultiDestCondition[] });

/** Loads YAML the way SnakeYAML does (YAML 1.1: `yes` is true, `~` is null); a YAML error is bad input. */
export function loadRuleYaml(text: string, what: string): unknown {
  let loaded = loadedRules.get(text);
  if (loaded === undefined) {
    try {
      loaded = { value: deepFreeze(parseYaml(text, { version: '1.1' })) };
    } catch (e) {
      loaded = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0]! };
    }
    if (loadedRules.size >= LOADED_RULES_MAX) loadedRules.clear();
    loadedRules.set(text, loaded);
  }
  if ('error' in loaded) throw new RouterRuleError(`${what}: invalid YAML: ${loaded.error}`);
  return loaded.value;
}

// PERF: every consumer instance builds its own router chain, and so parsed each rule's YAML again:
// 3,000 parses of one rule at the start of a large deployment. A rule text's YAML is parsed once
// (frozen, so that no reader can change what the others get); the memo is dropped whole when full.
const loadedRules = new Map<string, { value: unknown } | { error: string }>();
const LOADED_RULES_MAX = 256;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Java Boolean.parseBoolean(x.toString()).
// DIVERGENCE: Dubbo 2.7's PojoUtils cannot read a quoted boolean (`force: "true"`) and drops the whole rule.
function parseBool(v: unknown, defaultValue: boolean): boolean {
  if (v === undefined || v === null) return defaultValue;
  return String(v).toLowerCase() === 'true';
}

function optString(v: unknown): string | undefined {
  return v === undefined || v === null ? undefined : String(v);
}

/** AbstractRouterRule.parseFromMap0: the common fields, with Dubbo's defaults. */
export function parseRouterRuleMeta(map: Record<string, unknown>, what: string): RouterRuleMeta {
  let priority = 0;
  if (map.priority !== undefined && map.priority !== null) {
    const text = String(map.priority).trim();
    if (!/^[+-]?\d+$/.test(text)) throw new RouterRuleError(`${what}: priority: expected an integer, found "${text}"`);
    priority = Number(text);
  }
  return {
    configVersion: optString(map.configVersion),
    scope: optString(map.scope),
    key: optString(map.key),
    force: parseBool(map.force, false),
    runtime: parseBool(map.runtime, true),
    enabled: parseBool(map.enabled, true),
    priority,
    valid: parseBool(map.valid, true),
  };
}

function matchText(v: unknown, where: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') throw new RouterRuleError(`${where}: expected a condition string, found ${JSON.stringify(v)}`);
  return String(v);
}

function parseV31Condition(item: unknown, i: number): MultiDestCondition {
  const where = `conditions[${i}]`;
  if (!isObject(item)) throw new RouterRuleError(`${where}: expected a map with from/to (configVersion v3.1), found ${JSON.stringify(item)}`);
  // A missing or null `from` keeps the default empty map (matches all consumers).
  let from: MultiDestCondition['from'] = {};
  if (item.from !== undefined && item.from !== null) {
    if (!isObject(item.from)) throw new RouterRuleError(`${where}.from: expected a map with 'match', found ${JSON.stringify(item.from)}`);
    from = { match: matchText(item.from.match, `${where}.from.match`) };
  }
  // A missing or null `to` keeps the default empty list: a blocklist for matching consumers.
  const to: MultiDestCondition['to'] = [];
  if (item.to !== undefined && item.to !== null) {
    if (!Array.isArray(item.to)) throw new RouterRuleError(`${where}.to: expected a list of {match, weight}, found ${JSON.stringify(item.to)}`);
    item.to.forEach((t: unknown, j: number) => {
      const w = `${where}.to[${j}]`;
      if (!isObject(t)) throw new RouterRuleError(`${w}: expected a map with match/weight, found ${JSON.stringify(t)}`);
      let weight: number | undefined;
      if (t.weight !== undefined && t.weight !== null) {
        const text = String(t.weight).trim();
        if (!/^[+-]?\d+$/.test(text)) throw new RouterRuleError(`${w}.weight: expected an integer, found "${text}"`);
        weight = Number(text);
      }
      to.push({ match: matchText(t.match, `${w}.match`), weight });
    });
  }
  return { from, to };
}

/**
 * ConditionRuleParser.parse for YAML text or a parsed object. Throws RouterRuleError on bad input.
 * DIVERGENCE: Dubbo silently ignores a rule with no conditions or a configVersion newer than v3.1;
 * zonesim reports both as errors, since a rule that is never applied is a mistake worth flagging.
 */
export function parseConditionRuleYaml(rule: string | Record<string, unknown>): ParsedConditionRule {
  const loaded: unknown = typeof rule === 'string' ? loadRuleYaml(rule, 'condition rule') : rule;
  if (!isObject(loaded)) {
    throw new RouterRuleError(`condition rule: expected a YAML map (configVersion, scope, key, force, conditions, ...), found ${JSON.stringify(loaded)}`);
  }
  const meta = parseRouterRuleMeta(loaded, 'condition rule');
  const version = meta.configVersion?.toLowerCase();
  const conditions = loaded.conditions;
  if (!Array.isArray(conditions) || conditions.length === 0) {
    throw new RouterRuleError(
      `condition rule: conditions: expected a non-empty list, found ${conditions === undefined ? 'nothing' : JSON.stringify(conditions)}`,
    );
  }
  if (version !== undefined && version.startsWith('v3.1')) {
    return { ...meta, format: 'v3.1', conditions: conditions.map(parseV31Condition) };
  }
  if (version !== undefined && version > 'v3.1') {
    throw new RouterRuleError(
      `condition rule: configVersion ${meta.configVersion} is not supported; Dubbo 3.3 ignores rules newer than v3.1`,
    );
  }
  const nullItems = conditions.flatMap((c: unknown, i: number) => (c === null ? [i] : []));
  return {
    ...meta,
    format: 'v3.0',
    ...(nullItems.length > 0 ? { nullItems } : {}),
    conditions: conditions.map((c: unknown, i: number) => {
      // ConditionRouterRule.java:38 maps each item through String::valueOf: a null item (`-`, `~`, `null`)
      // is the rule text "null", a then-part whose key no provider has.
      if (c === null) return 'null';
      // DIVERGENCE: Dubbo reads a map or list item as its Java text (`{a=b}`, a condition on the key `{a`);
      // zonesim refuses it, as it is always a mistake (often a v3.1 from/to without its configVersion).
      if (typeof c === 'object') {
        const hint = isObject(c) && ('from' in c || 'to' in c) ? ' (from/to conditions need configVersion: v3.1)' : '';
        throw new RouterRuleError(`condition rule: conditions[${i}]: expected a string like "method=sayHello => region=hangzhou", found ${JSON.stringify(c)}${hint}`);
      }
      return String(c);
    }),
  };
}
