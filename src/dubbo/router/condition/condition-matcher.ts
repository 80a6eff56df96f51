/**
 * One key of a condition rule with its match and mismatch sets, and where its value comes from:
 * `attachments[x]` (an invocation attachment), `arguments[N]` (an invocation argument) or anything
 * else (a URL parameter, or the invoked method for `method`/`methods`). Owns the per-key match
 * logic (null value = false, mismatch wins) and how it differs in Dubbo 2.7.23 (`ConditionSemantics`);
 * not the rule text parsing.
 * Follows dubbo-cluster `router/condition/matcher/AbstractConditionMatcher.java`,
 * `attachment/AttachmentConditionMatcher.java`, `argument/ArgumentConditionMatcher.java` and
 * `param/UrlParamConditionMatcher.java`; for 2.7, 2.7.23 `router/condition/ConditionRouter.java`.
 */
import type { DubboRelease } from '../../release.js';
import type { RpcInvocation } from '../../rpc.js';
import { mergedUrl27, ServiceAddressURL, type URL } from '../../url.js';
import { getMethodName, javaStringValueOf } from '../invocation-values.js';
import { matchValuePattern } from './value-pattern.js';

/** How a release evaluates a condition's keys. */
export interface ConditionSemantics {
  /**
   * A key whose value is absent: `fail` (3.3 AbstractConditionMatcher.java:69-75) or `pass` when the key
   * has no `=` patterns, i.e. only `!=` ones or none (2.7 ConditionRouter.java:269-275).
   */
  readonly missingKey: 'fail' | 'pass';
  /**
   * Dubbo 2.7.23's ConditionRouter (ConditionRouter.java:234-300): no range patterns (`a~b` is a glob, as
   * ranges are 3.2+), no `attachments[...]` matcher (a URL parameter of that name), an `arguments[N]` that
   * cannot be read fails the condition (no not-found value), `method` is the invocation's own name (a
   * generic call's is `$invoke`), and then-parts match the merged invoker URL (`mergedUrl27`).
   */
  readonly v27: boolean;
}

/** Dubbo 3.3's semantics. */
export const SEMANTICS_3_3: ConditionSemantics = Object.freeze({ missingKey: 'fail', v27: false });

/** The semantics of a release (3.3 when none is given). */
export function conditionSemantics(release: DubboRelease | undefined): ConditionSemantics {
  if (release === undefined || (release.version === '3.3' && release.conditionMissingKey === 'fail')) return SEMANTICS_3_3;
  return { missingKey: release.conditionMissingKey, v27: release.version === '2.7' };
}

/** A short code of non-3.3 semantics for cache keys ('' for 3.3's). */
export function semanticsCode(semantics: ConditionSemantics): string {
  return semantics === SEMANTICS_3_3 ? '' : `${semantics.v27 ? '7' : '3'}${semantics.missingKey === 'pass' ? 'p' : 'f'}:`;
}

/** AbstractConditionMatcher.DOES_NOT_FOUND_VALUE: what a malformed attachment/argument key reads. */
export const DOES_NOT_FOUND_VALUE = 'dubbo_internal_not_found_argument_condition_value';

const ATTACHMENTS_PATTERN = /attachments\[(.+)\]/;
const ARGUMENTS_PATTERN = /arguments\[([0-9]+)\]/;

/** Where a matcher reads its value (the matcher factories, tried in Activate order 200, 300, then param). */
export type ConditionMatcherKind = 'attachments' | 'arguments' | 'param';

/** A condition key with its `=` (matches) and `!=` (mismatches) value sets. */
export class ConditionMatcher {
  readonly key: string;
  readonly kind: ConditionMatcherKind;
  readonly matches = new Set<string>();
  readonly mismatches = new Set<string>();
  /** For `attachments[x]`: x, or undefined when the key has no `[x]` (the sentinel is read). */
  readonly attachmentKey: string | undefined;
  /** For `arguments[N]`: N, or undefined when the key has no `[N]` (the sentinel is read). */
  readonly argumentIndex: number | undefined;

  constructor(key: string) {
    this.key = key;
    // Both factories look only at the part before the first '.': `arguments[0].inner` is `arguments[0]`.
    const head = key.split('.')[0] ?? '';
    if (key.startsWith('attachments')) {
      this.kind = 'attachments';
      const m = ATTACHMENTS_PATTERN.exec(head);
      this.attachmentKey = m === null ? undefined : m[1];
    } else if (key.startsWith('arguments')) {
      this.kind = 'arguments';
      const m = ARGUMENTS_PATTERN.exec(head);
      this.argumentIndex = m === null ? undefined : Number(m[1]);
    } else {
      this.kind = 'param';
    }
  }

  /** True for `method`/`methods` param keys, which read the invocation's method when there is one. */
  readsMethod(): boolean {
    return this.kind === 'param' && (this.key === 'method' || this.key === 'methods');
  }

