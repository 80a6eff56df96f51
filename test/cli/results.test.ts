import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { checkResultsDir, newRunId, resultsRoot, safeName, writeResults, writeResultsOrSay } from '../../src/cli/results.js';
import { UsageError } from '../../src/scenario/io.js';
import { STALE_TEMP_MS } from '../../src/cli/safe-write.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A results parent holding a hidden temporary folder as a writer leaves it, with a partial file, last changed `ageMs` ago. */
function leftBehind(root: string, name: string, ageMs: number): string {
  const dir = join(root, 's', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), '{');
  const when = new Date(Date.now() - ageMs);
  utimesSync(join(dir, 'summary.json'), when, when);
  utimesSync(dir, when, when);
  return dir;
}

const HOUR = 60 * 60 * 1000;

describe('results folders', () => {
  it('writes every file into <root>/<scenario>/<run-id>/ and nothing else', () => {
    const root = tempDir('zs-res-');
    const dir = writeResults(root, 'zone a/down', 'r1', { 'summary.json': '{}\n', 'timeline.csv': 'a\n' });
    expect(dir).toBe(join(root, 'zone_a_down', 'r1'));
    expect(readdirSync(dir).sort()).toEqual(['summary.json', 'timeline.csv']);
    expect(readdirSync(join(root, 'zone_a_down'))).toEqual(['r1']);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('{}\n');
  });

  it('never overwrites an earlier run with the same id', () => {
    const root = tempDir('zs-res-');
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    const second = writeResults(root, 's', 'r1', { 'a.txt': '2' });
    expect(second).toBe(join(root, 's', 'r1-2'));
    expect(readFileSync(join(root, 's', 'r1', 'a.txt'), 'utf8')).toBe('1');
  });

  it('removes the temporary folder a killed run left behind, once nothing changed in it for an hour', () => {
    const root = tempDir('zs-res-');
    const abandoned = leftBehind(root, '.tmp-r0-0123456789abcdef', STALE_TEMP_MS + HOUR);
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(existsSync(abandoned)).toBe(false);
  });

  // The previous rule (remove when no process has the pid in its name) removed live runs started in
  // another PID namespace or on another host sharing the folder (audit 3, CC-pidns).
  it('keeps a recent temporary folder whatever process wrote it, even one with the pid of no process here', () => {
    const root = tempDir('zs-res-');
    const writing = leftBehind(root, `.tmp-r0-${2 ** 22 + 1}`, 60_000);
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(readFileSync(join(writing, 'summary.json'), 'utf8')).toBe('{');
  });

  it('keeps an old temporary folder while a file in it is still being written', () => {
    const root = tempDir('zs-res-');
    const writing = leftBehind(root, '.tmp-r0-aaaa', STALE_TEMP_MS + HOUR);
    writeFileSync(join(writing, 'sweep.json'), '{"cells": [');
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(readdirSync(writing).sort()).toEqual(['summary.json', 'sweep.json']);
  });

  it('names runs by UTC time and seed', () => {
    expect(newRunId(3, new Date(Date.UTC(2026, 10, 30, 5, 4, 9)))).toBe('20261130-050409-seed3');
  });
});

describe('results folders stay inside the results root', () => {
  for (const name of ['..', '.', '../x', 'a/../../b', '..\\..\\c', '/etc', '.hidden', '']) {
    it(`keeps a scenario named ${JSON.stringify(name)} in one folder under the root`, () => {
      const root = tempDir('zs-res-');
      const dir = writeResults(join(root, 'out'), name, 'r1', { 'a.txt': '1' });
      // Exactly <root>/out/<one safe name>/r1, the safe name neither `.`, `..` nor hidden.
      const rel = relative(join(root, 'out'), dir).split(sep);
      expect(rel).toHaveLength(2);
      expect(rel[0]).toBe(safeName(name));
      expect(rel[0]).not.toMatch(/^\./);
      expect(readdirSync(root)).toEqual(['out']);
    });
  }

  it('cuts a very long scenario name to a usable folder name', () => {
    const root = tempDir('zs-res-');
    const dir = writeResults(root, 'x'.repeat(1000), 'r1', { 'a.txt': '1' });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('1');
    expect(safeName('x'.repeat(1000)).length).toBeLessThanOrEqual(100);
  });
});

describe('checking --out before a run', () => {
  it('refuses a file in the way, exit-2 style, and leaves nothing behind', () => {
    const root = tempDir('zs-res-');
    writeFileSync(join(root, 'file'), 'x');
    expect(() => checkResultsDir(join(root, 'file'), 's')).toThrow(UsageError);
    expect(() => checkResultsDir(join(root, 'file'), 's')).toThrow(/--out: cannot write results under .*file.*not a directory/);
    expect(readdirSync(root)).toEqual(['file']);
  });

  it('refuses a name too long', () => {
    const root = tempDir('zs-res-');
    expect(() => checkResultsDir(join(root, 'n'.repeat(300)), 's')).toThrow(/--out: .*name too long/);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a read-only folder', () => {
    const root = tempDir('zs-res-');
    chmodSync(root, 0o555);
    try {
      expect(() => checkResultsDir(join(root, 'out'), 's')).toThrow(/--out: .*permission denied/);
    } finally {
      chmodSync(root, 0o755);
    }
  });

  it('removes the folders it created and keeps those that were there', () => {
    const root = tempDir('zs-res-');
    checkResultsDir(join(root, 'a', 'b'), 's');
    expect(readdirSync(root)).toEqual([]);
    mkdirSync(join(root, 'out', 's'), { recursive: true });
    checkResultsDir(join(root, 'out'), 's');
    expect(readdirSync(join(root, 'out', 's'))).toEqual([]);
  });

  it('reads an empty --out as the default folder', () => {
    expect(resultsRoot('/w', '')).toBe(resolve('/w', 'results'));
    expect(resultsRoot('/w', undefined)).toBe(resolve('/w', 'results'));
    expect(resultsRoot('/w', 'x')).toBe(resolve('/w', 'x'));
  });

  it('says on stderr that nothing was written when writing fails', () => {
    const root = tempDir('zs-res-');
    writeFileSync(join(root, 'file'), 'x');
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (s: string) => err.push(s), cwd: root };
    expect(writeResultsOrSay(io, join(root, 'file'), 's', 'r1', { 'a.txt': '1' })).toBeUndefined();
    expect(err.join('')).toMatch(/could not write the results folder under .*file.*nothing was written/);
  });
});
