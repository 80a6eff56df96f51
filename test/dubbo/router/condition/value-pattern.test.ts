/**
 * The value patterns of condition rules, unit by unit: RangeValuePattern (inclusive integer ranges,
 * Java's split and parseInteger, the default an invalid range or value gives), UrlUtils.isMatchGlobPattern
 * (Dubbo's UrlUtilsTest vectors and the edges of its one wildcard), and how a value pattern picks
 * between the two and resolves `$name` references.
 */
import { describe, expect, it } from 'vitest';
import { isMatchGlobPattern, matchRange, matchValuePattern } from '../../../../src/dubbo/router/condition/value-pattern.js';
import { URL } from '../../../../src/dubbo/url.js';

// Integer.MAX_VALUE and the first value Integer.parseInt refuses (NumberFormatException).
const INT_MAX = '2147483647';
const OVERFLOW = '2147483648';

describe('matchRange (RangeValuePattern.match)', () => {
  it('matches an inclusive range start~end, both bounds included', () => {
    // ConditionStateRouterTest#testRoute_Range_Pattern: user_id 80 is in 1~100, 101 is not.
    expect(matchRange('1~100', '80', true)).toBe(true);
    expect(matchRange('1~100', '101', true)).toBe(false);
    expect(matchRange('10~20', '10', true)).toBe(true);
    expect(matchRange('10~20', '20', true)).toBe(true);
    expect(matchRange('10~20', '9', true)).toBe(false);
    expect(matchRange('10~20', '21', true)).toBe(false);
  });

  it('matches an open start ~end up to and including end', () => {
    expect(matchRange('~100', '100', true)).toBe(true);
    expect(matchRange('~100', '0', true)).toBe(true);
    expect(matchRange('~100', '101', true)).toBe(false);
  });

  it('reads a non-numeric value as 0 (StringUtils.parseInteger), in or out of the range', () => {
    expect(matchRange('0~5', 'abc', true)).toBe(true);
    expect(matchRange('1~5', 'abc', true)).toBe(false);
    // Digits with anything before or after are not a number either.
    expect(matchRange('0~5', 'a12', true)).toBe(true);
    expect(matchRange('0~5', '12a', true)).toBe(true);
    expect(matchRange('0~5', '-3', true)).toBe(true);
    expect(matchRange('0~5', '', true)).toBe(true);
  });

  it('reads a value of several digits as the whole number', () => {
    expect(matchRange('10~20', '15', true)).toBe(true);
    expect(matchRange('0~5', '12', true)).toBe(false);
  });

  it('reads Integer.MAX_VALUE as a number and anything larger as invalid (the default)', () => {
    expect(matchRange('~2147483647', INT_MAX, true)).toBe(true);
    expect(matchRange('2147483647~', INT_MAX, true)).toBe(false); // `start~` splits to one part: invalid
    expect(matchRange('5~~0', INT_MAX, true)).toBe(true);
    // An overflowing value is the default: false in a when-part, true in a then-part.
    expect(matchRange('1~5', OVERFLOW, true)).toBe(false);
    expect(matchRange('1~5', OVERFLOW, false)).toBe(true);
  });

  it('treats a pattern that splits to fewer than two parts (`100~`, `~`) as invalid: false in when, true in then', () => {
    // Java's String.split drops trailing empty strings: "5~" is ["5"].
    expect(matchRange('1~', '5', true)).toBe(false);
    expect(matchRange('1~', '5', false)).toBe(true);
    expect(matchRange('~', '5', true)).toBe(false);
    expect(matchRange('~', '5', false)).toBe(true);
  });

  it('treats a pattern whose first two parts are empty (`~~5`) as invalid', () => {
    expect(matchRange('~~5', '0', true)).toBe(false);
    expect(matchRange('~~5', '0', false)).toBe(true);
  });

  it('reads `start~~end` as an open end: the value at or above start matches', () => {
    // "1~~5".split("~") is ["1", "", "5"]: the second part is empty.
    expect(matchRange('3~~5', '3', true)).toBe(true);
    expect(matchRange('3~~5', '9', true)).toBe(true);
    expect(matchRange('3~~5', '2', true)).toBe(false);
  });

  it('gives the default when a bound overflows an int', () => {
    expect(matchRange('~2147483648', '5', true)).toBe(false);
    expect(matchRange('~2147483648', '5', false)).toBe(true);
    expect(matchRange('2147483648~~1', '5', true)).toBe(false);
    expect(matchRange('2147483648~~1', '5', false)).toBe(true);
    expect(matchRange('2147483648~9', '5', false)).toBe(true);
    expect(matchRange('1~2147483648', '5', false)).toBe(true);
    expect(matchRange('1~2147483648', '5', true)).toBe(false);
    expect(matchRange('2147483648~9', '5', true)).toBe(false);
  });

  it('reads a non-numeric bound as 0', () => {
    expect(matchRange('x~5', '0', true)).toBe(true);
    expect(matchRange('1~x', '1', true)).toBe(false);
    expect(matchRange('~x', '0', true)).toBe(true);
    expect(matchRange('~x', '1', true)).toBe(false);
  });
});

