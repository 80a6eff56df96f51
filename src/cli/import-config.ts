/**
 * `zonesim import config <file>`: the file's bytes in, the fragment (YAML, or JSON with `--json`) on
 * stdout, warnings on stderr, exit code 0; bad input throws a UsageError for main.ts to report.
 */
import { formatConfigYaml } from '../inputs/format-config-yaml.js';
import { importConfig } from '../inputs/import-config.js';
import type { Io } from '../scenario/io.js';

/** Runs `zonesim import config`; `input` is the file's content (its bytes, as read). Returns the exit code. */
export function runImportConfig(opts: { file: string; json: boolean }, input: string | Uint8Array, io: Io): number {
  const result = importConfig(input, opts.file);
  for (const w of result.warnings) io.stderr(`zonesim: warning: ${opts.file}: ${w}\n`);
  io.stdout(opts.json ? JSON.stringify(result, null, 2) + '\n' : formatConfigYaml(result, opts.file));
  return 0;
}
