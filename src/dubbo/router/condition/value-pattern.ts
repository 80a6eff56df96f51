/**
 * The value patterns of condition rules: a range (`1~100`, `~100`) when the pattern contains `~`,
 * otherwise Dubbo's glob (`*` anywhere as the last wildcard, `$name` references to the consumer
 * URL in then-parts). Pure string logic; the matchers decide which value is compared.
 * Follows dubbo-cluster `router/condition/matcher/pattern/range/RangeValuePattern.java`,
 * `pattern/wildcard/WildcardValuePattern.java` and dubbo-common `UrlUtils.isMatchGlobPattern`.
 */
import type { URL } from '../../url.js';

const INT_MAX = 2147483647;

// StringUtils.parseInteger: digits only → int, anything else → 0. NaN stands for Java's
// NumberFormatException on overflow, which the range pattern turns into its default.
function parseInteger(text: string | undefined): number {
  if (text === undefined || !/^\d+$/.test(text)) return 0;
  const n = Number(text);
  return n > INT_MAX ? Number.NaN : n;
}

// Java String.split(regex) with limit 0: trailing empty strings are dropped.
function javaSplit(text: string, separator: string): string[] {
  const parts = text.split(separator);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** RangeValuePattern.match: inclusive integer range; an invalid pattern gives `!isWhenCondition`. */
export function matchRange(pattern: string, value: string, isWhenCondition: boolean): boolean {
  const defaultValue = !isWhenCondition;
  const intValue = parseInteger(value);
  if (Number.isNaN(intValue)) return defaultValue;
  const arr = javaSplit(pattern, '~');
  if (arr.length < 2) return defaultValue;
  const rawStart = arr[0]!;
  const rawEnd = arr[1]!;
  if (rawStart === '' && rawEnd === '') return defaultValue;
  if (rawStart === '') {
    const end = parseInteger(rawEnd);
    if (Number.isNaN(end)) return defaultValue;
    return intValue <= end;
  }
  if (rawEnd === '') {
    const start = parseInteger(rawStart);
    if (Number.isNaN(start)) return defaultValue;
    return intValue >= start;
  }
  const start = parseInteger(rawStart);
  const end = parseInteger(rawEnd);
  if (Number.isNaN(start) || Number.isNaN(end)) return defaultValue;
  return intValue >= start && intValue <= end;
}

/** UrlUtils.isMatchGlobPattern(pattern, value): only the last `*` is a wildcard; case-sensitive, no regex. */
export function isMatchGlobPattern(pattern: string | undefined, value: string | undefined): boolean {
  if (pattern === '*') return true;
  const noPattern = pattern === undefined || pattern === '';
  const noValue = value === undefined || value === '';
  if (noPattern && noValue) return true;
  if (noPattern || noValue) return false;
  const i = pattern.lastIndexOf('*');
  if (i === -1) return value === pattern;
  if (i === pattern.length - 1) return value.startsWith(pattern.slice(0, i));
  if (i === 0) return value.endsWith(pattern.slice(1));
  return value.startsWith(pattern.slice(0, i)) && value.endsWith(pattern.slice(i + 1));
}

/**
 * One value against one pattern, as AbstractConditionMatcher.doPatternMatch does: range first
 * (order 100), then the wildcard. `param` is the consumer URL in then-parts (for `$name`), null in when-parts.
 * `ranges` false is 2.7's MatchPair.isMatch, which has only the glob (`a~b` is literal text).
 */
export function matchValuePattern(pattern: string, value: string, param: URL | null, isWhenCondition: boolean, ranges = true): boolean {
  if (ranges && pattern.includes('~')) return matchRange(pattern, value, isWhenCondition);
  let resolved: string | undefined = pattern;
  if (param !== null && pattern.startsWith('$')) resolved = param.getRawParameter(pattern.slice(1));
  return isMatchGlobPattern(resolved, value);
}
