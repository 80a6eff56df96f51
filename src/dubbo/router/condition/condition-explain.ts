/**
 * Words for condition rules that do not match, for trace notes: which key of a when-part fails
 * for this call and why, and the keys of a then-part that can match no provider at all. Most
 * useful for the silent non-matches of Dubbo's grammar: `attachments[lane.tag]` (keys are split
 * at the first `.`, so it names no attachment), `arguments[N]` past the last argument, a missing
 * parameter (false even for `!=`), attachments/arguments/method in a then-part (Dubbo passes no
 * invocation there), bare keys left by whitespace, `$name` in a when-part, half-open ranges, and
 * `consumer.`/`provider.` deleted inside values. Pure and only called to explain; routing never
 * depends on it.
 * Follows dubbo-cluster `router/condition/ConditionStateRouter.java` (`init`, `matchCondition`) and
 * `matcher/AbstractConditionMatcher.java`, `attachment/AttachmentConditionMatcher.java`,
 * `argument/ArgumentConditionMatcher.java`, `pattern/range/RangeValuePattern.java`.
 */
import type { Invoker, RpcInvocation } from '../../rpc.js';
import type { URL } from '../../url.js';
import { type ConditionMatcher, type ConditionSemantics, SEMANTICS_3_3, urlSample } from './condition-matcher.js';
import type { ConditionMap } from './condition-rule-text.js';

// Keys of a URL's original map taken from its address (not its parameters).
const ADDRESS_KEYS = new Set(['host', 'address', 'port', 'username', 'password']);

function patterns(m: ConditionMatcher): string {
  const parts: string[] = [];
  if (m.matches.size > 0) parts.push(`= ${[...m.matches].join(', ')}`);
  if (m.mismatches.size > 0) parts.push(`!= ${[...m.mismatches].join(', ')}`);
  return parts.join(' and ');
}

/** Why a key can never read a real value (a malformed attachments/arguments key), or undefined. */
export function malformedKey(m: ConditionMatcher, semantics: ConditionSemantics = SEMANTICS_3_3): string | undefined {
  if (semantics.v27) return malformedKey27(m, semantics);
  if (m.kind === 'attachments' && m.attachmentKey === undefined) {
    const dot = m.key.indexOf('.');
    if (dot >= 0 && m.key.indexOf('[') >= 0 && m.key.indexOf('[') < dot) {
      return (
        `Dubbo splits a condition key at its first "." (AttachmentConditionMatcher), so "${m.key}" is read as ` +
        `"${m.key.slice(0, dot)}", which names no attachment: it reads Dubbo's not-found value, so "=" never matches and "!=" always does`
      );
    }
    return `"${m.key}" is not of the form attachments[name]: it reads Dubbo's not-found value, so "=" never matches and "!=" always does`;
  }
  if (m.kind === 'arguments' && m.argumentIndex === undefined) {
    return `"${m.key}" is not of the form arguments[N] (N a number, before any "."): it reads Dubbo's not-found value, so "=" never matches and "!=" always does`;
  }
  if (m.matches.size === 0 && m.mismatches.size === 0) return bareKey(m, semantics);
  return undefined;
}

function bareKey(m: ConditionMatcher, semantics: ConditionSemantics): string {
  const fate =
    semantics.missingKey === 'pass'
      ? 'a bare key matches no value, and passes where the parameter is absent (2.7 ConditionRouter.matchCondition)'
      : 'a bare key never matches';
  return `"${m.key}" has no "=" or "!=" (Dubbo splits values at whitespace, so "k = a b" leaves a bare key b), and ${fate}`;
}

// Dubbo 2.7.23's ConditionRouter: no attachments matcher, and an unreadable arguments key fails the condition.
function malformedKey27(m: ConditionMatcher, semantics: ConditionSemantics): string | undefined {
  if (m.kind === 'arguments' && m.argumentIndex === undefined) {
    return `"${m.key}" is not of the form arguments[N] (N a number, before any "."): Dubbo 2.7 fails the condition (ConditionRouter.matchArguments)`;
  }
  if (m.matches.size === 0 && m.mismatches.size === 0) return bareKey(m, semantics);
  return undefined;
}

// A pattern that cannot do what it seems to in a when-part.
function whenPatternHint(m: ConditionMatcher, semantics: ConditionSemantics): string | undefined {
  for (const p of [...m.matches, ...m.mismatches]) {
    if (p.startsWith('$')) return `"${p}" is compared as the literal text: Dubbo resolves $name only in then-parts`;
    if (p.includes('~') && !semantics.v27) {
      const parts = p.split('~');
      while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
      if (parts.length < 2) return `range "${p}" is invalid (Java's split drops the empty end; write ${p}2147483647), and an invalid range never matches in a when-part`;
    }
  }
  return undefined;
}

/**
 * How a when-part key failed: a malformed key, a missing value (told apart only where it matters:
 * for `!=` keys, which a missing value fails too, and for consumer URL parameters), or a value
 * that does not satisfy the patterns (for `=`-only keys, also a missing one).
 */
