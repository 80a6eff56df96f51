/**
 * Rule keys: what a Dubbo Admin rule's `scope` and `key` name, and whether that is this consumer.
 * Dubbo stores a rule in its config center under a key and each router subscribes to the keys of
 * its own consumer: `ServiceStateRouter` to `<interface>:<version>:<group>.condition-router`,
 * `AppStateRouter` to `<consumer application>.condition-router`, `ProviderAppStateRouter` and
 * `TagStateRouter` to `<provider application>.condition-router` / `.tag-router` (the
 * `remote.application` of the first provider). zonesim has no config center: the rule's own
 * `key:` field stands for the key it was stored under. Owns the key spellings and the words
 * that explain a mismatch; not the routing.
 * Follows dubbo-cluster `router/condition/config/ServiceStateRouter.java` (DynamicConfiguration.getRuleKey =
 * `url.getColonSeparatedKey()`), `AppStateRouter.java`, `ProviderAppStateRouter.java` and `router/tag/TagStateRouter.java`.
 */
import { RouterRuleError } from './router-rule-error.js';
import type { URL } from '../url.js';

/** What a rule's key names: a service (ServiceStateRouter) or an application (App/ProviderApp). */
export type RuleScope = 'service' | 'application';

/** A rule's `scope` and `key`, as Dubbo Admin writes them. */
export interface RuleKey {
  scope: RuleScope;
  key: string;
  /** The rule has a key but no `scope:`; zonesim reads it as `service` (where it orders the rule too). */
  scopeImplied: boolean;
}

/**
 * The key of a condition rule, or null when it has none (then it applies to every consumer, as a
 * rule pushed straight into the router would). Throws RouterRuleError on an unknown scope.
 */
export function conditionRuleKey(meta: { scope?: string; key?: string }): RuleKey | null {
  // DIVERGENCE: Dubbo ignores the rule's own `key:` field and applies whatever is stored under the key it
  // subscribes to; zonesim has no config center, so the field stands for that key. A key without `scope:`
  // is read as a service key.
  const key = meta.key?.trim();
  if (key === undefined || key === '') return null;
  if (meta.scope === undefined) return { scope: 'service', key, scopeImplied: true };
  if (meta.scope === 'service' || meta.scope === 'application') return { scope: meta.scope, key, scopeImplied: false };
  throw new RouterRuleError(`condition rule: scope: expected service or application, found "${meta.scope}"`);
}

/**
 * The spellings of a consumer's service rule key that zonesim accepts: Dubbo's own
 * `interface:version:group` (empty parts kept, e.g. `org.foo.DemoService::`), the same with
 * trailing empty parts dropped (`org.foo.DemoService` when there is no version and no group), and
 * the service key `group/interface:version` that Dubbo Admin shows.
 */
export function serviceRuleKeys(consumerUrl: URL): string[] {
  // DIVERGENCE: Dubbo subscribes only `interface:version:group`; zonesim also takes the shorter spellings
  // users copy from Dubbo Admin and the docs, which name the same reference.
  const colon = consumerUrl.getColonSeparatedKey();
  const trimmed = colon.replace(/:+$/, '');
  return [...new Set([colon, trimmed, consumerUrl.getServiceKey()])];
}

/** Whether a service-scoped key names this consumer's service. */
export function namesService(key: string, consumerUrl: URL): boolean {
  return serviceRuleKeys(consumerUrl).includes(key);
}

/** Why a service-scoped key does not name this consumer's service, in words for traces. */
export function serviceKeyMismatch(ruleKey: RuleKey, consumerUrl: URL): string {
  const colon = consumerUrl.getColonSeparatedKey();
  const iface = consumerUrl.getServiceInterface();
  const scope = ruleKey.scopeImplied ? 'no scope (read as service)' : 'scope: service';
  let why = `${scope}, key ${ruleKey.key} does not name this consumer's service ${consumerUrl.getServiceKey()}`;
  const head = ruleKey.key.split(/[:/]/);
  if (ruleKey.key.startsWith(iface) || head.includes(iface)) {
    why += ` (the version or group differ: Dubbo reads this reference's rule at ${colon}.condition-router)`;
  } else {
    why += ` (Dubbo reads its rule at ${colon}.condition-router)`;
  }
  return why;
}

/**
 * The application a provider URL belongs to: `remote.application` (what a consumer-side
 * ServiceAddressURL answers with the provider's `application`), else `application`.
 */
export function remoteApplication(url: URL): string | undefined {
  // PERF: a push reaches every consumer instance, and each directory reads the application of the
  // list's first URL (URLs are immutable).
  let app = remoteApplications.get(url);
  if (app === undefined) {
    const value = url.getParameter('remote.application') ?? url.getParameter('application');
    remoteApplications.set(url, (app = value === undefined || value === '' ? null : value));
  }
  return app ?? undefined;
}

const remoteApplications = new WeakMap<URL, string | null>();

/** The consumer application (`application` on the consumer URL). */
export function consumerApplication(consumerUrl: URL): string | undefined {
  const app = consumerUrl.getParameter('application');
  return app === undefined || app === '' ? undefined : app;
}
