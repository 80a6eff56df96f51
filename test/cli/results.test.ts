import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRunId, writeResults } from '../../src/cli/results.js';

describe('results folders', () => {
  it('writes every file into <root>/<scenario>/<run-id>/ and nothing else', () => {
    const root = mkdtempSync(join(tmpdir(), 'zs-res-'));
    const dir = writeResults(root, 'zone a/down', 'r1', { 'summary.json': '{}\n', 'timeline.csv': 'a\n' });
    expect(dir).toBe(join(root, 'zone_a_down', 'r1'));
    expect(readdirSync(dir).sort()).toEqual(['summary.json', 'timeline.csv']);
    expect(readdirSync(join(root, 'zone_a_down'))).toEqual(['r1']);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('{}\n');
  });

  it('never overwrites an earlier run with the same id', () => {
    const root = mkdtempSync(join(tmpdir(), 'zs-res-'));
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    const second = writeResults(root, 's', 'r1', { 'a.txt': '2' });
    expect(second).toBe(join(root, 's', 'r1-2'));
    expect(readFileSync(join(root, 's', 'r1', 'a.txt'), 'utf8')).toBe('1');
  });

  it('removes the temporary folder a killed run left behind', () => {
    const root = mkdtempSync(join(tmpdir(), 'zs-res-'));
    // No process has pid 2^22 + 1 on Linux (pid_max is at most 2^22).
    const abandoned = join(root, 's', '.tmp-r0-4194305');
    mkdirSync(abandoned, { recursive: true });
    writeFileSync(join(abandoned, 'summary.json'), '{');
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(existsSync(abandoned)).toBe(false);
  });

  it('names runs by UTC time and seed', () => {
    expect(newRunId(3, new Date(Date.UTC(2026, 10, 30, 5, 4, 9)))).toBe('20261130-050409-seed3');
  });
});