export type WhenMissKind = 'malformed' | 'missing' | 'mismatch';

/** The first key of a when-part that fails for this call: its index and how; undefined when all match. */
export interface WhenMiss {
  index: number;
  kind: WhenMissKind;
}

/**
 * Which key of a when-part fails for this consumer/call, and how. Cheap (one pass over the keys,
 * as matching does), and coarse on purpose: the route cache keys on it, and the words of
 * `describeWhenMiss` depend on nothing else (never on the call's values).
 */
export function findWhenMiss(
  when: ConditionMap,
  consumerUrl: URL,
  invocation: RpcInvocation | null,
  semantics: ConditionSemantics = SEMANTICS_3_3,
): WhenMiss | undefined {
  const sample = urlSample(consumerUrl, semantics);
  let index = 0;
  for (const m of when.values()) {
    if (!m.isMatch(sample, null, invocation, true, semantics)) {
      if (malformedKey(m, semantics) !== undefined) return { index, kind: 'malformed' };
      const param = m.kind === 'param' || (semantics.v27 && m.kind === 'attachments');
      const tellMissing = m.mismatches.size > 0 || (param && !(m.readsMethod() && invocation !== null));
      const value = semantics.v27 ? (m.kind === 'arguments' ? '' : m.getValue27(sample, invocation)) : m.getValue(sample, invocation);
      if (tellMissing && value === undefined) return { index, kind: 'missing' };
      return { index, kind: 'mismatch' };
    }
    index++;
  }
  return undefined;
}

const MISS_CODES: Record<WhenMissKind, string> = { malformed: 'k', missing: 'u', mismatch: 'v' };

/** A short code of a miss for cache keys ('' when nothing failed). */
export function whenMissCode(miss: WhenMiss | undefined, keys: number): string {
  if (miss === undefined) return '';
  return keys > 1 ? `${miss.index}${MISS_CODES[miss.kind]}` : MISS_CODES[miss.kind];
}

/** Why the when-part does not match, in words that name the key and the rule's patterns (never the call's values). */
export function describeWhenMiss(when: ConditionMap, miss: WhenMiss, consumerUrl: URL, semantics: ConditionSemantics = SEMANTICS_3_3): string {
  const m = [...when.values()][miss.index]!;
  if (miss.kind === 'malformed') return malformedKey(m, semantics)!;
  // Pattern hints ($name, half-open ranges) are keyHazards': every note of the condition carries them.
  const missing = missingWords(semantics);
  const eqOnly = m.mismatches.size === 0;
  const kind = semantics.v27 && m.kind === 'attachments' ? 'param' : m.kind;
  if (semantics.v27 && m.kind === 'arguments') {
    const n = m.argumentIndex! + 1;
    return `${m.key} does not satisfy ${patterns(m)} (or the call has fewer than ${n} argument${n === 1 ? '' : 's'}, which fails the condition in Dubbo 2.7)`;
  }
  switch (kind) {
    case 'attachments':
      if (miss.kind === 'missing') return `the call has no attachment "${m.attachmentKey}"; ${missing}`;
      return `attachment ${m.attachmentKey} ${eqOnly ? 'is absent or ' : ''}does not satisfy ${patterns(m)}`;
    case 'arguments': {
      const n = m.argumentIndex! + 1;
      const fewer = eqOnly
        ? ` (or the call has fewer than ${n} argument${n === 1 ? '' : 's'}: then ${m.key} reads Dubbo's not-found value, which "=" never matches and "!=" always does)`
        : '';
      return `${m.key} does not satisfy ${patterns(m)}${fewer}`;
    }
    case 'param': {
      if (m.readsMethod()) {
        if (eqOnly) return `the call's method is none of ${[...m.matches].join(', ')}`;
        return `the call's method does not satisfy ${m.key} ${patterns(m)}`;
      }
      if (miss.kind === 'missing') return `the consumer URL has no "${m.key}" parameter; ${missing}`;
      // The instances of a consumer group differ only in their address, and they share route results
      // (with this note) when the rule's decision is the same: the note names no address.
      if (ADDRESS_KEYS.has(m.key)) return `the consumer's ${m.key} does not satisfy ${patterns(m)}`;
      const value = urlSample(consumerUrl, semantics).get(m.key);
      return `the consumer's ${m.key} is ${JSON.stringify(value)}, the rule wants ${patterns(m)}`;
    }
  }
}

/** Why this consumer/call does not match a when-part, or undefined when it matches. */
export function explainWhenMiss(
  when: ConditionMap,
  consumerUrl: URL,
  invocation: RpcInvocation | null,
  semantics: ConditionSemantics = SEMANTICS_3_3,
): string | undefined {
  const miss = findWhenMiss(when, consumerUrl, invocation, semantics);
  return miss === undefined ? undefined : describeWhenMiss(when, miss, consumerUrl, semantics);
}

