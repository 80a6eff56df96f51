/**
 * The router for one routing rule as users write it: a condition rule (URL-rule text or Dubbo Admin
 * YAML) or a tag rule. A rule with a `key` goes where Dubbo's config center would publish it (the
 * keyed condition routers, the tag router's published rules); one without applies as it is.
 */
import { ConditionRuleRouter, parseConditionRule } from './condition/condition-rule-router.js';
import { KeyedConditionRule } from './condition/listenable-state-router.js';
import type { StateRouter } from './router.js';
import type { RouterRuntime } from './router-runtime.js';
import { conditionRuleKey } from './rule-key.js';
import { parseTagRule } from './tag/tag-router-rule.js';
import { TagStateRouter } from './tag/tag-state-router.js';

/**
 * A condition rule as the chain takes it: a YAML rule with a `key` becomes a KeyedConditionRule
 * (applied only where its key names the consumer's service or an application); any other rule
 * applies to every consumer. Throws RouterRuleError on a rule that does not parse.
 */
export function conditionRouter(
  rule: string | Record<string, unknown>,
  options: { force?: boolean; runtime?: RouterRuntime } = {},
): StateRouter {
  // DIVERGENCE: Dubbo has no rule without a key (every rule is stored under one); zonesim applies a URL
  // rule, a `condition://` URL or a YAML rule without `key:` to every consumer, at the order of its scope.
  const router = parseConditionRule(rule, options);
  if (!(router instanceof ConditionRuleRouter)) return router;
  const key = conditionRuleKey(router.rule);
  return key === null ? router : new KeyedConditionRule(router, key);
}

/** A tag router for one tag rule: a rule with a `key` is published under it, one without is its rule. */
export function tagRouter(rule: string | Record<string, unknown>, options: { runtime?: RouterRuntime } = {}): TagStateRouter {
  const parsed = parseTagRule(rule);
  const release = options.runtime?.release;
  if (parsed.meta.key === undefined || parsed.meta.key === '') return new TagStateRouter(parsed, { release });
  const router = new TagStateRouter(null, { release });
  router.publishRule(parsed);
  return router;
}
