/**
 * Condition rules under the Dubbo 2.7.23 profile (`runtime.release` = DUBBO_2_7, or only the
 * `conditionMissingKey: pass` switch), against 3.3's answers on the same input. 2.7.23
 * `router/condition/ConditionRouter.java`: matchCondition (:234-279) reads `url.toMap()` of the
 * merged invoker URL (:235), a key with no value passes unless it has `=` values (:269-275),
 * `arguments[N]` goes through matchArguments (:283-307), and MatchPair.isMatch (:313-350) only globs.
 * 3.3: `matcher/AbstractConditionMatcher.java:69-75` (no value, no match).
 */
import { describe, expect, it } from 'vitest';
import { ConditionStateRouter } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { DUBBO_2_7, DUBBO_3_3 } from '../../../../src/dubbo/release.js';
import type { DubboRelease } from '../../../../src/dubbo/release.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL, mergedUrl27 } from '../../../../src/dubbo/url.js';
import { indicesIn, UrlInvoker } from '../fixtures.js';

const IFACE = 'com.example.UserService';
// The probe run on real 2.7.23 code (plan39 §C): a consumer without `version`, providers .1 version=1.0, .2 none, .3 version=2.0.
const CONSUMER = URL.valueOf(`consumer://10.20.1.5/${IFACE}?application=web&interface=${IFACE}`);
const PROVIDERS = [`dubbo://10.0.0.1:20880/${IFACE}?version=1.0`, `dubbo://10.0.0.2:20880/${IFACE}`, `dubbo://10.0.0.3:20880/${IFACE}?version=2.0`];
const call = (methodName = 'getUser', args: unknown[] = []) => new RpcInvocation({ methodName, arguments: args });

function route(rule: string, release: DubboRelease, opts: { force?: boolean; providers?: string[]; consumer?: URL; inv?: RpcInvocation } = {}): number[] {
  const consumer = opts.consumer ?? CONSUMER;
  const invokers = (opts.providers ?? PROVIDERS).map((p) => new UrlInvoker(new ServiceAddressURL(URL.valueOf(p), consumer)));
  const router = new ConditionStateRouter(rule, { force: opts.force ?? false, runtime: { release } });
  return indicesIn(invokers, router.route(invokers, consumer, opts.inv ?? call()).invokers);
}

describe('a key the URL lacks (2.7 ConditionRouter.java:269-275 against 3.3 AbstractConditionMatcher.java:69-75)', () => {
  it('=> version != 2.0: 2.7 keeps the provider without version, 3.3 drops it', () => {
    expect(route('=> version != 2.0', DUBBO_2_7)).toEqual([0, 1]);
    expect(route('=> version != 2.0', DUBBO_3_3)).toEqual([0]);
  });

  it("version != 2.0 => host = 10.0.0.3: the consumer's missing version passes the when-part in 2.7 only", () => {
    expect(route('version != 2.0 => host = 10.0.0.3', DUBBO_2_7)).toEqual([2]);
    expect(route('version != 2.0 => host = 10.0.0.3', DUBBO_3_3)).toEqual([0, 1, 2]);
  });

  it('a key with "=" values still fails on a missing value in 2.7', () => {
    expect(route('=> version = 1.0', DUBBO_2_7, { force: true })).toEqual([0]);
    expect(route('=> version = 1.0,2.0 & version != 2.0', DUBBO_2_7, { force: true })).toEqual([0]);
  });

  it('a bare key (no values) passes where the parameter is absent in 2.7, and matches nothing in 3.3', () => {
    // The rule text "null" (a null YAML item): the key "null" no provider has.
    expect(route('null', DUBBO_2_7, { force: true })).toEqual([0, 1, 2]);
    expect(route('null', DUBBO_3_3, { force: true })).toEqual([]);
  });

  it('follows the conditionMissingKey switch alone on a 3.3 release', () => {
    expect(route('=> version != 2.0', { ...DUBBO_3_3, conditionMissingKey: 'pass' })).toEqual([0, 1]);
    expect(route('=> version != 2.0', { ...DUBBO_2_7, conditionMissingKey: 'fail' })).toEqual([0]);
  });

  it('says in the note what a missing value does under each', () => {
    const consumer = CONSUMER;
    const invokers = PROVIDERS.map((p) => new UrlInvoker(new ServiceAddressURL(URL.valueOf(p), consumer)));
    const note = (release: DubboRelease) =>
      new ConditionStateRouter('region = hz => host = 10.0.0.3', { runtime: { release } }).route(invokers, consumer, call()).trace.note;
    expect(note(DUBBO_3_3)).toContain('a missing value fails the key, also for "!="');
    expect(note(DUBBO_2_7)).toContain('a missing value fails a key with "=" values (and passes one with only "!=" values: Dubbo 2.7)');
  });
});

