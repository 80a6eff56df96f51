import { describe, expect, it } from 'vitest';
import { clipMessage, clipText, escapeControl, escapeTerminal, MAX_MESSAGE_CHARS } from '../../src/scenario/clip-text.js';

describe('escapeControl', () => {
  it('escapes newlines, tabs, escape sequences, DEL, C1 and bidi overrides, and keeps other text', () => {
    expect(escapeControl('a\nb\tc\u001b[31md\u007fe\u0085f\u202eg ä 中')).toBe('a\\nb\\tc\\x1b[31md\\x7fe\\x85f\\u202eg ä 中');
  });
});

describe('escapeTerminal', () => {
  it('keeps line feeds and tabs, escapes C0 as \\x1b and DEL, C1 and bidi characters as \\u escapes', () => {
    expect(escapeTerminal('a\nb\tc\u001b[31md\re\u0007f\u007fg\u009bh\u202ei ä 中')).toBe('a\nb\tc\\x1b[31md\\re\\x07f\\u007fg\\u009bh\\u202ei ä 中');
  });

  it('leaves JSON valid, with the same value', () => {
    const value = { name: 'x\u007f\u0085\u009b\u2028\u202e\u2066y', n: [1, 2] };
    const json = escapeTerminal(JSON.stringify(value, null, 2));
    expect(json).not.toMatch(/[\u007f-\u009f\u2028\u202e\u2066]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('clipText', () => {
  it('keeps short text as it is', () => {
    expect(clipText('zoneA')).toBe('zoneA');
  });

  it('cuts long text to 200 characters and says how many were left out', () => {
    const out = clipText('x'.repeat(5000));
    expect(out).toBe(`${'x'.repeat(200)}… (4,800 more characters)`);
  });
});

describe('clipMessage', () => {
  it('shortens a long quoted value and keeps the rest of the message', () => {
    const msg = `expected a zone, found "${'z'.repeat(1000)}"; did you mean "zoneA"?`;
    const out = clipMessage(msg);
    expect(out.startsWith('expected a zone, found "zzzz')).toBe(true);
    expect(out).toContain('…" (1,000 characters)');
    expect(out.endsWith('did you mean "zoneA"?')).toBe(true);
    expect(out.length).toBeLessThan(200);
  });

  it('shortens an unquoted long word (yargs echoes options as they were typed)', () => {
    const out = clipMessage(`Unknown argument: ${'q'.repeat(10_000)}`);
    expect(out.length).toBeLessThan(200);
    expect(out).toContain('(10,000 characters)');
  });

  it('never returns more than the message limit plus the note, nor a raw control character', () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}\u0007`).join(' ');
    const out = clipMessage(words);
    expect(out.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 40);
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});
