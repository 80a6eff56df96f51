/**
 * One key of a condition rule with its match and mismatch sets, and where its value comes from:
 * `attachments[x]` (an invocation attachment), `arguments[N]` (an invocation argument) or anything
 * else (a URL parameter, or the invoked method for `method`/`methods`). Owns the per-key match
 * logic (null value = false, mismatch wins); not the rule text parsing.
 * Follows dubbo-cluster `router/condition/matcher/AbstractConditionMatcher.java`,
 * `attachment/AttachmentConditionMatcher.java`, `argument/ArgumentConditionMatcher.java` and
 * `param/UrlParamConditionMatcher.java`.
 */
import type { RpcInvocation } from '../../rpc.js';
import type { URL } from '../../url.js';
import { getMethodName, javaStringValueOf } from '../invocation-values.js';
import { matchValuePattern } from './value-pattern.js';

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

  /** AbstractConditionMatcher.isMatch: a missing value is false even for `!=`; mismatch wins over match. */
  isMatch(
    sample: ReadonlyMap<string, string>,
    param: URL | null,
    invocation: RpcInvocation | null,
    isWhenCondition: boolean,
  ): boolean {
    const value = this.getValue(sample, invocation);
    if (value === undefined) return false;
    const hasMatches = this.matches.size > 0;
    const hasMismatches = this.mismatches.size > 0;
    if (hasMismatches) {
      for (const p of this.mismatches) if (matchValuePattern(p, value, param, isWhenCondition)) return false;
      if (!hasMatches) return true;
    }
    if (hasMatches) {
      for (const p of this.matches) if (matchValuePattern(p, value, param, isWhenCondition)) return true;
    }
    return false;
  }
}

// PERF: URLs are immutable and routed on every call; their original maps are built once.
const samples = new WeakMap<URL, ReadonlyMap<string, string>>();

/** `url.toOriginalMap()`, memoised per URL object: the sample a condition is matched against. */
export function urlSample(url: URL): ReadonlyMap<string, string> {
  let sample = samples.get(url);
  if (sample === undefined) {
    sample = url.toOriginalMap();
    samples.set(url, sample);
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
): boolean {
  const sample = urlSample(url);
  for (const matcher of conditions.values()) {
    if (!matcher.isMatch(sample, param, invocation, isWhenCondition)) return false;
  }
  return true;
}

/** The invocation inputs a when-part reads (then-parts see a null invocation and read none). */
export function whenInputs(when: ReadonlyMap<string, ConditionMatcher>): {
  method: boolean;
  attachments: string[];
  arguments: number[];
} {
  let method = false;
  const attachments: string[] = [];
  const args: number[] = [];
  for (const m of when.values()) {
    if (m.readsMethod()) method = true;
    else if (m.kind === 'attachments' && m.attachmentKey !== undefined) attachments.push(m.attachmentKey);
    else if (m.kind === 'arguments' && m.argumentIndex !== undefined) args.push(m.argumentIndex);
  }
  return { method, attachments, arguments: args };
}
