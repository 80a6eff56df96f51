/**
 * Temporary folders for tests that need real files (CLI runs, results folders, bad scenarios).
 * Each folder lives under the OS temp directory and is removed after the suite that asked for it,
 * whether its tests passed or failed, so a test run leaves nothing behind in /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Registers cleanup for the enclosing suite (call it at the top of a file or of a `describe`) and
 * returns a maker: `tempDir('zs-')` creates a fresh folder that is removed after that suite.
 */
export function useTempDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
