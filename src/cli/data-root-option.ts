/**
 * `--data-root DIR`, for the commands that load a scenario: the folder whose tree the scenario's
 * data files (`samples` and `histogram` files) must resolve into, instead of the scenario file's
 * own folder (`scenario/data-root.ts` enforces it). Checked here, before anything runs: an existing
 * folder, given once.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { clipMessage } from '../scenario/clip-text.js';
import { UsageError } from '../scenario/io.js';

/** yargs `coerce` for `--data-root`: the absolute path of an existing folder (relative to `cwd`). */
export function checkDataRoot(cwd: string, value: unknown): string {
  if (Array.isArray(value)) throw new UsageError(`--data-root: given more than once (${value.map(String).join(', ')}); give it once`);
  const text = String(value);
  if (text.trim() === '') throw new UsageError('--data-root: expected a folder, found an empty value');
  const dir = resolve(cwd, text);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`--data-root: no such folder ${clipMessage(dir)}`);
  }
  if (!isDir) throw new UsageError(`--data-root: ${clipMessage(dir)} is not a folder`);
  return dir;
}

/** The yargs option `--data-root`, resolving against `cwd`. */
export function dataRootOption(cwd: string) {
  return {
    type: 'string',
    coerce: (value: unknown) => checkDataRoot(cwd, value),
    describe: "folder the scenario's data files (samples, histogram) must be inside (default: the scenario file's folder)",
  } as const;
}
