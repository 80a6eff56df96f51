/**
 * Scenario checks against what Dubbo itself does with a setting: URL parameters Dubbo fails on
 * (`hash.nodes` below 4), and features a group's release does not have: under `dubbo: '2.7'`
 * (2.7.23) a 3.x-only feature is a load error that names it, its field and the group that runs 2.7
 * (SPEC 2.11). Each group's release is resolved as scenario/dubbo-profiles.ts does (its own `dubbo:`,
 * else the top level's; a strategy's replaces both under that strategy). Like cross-check.ts it reads
 * the RAW document defensively and returns path issues, so that a problem is reported at its field
 * with the others.
 */
import type { PathIssue } from './zod-issues.js';
import { HASH_NODES } from '../dubbo/constants.js';
import { DEFAULT_REPLICA_NUMBER } from '../dubbo/loadbalance/consistent-hash-load-balance.js';
import { ConditionRuleRouter, parseConditionRule } from '../dubbo/router/condition/condition-rule-router.js';
import { ConditionStateRouter } from '../dubbo/router/condition/condition-state-router.js';
import type { ConditionMap } from '../dubbo/router/condition/condition-rule-text.js';
import { conditionRuleKey } from '../dubbo/router/rule-key.js';
import { parseTagRule } from '../dubbo/router/tag/tag-router-rule.js';

type Obj = Record<string, unknown>;
type Path = Array<string | number>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

// The fields that hold URL parameters: a reference's (and a reference method's) `parameters`, a provider
// group's and an export's `params`.
const PARAMETER_FIELDS = new Set(['parameters', 'params']);

/**
 * `hash.nodes` (or `<method>.hash.nodes`) below 4 anywhere a URL parameter is written: consistenthash
 * builds `hash.nodes / 4` digests per provider (ConsistentHashLoadBalance.java:88), so its ring is empty
 * and every call it balances fails with a NullPointerException (:116-118). A value Dubbo cannot parse
 * as an integer is left to the run.
 */
function hashNodeIssues(value: unknown, path: Path, issues: PathIssue[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => hashNodeIssues(v, [...path, i], issues));
    return;
  }
  if (!isObj(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (PARAMETER_FIELDS.has(k) && isObj(v)) {
      for (const [param, n] of Object.entries(v)) {
        if (param !== HASH_NODES && !param.endsWith(`.${HASH_NODES}`)) continue;
        const text = String(n).trim();
        if (!/^[+-]?\d+$/.test(text) || Number(text) >= 4) continue;
        issues.push({
          path: [...path, k, param],
          message:
            `${param} ${text} is below 4: consistenthash puts hash.nodes/4 x 4 points per provider on its ring, so the ring ` +
            `would be empty and Dubbo fails every call it balances with a NullPointerException (ConsistentHashLoadBalance.selectForKey)`,
          hint: `use 4 or more (Dubbo's default is ${DEFAULT_REPLICA_NUMBER})`,
        });
      }
    } else hashNodeIssues(v, [...path, k], issues);
  }
}

/** Settings Dubbo fails on, and 3.x-only features under 2.7, as path issues. */
export function dubboChecks(raw: unknown): PathIssue[] {
  const issues: PathIssue[] = [];
  hashNodeIssues(raw, [], issues);
  if (isObj(raw)) issues.push(...releaseIssues(raw));
  return issues;
}

// --- 3.x-only features under 2.7 -------------------------------------------------------------

type Version = '2.7' | '3.3';

/** A `dubbo:` setting's release ('2.7', 2.7, '2.7.23', { version: ... }), or undefined when it names none. */
function versionOf(setting: unknown): Version | undefined {
  if (isObj(setting)) return versionOf(setting.version);
  if (typeof setting !== 'string' && typeof setting !== 'number') return undefined;
  const m = /^(2\.7|3\.3)(\.\d+)?$/.exec(String(setting).trim());
  return m === null ? undefined : (m[1] as Version);
}

/** A group that runs Dubbo code: a consumer group, or a provider group (its downstream references). */
interface Group {
  label: string;
  path: Path;
  /** Its own `dubbo:` setting. */
  own: unknown;
  /** The services it references (consumer groups: calls and reference keys; provider groups: call graphs). */
  references: Set<string>;
  /** Provider groups: the services they export. */
  exports: Set<string>;
  consumer: boolean;
}

