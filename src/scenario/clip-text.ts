/**
 * Keeps what users typed from flooding or corrupting an error line: control characters (and the
 * bidirectional overrides that can make a terminal line read differently from its bytes) are
 * escaped, and long echoes of the input are cut. Error printers (`scenario-error.ts`, the CLI's
 * `reportError`) call it on every line they print; what the message says is their business. The
 * CLI passes everything else it prints through `escapeTerminal`.
 */

/** At most this many characters of one piece of input are echoed in an error line. */
export const MAX_ECHO_CHARS = 200;

/** A whole message (after the `file:line:col:` prefix) is cut at this length. */
export const MAX_MESSAGE_CHARS = 320;

/** A quoted value or an unbroken word longer than this is shortened inside a message. */
const MAX_PIECE_CHARS = 120;

// C0 controls, DEL, C1 controls, zero-width and bidi formatting characters, line/paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Replaces every control or formatting character with a visible escape (`\n`, `\x1b`, `\u202e`). */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// The same characters but line feed and tab, which lay out what the CLI prints.
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * What the CLI prints, made safe for a terminal: every control or formatting character except
 * line feed and tab is escaped, C0 ones as `escapeControl` does (`\x1b`, `\r`), the rest as
 * `\u009b` so that JSON output stays valid JSON with the same value (JSON.stringify escapes C0
 * characters itself, but leaves DEL, C1 and bidirectional ones raw).
 */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? escapeControl(c) : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Cuts `text` to `max` characters, saying how many were left out. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Do not split a surrogate pair.
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${(text.length - end).toLocaleString('en-US')} more characters)`;
}

/** One piece of input as it may appear in an error: escaped, at most `max` characters of it. */
export function clipText(text: string, max = MAX_ECHO_CHARS): string {
  return cut(escapeControl(text), max);
}

/**
 * A message as it may be printed: control characters escaped, each long quoted value or long
 * unbroken word shortened, and the whole cut at `MAX_MESSAGE_CHARS`.
 */
export function clipMessage(message: string): string {
  const escaped = escapeControl(message);
  const pieces = escaped.replace(/"(?:[^"\\]|\\.)*"|[^\s"]+/g, (piece) => {
    if (piece.length <= MAX_PIECE_CHARS) return piece;
    if (piece.startsWith('"') && piece.endsWith('"')) {
      const inner = piece.slice(1, -1);
      return `"${inner.slice(0, MAX_PIECE_CHARS - 20)}…" (${inner.length.toLocaleString('en-US')} characters)`;
    }
    return `${piece.slice(0, MAX_PIECE_CHARS - 20)}… (${piece.length.toLocaleString('en-US')} characters)`;
  });
  return cut(pieces, MAX_MESSAGE_CHARS);
}
