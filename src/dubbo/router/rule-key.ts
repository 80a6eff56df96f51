/**
 * Rule keys: what a Dubbo Admin rule's `key` names, and whether that is this consumer.
 * Dubbo stores a rule in its config center under a key and each router subscribes to the keys of
 * its own consumer: `ServiceStateRouter` to `<interface>:<version>:<group>.condition-router`,
 * `AppStateRouter` to `<consumer application>.condition-router`, `ProviderAppStateRouter` and
 * `TagStateRouter` to `<provider application>.condition-router` / `.tag-router` (the
 * `remote.application` of the first provider). zonesim has no config center: the rule's own
 * `key:` field stands for the key it was stored under. No router reads the rule's `scope`
 * (AbstractRouterRule.java:81 only stores it): a keyed rule applies in every router whose key it is;
 * the scope only says which router reports it when it applies in none. Owns the key spellings and
 * the words that explain a mismatch; not the routing.
 * Follows dubbo-cluster `router/condition/config/ServiceStateRouter.java` (DynamicConfiguration.getRuleKey =
 * `url.getColonSeparatedKey()`), `AppStateRouter.java`, `ProviderAppStateRouter.java` and `router/tag/TagStateRouter.java`.
 */
import type { URL } from '../url.js';

/**
 * The kind of key a rule's `scope` says it has: a service or an application. It decides nothing about
 * where the rule applies (its key does); a rule that applies nowhere is reported by the router of its scope.
 */
export type RuleScope = 'service' | 'application';

/** A rule's `scope` and `key`, as Dubbo Admin writes them. */
export interface RuleKey {
  scope: RuleScope;
  key: string;
  /** The rule has a key but no `scope:` (or one that is neither service nor application); said as `service`. */
  scopeImplied: boolean;
}

/**
 * The key of a condition rule, or null when it has none (then it applies to every consumer, as a
 * rule pushed straight into the router would). Any scope is accepted, as Dubbo reads none.
 */
export function conditionRuleKey(meta: { scope?: string; key?: string }): RuleKey | null {
  // DIVERGENCE: Dubbo ignores the rule's own `key:` field and applies whatever is stored under the key it
  // subscribes to; zonesim has no config center, so the field stands for that key.
  const key = meta.key?.trim();
  if (key === undefined || key === '') return null;
  if (meta.scope === 'service' || meta.scope === 'application') return { scope: meta.scope, key, scopeImplied: false };
  return { scope: 'service', key, scopeImplied: true };
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

/**
 * Why a key with scope service (or none) names nothing this consumer reads, in words for traces;
 * `apps` are the applications whose rules it reads (its own, the providers').
 */
export function serviceKeyMismatch(ruleKey: RuleKey, consumerUrl: URL, apps: readonly string[] = []): string {
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
  const others = [...new Set(apps)];
  if (others.length > 0) why += `, nor an application whose rules it reads (${others.join(', ')})`;
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