function groupsOf(raw: Obj): Group[] {
  const out: Group[] = [];
  const services = isObj(raw.services) ? raw.services : {};
  const callees = (service: string): string[] => {
    const spec = services[service];
    if (!isObj(spec) || !isObj(spec.methods)) return [];
    const called: string[] = [];
    for (const m of Object.values(spec.methods)) {
      if (!isObj(m) || !Array.isArray(m.calls)) continue;
      for (const c of m.calls) if (isObj(c) && typeof c.service === 'string') called.push(c.service);
    }
    return called;
  };
  (Array.isArray(raw.consumers) ? raw.consumers : []).forEach((c, i) => {
    if (!isObj(c)) return;
    const references = new Set<string>();
    if (isObj(c.calls)) for (const k of Object.keys(c.calls)) if (k.lastIndexOf('.') > 0) references.add(k.slice(0, k.lastIndexOf('.')));
    if (isObj(c.reference)) for (const k of Object.keys(c.reference)) references.add(k);
    const app = typeof c.application === 'string' ? c.application : `consumer-${i}`;
    out.push({ label: `consumers[${i}] (${app})`, path: ['consumers', i], own: c.dubbo, references, exports: new Set(), consumer: true });
  });
  (Array.isArray(raw.providers) ? raw.providers : []).forEach((p, i) => {
    if (!isObj(p)) return;
    const exported = typeof p.service === 'string' ? [p.service] : Array.isArray(p.services) ? p.services.filter((x): x is string => typeof x === 'string') : [];
    const name = typeof p.name === 'string' ? p.name : exported[0] ?? `#${i}`;
    out.push({
      label: `providers[${i}] (${name})`,
      path: ['providers', i],
      own: p.dubbo,
      references: new Set(exported.flatMap(callees)),
      exports: new Set(exported),
      consumer: false,
    });
  });
  return out;
}

/** Where a feature is used, and what it needs: the 2.7 groups it concerns, chosen by `concerns`. */
interface Use {
  path: Path;
  feature: string;
  /** The first 3.x release that has it. */
  since: string;
  concerns: (g: Group) => boolean;
  /** Said instead of "<feature> is first in Dubbo <since>" (what 2.7 does otherwise). */
  message?: string;
}

// The condition-rule features 2.7.23's ConditionRouter lacks: ranges and attachments[...] (3.2.0), v3.1 (3.3).
function conditionFeatures(rule: unknown): Array<{ feature: string; since: string; message?: string }> {
  let router;
  try {
    router = parseConditionRule(rule as string | Record<string, unknown>);
  } catch {
    return []; // cross-check.ts reports a rule that does not parse.
  }
  const out: Array<{ feature: string; since: string; message?: string }> = [];
  if (router instanceof ConditionRuleRouter && router.rule.format === 'v3.1') {
    out.push({ feature: 'a v3.1 multi-destination condition rule (MultiDestConditionRouter)', since: '3.3' });
    return out;
  }
  if (router instanceof ConditionRuleRouter && router.rule.format === 'v3.0' && router.rule.nullItems !== undefined) {
    const item = `conditions[${router.rule.nullItems[0]}]`;
    out.push({ feature: `a null condition item (${item})`, since: '3.x', message: `a null condition item (${item}) makes Dubbo 2.7 drop the whole rule (ConditionRouter: "Illegal route rule!"); 3.x reads it as the text "null"` });
  }
  const parts: ConditionMap[] = [];
  for (const r of router instanceof ConditionRuleRouter ? router.routers : [router]) {
    if (!(r instanceof ConditionStateRouter)) continue;
    parts.push(r.whenCondition);
    if (r.thenCondition !== null) parts.push(r.thenCondition);
  }
  const matchers = parts.flatMap((p) => [...p.values()]);
  const range = matchers.flatMap((m) => [...m.matches, ...m.mismatches]).find((p) => p.includes('~'));
  if (range !== undefined) out.push({ feature: `a condition range ("${range}", RangeValuePattern)`, since: '3.2.0' });
  const attachment = matchers.find((m) => m.kind === 'attachments');
  if (attachment !== undefined) out.push({ feature: `an attachments[...] condition ("${attachment.key}", AttachmentConditionMatcher)`, since: '3.2.0' });
  return out;
}

