/**
 * Java regular expressions as Dubbo's rules use them, matched in linear time. Dubbo calls
 * `input.matches(regex)` (StringMatch.isMatch: the whole input must match); zonesim compiles the
 * pattern with RE2 (re2js), whose matching time grows linearly with the input, so a rule such as
 * `(a+)+$` cannot hang a run or `zonesim route`. RE2 leaves out what needs backtracking
 * (backreferences, lookahead and lookbehind, possessive quantifiers, atomic groups) and a few Java
 * escapes and classes; a pattern using one is refused with a message naming the feature, and Java
 * constructs that RE2 would read with another meaning (`[a&&b]`, nested classes, `\v`, `(?U)`) are
 * refused too. `\uXXXX` and octal `\0nn` escapes are translated. Owns the translation, the check
 * and the compiled-pattern cache; which rule field holds a regex is the rule parsers' business.
 */
import { RE2JS } from 're2js';

// DIVERGENCE: Java's regex engine backtracks (exponential time on some patterns); zonesim matches in
// linear time with RE2 and refuses the Java features RE2 does not have, rather than risk a hang.

/** A pattern that compiled, or why it cannot be used. */
export type JavaRegexResult = { ok: true; regex: RE2JS } | { ok: false; problem: string };

const cache = new Map<string, JavaRegexResult>();

/** What the refusal says about RE2, after the feature it names. */
const RE2_NOTE = 'zonesim matches rule regexes with RE2 in linear time, which has no backreferences, lookaround, possessive quantifiers or atomic groups';

function unsupported(feature: string): { problem: string } {
  return { problem: `uses ${feature}, which RE2 does not support (${RE2_NOTE})` };
}

/**
 * Java syntax → RE2 syntax, or the Java feature that has no RE2 equivalent. Only what differs is
 * touched; everything else is passed on for RE2 to parse.
 */
function translate(pattern: string): { source: string } | { problem: string } {
  let out = '';
  let inClass = false;
  // Index in `out` after which a `]` closes the class (a `]` right after `[` or `[^` is a literal).
  let classBodyStart = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) return { source: out + c }; // RE2 reports the trailing backslash
      if (n === 'Q') {
        // \Q...\E quotes literally in both syntaxes: copy it through untouched.
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end === -1 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      if (!inClass && n >= '1' && n <= '9') return unsupported(`a backreference (\\${n})`);
      if (n === 'k' && pattern[i + 2] === '<') return unsupported('a named backreference (\\k<name>)');
      if (n === 'v') return unsupported('\\v (in Java any vertical whitespace; in RE2 only the \\x0B character)');
      if (n === 'u') {
        const hex = pattern.slice(i + 2, i + 6);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += `\\x{${hex}}`;
          i += 5;
          continue;
        }
      }
      if (n === '0') {
        // Java octal: \0n, \0nn, \0mnn (m <= 3).
        const m = /^[0-3][0-7]{2}|^[0-7]{1,2}/.exec(pattern.slice(i + 2));
        if (m === null) return unsupported('\\0 without octal digits');
        out += `\\x{${parseInt(m[0], 8).toString(16)}}`;
        i += 1 + m[0].length;
        continue;
      }
      out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[') return unsupported('a nested character class or class union ([a[b]]; RE2 reads [[:alpha:]] as a POSIX class)');
      if (c === '&' && pattern[i + 1] === '&') return unsupported('a character class intersection (&&)');
      if (c === ']' && out.length > classBodyStart) inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      classBodyStart = out.length;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      if (rest.startsWith('=') || rest.startsWith('!')) return unsupported(`a lookahead ((?${rest[0]}...))`);
      if (rest.startsWith('<=') || rest.startsWith('<!')) return unsupported(`a lookbehind ((?${rest.slice(0, 2)}...))`);
      if (rest.startsWith('>')) return unsupported('an atomic group ((?>...))');
      const flags = /^[a-zA-Z-]*(?=[:)])/.exec(rest)?.[0] ?? '';
      if (flags.includes('U')) return unsupported('the U flag (in Java UNICODE_CHARACTER_CLASS; in RE2 ungreedy matching)');
    }
    out += c;
  }
  return { source: out };
}

// RE2's parse errors for patterns Java accepts, as the feature they name.
function describeRe2Error(message: string): { problem: string } {
  const detail = message.replace(/^error parsing regexp: /, '');
  const arg = /`([^`]*)`/.exec(detail)?.[1] ?? '';
  if (detail.startsWith('invalid nested repetition operator') && /[*+?}]\+$/.test(arg)) {
    return unsupported(`a possessive quantifier (${arg})`);
  }
  if (detail.startsWith('invalid escape sequence')) return unsupported(`the escape ${arg}`);
  if (detail.startsWith('invalid or unsupported Perl syntax')) return unsupported(`the group syntax ${arg}`);
  if (detail.startsWith('invalid character class range') && arg.startsWith('\\p')) {
    return unsupported(`the character class ${arg} (RE2 knows Unicode categories and scripts such as \\p{L} or \\p{Greek}, not Java's POSIX or java* names)`);
  }
  if (detail.startsWith('invalid repeat count')) return unsupported(`a repetition count above 1000 (${arg})`);
  return { problem: `is not a valid regular expression: ${detail}` };
}

/**
 * Compiles a Java regex for full-input matching (cached by pattern). Never throws: a pattern that
 * cannot be used gives `{ ok: false, problem }`, a phrase to put after the pattern in a message.
 */
export function compileJavaRegex(pattern: string): JavaRegexResult {
  let result = cache.get(pattern);
  if (result !== undefined) return result;
  const t = translate(pattern);
  if ('problem' in t) result = { ok: false, problem: t.problem };
  else {
    try {
      result = { ok: true, regex: RE2JS.compile(t.source) };
    } catch (error) {
      result = { ok: false, ...describeRe2Error((error as Error).message) };
    }
  }
  cache.set(pattern, result);
  return result;
}

/**
 * Java `input.matches(pattern)`: true when the whole input matches. Throws on a pattern that
 * `compileJavaRegex` refuses (rule parsers check their patterns first).
 */
export function javaMatches(pattern: string, input: string): boolean {
  const compiled = compileJavaRegex(pattern);
  if (!compiled.ok) throw new Error(`regex ${JSON.stringify(pattern)} ${compiled.problem}`);
  return compiled.regex.matches(input);
}
