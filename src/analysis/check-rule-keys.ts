/**
 * The rule-key part of `zonesim check`: a condition or tag rule with a `key` that names nothing in
 * the scenario never applies (Dubbo subscribes each consumer only to the keys of its own service,
 * its own application and its providers' application), which is almost always a typo or a key
 * written for another scope. Lists every such rule (top-level routers, rule faults, strategies)
 * with what the key could have named. Owns the names a scenario offers; not the routing.
 * Follows dubbo-cluster `router/condition/config/ServiceStateRouter.java` (`<interface>:<version>:<group>`),
 * `AppStateRouter.java`, `ProviderAppStateRouter.java` and `router/tag/TagStateRouter.java`.
 */
import { ConditionRuleRouter, parseConditionRule } from '../dubbo/router/condition/condition-rule-router.js';
import { conditionRuleKey, serviceRuleKeys, type RuleKey } from '../dubbo/router/rule-key.js';
import { parseTagRule } from '../dubbo/router/tag/tag-router-rule.js';
import { URL } from '../dubbo/url.js';
import { suggestion } from '../scenario/did-you-mean.js';
import type { ReferenceSpec, RouterSpec, Scenario } from '../model/types.js';

/** A keyed rule that no consumer of the scenario subscribes to. */
export interface RuleKeyWarning {
  /** Where the rule is written: `routers[0]`, `faults[2].rule`, `strategies.gray.routers[1]`. */
  where: string;
  type: 'condition' | 'tag';
  scope: 'service' | 'application';
  key: string;
  message: string;
}

/** One reference of one consumer application (consumer groups and call-graph callers alike). */
interface Reference {
  application: string;
  service: string;
  /** The keys Dubbo (and zonesim) accept for its ServiceStateRouter rule. */
  keys: string[];
}

// group/version as the consumer URL gets them: reference parameters over consumer defaults.
function referenceKeys(service: string, ref: Partial<ReferenceSpec> | undefined, defaults: Partial<ReferenceSpec> | undefined): string[] {
  const params: Record<string, string> = { ...(defaults?.parameters ?? {}), ...(ref?.parameters ?? {}) };
  const url = new URL({ protocol: 'consumer', host: '0.0.0.0', path: service, params: { interface: service, ...params } });
  return serviceRuleKeys(url);
}

/** Every reference in the scenario: consumer groups' calls and the downstream calls of provider methods. */
function references(scenario: Scenario): Reference[] {
  const out: Reference[] = [];
  for (const c of scenario.consumers) {
    const services = new Set([...Object.keys(c.calls).map((k) => k.slice(0, k.lastIndexOf('.'))), ...Object.keys(c.reference)]);
    for (const service of services) {
      out.push({ application: c.application, service, keys: referenceKeys(service, c.reference[service], c.consumerDefaults) });
    }
  }
  for (const p of scenario.providers) {
    for (const exported of p.services) {
      for (const method of Object.values(scenario.services[exported]?.methods ?? {})) {
        for (const call of method.calls) {
          out.push({ application: p.application, service: call.service, keys: referenceKeys(call.service, call.reference, undefined) });
        }
      }
    }
  }
  return out;
}

// The key of a rule spec, or null when the rule has none (or is not a condition/tag rule).
function keyOf(spec: RouterSpec): RuleKey | null {
  try {
    if (spec.type === 'condition') {
      const router = parseConditionRule(spec.rule, { force: spec.force });
      return router instanceof ConditionRuleRouter ? conditionRuleKey(router.rule) : null;
    }
    if (spec.type === 'tag') {
      const key = parseTagRule(spec.rule).meta.key?.trim();
      return key === undefined || key === '' ? null : { scope: 'application', key, scopeImplied: false };
    }
  } catch {
    // A rule that does not parse is reported where rules are validated.
  }
  return null;
}

