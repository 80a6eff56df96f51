/**
 * JSON larger than one string: the piecewise writer gives exactly JSON.stringify's text and the
 * piecewise reader exactly JSON.parse's value (differential tests on random documents, with pieces
 * made tiny so that every path is walked), and bad bytes are refused with their offset.
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { bodyText, jsonBody, writeJson } from '../../src/cli/json-out.js';
import { JsonBytesError, lineAndColumn, locateJsonBytes, parseJsonBytes } from '../../src/cli/json-in.js';

/** A random JSON-ish value: nested maps and lists, strings with escapes and non-ASCII, numbers, and what JSON.stringify drops. */
function randomValue(rng: () => number, depth: number): unknown {
  const pick = Math.floor(rng() * (depth > 4 ? 6 : 9));
  switch (pick) {
    case 0:
      return Math.floor(rng() * 2000) - 1000;
    case 1:
      return rng() * 1e6 - 5e5;
    case 2: {
      const chars = ['a', 'é', '"', '\\', '\n', '\u0001', '😀', ' ', 'Z', '</'];
      return Array.from({ length: Math.floor(rng() * 12) }, () => chars[Math.floor(rng() * chars.length)]).join('');
    }
    case 3:
      return [true, false, null][Math.floor(rng() * 3)];
    case 4:
      return [NaN, Infinity, undefined, () => 1][Math.floor(rng() * 4)];
    case 5:
      return rng() < 0.5 ? [] : {};
    case 6:
    case 7: {
      const n = Math.floor(rng() * 8);
      return Array.from({ length: n }, () => randomValue(rng, depth + 1));
    }
    default: {
      const keys = ['a', 'b', '__proto__', '10', '2', 'k"q', 'toString', 'x y', 'é'];
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(rng() * 6); i > 0; i--) {
        Object.defineProperty(out, keys[Math.floor(rng() * keys.length)]!, { value: randomValue(rng, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

function pieces(value: unknown, indent: number, pieceChars: number): string {
  const out: string[] = [];
  writeJson(value, (s) => out.push(s), { indent, pieceChars });
  return out.join('');
}

describe('the piecewise JSON writer', () => {
  it('writes what JSON.stringify writes, indented and compact, whatever the piece size (500 random documents)', () => {
    const rng = seedrandom('json-out');
    for (let i = 0; i < 500; i++) {
      const value = randomValue(rng, 0);
      for (const indent of [0, 2]) {
        const expected = JSON.stringify(value, null, indent);
        for (const pieceChars of [0, 5, 40, 1e6]) expect(pieces(value, indent, pieceChars), `doc ${i}, indent ${indent}, piece ${pieceChars}`).toBe(expected ?? '');
      }
    }
  });

  it('calls toJSON as JSON.stringify does, and drops members that are undefined', () => {
    const value = { when: new Date(Date.UTC(2026, 0, 2)), list: [new Date(0), undefined], gone: undefined, nested: { toJSON: (key: string) => `key ${key}` } };
    expect(pieces(value, 2, 0)).toBe(JSON.stringify(value, null, 2));
  });

  it('writes a large document in many pieces, none of them the whole text', () => {
    const timeline = Array.from({ length: 50_000 }, (_, i) => ({ tMs: i, requests: i % 7, p99Ms: i / 3 }));
    const doc = { scenario: 's', cells: [{ index: 0, summary: { timeline } }, { index: 1, summary: { timeline } }] };
    const chunks: string[] = [];
    writeJson(doc, (s) => chunks.push(s), { indent: 2, pieceChars: 64 * 1024 });
    const expected = JSON.stringify(doc, null, 2);
    expect(chunks.join('')).toBe(expected);
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(expected.length / 5);
  });

  it('gives small documents as one string with a final newline, large ones as pieces with the same text', () => {
    expect(jsonBody({ a: [1, 2] })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}\n');
    const big = { rows: Array.from({ length: 600_000 }, (_, i) => ({ tMs: i, requests: i, p99Ms: 1.5, crossZoneRatio: 0.25 })) };
    const body = jsonBody(big);
    expect(typeof body).toBe('function');
    expect(bodyText(body)).toBe(JSON.stringify(big, null, 2) + '\n');
  });
});

describe('the piecewise JSON reader', () => {
  it('parses to what JSON.parse gives, whatever the piece size (500 random documents)', () => {
    const rng = seedrandom('json-in');
    for (let i = 0; i < 500; i++) {
      const text = JSON.stringify(randomValue(rng, 0), null, i % 3 === 0 ? 0 : 2) ?? 'null';
      const bytes = Buffer.from(` \n${text}\t\r\n`, 'utf8');
      const expected = JSON.parse(bytes.toString('utf8'));
      for (const pieceBytes of [0, 3, 30, 1e6]) {
        const parsed = parseJsonBytes(bytes, undefined, pieceBytes);
        expect(parsed, `doc ${i}, piece ${pieceBytes}`).toEqual(expected);
        // The same own keys in the same order, `__proto__` among them.
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(expected));
      }
    }
  });

  it('keeps "__proto__" as an own member, as JSON.parse does, and never as the prototype', () => {
    const parsed = parseJsonBytes(Buffer.from('{"__proto__": {"polluted": 1}, "a": [1]}'), undefined, 0) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['', 0, /empty/],
    ['[1, 2', 5, /ends inside a list/],
    ['{"a": 1,}', 8, /key in double quotes/],
    ['[1 2]', 3, /"," or "\]"/],
    ['{"a" 1}', 5, /":"/],
    ['[1] x', 4, /after the JSON value/],
    ['["abc]', 1, /never ends/],
    ['[tru]', 1, /not valid JSON|Unexpected|is not valid/],
  ])('refuses %j with the offset of the problem', (text, offset, message) => {
    let error: unknown;
    try {
      parseJsonBytes(Buffer.from(text), undefined, 0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonBytesError);
    expect((error as JsonBytesError).offset).toBe(offset);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses lists nested deeper than it walks instead of running out of stack', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => parseJsonBytes(Buffer.from(text), undefined, 10)).toThrow(/nested more than 64 levels/);
  });

  it('finds the offset, line and column of a field', () => {
    const text = '{\n  "cells": [\n    {"index": 0},\n    {"index": 1, "summary": {"requests": "x"}}\n  ]\n}\n';
    const bytes = Buffer.from(text);
    const offset = locateJsonBytes(bytes, ['cells', 1, 'summary', 'requests']);
    expect(text.slice(offset, offset + 3)).toBe('"x"');
    expect(lineAndColumn(bytes, offset)).toEqual({ line: 4, col: 42 });
    // A path that is not there: its deepest ancestor.
    expect(text.slice(locateJsonBytes(bytes, ['cells', 7]), locateJsonBytes(bytes, ['cells', 7]) + 1)).toBe('[');
  });
});
