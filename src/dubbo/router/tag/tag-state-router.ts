/**
 * Dubbo's tag router: a request's tag (`dubbo.tag` attachment, else the consumer's `dubbo.tag`)
 * picks the providers carrying it, by dynamic rule addresses or by the provider's static
 * `dubbo.tag` param, with Dubbo's fallbacks to untagged providers. Untagged requests never reach
 * tagged providers. Owns routing and notify; the rule model is in tag-router-rule.ts.
 * A rule given straight to the router (`setRule`, Dubbo's `process`) applies whatever its `key`.
 * Keyed rules can instead be published (`publishRule`, as to `<key>.tag-router` in the config
 * center): the router then reads the one keyed by the `remote.application` of the first provider,
 * subscribing again when that changes, as Dubbo's `notify` does. A router of a 2.7 consumer
 * (`release`) routes as 2.7.23's TagRouter: no tag levels, a tag without addresses is no dynamic tag,
 * an untagged request keeps providers whose static tag the rule does not name, and `dubbo.force.tag`
 * comes from the attachment only.
 * Follows dubbo-cluster `router/tag/TagStateRouter.java` (2.7.23: `router/tag/TagRouter.java`).
 */
import { FORCE_USE_TAG, TAG_KEY } from '../../constants.js';
import { keptOfSubList, matchInPrevious, parentList, perList, perListAndKey, previousVersion } from '../../per-list.js';
import type { DubboRelease } from '../../release.js';
import type { Invoker, RpcInvocation } from '../../rpc.js';
import type { URL } from '../../url.js';
import type { RouterResult, RoutingInputs, StateRouter } from '../router.js';
import { remoteApplication } from '../rule-key.js';
import { matchIpExpression } from './ip-expression.js';
import { parseTagRule, TagRouterRule } from './tag-router-rule.js';

/** Dubbo's activation order of the tag router. */
export const TAG_ROUTER_ORDER = 100;
const TAG_SEPARATOR = '|';
const ANYHOST_VALUE = '0.0.0.0';

const TAG_INPUTS: RoutingInputs = Object.freeze({
  method: false,
  attachments: [TAG_KEY, FORCE_USE_TAG],
  arguments: [],
  random: false,
}) as RoutingInputs;

/**
 * selectAddressByTagLevel: an exact lookup when forced or without `|`; otherwise the longest
 * non-empty prefix of `a|b|c` (`a|b|c`, `a|b`, `a`), or null.
 */
export function selectAddressByTagLevel<S extends ReadonlySet<string>>(
  tagAddresses: ReadonlyMap<string, S>,
  tagSelector: string,
  isForce: boolean,
): S | null {
  if (isForce || !tagSelector.includes(TAG_SEPARATOR)) return tagAddresses.get(tagSelector) ?? null;
  const selectors = tagSelector.split(TAG_SEPARATOR);
  for (let i = selectors.length; i > 0; i--) {
    const addresses = tagAddresses.get(selectors.slice(0, i).join(TAG_SEPARATOR));
    if (addresses !== undefined && addresses.size > 0) return addresses;
  }
  return null;
}

// PERF: address sets are rebuilt on every rule init, so (set, URL) → match is memoised per set.
const addressMemo = new WeakMap<ReadonlySet<string>, WeakMap<URL, boolean>>();

// Whether the invoker's host/port matches any pattern of the set.
function addressMatches(addresses: ReadonlySet<string>, inv: Invoker): boolean {
  const url = inv.getUrl();
  let memo = addressMemo.get(addresses);
  if (memo === undefined) {
    memo = new WeakMap();
    addressMemo.set(addresses, memo);
  }
  let matched = memo.get(url);
  if (matched === undefined) {
    matched = checkAddressMatch(addresses, url.host, url.port);
    memo.set(url, matched);
  }
  return matched;
}

// checkAddressMatch: any pattern matching host/port, or `0.0.0.0:<port>`. A malformed pattern is
// skipped entirely (Dubbo logs it and its catch also skips the any-host check).
function checkAddressMatch(addresses: ReadonlySet<string>, host: string, port: number): boolean {
  for (const address of addresses) {
    try {
      if (matchIpExpression(address, host, port)) return true;
    } catch {
      continue;
    }
    if (`${ANYHOST_VALUE}:${port}` === address) return true;
  }
  return false;
}

// The request's tag: the dubbo.tag attachment if non-empty, else the consumer URL's dubbo.tag.
function requestedTag(consumerUrl: URL, invocation: RpcInvocation): string | undefined {
  const attachmentTag = invocation.getAttachment(TAG_KEY);
  return attachmentTag === undefined || attachmentTag === '' ? consumerUrl.getParameter(TAG_KEY) : attachmentTag;
}