// The rules of the scenario with where they are written.
function rules(scenario: Scenario): Array<{ where: string; spec: RouterSpec }> {
  const out: Array<{ where: string; spec: RouterSpec }> = [];
  scenario.routers.forEach((spec, i) => out.push({ where: `routers[${i}]`, spec }));
  scenario.faults.forEach((f) => {
    if (f.action.kind === 'rule' && f.action.op !== 'remove') out.push({ where: `${f.label}.rule`, spec: f.action.router });
  });
  for (const [name, st] of Object.entries(scenario.strategies)) {
    st.routers?.forEach((spec, i) => out.push({ where: `strategies.${name}.routers[${i}]`, spec }));
    st.addRouters?.forEach((spec, i) => out.push({ where: `strategies.${name}.addRouters[${i}]`, spec }));
  }
  return out;
}

function list(names: Iterable<string>): string {
  const all = [...new Set(names)];
  return all.length === 0 ? '(none)' : all.join(', ');
}

/** Keyed condition and tag rules whose key names no service key or application of the scenario. */
export function ruleKeyWarnings(scenario: Scenario): RuleKeyWarning[] {
  const refs = references(scenario);
  const consumerApps = new Set(refs.map((r) => r.application));
  const providerApps = new Set(scenario.providers.map((p) => p.application));
  const out: RuleKeyWarning[] = [];
  const seen = new Set<string>();
  for (const { where, spec } of rules(scenario)) {
    const key = keyOf(spec);
    if (key === null) continue;
    // `service:` limits the spec to one service: only that service's references can subscribe to it.
    const scoped = spec.service === undefined ? refs : refs.filter((r) => r.service === spec.service);
    const type = spec.type as 'condition' | 'tag';
    const dedupe = `${where}\u0000${key.key}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    const head = `${where}: ${type} rule keyed ${key.key}`;
    let message: string | undefined;
    if (type === 'tag') {
      if (!providerApps.has(key.key)) {
        message =
          `${head} never applies: a tag rule's key is the provider application (Dubbo reads <provider app>.tag-router), ` +
          `and the provider applications here are ${list(providerApps)}${suggestion(key.key, providerApps)}`;
        if (consumerApps.has(key.key)) message += ` (${key.key} is a consumer application)`;
      }
    } else if (scoped.some((r) => r.keys.includes(key.key)) || scoped.some((r) => r.application === key.key) || providerApps.has(key.key)) {
      // Applies where its key is read, whatever its scope says (no Dubbo router reads the scope).
    } else if (key.scope === 'service') {
      const keys = scoped.flatMap((r) => r.keys);
      const dubboKeys = scoped.map((r) => r.keys[0]!);
      const sameInterface = scoped.filter((r) => key.key === r.service || key.key.split(/[:/]/).includes(r.service));
      message =
        `${head} (${key.scopeImplied ? 'no scope, read as service' : 'scope: service'}) never applies: no reference ` +
        `${spec.service !== undefined ? `of ${spec.service} ` : ''}has that service key, and no application is named so; Dubbo reads ` +
        `<interface>:<version>:<group>.condition-router, here ${list(dubboKeys)}`;
      if (sameInterface.length > 0) message += ` (the interface matches, the version or group do not)`;
      else message += suggestion(key.key, keys);
      if (consumerApps.has(key.key)) message += ` (${key.key} is the application of consumers that do not call ${spec.service ?? 'it'})`;
    } else {
      const apps = new Set([...scoped.map((r) => r.application), ...providerApps]);
      message =
        `${head} (scope: application) never applies: no consumer application (AppStateRouter) or provider application ` +
        `(ProviderAppStateRouter) is named ${key.key}; here consumers are ${list(scoped.map((r) => r.application))} and providers ` +
        `${list(providerApps)}${suggestion(key.key, apps)}`;
      if (refs.some((r) => r.keys.includes(key.key))) message += ` (${key.key} is the service key of references outside ${spec.service ?? 'its scope'})`;
    }
    if (message !== undefined) out.push({ where, type, scope: type === 'tag' ? 'application' : key.scope, key: key.key, message });
  }
  return out;
}
