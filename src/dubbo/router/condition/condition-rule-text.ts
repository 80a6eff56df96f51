/**
 * The text grammar of a condition rule: `when => then`, `consumer.`/`provider.` removal, and the
 * tokenizer that turns `host = 10.20.* & host != 10.20.3.3, 10.20.3.4` into matchers. Owns parse
 * errors; not the routing.
 * Follows dubbo-cluster `router/condition/ConditionStateRouter.java` (`init`, `parseRule`).
 */
import { RouterRuleError } from '../router-rule-error.js';
import { ConditionMatcher } from './condition-matcher.js';


/** Condition keys to matchers; insertion order is the order keys first appear. */
export type ConditionMap = Map<string, ConditionMatcher>;

/** A parsed `when => then` rule: an empty `when` matches every consumer; a null `then` is a blocklist. */
export interface ParsedConditionText {
  when: ConditionMap;
  then: ConditionMap | null;
}

function isBlank(text: string | null | undefined): boolean {
  return text === null || text === undefined || text.trim().length === 0;
}

/** ConditionStateRouter.parseRule: the tokenizer `([&!=,]*)\s*([^&!=,\s]+)` applied with `find`. */
export function parseConditionPart(rule: string): ConditionMap {
  const condition: ConditionMap = new Map();
  if (isBlank(rule)) return condition;
  let matcherPair: ConditionMatcher | null = null;
  // Dubbo keeps the last value set across keys, so `a=1 & b ,2` adds 2 to a's set.
  let values: Set<string> | null = null;
  const routePattern = /([&!=,]*)\s*([^&!=,\s]+)/g;
  const fail = (separator: string, index: number, content: string): RouterRuleError =>
    new RouterRuleError(
      `Illegal route rule "${rule}", The error char '${separator}' at index ${index} before "${content}".`,
    );
  for (let m = routePattern.exec(rule); m !== null; m = routePattern.exec(rule)) {
    const separator = m[1]!;
    const content = m[2]!;
    if (separator === '') {
      matcherPair = new ConditionMatcher(content);
      condition.set(content, matcherPair);
    } else if (separator === '&') {
      const existing = condition.get(content);
      if (existing === undefined) {
        matcherPair = new ConditionMatcher(content);
        condition.set(content, matcherPair);
      } else matcherPair = existing;
    } else if (separator === '=') {
      if (matcherPair === null) throw fail(separator, m.index, content);
      values = matcherPair.matches;
      values.add(content);
    } else if (separator === '!=') {
      if (matcherPair === null) throw fail(separator, m.index, content);
      values = matcherPair.mismatches;
      values.add(content);
    } else if (separator === ',') {
      if (values === null || values.size === 0) throw fail(separator, m.index, content);
      values.add(content);
    } else {
      throw fail(separator, m.index, content);
    }
  }
  return condition;
}

/** ConditionStateRouter.init: preprocessing, the split at the first `=>`, `true`/`false` shorthands. */
export function parseConditionText(rule: string): ParsedConditionText {
  if (isBlank(rule)) throw new RouterRuleError('Illegal route rule: the rule is empty');
  // Deleted everywhere, values included (Dubbo's String.replace).
  const text = rule.replaceAll('consumer.', '').replaceAll('provider.', '');
  const i = text.indexOf('=>');
  const whenRule = i < 0 ? null : text.slice(0, i).trim();
  const thenRule = i < 0 ? text.trim() : text.slice(i + 2).trim();
  const when = isBlank(whenRule) || whenRule === 'true' ? new Map() : parseConditionPart(whenRule!);
  const then = isBlank(thenRule) || thenRule === 'false' ? null : parseConditionPart(thenRule);
  return { when, then };
}
