/**
 * Small readers for CLI inputs: files named on the command line, provider lists (one URL per
 * line, `#` comments), and `k=v` attachment pairs. Missing files are usage errors (exit 2).
 * Parsing the URLs themselves is analysis/provider-list.ts's.
 */
import { resolve } from 'node:path';
import { MAX_PROVIDER_LIST_BYTES, MAX_TEXT_FILE_BYTES, readTextBytes, TextFileError } from '../scenario/read-text-file.js';
import { UsageError, type Io } from '../scenario/io.js';
import type { ProviderLine } from '../analysis/provider-list.js';

/** The text of a file named on the command line, at most `maxBytes` long. */
export function readText(io: Io, file: string, maxBytes = MAX_TEXT_FILE_BYTES): string {
  return readBytes(io, file, maxBytes).toString('utf8');
}

/** The bytes of a text file named on the command line (same checks as `readText`), for readers that choose the encoding. */
export function readBytes(io: Io, file: string, maxBytes = MAX_TEXT_FILE_BYTES): Buffer {
  try {
    return readTextBytes(resolve(io.cwd, file), maxBytes);
  } catch (e) {
    throw new UsageError(`cannot read file "${file}"${e instanceof TextFileError ? `: ${e.message}` : ''}`);
  }
}

/** `--provider` values followed by the lines of `--providers-file` (each with its `file:line`, for messages). */
export function readProviders(io: Io, given: string[], file: string | undefined): Array<string | ProviderLine> {
  const out: Array<string | ProviderLine> = [...given];
  if (file !== undefined) {
    readText(io, file, MAX_PROVIDER_LIST_BYTES)
      .split(/\r?\n/)
      .forEach((line, i) => {
        const t = line.trim();
        if (t && !t.startsWith('#')) out.push({ text: t, origin: `${file}:${i + 1}` });
      });
  }
  if (out.length === 0) throw new UsageError('give at least one provider: --provider URL or --providers-file F');
  return out;
}

/** `k=v` pairs into a record. */
export function parseAttachments(pairs: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs ?? []) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--attachment: expected k=v, found "${p}"`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}
