/**
 * Java regexes of Dubbo rules (StringMatch.isMatch: `input.matches(regex)`), matched by RE2: the
 * whole input must match, Java syntax that RE2 shares keeps its meaning, and the Java features RE2
 * leaves out are refused with a message naming them.
 */
import { describe, expect, it } from 'vitest';
import { compileJavaRegex, javaMatches } from '../../../src/dubbo/router/java-regex.js';
import { parseTagRule } from '../../../src/dubbo/router/tag/tag-router-rule.js';
import { RouterRuleError } from '../../../src/dubbo/router/router-rule-error.js';

describe('javaMatches (Java String.matches)', () => {
  it.each([
    ['1\\.0\\..*', '1.0.3', true],
    ['1\\.0\\..*', 'v1.0.3', false], // a full match, not a search
    ['gray|canary', 'canary', true],
    ['gray|canary', 'canary-2', false],
    ['a|ab', 'ab', true], // alternation order does not matter for a full match
    ['(?i)GRAY', 'gray', true],
    ['[^0-9]+', 'abc', true],
    ['[]a]+', ']a]', true],
    ['\\Qa.b\\E', 'a.b', true],
    ['\\Qa.b\\E', 'axb', false],
    ['\\u0041+', 'AAA', true],
    ['\\0101', 'A', true],
    ['(a+)+$', 'aaaa', true],
    ['(a+)+$', 'aaaab', false],
  ])('%s matches %s: %s', (pattern, input, expected) => {
    expect(javaMatches(pattern, input)).toBe(expected);
  });

  it('answers a pattern that backtracking engines take exponential time on, on a long input', () => {
    // With a backtracking engine this input takes about 2^5000 steps; RE2 reads it once.
    expect(javaMatches('(a+)+$', 'a'.repeat(5000) + 'b')).toBe(false);
    expect(javaMatches('(a|aa)+$', 'a'.repeat(5000))).toBe(true);
  });
});

describe('Java features RE2 leaves out', () => {
  it.each([
    ['(a)\\1', 'a backreference (\\1)'],
    ['(?<x>a)\\k<x>', 'a named backreference'],
    ['a(?=b)', 'a lookahead'],
    ['a(?!b)', 'a lookahead'],
    ['(?<=a)b', 'a lookbehind'],
    ['(?<!a)b', 'a lookbehind'],
    ['a++', 'a possessive quantifier (++)'],
    ['a*+', 'a possessive quantifier (*+)'],
    ['a{2}+', 'a possessive quantifier ({2}+)'],
    ['(?>a)', 'an atomic group'],
    ['[a[b]]', 'a nested character class'],
    ['[a-z&&b]', 'a character class intersection (&&)'],
    ['[[:alpha:]]', 'a nested character class'],
    ['\\p{Lower}', 'the character class \\p{Lower}'],
    ['\\R', 'the escape \\R'],
    ['\\v', '\\v (in Java any vertical whitespace'],
    ['(?U)\\w', 'the U flag'],
    ['(?x)a b', 'the group syntax (?x'],
    ['a{1001}', 'a repetition count above 1000'],
  ])('%s is refused as %s', (pattern, feature) => {
    const result = compileJavaRegex(pattern);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem).toContain(`uses ${feature}`);
    expect(result.problem).toContain('which RE2 does not support');
  });

  it('calls a pattern that Java would reject too not a valid regular expression', () => {
    const result = compileJavaRegex('(');
    expect(result).toEqual({ ok: false, problem: expect.stringMatching(/^is not a valid regular expression: missing closing \)/) });
  });

  it('keeps the feature inside \\Q...\\E literal', () => {
    expect(javaMatches('\\Q(?=x)\\1\\E', '(?=x)\\1')).toBe(true);
  });
});

describe('tag rule regexes', () => {
  const rule = (regex: string) =>
    `configVersion: v3.0\nkey: users\ntags:\n  - name: gray\n    match:\n      - key: version\n        value: { regex: ${JSON.stringify(regex)} }`;

  it('refuse a Java feature RE2 leaves out with a RouterRuleError naming the tag, the field and the feature', () => {
    expect(() => parseTagRule(rule('(a)\\1'))).toThrow(RouterRuleError);
    expect(() => parseTagRule(rule('(a)\\1'))).toThrow(
      'tag rule: tags[0].match[0].value.regex (tag "gray"): "(a)\\\\1" uses a backreference (\\1), which RE2 does not support',
    );
  });

  it('accept an RE2 pattern', () => {
    expect(parseTagRule(rule('1\\.0\\..*')).tags[0]!.match![0]!.value!.regex).toBe('1\\.0\\..*');
  });
});
