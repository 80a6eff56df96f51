/**
 * A dynamic tag rule (Dubbo Admin YAML): tags with static `addresses` or, from v3.0, `match`
 * conditions on provider parameters, and the tag → addresses map built from the current
 * providers on every address notification. Owns parsing and `init`; routing is in tag-state-router.ts.
 * Follows dubbo-cluster `router/tag/model/TagRouterRule.java`, `Tag.java`, `ParamMatch.java`,
 * `TagRuleParser.java` and `router/mesh/rule/virtualservice/match/StringMatch.java`.
 */
import type { Invoker } from '../../rpc.js';
import { loadRuleYaml, parseRouterRuleMeta, type RouterRuleMeta } from '../condition/condition-rule-parser.js';
import { compileJavaRegex, javaMatches } from '../java-regex.js';
import { RouterRuleError } from '../router-rule-error.js';

/** StringMatch: the first field set decides (exact, prefix, regex, wildcard, empty, noempty). */
export interface StringMatch {
  exact?: string;
  prefix?: string;
  regex?: string;
  wildcard?: string;
  empty?: string;
  noempty?: string;
}

/** `{ key, value: StringMatch }`: a provider URL original parameter condition. */
export interface ParamMatch {
  key: string;
  value?: StringMatch;
}

/** One tag of the rule. */
export interface Tag {
  name: string;
  addresses?: string[];
  match?: ParamMatch[];
}

/** StringMatch.isMatch(input). */
export function isStringMatch(m: StringMatch, input: string | undefined): boolean {
  if (m.exact !== undefined && input !== undefined) return input === m.exact;
  if (m.prefix !== undefined && input !== undefined) return input.startsWith(m.prefix);
  // Java String.matches (the whole input), in linear time (java-regex.ts; compiled once per pattern).
  if (m.regex !== undefined && input !== undefined) return javaMatches(m.regex, input);
  // Only "*" is supported as a wildcard.
  if (m.wildcard !== undefined && input !== undefined) return input === m.wildcard || m.wildcard === '*';
  if (m.empty !== undefined) return input === undefined || input === '';
  if (m.noempty !== undefined) return input !== undefined && input.length > 0;
  return false;
}

/** ParamMatch.isMatch: no value matcher means no match. */
export function isParamMatch(m: ParamMatch, input: string | undefined): boolean {
  return m.value !== undefined ? isStringMatch(m.value, input) : false;
}

/** A parsed tag rule; `init(invokers)` builds the tag → addresses map for the current providers. */
export class TagRouterRule {
  readonly meta: RouterRuleMeta;
  readonly tags: readonly Tag[];
  /** The YAML (or JSON of the object) the rule came from. */
  readonly rawRule: string;
  #tagnameToAddresses = new Map<string, Set<string>>();
  #addresses = new Set<string>();

  constructor(meta: RouterRuleMeta, tags: Tag[], rawRule: string) {
    this.meta = meta;
    this.tags = tags;
    this.rawRule = rawRule;
  }

  /** A fresh copy to initialise for another address list (each tag router owns its rule's state). */
  copy(): TagRouterRule {
    return new TagRouterRule(this.meta, [...this.tags], this.rawRule);
  }

  get force(): boolean {
    return this.meta.force;
  }
  get enabled(): boolean {
    return this.meta.enabled;
  }
  get valid(): boolean {
    return this.meta.valid && this.tags.length > 0;
  }

  /** TagRouterRule.init: static addresses, then (v3.0) the providers every `match` accepts. */
  init(invokers: readonly Invoker[]): void {
    const map = new Map<string, Set<string>>();
    if (this.valid) {
      for (const tag of this.tags) {
        if (tag.addresses !== undefined && tag.addresses.length > 0) map.set(tag.name, new Set(tag.addresses));
      }
      if (this.meta.configVersion?.startsWith('v3.0') && invokers.length > 0) {
        for (const tag of this.tags) {
          if (tag.addresses !== undefined && tag.addresses.length > 0) continue;
          // DIVERGENCE: a v3.0 tag with neither addresses nor match makes Dubbo's init throw (NPE) and
          // the whole rule is dropped; zonesim gives that tag no addresses.
          if (tag.match === undefined) continue;
          const addresses = new Set<string>();
          for (const inv of invokers) {
            const url = inv.getUrl();
            if (tag.match.every((m) => isParamMatch(m, url.getOriginalParameter(m.key)))) addresses.add(url.getAddress());
          }
          if (addresses.size > 0) map.set(tag.name, addresses);
        }
      }
    }
    this.#tagnameToAddresses = map;
    const all = new Set<string>();
    for (const set of map.values()) for (const a of set) all.add(a);
    this.#addresses = all;
  }