// getAttachment(key, default): an absent or empty attachment gives the router URL's (consumer's) value.
function isForceUseTag(consumerUrl: URL, invocation: RpcInvocation): boolean {
  const value = invocation.getAttachment(FORCE_USE_TAG);
  return (value === undefined || value === '' ? consumerUrl.getParameter(FORCE_USE_TAG, 'false') : value).toLowerCase() === 'true';
}

function staticTag(inv: Invoker): string | undefined {
  // Provider-first in 3.x: ServiceAddressURL answers dubbo.tag with the provider's value.
  return inv.getUrl().getParameter(TAG_KEY);
}

// PERF: the providers without a static tag depend only on the list; consumer instances that hold the same
// list object share the answer, and a part of a list (a directory's providers with some set aside) takes
// it from its parent's (see `keptOfSubList`).
// filterInvoker(invokers, inv => !staticTag(inv)), memoized per list object.
const untaggedOf = perList((invokers: Invoker[]): Invoker[] => {
  const parent = parentList(invokers) as Invoker[] | undefined;
  if (parent === undefined) return allUntaggedSince(invokers) ? invokers : filterInvoker(invokers, (inv) => !staticTag(inv));
  const untaggedOfParent = untaggedOf(parent);
  // A part of a list without static tags has none either.
  return untaggedOfParent === parent ? invokers : keptOfSubList(invokers, parent, untaggedOfParent);
});

// PERF: a pushed list without static tags is mostly its previous version's invokers (see `VersionChain`):
// when that version had none either, only the invokers new to the list are read (a rolling restart
// pushes a list of hundreds every few ms). False when it cannot tell.
function allUntaggedSince(invokers: Invoker[]): boolean {
  const previous = previousVersion(invokers) as Invoker[] | undefined;
  if (previous === undefined || untaggedOf.peek(previous) !== previous) return false;
  let from = 0;
  for (const inv of invokers) {
    const at = matchInPrevious(previous, inv, from);
    if (at >= 0) from = at + 1;
    else if (staticTag(inv)) return false;
  }
  return true;
}

// filterInvoker(invokers, inv => staticTag(inv) === tag), memoized per list object and tag (as `untaggedOf`).
const taggedOf = perListAndKey((invokers: Invoker[], tag: string): Invoker[] => {
  const parent = parentList(invokers) as Invoker[] | undefined;
  return parent === undefined ? filterInvoker(invokers, (inv) => staticTag(inv) === tag) : keptOfSubList(invokers, parent, taggedOf(parent, tag));
});

// filterInvoker: the same list when every invoker passes (no copy), else the survivors in order.
function filterInvoker(invokers: Invoker[], predicate: (inv: Invoker) => boolean): Invoker[] {
  const result = invokers.filter(predicate);
  return result.length === invokers.length ? invokers : result;
}

/** The published rules of a router that has none (never written to). */
const NO_RULES: Map<string, TagRouterRule> = new Map();

/** TagStateRouter's cache decision, which reads only the call: the requested tag and whether it is forced. */
function tagRouteKey(consumerUrl: URL, invocation: RpcInvocation): string {
  const tag = requestedTag(consumerUrl, invocation);
  return tag === undefined ? '' : `${isForceUseTag(consumerUrl, invocation) ? '!' : '='}${tag}`;
}

/**
 * 2.7.23 TagRouter.isForceUseTag (TagRouter.java:176-178) with RpcInvocation.getAttachment(key, default)
 * (RpcInvocation.java:387-401), which answers the default only for an EMPTY attachment and null for an
 * absent one: so the consumer URL's `dubbo.force.tag` counts only beside an empty attachment.
 */
function isForceUseTag27(consumerUrl: URL, invocation: RpcInvocation): boolean {
  const value = invocation.getAttachment(FORCE_USE_TAG);
  if (value === undefined) return false;
  return (value === '' ? consumerUrl.getParameter(FORCE_USE_TAG, 'false') : value).toLowerCase() === 'true';
}

/** The 2.7 tag router's cache decision (its own force rule). */
function tagRouteKey27(consumerUrl: URL, invocation: RpcInvocation): string {
  const tag = requestedTag(consumerUrl, invocation);
  return tag === undefined ? '' : `7${isForceUseTag27(consumerUrl, invocation) ? '!' : '='}${tag}`;
}

/** The tag router, with an optional dynamic rule (YAML text, object or parsed rule). */
export class TagStateRouter implements StateRouter {
  readonly name = 'tag';
  readonly order = TAG_ROUTER_ORDER;
  #rule: TagRouterRule | null = null;
  /** The key `#rule` was read from when it came from the repository (undefined: set directly). */
  #ruleKey: string | undefined;
  #invokers: readonly Invoker[] = [];
  /** Published keyed rules, by key (zonesim's stand-in for the config center's `<app>.tag-router`). */
  // PERF: one router per reference per consumer instance, and few ever get a rule: a map of its own on the first.
  #repository: Map<string, TagRouterRule> = NO_RULES;
  /** Dubbo's `application`: the provider application it subscribed to. */
  #application: string | undefined;
  /** A 2.7 consumer's router: 2.7.23 TagRouter's routing. */
  readonly #v27: boolean;
  /** The cache decision as a function of the call alone (one per release, shared by every router of it). */
  readonly routeKeyOf: (consumerUrl: URL, invocation: RpcInvocation) => string;

