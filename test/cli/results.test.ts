import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newRunId, writeResults } from '../../src/cli/results.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Whether a process with this pid exists now (signal 0 probes without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A pid that no process has right now, on any OS: the pid of a child that has already exited,
 * or, should the OS have handed it out again meanwhile, the next free one above it.
 */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  let pid = child.pid!;
  while (alive(pid)) pid++;
  return pid;
}

/** A results parent holding the hidden temporary folder of a run by `pid`, with a partial file. */
function leftBehind(root: string, pid: number): string {
  const dir = join(root, 's', `.tmp-r0-${pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), '{');
  return dir;
}

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

  it('removes the temporary folder a killed run left behind', () => {
    const root = tempDir('zs-res-');
    const pid = deadPid();
    expect(alive(pid)).toBe(false);
    const abandoned = leftBehind(root, pid);
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(existsSync(abandoned)).toBe(false);
  });

  it('keeps the temporary folder of a run whose process is still alive', () => {
    const root = tempDir('zs-res-');
    // The parent of this test process (vitest's runner) is alive while the test runs.
    expect(alive(process.ppid)).toBe(true);
    const writing = leftBehind(root, process.ppid);
    writeResults(root, 's', 'r1', { 'a.txt': '1' });
    expect(readFileSync(join(writing, 'summary.json'), 'utf8')).toBe('{');
  });

  it('names runs by UTC time and seed', () => {
    expect(newRunId(3, new Date(Date.UTC(2026, 10, 30, 5, 4, 9)))).toBe('20261130-050409-seed3');
  });
});