  /** The value this key compares: from the invocation, or `sample` (the URL's original map). */
  getValue(sample: ReadonlyMap<string, string>, invocation: RpcInvocation | null): string | undefined {
    switch (this.kind) {
      case 'attachments':
        // A null invocation throws in Dubbo and the catch returns the sentinel.
        if (this.attachmentKey === undefined || invocation === null) return DOES_NOT_FOUND_VALUE;
        return invocation.getAttachment(this.attachmentKey);
      case 'arguments': {
        if (this.argumentIndex === undefined || invocation === null) return DOES_NOT_FOUND_VALUE;
        // Java checks `index > length` and then indexes: `index == length` throws, which also gives the sentinel.
        const args = invocation.arguments;
        if (this.argumentIndex >= args.length) return DOES_NOT_FOUND_VALUE;
        return javaStringValueOf(args[this.argumentIndex]);
      }
      case 'param':
        if (invocation !== null && this.readsMethod()) return getMethodName(invocation);
        return sample.get(this.key);
    }
  }

  /** The value the 2.7.23 ConditionRouter compares (`attachments[...]` is a URL parameter there; `method` is not unwrapped). */
  getValue27(sample: ReadonlyMap<string, string>, invocation: RpcInvocation | null): string | undefined {
    if (invocation !== null && this.readsMethod()) return invocation.methodName === '' ? undefined : invocation.methodName;
    return sample.get(this.key);
  }

  /**
   * AbstractConditionMatcher.isMatch: a missing value is false even for `!=` (under 3.3 semantics);
   * mismatch wins over match. Under 2.7's, ConditionRouter.matchCondition and MatchPair.isMatch.
   */
  isMatch(
    sample: ReadonlyMap<string, string>,
    param: URL | null,
    invocation: RpcInvocation | null,
    isWhenCondition: boolean,
    semantics: ConditionSemantics = SEMANTICS_3_3,
  ): boolean {
    if (semantics.v27 && this.kind === 'arguments') {
      // ConditionRouter.matchArguments (2.7 :283-307): no index, no invocation (then-parts) or an index
      // past the last argument fails the condition.
      const args = invocation?.arguments;
      if (this.argumentIndex === undefined || args === undefined || this.argumentIndex >= args.length) return false;
      return this.#matchPatterns(javaStringValueOf(args[this.argumentIndex]), null, isWhenCondition, false);
    }
    const value = semantics.v27 ? this.getValue27(sample, invocation) : this.getValue(sample, invocation);
    if (value === undefined) return semantics.missingKey === 'pass' && this.matches.size === 0;
    return this.#matchPatterns(value, param, isWhenCondition, !semantics.v27);
  }

  // MatchPair.isMatch / doPatternMatch over one value: mismatch wins over match.
  #matchPatterns(value: string, param: URL | null, isWhenCondition: boolean, ranges: boolean): boolean {
    const hasMatches = this.matches.size > 0;
    const hasMismatches = this.mismatches.size > 0;
    if (hasMismatches) {
      for (const p of this.mismatches) if (matchValuePattern(p, value, param, isWhenCondition, ranges)) return false;
      if (!hasMatches) return true;
    }
    if (hasMatches) {
      for (const p of this.matches) if (matchValuePattern(p, value, param, isWhenCondition, ranges)) return true;
    }
    return false;
  }
}

// PERF: URLs are immutable and routed on every call; their original maps are built once.
const samples = new WeakMap<URL, ReadonlyMap<string, string>>();

const samples27 = new WeakMap<URL, ReadonlyMap<string, string>>();

/**
 * `url.toOriginalMap()`, memoised per URL object: the sample a condition is matched against. Under 2.7's
 * semantics a provider paired with its consumer (ServiceAddressURL) is read as 2.7's merged invoker URL
 * (ConditionRouter.java:235 `url.toMap()` of RegistryDirectory's merged URL).
 */
export function urlSample(url: URL, semantics: ConditionSemantics = SEMANTICS_3_3): ReadonlyMap<string, string> {
  const memo = semantics.v27 ? samples27 : samples;
  let sample = memo.get(url);
  if (sample === undefined) {
    sample = (semantics.v27 && url instanceof ServiceAddressURL ? mergedUrl27(url.providerUrl, url.consumerUrl) : url).toOriginalMap();
    memo.set(url, sample);
  }
  return sample;
}

/** Dubbo `doMatch`: every key of `conditions` must match (an empty map is true here). */
export function matchConditions(
  conditions: ReadonlyMap<string, ConditionMatcher>,
  url: URL,
  param: URL | null,
  invocation: RpcInvocation | null,
  isWhenCondition: boolean,
  semantics: ConditionSemantics = SEMANTICS_3_3,
): boolean {
  const sample = urlSample(url, semantics);
  for (const matcher of conditions.values()) {
    if (!matcher.isMatch(sample, param, invocation, isWhenCondition, semantics)) return false;
  }
  return true;
}

/** The invocation inputs a when-part reads (then-parts see a null invocation and read none). */
export function whenInputs(
  when: ReadonlyMap<string, ConditionMatcher>,
  semantics: ConditionSemantics = SEMANTICS_3_3,
): {
  method: boolean;
  attachments: string[];
  arguments: number[];
} {
  let method = false;
  const attachments: string[] = [];
  const args: number[] = [];
  for (const m of when.values()) {
    if (m.readsMethod()) method = true;
    else if (m.kind === 'attachments' && m.attachmentKey !== undefined && !semantics.v27) attachments.push(m.attachmentKey);
    else if (m.kind === 'arguments' && m.argumentIndex !== undefined) args.push(m.argumentIndex);
  }
  return { method, attachments, arguments: args };
}