  /** Tag name → address patterns; only tags with a non-empty set have an entry. */
  getTagnameToAddresses(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.#tagnameToAddresses;
  }

  /** Every address in any tag. */
  getAddresses(): ReadonlySet<string> {
    return this.#addresses;
  }

  getTagNames(): string[] {
    return this.tags.map((t) => t.name);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseStringMatch(v: unknown, where: string, tag: string): StringMatch | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new RouterRuleError(`${where}: expected a StringMatch map (exact, prefix, regex, wildcard, empty, noempty), found ${JSON.stringify(v)}`);
  const m: StringMatch = {};
  for (const k of ['exact', 'prefix', 'regex', 'wildcard', 'empty', 'noempty'] as const) {
    if (v[k] !== undefined && v[k] !== null) m[k] = String(v[k]);
  }
  if (m.regex !== undefined) {
    const compiled = compileJavaRegex(m.regex);
    if (!compiled.ok) throw new RouterRuleError(`${where}.regex (tag "${tag}"): ${JSON.stringify(m.regex)} ${compiled.problem}`);
  }
  return m;
}

/**
 * TagRuleParser.parse for YAML text or a parsed object. Throws RouterRuleError on bad input.
 * DIVERGENCE: Dubbo marks a rule without tags invalid and silently ignores it; zonesim reports it.
 */
export function parseTagRule(rule: string | Record<string, unknown>): TagRouterRule {
  const raw = typeof rule === 'string' ? rule : JSON.stringify(rule);
  const loaded = typeof rule === 'string' ? loadRuleYaml(rule, 'tag rule') : rule;
  if (!isObject(loaded)) throw new RouterRuleError(`tag rule: expected a YAML map (force, enabled, key, tags, ...), found ${JSON.stringify(loaded)}`);
  const meta = parseRouterRuleMeta(loaded, 'tag rule');
  const tagsValue = loaded.tags;
  if (!Array.isArray(tagsValue) || tagsValue.length === 0) {
    throw new RouterRuleError(`tag rule: tags: expected a non-empty list of {name, addresses | match}, found ${tagsValue === undefined ? 'nothing' : JSON.stringify(tagsValue)}`);
  }
  const v30 = meta.configVersion?.startsWith('v3.0') ?? false;
  const tags = tagsValue.map((t: unknown, i: number): Tag => {
    const where = `tag rule: tags[${i}]`;
    if (!isObject(t)) throw new RouterRuleError(`${where}: expected a map with name and addresses or match, found ${JSON.stringify(t)}`);
    if (typeof t.name !== 'string' || t.name === '') throw new RouterRuleError(`${where}.name: expected a tag name, found ${JSON.stringify(t.name)}`);
    const tag: Tag = { name: t.name };
    // `match` is only read from v3.0 rules.
    if (v30 && t.match !== undefined && t.match !== null) {
      if (!Array.isArray(t.match)) throw new RouterRuleError(`${where}.match: expected a list of {key, value}, found ${JSON.stringify(t.match)}`);
      tag.match = t.match.map((m: unknown, j: number) => {
        if (!isObject(m) || typeof m.key !== 'string') {
          throw new RouterRuleError(`${where}.match[${j}]: expected {key, value: {exact|prefix|regex|wildcard|empty|noempty}}, found ${JSON.stringify(m)}`);
        }
        return { key: m.key, value: parseStringMatch(m.value, `${where}.match[${j}].value`, tag.name) };
      });
    }
    if (Array.isArray(t.addresses)) tag.addresses = t.addresses.map((a: unknown) => String(a));
    else if (t.addresses !== undefined && t.addresses !== null) {
      throw new RouterRuleError(`${where}.addresses: expected a list of "ip:port" patterns, found ${JSON.stringify(t.addresses)}`);
    }
    return tag;
  });
  return new TagRouterRule(meta, tags, raw);
}