describe('3.2+ condition features read as 2.7.23 reads them', () => {
  it('a~b is a literal glob in 2.7 (no RangeValuePattern), a range in 3.3', () => {
    const providers = [`dubbo://10.0.0.1:20880/${IFACE}?weight=150`, `dubbo://10.0.0.2:20880/${IFACE}?weight=100~200`];
    expect(route('=> weight = 100~200', DUBBO_3_3, { providers })).toEqual([0]);
    expect(route('=> weight = 100~200', DUBBO_2_7, { providers })).toEqual([1]);
  });

  it('attachments[x] is a URL parameter named so in 2.7 (no AttachmentConditionMatcher): absent, so != passes and = fails', () => {
    const inv = new RpcInvocation({ methodName: 'getUser', attachments: { lane: 'blue' } });
    expect(route('attachments[lane] = blue => host = 10.0.0.1', DUBBO_3_3, { inv })).toEqual([0]);
    expect(route('attachments[lane] = blue => host = 10.0.0.1', DUBBO_2_7, { inv })).toEqual([0, 1, 2]);
    expect(route('attachments[lane] != red => host = 10.0.0.1', DUBBO_2_7, { inv })).toEqual([0]);
  });

  it('an arguments[N] past the last argument fails the condition in 2.7 (matchArguments), where 3.3 reads its not-found value', () => {
    // 3.3: the not-found value never equals "x", so != passes; 2.7: the condition fails.
    expect(route('arguments[1] != x => host = 10.0.0.1', DUBBO_3_3, { inv: call('getUser', ['a']) })).toEqual([0]);
    expect(route('arguments[1] != x => host = 10.0.0.1', DUBBO_2_7, { inv: call('getUser', ['a']) })).toEqual([0, 1, 2]);
    expect(route('arguments[0] = a => host = 10.0.0.1', DUBBO_2_7, { inv: call('getUser', ['a']) })).toEqual([0]);
  });

  it("a generic call's method is $invoke in 2.7 (invocation.getMethodName()), the named method in 3.3 (RpcUtils.getMethodName)", () => {
    const inv = call('$invoke', ['getUser', ['java.lang.String'], ['a']]);
    expect(route('method = getUser => host = 10.0.0.1', DUBBO_3_3, { inv })).toEqual([0]);
    expect(route('method = getUser => host = 10.0.0.1', DUBBO_2_7, { inv })).toEqual([0, 1, 2]);
  });

  it('notes the literal range and the attachments key under 2.7', () => {
    const invokers = PROVIDERS.map((p) => new UrlInvoker(new ServiceAddressURL(URL.valueOf(p), CONSUMER)));
    const note = new ConditionStateRouter('attachments[lane] = blue => weight = 1~5', { runtime: { release: DUBBO_2_7 } }).route(invokers, CONSUMER, call()).trace.note;
    expect(note).toContain('"attachments[lane]" is a URL parameter of that name in Dubbo 2.7 (attachments[...] conditions are first in 3.2)');
    expect(note).toContain('"1~5" is literal text in Dubbo 2.7 (range patterns are first in 3.2)');
  });
});

describe("the then-part reads 2.7's merged invoker URL (RegistryDirectory.java:352-381, DefaultProviderURLMergeProcessor.java:51-110)", () => {
  const consumer = URL.valueOf(`consumer://10.20.1.5/${IFACE}?application=web&interface=${IFACE}&timeout=500&release=2.7.23&group=g`);
  const providers = [`dubbo://10.0.0.1:20880/${IFACE}?application=users&timeout=3000&threads=50`, `dubbo://10.0.0.2:20880/${IFACE}?application=orders&group=p`];

  it("sees the consumer's parameters over the provider's, and remote.application for the provider's application", () => {
    expect(route('=> application = users', DUBBO_3_3, { providers, consumer })).toEqual([0]);
    expect(route('=> application = users', DUBBO_2_7, { providers, consumer, force: true })).toEqual([]);
    expect(route('=> remote.application = users', DUBBO_2_7, { providers, consumer })).toEqual([0]);
    expect(route('=> timeout = 500', DUBBO_2_7, { providers, consumer })).toEqual([0, 1]);
    expect(route('=> timeout = 500', DUBBO_3_3, { providers, consumer, force: true })).toEqual([]);
  });

  it('keeps group and version when the provider has them, never takes release, and drops the provider pool keys', () => {
    const merged = mergedUrl27(URL.valueOf(providers[1]!), consumer);
    expect(merged.getParameter('group')).toBe('p');
    expect(mergedUrl27(URL.valueOf(providers[0]!), consumer).getParameter('group')).toBe('g');
    expect(merged.getParameter('release')).toBeUndefined();
    expect(mergedUrl27(URL.valueOf(providers[0]!), consumer).getParameter('threads')).toBeUndefined();
    expect(merged.getParameter('check')).toBe('false');
  });
});

describe('a null YAML condition item under 2.7 (2.7 ConditionRouter.init: "Illegal route rule!" for a null rule)', () => {
  it('is refused under 2.7, where Dubbo drops the whole rule, and read as the text "null" under 3.3', async () => {
    const { conditionRouter } = await import('../../../../src/dubbo/router/rule-routers.js');
    const yaml = 'force: true\nconditions:\n  - "=> host = 10.0.0.1"\n  -\n';
    expect(() => conditionRouter(yaml, { runtime: { release: DUBBO_2_7 } })).toThrow(/conditions\[1\] is null: Dubbo 2\.7 cannot build a condition from it/);
    expect(() => conditionRouter(yaml, { runtime: { release: DUBBO_3_3 } })).not.toThrow();
  });
});
