/**
 * Writing files where others may have been before: every file zonesim writes is created new
 * (`O_CREAT | O_EXCL`, so a planted file or symlink is never followed or overwritten), under a
 * random temporary name when it replaces something, renamed into place once complete, and removed
 * on any failure (a full disk leaves nothing behind). Temporary names start with `.tmp-`;
 * `removeStaleTemps` removes those a killed writer left, judged by age, never by process id (ids
 * mean nothing across hosts and containers sharing a folder).
 */
import { closeSync, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { emitBody, type Body } from './json-out.js';

/** What every temporary file or folder name starts with. */
export const TEMP_PREFIX = '.tmp-';

/**
 * A temporary file or folder untouched this long is a killed writer's: a live one writes into it
 * all the time (a results folder takes seconds to write), and an hour leaves room for clocks of
 * hosts sharing a network folder to disagree.
 */
export const STALE_TEMP_MS = 60 * 60 * 1000;

/** A fresh temporary name for `label`: `.tmp-<label>-<16 hex digits>`. */
export function tempName(label: string): string {
  return `${TEMP_PREFIX}${label}-${randomBytes(8).toString('hex')}`;
}

/**
 * Creates the file `path`, which must not exist yet (not even as a symlink), and writes `body`
 * into it; returns the bytes written. On any failure the file is removed and the error thrown.
 */
export function writeNewFile(path: string, body: Body): number {
  const fd = openSync(path, 'wx');
  let bytes = 0;
  let open = true;
  try {
    emitBody(body, (chunk) => {
      const buf = Buffer.from(chunk, 'utf8');
      for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
      bytes += buf.length;
    });
    open = false;
    // A full disk can show only now (network file systems report it at close).
    closeSync(fd);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
  return bytes;
}

/**
 * Writes `dir/name` whole or not at all: into a new temporary file in `dir`, then renamed over
 * `name` (a symlink there is replaced, not followed). Returns the bytes written; on failure
 * nothing is left behind and the error is thrown.
 */
export function writeFileAtomically(dir: string, name: string, body: Body): number {
  const tmp = join(dir, tempName(name));
  const bytes = writeNewFile(tmp, body);
  try {
    renameSync(tmp, join(dir, name));
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return bytes;
}

/** The newest modification time of `path` and, for a folder, of what is in it (symlinks not followed). */
function newestChange(path: string): number {
  const st = lstatSync(path);
  let newest = st.mtimeMs;
  if (st.isDirectory()) {
    for (const entry of readdirSync(path)) {
      try {
        newest = Math.max(newest, lstatSync(join(path, entry)).mtimeMs);
      } catch {
        // Gone meanwhile: its writer is at work, and the folder's own time says so.
      }
    }
  }
  return newest;
}

/**
 * Removes the temporary files and folders in `dir` that killed writers left behind: those nothing
 * changed for STALE_TEMP_MS. A live writer's, on this host or another, is younger and stays.
 */
export function removeStaleTemps(dir: string, now = Date.now()): void {
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, entry);
    try {
      if (now - newestChange(path) < STALE_TEMP_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another zonesim meanwhile, or not ours to remove: either way, not this run's concern.
    }
  }
}
