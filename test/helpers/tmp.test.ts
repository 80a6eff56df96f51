import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from './tmp.js';

// Suites run in order, so the second one sees what the first one's cleanup left behind.
const made: string[] = [];

describe('a suite that uses temporary folders', () => {
  const tempDir = useTempDirs();

  it('gets a fresh, empty folder under the OS temp directory with the given prefix', () => {
    const dir = tempDir('zs-helper-');
    made.push(dir);
    expect(dirname(dir)).toBe(tmpdir());
    expect(dir.startsWith(join(tmpdir(), 'zs-helper-'))).toBe(true);
    writeFileSync(join(dir, 'file.txt'), 'x');
    expect(existsSync(join(dir, 'file.txt'))).toBe(true);
  });

  it('gets a different folder on each call', () => {
    const a = tempDir('zs-helper-');
    const b = tempDir('zs-helper-');
    made.push(a, b);
    expect(a).not.toBe(b);
  });
});

describe('after that suite', () => {
  it('finds every folder it made removed, files included', () => {
    expect(made).toHaveLength(3);
    for (const dir of made) expect(existsSync(dir), dir).toBe(false);
  });
});
