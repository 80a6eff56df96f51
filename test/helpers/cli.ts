/**
 * Running zonesim from tests: in this process through `main` (output captured), and the
 * environment for the built CLI (`node bin/zonesim.js`) without what the test runner sets.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

/** The repository root (scenario paths in tests are relative to it). */
export const repoRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The built CLI. */
export const BIN = join(repoRoot, 'bin', 'zonesim.js');

/** Runs `zonesim <args>` in this process from the repository root; returns the exit code and the output. */
export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: repoRoot });
  return { code, out: out.join(''), err: err.join('') };
}

/** The environment for the built CLI: no supervisor settings or Node options inherited from the test runner. */
export function cliEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ZONESIM_SUPERVISED;
  delete env.ZONESIM_NO_SUPERVISOR;
  delete env.NODE_OPTIONS;
  return env;
}
