/**
 * Results folders when the file system changes under a run: another run taking the same run id
 * between the check and the rename, and writing failing after a finished simulation.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from '../../src/cli/results.js';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

/** Runs before each renameSync of a `.tmp-` folder (set by a test). */
const hooks: { beforeRename?: (from: string, to: string) => void } = {};

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const renameSync = (from: string, to: string) => {
    if (String(from).includes('.tmp-')) hooks.beforeRename?.(String(from), String(to));
    return actual.renameSync(from, to);
  };
  return { ...actual, renameSync, default: { ...actual, renameSync } };
});

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const SHORT = ['--set', 'duration=8s', '--set', 'warmup=1s'];

beforeEach(() => {
  hooks.beforeRename = undefined;
});

describe('two runs writing under one --out at once', () => {
  it('moves on to the next suffix when another run takes the name just before the rename', () => {
    const out = tempDir('zs-race-');
    let raced = 0;
    hooks.beforeRename = (_from, to) => {
      // Another run finishes its folder under the same name (twice), after this one checked it.
      if (raced++ < 2) {
        mkdirSync(to);
        writeFileSync(join(to, 'a.txt'), `other ${raced}`);
      }
    };
    const dir = writeResults(out, 's', 'r1', { 'a.txt': 'mine' });
    expect(dir).toBe(join(out, 's', 'r1-3'));
    expect(readdirSync(join(out, 's')).sort()).toEqual(['r1', 'r1-2', 'r1-3']);
    expect(readFileSync(join(out, 's', 'r1', 'a.txt'), 'utf8')).toBe('other 1');
    expect(readFileSync(join(out, 's', 'r1-2', 'a.txt'), 'utf8')).toBe('other 2');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('mine');
  });
});

describe('writing fails after a finished run', () => {
  for (const json of [false, true]) {
    it(`still prints the ${json ? 'JSON' : 'table'}, says nothing was written, exits 1`, async () => {
      const out = tempDir('zs-fail-');
      hooks.beforeRename = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, rename'), { code: 'ENOSPC' });
      };
      const o: string[] = [];
      const e: string[] = [];
      const io = { stdout: (s: string) => o.push(s), stderr: (s: string) => e.push(s), cwd: root };
      const code = await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', out, ...(json ? ['--json'] : []), ...SHORT], io);
      expect(code).toBe(1);
      if (json) expect(JSON.parse(o.join(''))).toHaveProperty('requests');
      else expect(o.join('')).toMatch(/p99/);
      expect(o.join('')).not.toContain('results:');
      expect(e.join('')).toMatch(/could not write the results folder under .*no space left.*nothing was written/);
      // No partial or temporary folder stays behind.
      expect(readdirSync(resolve(out, 'dual-zone-baseline'))).toEqual([]);
    });
  }
});
