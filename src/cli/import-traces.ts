/**
 * `zonesim import traces FILE...`: reads each file (bounded: at most 100 MB, regular text files only),
 * prints the scenario (YAML with its header comment, or one JSON document with `--json`), exit 0; bad
 * input throws a UsageError naming the file and place for main.ts to report (exit 2).
 */
import { resolve } from 'node:path';
import { formatTracesYaml, importTraces, MAX_TRACE_FILE_BYTES, tracesJson } from '../inputs/import-traces.js';
import type { TraceFormat } from '../inputs/trace-formats.js';
import { readTextBytes, TextFileError } from '../scenario/read-text-file.js';
import { UsageError, type Io } from '../scenario/io.js';

/** Runs `zonesim import traces`; `maxBytes` bounds each file (tests lower it). Returns the exit code. */
export function runImportTraces(opts: { files: string[]; format?: TraceFormat; json: boolean; maxBytes?: number }, io: Io): number {
  const files = opts.files.map((file) => {
    try {
      return { file, text: readTextBytes(resolve(io.cwd, file), opts.maxBytes ?? MAX_TRACE_FILE_BYTES).toString('utf8') };
    } catch (e) {
      throw new UsageError(`cannot read file "${file}"${e instanceof TextFileError ? `: ${e.message}` : ''}`);
    }
  });
  const result = importTraces(files, opts.format);
  io.stdout(opts.json ? JSON.stringify(tracesJson(result), null, 2) + '\n' : formatTracesYaml(result));
  return 0;
}