  /** `release`: the consumer's (2.7 routes as 2.7.23's TagRouter; default 3.3). */
  constructor(rule?: TagRouterRule | string | Record<string, unknown> | null, options: { release?: DubboRelease } = {}) {
    this.#v27 = options.release?.version === '2.7';
    this.routeKeyOf = this.#v27 ? tagRouteKey27 : tagRouteKey;
    if (rule !== undefined && rule !== null) this.setRule(rule);
  }

  /** The dynamic rule in force, or else the only published rule, or null (static tags only). */
  getRule(): TagRouterRule | null {
    if (this.#rule !== null) return this.#rule;
    return this.#repository.size === 1 ? [...this.#repository.values()][0]! : null;
  }

  /** The published keyed rules, by key. */
  publishedRules(): ReadonlyMap<string, TagRouterRule> {
    return this.#repository;
  }

  /** The provider application the router follows (the first provider's), once an address list arrived. */
  get application(): string | undefined {
    return this.#application;
  }

  /** A rule push (`process`): replaces the rule and initialises it for the current providers. Null deletes it. */
  setRule(rule: TagRouterRule | string | Record<string, unknown> | null): void {
    this.#ruleKey = undefined;
    if (rule === null) {
      this.#rule = null;
      return;
    }
    // A rule object may be shared by many consumers' chains: each router initialises its own copy.
    const parsed = rule instanceof TagRouterRule ? rule.copy() : parseTagRule(rule);
    parsed.init(this.#invokers);
    this.#rule = parsed;
  }

  /**
   * Stores a keyed rule as the config center would at `<key>.tag-router` (a rule without `key` is
   * set directly). It takes effect now if the router follows that application, else once the first
   * provider's application is that key.
   */
  publishRule(rule: TagRouterRule | string | Record<string, unknown>): void {
    const parsed = rule instanceof TagRouterRule ? rule : parseTagRule(rule);
    const key = parsed.meta.key;
    if (key === undefined || key === '') return this.setRule(parsed);
    if (this.#repository === NO_RULES) this.#repository = new Map();
    this.#repository.set(key, parsed);
    if (key === this.#application) this.#process(key);
  }

  /** Deletes every published rule and the rule in force (static tags only). */
  clearRules(): void {
    this.#repository = NO_RULES;
    this.setRule(null);
  }

  #process(key: string): void {
    this.setRule(this.#repository.get(key)!);
    this.#ruleKey = key;
  }

  /**
   * Every address notification re-initialises the rule (needed for `match` tags). With published
   * rules it follows Dubbo's notify: the first provider's `remote.application` names the rule; when
   * it changes to an application without a rule, the previous rule stays (not re-initialised).
   */
  notify(invokers: Invoker[]): void {
    // DIVERGENCE: a rule set directly (a tag rule without `key:`) applies whatever the providers' application
    // and is re-initialised on every address list; Dubbo only has the rule of the subscribed application.
    this.#invokers = invokers;
    if (this.#repository.size > 0 && invokers.length > 0) {
      const app = remoteApplication(invokers[0]!.getUrl());
      // Dubbo logs "tag router get providerApplication is empty" and changes nothing.
      if (app === undefined) return;
      if (app !== this.#application) {
        this.#application = app;
        if (this.#repository.has(app)) this.#process(app);
        else if (this.#ruleKey === undefined && this.#rule !== null) this.#rule.init(invokers);
        return;
      }
    } else if (invokers.length > 0) {
      this.#application = remoteApplication(invokers[0]!.getUrl()) ?? this.#application;
    }
    if (this.#rule !== null) this.#rule.init(invokers);
  }

  routingInputs(): RoutingInputs {
    return TAG_INPUTS;
  }

  /** The cache decision: the requested tag and whether it is forced. */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    return this.routeKeyOf(consumerUrl, invocation);
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const tag = requestedTag(consumerUrl, invocation);
    const keyed = this.#keyedNote();
    const entry = (out: Invoker[], note: string): RouterResult => ({
      invokers: out,
      trace: { router: this.name, rule: tag === undefined ? undefined : `${TAG_KEY}=${tag}`, before, after: out.length, note: keyed === undefined ? note : `${note} (${keyed})` },
    });
    if (before === 0) return entry(invokers, 'no provider reached the tag router');
    const forceUseTag = this.#v27 ? isForceUseTag27(consumerUrl, invocation) : isForceUseTag(consumerUrl, invocation);
    const rule = this.#rule;
    if (rule === null || !rule.valid || !rule.enabled) {
      const why = rule === null ? this.#noRuleReason() : 'the dynamic tag rule is disabled';
      return this.#filterUsingStaticTag(invokers, tag, forceUseTag, why, entry);
    }
    if (tag !== undefined) {
      // 2.7 (TagRouter.java:103-106): an exact lookup, and a tag without addresses is none (init leaves it out).
      const exact = this.#v27 ? (rule.getTagnameToAddresses().get(tag) ?? null) : null;
      const addresses = this.#v27 ? (exact !== null && exact.size > 0 ? exact : null) : selectAddressByTagLevel(rule.getTagnameToAddresses(), tag, forceUseTag);
      let result: Invoker[];
      if (addresses !== null) {
        result = filterInvoker(invokers, (inv) => addressMatches(addresses, inv));
        if (result.length > 0) return entry(result, `tag ${tag}: ${result.length} of ${before} providers in the rule's addresses`);
        if (rule.force) return entry(result, `tag ${tag}: none of ${before} providers is in the rule's addresses, and the rule has force: true`);
      } else {
        result = taggedOf(invokers, tag);
        if (result.length > 0) return entry(result, `tag ${tag} is not in the rule: ${result.length} of ${before} providers carry it as a static dubbo.tag`);
      }
      if (forceUseTag) return entry(result, `tag ${tag}: no provider carries it and dubbo.force.tag=true, so no fallback`);
      const all = rule.getAddresses();
      const untagged = filterInvoker(invokers, (inv) => !addressMatches(all, inv) && !staticTag(inv));
      return entry(untagged, `tag ${tag}: no provider carries it; fell back to the ${untagged.length} providers without any tag`);
    }
    let result = invokers;
    const all = rule.getAddresses();
    if (all.size > 0) {
      result = filterInvoker(invokers, (inv) => !addressMatches(all, inv));
      if (result.length === 0) {
        return entry(result, `no tag requested and every one of ${before} providers is in a dynamic tag, so none is left (even without force)`);
      }
    }
    if (this.#v27) {
      // 2.7 TagRouter.java:140-143: a static tag the rule does not name does not keep a provider out.
      const names = new Set(rule.tags.map((t) => t.name));
      const kept = filterInvoker(result, (inv) => {
        const own = staticTag(inv);
        return own === undefined || !names.has(own);
      });
      return entry(kept, `no tag requested: ${kept.length} of ${before} providers carry no tag the rule names (Dubbo 2.7)`);
    }
    const untagged = untaggedOf(result);
    return entry(untagged, `no tag requested: ${untagged.length} of ${before} providers carry no tag`);
  }

  // Why no dynamic rule is in force: none at all, or none keyed by the providers' application.
  #noRuleReason(): string {
    if (this.#repository.size === 0) return 'no dynamic tag rule';
    const keys = [...this.#repository.keys()].join(', ');
    const app = this.#application;
    return app === undefined
      ? `no dynamic tag rule: the tag rules are keyed ${keys}, and no provider application is known yet`
      : `no dynamic tag rule for the providers' application ${app} (Dubbo reads ${app}.tag-router; the tag rules are keyed ${keys}, so they are skipped)`;
  }

  // Which published rule is in force, when it came from the repository.
  #keyedNote(): string | undefined {
    if (this.#ruleKey === undefined || this.#rule === null) return undefined;
    if (this.#ruleKey === this.#application) return `tag rule keyed ${this.#ruleKey}, the providers' application`;
    return `tag rule keyed ${this.#ruleKey}, kept after the first provider's application became ${this.#application}, which has no tag rule, as Dubbo keeps it`;
  }

  // filterUsingStaticTag: without a usable rule, only the providers' dubbo.tag params count.
  #filterUsingStaticTag(
    invokers: Invoker[],
    tag: string | undefined,
    forceUseTag: boolean,
    why: string,
    entry: (out: Invoker[], note: string) => RouterResult,
  ): RouterResult {
    const before = invokers.length;
    if (tag === undefined) {
      const untagged = untaggedOf(invokers);
      return entry(untagged, `${why}; no tag requested: ${untagged.length} of ${before} providers carry no tag`);
    }
    const tagged = taggedOf(invokers, tag);
    if (tagged.length > 0) return entry(tagged, `${why}; tag ${tag}: ${tagged.length} of ${before} providers carry it`);
    if (forceUseTag) return entry(tagged, `${why}; tag ${tag}: no provider carries it and dubbo.force.tag=true, so no fallback`);
    const untagged = untaggedOf(invokers);
    return entry(untagged, `${why}; tag ${tag}: no provider carries it; fell back to the ${untagged.length} untagged providers`);
  }
}
