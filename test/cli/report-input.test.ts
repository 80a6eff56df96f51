/**
 * Reading results JSON for `zonesim report`: the JSON syntax scan (positions of the first error,
 * agreeing with JSON.parse on what is valid), locating a field path in the text, and the shape
 * check that turns a malformed summary into one `file:line:col: path: expected ..., found ...`.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { locateJsonPath, readCompareFile, readSummaryFile, scanJson } from '../../src/cli/report-input.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function validSummary(): Record<string, unknown> {
  const r = new Recorder({ warmupMs: 0, durationMs: 3000, bucketMs: 1000, providerGroups: [{ name: 'g', instances: 1, threads: 1 }] });
  const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'z', service: 'S', method: 'm', idempotent: true, startMs: 10 });
  r.endRequest(req, 'ok', 20);
  r.finish({ simulatedMs: 3000, providerGroups: [], inFlight: 0 });
  return r.summary({ scenario: 's', seed: 1, seeds: [1], version: 't' }) as unknown as Record<string, unknown>;
}

/** The error `read` raises for `text` written to summary.json, formatted as the CLI prints it. */
function errorOf(text: string, read = readSummaryFile): string {
  const file = join(tempDir('zs-report-input-'), 'summary.json');
  writeFileSync(file, text);
  try {
    read(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).format().replace(file, 'summary.json');
  }
  throw new Error('no error');
}

describe('scanJson', () => {
  const samples = [
    '{}', '[]', '{"a":1}', '{"a": [1, 2, {"b": null}], "c": "x\\n\\u00e9"}', ' -0.5e+3 ', '"s"', 'true',
    '{"a": }', '{"a":1,}', '[1,]', '[1 2]', '{"a" 1}', '{a:1}', "{'a':1}", '', '   ', '{"a":1} x', '"\\x"', '"\u0001"',
    '"abc', '[', '{"a":', '01', '1.', '.5', 'nul', '{"a":1', '[1, 2', '+1', 'NaN', '{"a":"\\u12"}',
  ];

  it.each(samples)('agrees with JSON.parse on whether %j is valid', (text) => {
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    expect(scanJson(text).error === undefined).toBe(valid);
  });

  it.each([
    ['{"a": }', 6, 'expected a value'],
    ['{"a":1,}', 7, 'expected a key in double quotes'],
    ['[1 2]', 3, 'expected "," or "]" after a list item'],
    ['{"a":1} x', 8, 'unexpected text after the JSON value'],
    ['', 0, 'the file is empty'],
    ['{"a": "abc', 10, 'a string that never ends'],
    ['{"a": [1, 2', 11, 'the text ends inside a list'],
  ])('places the error of %j at offset %i: %s', (text, offset, message) => {
    expect(scanJson(text).error?.offset).toBe(offset);
    expect(scanJson(text).error?.message).toContain(message);
  });

  it('handles nesting far deeper than a recursive parser could', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    expect(scanJson(deep).error).toBeUndefined();
    expect(scanJson(deep.slice(0, -1)).error?.message).toBe('the text ends inside a list');
  });
});