// The key of a keyed condition rule, or undefined.
function conditionKey(rule: unknown): string | undefined {
  try {
    const router = parseConditionRule(rule as string | Record<string, unknown>);
    return router instanceof ConditionRuleRouter ? (conditionRuleKey(router.rule)?.key ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

function tagMatch(rule: unknown): boolean {
  try {
    return parseTagRule(rule as string | Record<string, unknown>).tags.some((t) => t.match !== undefined);
  } catch {
    return false;
  }
}

/** The uses of 3.x-only features in one `routers:`-style list; `consumerApps` and `providerApps` name the applications. */
function routerUses(list: unknown, path: Path, apps: { consumer: Set<string>; provider: Set<string>; serviceKeys: Set<string> }): Use[] {
  const uses: Use[] = [];
  (Array.isArray(list) ? list : []).forEach((r, j) => {
    if (!isObj(r)) return;
    const rpath: Path = [...path, j, 'rule'];
    const service = typeof r.service === 'string' ? r.service : undefined;
    const concerns = (g: Group) => g.references.size > 0 && (service === undefined || g.references.has(service));
    if (r.type === 'condition') {
      for (const f of conditionFeatures(r.rule)) uses.push({ path: rpath, ...f, concerns });
      const key = conditionKey(r.rule);
      if (key !== undefined && apps.provider.has(key) && !apps.consumer.has(key) && !apps.serviceKeys.has(key)) {
        uses.push({ path: rpath, feature: `a condition rule keyed by the providers' application ${key} (ProviderAppStateRouter)`, since: '3.2.0', concerns });
      }
    } else if (r.type === 'tag' && tagMatch(r.rule)) {
      uses.push({ path: rpath, feature: 'a tag rule `match` (configVersion v3.0 TagRouterRule)', since: '3.0', concerns });
    }
  });
  return uses;
}

// Where a reference map may name `loadbalance: adaptive` (and its methods).
function adaptiveUses(reference: unknown, path: Path, concerns: (g: Group) => boolean): Use[] {
  const uses: Use[] = [];
  const visit = (v: unknown, p: Path): void => {
    if (!isObj(v)) return;
    if (v.loadbalance === 'adaptive') uses.push({ path: [...p, 'loadbalance'], feature: 'the adaptive load balancer (AdaptiveLoadBalance)', since: '3.2.0', concerns });
    if (isObj(v.methods)) for (const [m, mv] of Object.entries(v.methods)) visit(mv, [...p, 'methods', m]);
  };
  visit(reference, path);
  return uses;
}

const APPLICATION_LEVEL = { registerMode: ['instance', 'all'], migrationStep: ['APPLICATION_FIRST', 'FORCE_APPLICATION'] } as const;

/** 3.x-only features used where a group runs 2.7, under the scenario as written and under each strategy. */
function releaseIssues(raw: Obj): PathIssue[] {
  const groups = groupsOf(raw);
  const top = versionOf(raw.dubbo);
  const consumerApps = new Set(groups.filter((g) => g.consumer).map((g) => /\((.*)\)$/.exec(g.label)![1]!));
  const providerApps = new Set<string>();
  (Array.isArray(raw.providers) ? raw.providers : []).forEach((p) => {
    if (!isObj(p)) return;
    const exported = typeof p.service === 'string' ? [p.service] : Array.isArray(p.services) ? p.services : [];
    const first = exported[0];
    // normalize.ts: the default is `<service simple name>-provider`.
    providerApps.add(typeof p.application === 'string' ? p.application : `${String(first).slice(String(first).lastIndexOf('.') + 1)}-provider`);
  });
  const serviceKeys = new Set(groups.flatMap((g) => [...g.references]).flatMap((s) => [s, `${s}::`]));
  const apps = { consumer: consumerApps, provider: providerApps, serviceKeys };

  const always: Use[] = [...routerUses(raw.routers, ['routers'], apps)];
  (Array.isArray(raw.faults) ? raw.faults : []).forEach((f, i) => {
    if (!isObj(f) || !isObj(f.rule)) return;
    for (const op of ['add', 'replace']) if (isObj(f.rule[op])) always.push(...routerUses([f.rule[op]], ['faults', i, 'rule', op], apps).map((u) => ({ ...u, path: [...u.path.slice(0, -2), 'rule'] })));
  });
  groups.forEach((g) => {
    const spec = (raw[g.consumer ? 'consumers' : 'providers'] as unknown[])[g.path[1] as number] as Obj;
    const own = (h: Group) => h === g;
    if (g.consumer) {
      if (isObj(spec.reference)) for (const [s, ref] of Object.entries(spec.reference)) always.push(...adaptiveUses(ref, [...g.path, 'reference', s], own));
      always.push(...adaptiveUses(spec.consumerDefaults, [...g.path, 'consumerDefaults'], own));
    } else if (isObj(spec.exports)) {
      for (const [s, e] of Object.entries(spec.exports)) {
        if (isObj(e) && e.executor !== undefined) {
          always.push({ path: [...g.path, 'exports', s, 'executor'], feature: 'executor isolation (executor-management-mode: isolation)', since: '3.2.0', concerns: own });
        }
      }
    }
  });
  // Call graphs: a provider group's downstream references run its release.
  const services = isObj(raw.services) ? raw.services : {};
  for (const [s, spec] of Object.entries(services)) {
    if (!isObj(spec) || !isObj(spec.methods)) continue;
    for (const [m, ms] of Object.entries(spec.methods)) {
      if (!isObj(ms) || !Array.isArray(ms.calls)) continue;
      ms.calls.forEach((c, j) => {
        if (isObj(c)) always.push(...adaptiveUses(c.reference, ['services', s, 'methods', m, 'calls', j, 'reference'], (g) => g.exports.has(s)));
      });
    }
  }
  const registryUses = (registry: unknown, path: Path): Use[] =>
    isObj(registry) && registry.registration === 'application'
      ? [{ path: [...path, 'registration'], feature: 'application-level discovery (registration: application)', since: '3.0', concerns: () => true }]
      : [];
  always.push(...registryUses(raw.registry, ['registry']));
  if (isObj(raw.registries)) for (const [r, spec] of Object.entries(raw.registries)) always.push(...registryUses(spec, ['registries', r]));
  // Application-level switches written on a layer of a 2.7 group.
  const switchUses = (setting: unknown, path: Path, concerns: (g: Group, key: string) => boolean): Use[] => {
    if (!isObj(setting)) return [];
    const out: Use[] = [];
    for (const [k, values] of Object.entries(APPLICATION_LEVEL)) {
      const v = setting[k];
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) {
        out.push({ path: [...path, k], feature: `application-level discovery (${k}: ${v})`, since: '3.0', concerns: (g) => concerns(g, k) });
      }
    }
    return out;
  };
  // A top-level switch concerns the groups that do not set it themselves (their own setting wins).
  always.push(...switchUses(raw.dubbo, ['dubbo'], (g, k) => !(isObj(g.own) && g.own[k] !== undefined)));
  for (const g of groups) always.push(...switchUses(g.own, [...g.path, 'dubbo'], (h) => h === g));

  const issues: PathIssue[] = [];
  const report = (uses: Use[], versionFor: (g: Group) => Version, context: string): void => {
    for (const use of uses) {
      const g = groups.find((h) => use.concerns(h) && versionFor(h) === '2.7');
      if (g === undefined) continue;
      issues.push({
        path: use.path,
        message: `${use.message ?? `${use.feature} is first in Dubbo ${use.since}`}; ${g.label} runs dubbo '2.7' (2.7.23)${context}`,
        hint: `give ${g.label} dubbo: '3.3', or do without the feature`,
      });
    }
  };
  report(always, (g) => versionOf(g.own) ?? top ?? '3.3', '');
  // A strategy's `dubbo:` replaces every group's release under it; its routers, reference and registry apply too.
  if (isObj(raw.strategies)) {
    for (const [n, st] of Object.entries(raw.strategies)) {
      if (!isObj(st)) continue;
      const path: Path = ['strategies', n];
      const sv = versionOf(st.dubbo);
      const uses: Use[] = [
        ...routerUses(st.routers, [...path, 'routers'], apps),
        ...routerUses(st.addRouters, [...path, 'addRouters'], apps),
        ...adaptiveUses(st.reference, [...path, 'reference'], (g) => g.consumer),
        ...registryUses(st.registry, [...path, 'registry']),
        ...switchUses(st.dubbo, [...path, 'dubbo'], () => true),
      ];
      if (isObj(st.reference)) {
        for (const [k, v] of Object.entries(st.reference)) if (isObj(v)) uses.push(...adaptiveUses(v, [...path, 'reference', k], (g) => g.consumer && g.references.has(k)));
      }
      // Under a strategy that moves groups to 2.7, the scenario's own features count too.
      const under = (g: Group): Version => sv ?? versionOf(g.own) ?? top ?? '3.3';
      report(sv === '2.7' ? [...uses, ...always] : uses, under, ` under strategy ${n}`);
    }
  }
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${JSON.stringify(i.path)}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
