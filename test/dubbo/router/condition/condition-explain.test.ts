/**
 * Trace notes that explain a silent non-match, each following the Dubbo 3.3 code that causes it
 * (branch 3.3, commit 324c625, dubbo-cluster `router/condition/`):
 * - AttachmentConditionMatcher.java:53-57 — `key.split("\\.")[0]` then `attachments\[(.+)\]`:
 *   `attachments[lane.tag]` is read as `attachments[lane` and gives DOES_NOT_FOUND_VALUE;
 * - ArgumentConditionMatcher.java:53-64 — the same split; an index past the arguments gives the
 *   not-found value (and `index == length` throws into the same catch);
 * - AbstractConditionMatcher.java:69-75 — a null value is false, also for `!=`;
 * - ConditionStateRouter.java:111 — `consumer.` and `provider.` deleted from the whole text;
 *   lines 300-314 — when-parts get the invocation, then-parts get none (`doMatch(url, param, null, ...)`);
 * - RangeValuePattern — `100~` splits to one part (Java drops trailing empty strings): invalid.
 */
import { describe, expect, it } from 'vitest';
import { explainWhenMiss, findWhenMiss, ruleTextHazards } from '../../../../src/dubbo/router/condition/condition-explain.js';
import { parseConditionText } from '../../../../src/dubbo/router/condition/condition-rule-text.js';
import { ConditionStateRouter } from '../../../../src/dubbo/router/condition/condition-state-router.js';
import { URL } from '../../../../src/dubbo/url.js';
import { invocationOf, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.7/com.example.UserService?application=web&env=prod');
const PROVIDERS = invokersOf([
  'dubbo://10.0.2.1:20880/com.example.UserService?zone=zoneA',
  'dubbo://10.0.2.2:20880/com.example.UserService?zone=zoneB',
]);

function note(rule: string, call: Parameters<typeof invocationOf>[0] = { methodName: 'getUserById', arguments: ['7'], attachments: { lane: 'blue' } }) {
  return new ConditionStateRouter(rule).route(PROVIDERS, CONSUMER, invocationOf(call)).trace.note;
}

describe('when-part non-matches', () => {
  it('explains that attachments[lane.tag] never matches because Dubbo splits the key at the dot', () => {
    const text = note('attachments[lane.tag] = gray => zone = zoneA', { methodName: 'm', attachments: { 'lane.tag': 'gray' } });
    expect(text).toBe(
      'the when-part does not match this consumer/call, so the rule is skipped ' +
        '[Dubbo splits a condition key at its first "." (AttachmentConditionMatcher), so "attachments[lane.tag]" is read as ' +
        `"attachments[lane", which names no attachment: it reads Dubbo's not-found value, so "=" never matches and "!=" always does]`,
    );
  });

  it('says the same on a != condition, which therefore always matches', () => {
    const r = new ConditionStateRouter('attachments[lane.tag] != gray => zone = zoneA');
    const res = r.route(PROVIDERS, CONSUMER, invocationOf({ methodName: 'm', attachments: { 'lane.tag': 'gray' } }));
    expect(res.trace.matchedWhen).toBe(true);
    expect(res.trace.note).toContain('"!=" always does]');
  });

  it('names an argument index past the call\'s arguments', () => {
    expect(note('arguments[1] = 5 => zone = zoneA')).toContain(
      "arguments[1] does not satisfy = 5 (or the call has fewer than 2 arguments: then arguments[1] reads Dubbo's not-found value",
    );
  });

  it('names the method a method condition wants', () => {
    expect(note('method = getUser => zone = zoneA')).toBe(
      "the when-part does not match this consumer/call, so the rule is skipped: the call's method is none of getUser",
    );
  });

  it('says a missing attachment fails a != condition too', () => {
    expect(note('attachments[region] != north => zone = zoneA')).toBe(
      'the when-part does not match this consumer/call, so the rule is skipped: the call has no attachment "region"; a missing value fails the key, also for "!="',
    );
  });

  it('names a consumer parameter that is missing, or its value', () => {
    expect(note('region != north => zone = zoneA')).toContain('the consumer URL has no "region" parameter; a missing value fails the key, also for "!="');
    expect(note('env = gray => zone = zoneA')).toContain('the consumer\'s env is "prod", the rule wants = gray');
  });

  it("names the consumer's address key but not its value (instances that decide alike share one note)", () => {
    expect(note('host = 10.10.1.5 => zone = zoneA')).toContain("the consumer's host does not satisfy = 10.10.1.5");
    expect(note('host = 10.10.1.5 => zone = zoneA')).not.toContain('10.20.1.7');
  });

  it('points at the first key that fails, and only at it', () => {
    const when = parseConditionText('application = web & method = getUser & env = gray => zone = zoneA').when;
    expect(findWhenMiss(when, CONSUMER, invocationOf({ methodName: 'list' }))).toEqual({ index: 1, kind: 'mismatch' });
    expect(explainWhenMiss(when, CONSUMER, invocationOf({ methodName: 'getUser' }))).toBe('the consumer\'s env is "prod", the rule wants = gray');
    expect(explainWhenMiss(when, URL.valueOf('consumer://10.20.1.7/S?application=web&env=gray'), invocationOf({ methodName: 'getUser' }))).toBeUndefined();
  });

  it('flags $name and half-open ranges in a when-part', () => {
    expect(note('host = $host => zone = zoneA')).toContain('"$host" is compared as the literal text: Dubbo resolves $name only in then-parts');
    expect(note('port = 100~ => zone = zoneA')).toContain('range "100~" is invalid');
  });
});

describe('then-part non-matches', () => {
  it('explains that a then-part cannot read attachments (Dubbo passes no invocation there)', () => {
    expect(note('=> attachments[lane] = blue')).toContain(
      'attachments[lane] in a then-part reads the invocation, which Dubbo does not pass to then-parts, so "=" matches no provider',
    );
  });

  it('names a parameter no provider has, with force: true as well', () => {
    const r = new ConditionStateRouter('=> region = north', { force: true });
    expect(r.route(PROVIDERS, CONSUMER, invocationOf(null)).trace.note).toBe(
      'force: true and the then-part matched none of 2 providers (no provider URL has a "region" parameter; a missing value fails the key, also for "!=")',
    );
  });

  it('explains a method condition in a then-part', () => {
    expect(note('=> method = getUser')).toContain(
      '"method" in a then-part reads each provider URL\'s method parameter, not the call\'s method',
    );
  });

  it('keeps the plain note for an ordinary value mismatch', () => {
    const r = new ConditionStateRouter('=> zone = zoneC', { force: true });
    expect(r.route(PROVIDERS, CONSUMER, invocationOf(null)).trace.note).toBe('force: true and the then-part matched none of 2 providers');
  });

  it('flags a bare key left by a space inside a value', () => {
    expect(note('=> zone = zone A')).toContain('"A" has no "=" or "!=" (Dubbo splits values at whitespace');
  });
});

describe('rule text', () => {
  it('flags consumer./provider. deleted inside a value, not as a key prefix', () => {
    expect(ruleTextHazards('consumer.application = web => provider.zone = zoneA')).toEqual([]);
    expect(ruleTextHazards('application = my-provider.web => zone = zoneA')).toEqual([
      'Dubbo deletes "provider." everywhere in the rule text, so "my-provider.web" is read as "my-web"',
    ]);
    expect(note('application=consumer.web => zone = zoneA')).toContain('so "consumer.web" is read as "web"');
  });
});