// What a missing value does, as notes say it.
function missingWords(semantics: ConditionSemantics): string {
  return semantics.missingKey === 'pass'
    ? 'a missing value fails a key with "=" values (and passes one with only "!=" values: Dubbo 2.7)'
    : 'a missing value fails the key, also for "!="';
}

/**
 * Why a then-part matched no provider, when the cause is a parameter no provider has (a missing
 * value fails the key even for `!=`; `method` reads the provider URL there). Undefined for an
 * ordinary value mismatch; the static causes are keyHazards'.
 */
export function explainThenMiss(then: ConditionMap, providers: readonly Invoker[], semantics: ConditionSemantics = SEMANTICS_3_3): string | undefined {
  for (const m of then.values()) {
    // Malformed keys and keys reading the invocation are static: keyHazards says so on every note.
    const param = m.kind === 'param' || (semantics.v27 && m.kind === 'attachments');
    if (malformedKey(m, semantics) !== undefined || !param) continue;
    // Under 2.7's pass rule a key without "=" values cannot fail on a missing value.
    if (semantics.missingKey === 'pass' && m.matches.size === 0) continue;
    let withKey = 0;
    for (const inv of providers) if (urlSample(inv.getUrl(), semantics).has(m.key)) withKey++;
    if (withKey === 0) {
      if (m.readsMethod()) {
        return `"${m.key}" in a then-part reads each provider URL's ${m.key} parameter, not the call's method (Dubbo passes no invocation to then-parts), and no provider has one`;
      }
      return `no provider URL has a "${m.key}" parameter; ${missingWords(semantics)}`;
    }
  }
  return undefined;
}

/**
 * Hazards in a rule's text that change its meaning silently: Dubbo deletes every `consumer.` and
 * `provider.` from the whole text, values included (a key prefix `consumer.host` is meant, a value
 * `my-provider.v2` becomes `my-v2`).
 */
export function ruleTextHazards(rule: string): string[] {
  const out: string[] = [];
  const re = /(consumer|provider)\./g;
  for (let m = re.exec(rule); m !== null; m = re.exec(rule)) {
    let i = m.index - 1;
    while (i >= 0 && /\s/.test(rule[i]!)) i--;
    const before = i < 0 ? '' : rule[i]!;
    // A key prefix follows the start, `&` or `=>`; anything else puts it inside a value or a word.
    if (before === '' || before === '&' || (before === '>' && rule[i - 1] === '=')) continue;
    let start = m.index;
    while (start > 0 && !/[\s&=!,>]/.test(rule[start - 1]!)) start--;
    const word = rule.slice(start).split(/[\s&=!,]/)[0]!;
    out.push(`Dubbo deletes "${m[0]}" everywhere in the rule text, so "${word}" is read as "${word.replaceAll('consumer.', '').replaceAll('provider.', '')}"`);
  }
  return [...new Set(out)];
}

/**
 * Keys that can never do what they seem to, whatever the call: malformed attachments/arguments
 * keys and bare keys anywhere, keys that read the invocation in a then-part, and `$name` or
 * half-open ranges in a when-part. Said in every trace note of the condition.
 */
export function keyHazards(when: ConditionMap, then: ConditionMap | null, semantics: ConditionSemantics = SEMANTICS_3_3): string[] {
  const out: string[] = [];
  for (const m of when.values()) {
    const bad = malformedKey(m, semantics) ?? whenPatternHint(m, semantics);
    if (bad !== undefined) out.push(bad);
  }
  for (const m of then?.values() ?? []) {
    const bad = malformedKey(m, semantics);
    if (bad !== undefined) out.push(bad);
    else if (semantics.v27 && m.kind === 'arguments') {
      out.push(`${m.key} in a then-part reads the invocation, which Dubbo does not pass to then-parts, so it fails the condition (Dubbo 2.7)`);
    } else if (!semantics.v27 && (m.kind === 'attachments' || m.kind === 'arguments')) {
      out.push(`${m.key} in a then-part reads the invocation, which Dubbo does not pass to then-parts, so "=" matches no provider`);
    }
  }
  if (semantics.v27) out.push(...hazards27(when, then));
  return out;
}

// 3.2+ condition features a 2.7 rule reads otherwise: ranges are literal text, attachments[...] a URL parameter.
function hazards27(when: ConditionMap, then: ConditionMap | null): string[] {
  const out = new Set<string>();
  for (const m of [...when.values(), ...(then?.values() ?? [])]) {
    if (m.kind === 'attachments') {
      out.add(`"${m.key}" is a URL parameter of that name in Dubbo 2.7 (attachments[...] conditions are first in 3.2), which no URL has`);
    }
    for (const p of [...m.matches, ...m.mismatches]) {
      if (p.includes('~')) out.add(`"${p}" is literal text in Dubbo 2.7 (range patterns are first in 3.2)`);
    }
  }
  return [...out];
}