describe('isMatchGlobPattern (UrlUtils.isMatchGlobPattern)', () => {
  it("matches Dubbo's UrlUtilsTest#testIsMatchGlobPattern vectors", () => {
    expect(isMatchGlobPattern('*', 'value')).toBe(true);
    expect(isMatchGlobPattern('', undefined)).toBe(true);
    expect(isMatchGlobPattern('', 'value')).toBe(false);
    expect(isMatchGlobPattern('value', 'value')).toBe(true);
    expect(isMatchGlobPattern('v*', 'value')).toBe(true);
    expect(isMatchGlobPattern('*e', 'value')).toBe(true);
    expect(isMatchGlobPattern('v*e', 'value')).toBe(true);
  });

  it('matches `*` against an empty or missing value', () => {
    expect(isMatchGlobPattern('*', '')).toBe(true);
    expect(isMatchGlobPattern('*', undefined)).toBe(true);
  });

  it('matches an empty or missing pattern only against an empty or missing value', () => {
    expect(isMatchGlobPattern('', '')).toBe(true);
    expect(isMatchGlobPattern(undefined, '')).toBe(true);
    expect(isMatchGlobPattern(undefined, undefined)).toBe(true);
    expect(isMatchGlobPattern(undefined, 'value')).toBe(false);
  });

  it('does not match a missing or empty value against a non-empty pattern', () => {
    expect(isMatchGlobPattern('v*', undefined)).toBe(false);
    expect(isMatchGlobPattern('value', undefined)).toBe(false);
    expect(isMatchGlobPattern('value', '')).toBe(false);
  });

  it('compares a pattern without `*` as exact, case-sensitive text', () => {
    expect(isMatchGlobPattern('value', 'Value')).toBe(false);
    expect(isMatchGlobPattern('value', 'values')).toBe(false);
    expect(isMatchGlobPattern('a.b', 'axb')).toBe(false);
    // Neither a prefix nor a suffix match: `ab` is not `abab`.
    expect(isMatchGlobPattern('ab', 'abab')).toBe(false);
  });

  it('matches a trailing `*` as a prefix, a leading `*` as a suffix, a middle `*` as both', () => {
    expect(isMatchGlobPattern('10.20.*', '10.20.3.1')).toBe(true);
    expect(isMatchGlobPattern('10.20.*', '10.30.3.1')).toBe(false);
    expect(isMatchGlobPattern('10.20.*', 'x10.20.3')).toBe(false);
    expect(isMatchGlobPattern('*.3.1', '10.20.3.1')).toBe(true);
    expect(isMatchGlobPattern('*.3.1', '10.20.3.2')).toBe(false);
    expect(isMatchGlobPattern('*.3.1', '3.1.x')).toBe(false);
    expect(isMatchGlobPattern('v*e', 'vase')).toBe(true);
    expect(isMatchGlobPattern('v*e', 'vast')).toBe(false);
    expect(isMatchGlobPattern('v*e', 'base')).toBe(false);
  });

  it('treats only the last `*` as a wildcard; an earlier one is literal', () => {
    expect(isMatchGlobPattern('a*b*', 'a*bc')).toBe(true);
    expect(isMatchGlobPattern('a*b*', 'axbc')).toBe(false);
    expect(isMatchGlobPattern('*a*', 'xax')).toBe(false);
    expect(isMatchGlobPattern('*a*', '*ax')).toBe(true);
  });
});

describe('matchValuePattern (AbstractConditionMatcher.doPatternMatch)', () => {
  const consumer = URL.valueOf('consumer://10.20.1.5/com.example.UserService?key=v*e&zone=zoneA');

  it('uses the range pattern when the pattern contains `~`, with its when/then default', () => {
    expect(matchValuePattern('1~100', '80', null, true)).toBe(true);
    expect(matchValuePattern('1~100', '101', null, true)).toBe(false);
    expect(matchValuePattern('100~', '500', null, true)).toBe(false);
    expect(matchValuePattern('100~', '500', consumer, false)).toBe(true);
  });

  it('reads `a~b` as literal glob text when ranges are off (Dubbo 2.7)', () => {
    expect(matchValuePattern('1~100', '80', null, true, false)).toBe(false);
    expect(matchValuePattern('1~100', '1~100', null, true, false)).toBe(true);
  });

  it('resolves `$name` against the consumer URL in then-parts (UrlUtilsTest: $key is v*e)', () => {
    expect(matchValuePattern('$key', 'value', consumer, false)).toBe(true);
    expect(matchValuePattern('$zone', 'zoneA', consumer, false)).toBe(true);
    expect(matchValuePattern('$zone', 'zoneB', consumer, false)).toBe(false);
    expect(matchValuePattern('$host', '10.20.1.5', consumer, false)).toBe(true);
  });

  it('matches a `$name` the consumer URL lacks only against an empty value', () => {
    expect(matchValuePattern('$missing', 'x', consumer, false)).toBe(false);
    expect(matchValuePattern('$missing', '', consumer, false)).toBe(true);
  });

  it('reads `$name` as literal text in when-parts (no consumer URL to resolve against)', () => {
    expect(matchValuePattern('$zone', '$zone', null, true)).toBe(true);
    expect(matchValuePattern('$zone', 'zoneA', null, true)).toBe(false);
  });

  it('compares a pattern without `$` as a glob even with a consumer URL at hand', () => {
    expect(matchValuePattern('zone', 'zone', consumer, false)).toBe(true);
    expect(matchValuePattern('zone*', 'zoneA', consumer, false)).toBe(true);
    expect(matchValuePattern('zone', 'zoneA', consumer, false)).toBe(false);
  });
});