describe('locateJsonPath', () => {
  const text = '{\n  "a": 1,\n  "timeline": [\n    {"tMs": 0},\n    {"tMs": 1000, "p99Ms": "abc"}\n  ]\n}';

  it('finds the value at a path', () => {
    expect(text.slice(locateJsonPath(text, ['timeline', 1, 'p99Ms']))).toMatch(/^"abc"/);
    expect(text.slice(locateJsonPath(text, ['timeline', 1]))).toMatch(/^\{"tMs": 1000/);
  });

  it('falls back to the deepest ancestor that exists', () => {
    expect(text.slice(locateJsonPath(text, ['timeline', 0, 'p99Ms']))).toMatch(/^\{"tMs": 0\}/);
    expect(locateJsonPath(text, ['nothing', 'here'])).toBe(0);
  });
});

describe('readSummaryFile', () => {
  it('accepts a summary the recorder wrote', () => {
    const file = join(tempDir('zs-report-input-'), 'summary.json');
    writeFileSync(file, JSON.stringify(validSummary(), null, 2));
    expect(readSummaryFile(file).scenario).toBe('s');
  });

  it('accepts a summary of an older version, without the timeline additions', () => {
    const s = validSummary();
    delete s.timelineByZone;
    delete s.timelineByProviderGroup;
    delete s.faults;
    delete s.crossZoneByPair;
    delete s.nonIdempotentMethods;
    s.timeline = (s.timeline as Array<Record<string, unknown>>).map(({ p99OkMs: _a, pushes: _b, biz: _c, ...row }) => row);
    expect(errorOfOrNone(JSON.stringify(s))).toBeUndefined();
  });

  it('names the file, line, column and field of a value of the wrong type', () => {
    const s = validSummary();
    (s.timeline as Array<Record<string, unknown>>)[2]!.p99Ms = 'abc';
    const text = JSON.stringify(s, null, 2);
    const before = text.slice(0, text.indexOf('"abc"')).split('\n');
    const [line, col] = [before.length, before.at(-1)!.length + 1];
    expect(before.at(-1)).toBe('      "p99Ms": ');
    expect(errorOf(text)).toBe(`summary.json:${line}:${col}: timeline[2].p99Ms: expected a number, found "abc"`);
  });

  it('checks the zone-pair matrix and the per-scope half-widths', () => {
    const s = validSummary();
    expect(s.crossZoneByPair).toEqual({ z: { z: 0 } });
    s.crossZoneByPair = { z: { z: 'many' } };
    expect(errorOf(JSON.stringify(s))).toMatch(/^summary\.json:1:\d+: crossZoneByPair\.z\.z: expected a number, found "many"$/);
    s.crossZoneByPair = { z: { z: 1 } };
    (s.byConsumerZone as Record<string, Record<string, unknown>>).z!.ci95 = { requests: '3' };
    expect(errorOf(JSON.stringify(s))).toMatch(/^summary\.json:1:\d+: byConsumerZone\.z\.ci95\.requests: expected a number/);
  });

  it('names a missing field at its parent', () => {
    const s = validSummary();
    delete (s.latencyMs as Record<string, unknown>).p99;
    expect(errorOf(JSON.stringify(s))).toMatch(/^summary\.json:1:\d+: latencyMs\.p99: expected a number, found nothing \(the field is required\)$/);
  });

  it('says what a document that is not a summary is', () => {
    expect(errorOf('[1, 2]')).toBe('summary.json:1:1: expected a map (JSON object), found a list');
    expect(errorOf('{"scenario": "x"}')).toMatch(/^summary\.json:1:1: \w+: expected a number, found nothing/);
    expect(errorOf('{"faults": 3}', readSummaryFile)).toMatch(/^summary\.json:1:1: /);
  });

  it('gives a syntax error its line and column', () => {
    expect(errorOf('{\n  "scenario": "x",\n  "seed": \n}')).toBe('summary.json:4:1: not valid JSON: expected a value (a number, string, true, false, null, { or [)');
    expect(errorOf('')).toBe('summary.json:1:1: not valid JSON: the file is empty');
  });

  it('names a byte order mark in front of the JSON (a file saved again by an editor)', () => {
    expect(errorOf(`\uFEFF${JSON.stringify(validSummary())}`)).toBe(
      'summary.json:1:1: not valid JSON: the file starts with a UTF-8 byte order mark (BOM); save it without one',
    );
  });

  it('checks the summaries inside compare.json', () => {
    const s = validSummary();
    s.requests = null;
    const doc = { scenario: 'x', seed: 1, seeds: [1], version: 't', strategies: { a: '' }, byStrategy: { a: s } };
    expect(errorOf(JSON.stringify(doc), readCompareFile as never)).toMatch(/^summary\.json:1:\d+: byStrategy\.a\.requests: expected a number, found null \(an empty value\)$/);
    expect(errorOf(JSON.stringify({ ...doc, byStrategy: {} }), readCompareFile as never)).toMatch(/byStrategy: expected at least one strategy$/);
  });
});

function errorOfOrNone(text: string): string | undefined {
  const file = join(tempDir('zs-report-input-'), 'summary.json');
  writeFileSync(file, text);
  try {
    readSummaryFile(file);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
