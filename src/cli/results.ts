/**
 * Results folders (SPEC 4.1): `results/<scenario>/<run-id>/` with summary.json, summary.csv,
 * timeline.csv, the scenario as run, and report.html when asked. Written into a hidden temporary
 * folder and renamed into place, so an interrupted run leaves no partial folder behind; the
 * report is added once the results are safe, so a report that fails loses nothing.
 */
import { existsSync, mkdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MAX_RESULT_FILE_BYTES } from '../scenario/read-text-file.js';
import { UsageError, type Io } from '../scenario/io.js';
import { exitIfParentGone, parentGone } from '../parallel/parent-watch.js';
import type { Body } from './json-out.js';
import { removeStaleTemps, tempName, writeFileAtomically, writeNewFile } from './safe-write.js';

/** A run id from the wall clock (the CLI is the only layer allowed to read it). */
export function newRunId(seed: number, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-` +
    `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-seed${seed}`
  );
}

/** The results root for `--out` (absent or empty: `results`), resolved against `cwd`. */
export function resultsRoot(cwd: string, out: string | undefined): string {
  return resolve(cwd, out === undefined || out === '' ? 'results' : out);
}

/**
 * Checks, before any simulation, that results can be written under `<root>/<scenario>/`: creates
 * that folder, writes and removes a probe file, and removes again the folders it created. Throws a
 * UsageError (exit 2) naming `--out` when it cannot.
 */
export function checkResultsDir(root: string, scenario: string): void {
  const parent = resolve(root, safeName(scenario));
  /** The outermost folder this check created (made again if another zonesim's check removed it meanwhile). */
  let created: string | undefined;
  try {
    const probe = join(parent, tempName('probe'));
    inFolder(
      parent,
      () => mkdirSync(probe),
      (made) => {
        if (created === undefined || made.length < created.length) created = made;
      },
    );
    writeFileSync(join(probe, 'probe'), '');
    rmSync(probe, { recursive: true, force: true });
  } catch (error) {
    throw new UsageError(`--out: cannot write results under ${root} (${describeFsError(error)})`, 'give --out a writable folder');
  } finally {
    // Leave no empty folders behind: remove what this check created, innermost first.
    if (created !== undefined) {
      for (let dir = parent; dir.length >= created.length; dir = dirname(dir)) {
        try {
          rmdirSync(dir);
        } catch {
          break;
        }
        if (dir === created) break;
      }
    }
  }
}

/** A file-system error as one short phrase: `ENOTDIR: not a directory, mkdir '…'` → `not a directory`. */
export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    ENOTDIR: 'a file is in the way: not a directory',
    EEXIST: 'a file is in the way',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENAMETOOLONG: 'name too long',
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
  };
  if (e && typeof e.code === 'string' && reasons[e.code]) return `${e.code}: ${reasons[e.code]}`;
  return e?.message ?? String(error);
}

/**
 * Creates `dir` when missing and runs `write` in it. Another zonesim starting on the same `--out`
 * may remove the folder while it is still empty (`checkResultsDir` leaves no folder it created), so
 * a write that finds it gone creates it again and retries. `onMade` gets the first folder each
 * creation made (`mkdirSync`'s answer), when it made one.
 */
export function inFolder<T>(dir: string, write: () => T, onMade?: (made: string) => void): T {
  for (let attempt = 1; ; attempt++) {
    try {
      // The creation itself may lose that race: a recursive mkdir that has made a parent finds it gone
      // when it makes the next level (ENOENT), so it is retried like the write.
      const made = mkdirSync(dir, { recursive: true });
      if (made !== undefined) onMade?.(made);
      return write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existsSync(dir) || attempt >= 10) throw error;
    }
  }
}

/** Writes `files` (name → content) atomically into `<root>/<scenario>/<runId>/` and returns that path and the size of each file. */
export function writeResults(root: string, scenario: string, runId: string, files: Record<string, Body>): string {
  return writeResultsSized(root, scenario, runId, files).dir;
}

function writeResultsSized(root: string, scenario: string, runId: string, files: Record<string, Body>): { dir: string; bytes: Record<string, number> } {
  const parent = resolve(root, safeName(scenario));
  // A fresh random name, made by mkdir (which fails on anything already there): never another writer's.
  const tmp = join(parent, tempName(runId));
  inFolder(parent, () => {
    removeStaleTemps(parent);
    mkdirSync(tmp);
  });
  try {
    const bytes: Record<string, number> = {};
    for (const [name, content] of Object.entries(files)) bytes[name] = writeNewFile(join(tmp, name), content);
    // A run whose supervisor was killed meanwhile leaves no folder (parent-watch.ts).
    if (parentGone()) {
      rmSync(tmp, { recursive: true, force: true });
      exitIfParentGone();
    }
    // The final name is picked at rename time: another run may take `runId` (or `runId-2`, …)
    // between a check and the rename, and then this one moves on to the next suffix.
    for (let i = 1; ; i++) {
      const finalDir = join(parent, i === 1 ? runId : `${runId}-${i}`);
      if (existsSync(finalDir)) continue;
      try {
        renameSync(tmp, finalDir);
        return { dir: finalDir, bytes };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EISDIR' && code !== 'EPERM') throw error;
        if (!existsSync(finalDir) || i > 10_000) throw error;
      }
    }
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Writes a results folder after a run. Returns the folder, or undefined after saying on stderr
 * that nothing was written (the caller still prints its output, then exits 1). A JSON file larger
 * than `zonesim report` and `merge` read is written all the same, with a warning.
 */
export function writeResultsOrSay(io: Io, root: string, scenario: string, runId: string, files: Record<string, Body>): string | undefined {
  try {
    const { dir, bytes } = writeResultsSized(root, scenario, runId, files);
    for (const [name, size] of Object.entries(bytes)) {
      if (name.endsWith('.json') && size > MAX_RESULT_FILE_BYTES) {
        io.stderr(`zonesim: warning: ${join(dir, name)} is ${gigabytes(size)}; zonesim report and merge read at most ${gigabytes(MAX_RESULT_FILE_BYTES)}\n`);
      }
    }
    return dir;
  } catch (error) {
    io.stderr(`zonesim: could not write the results folder under ${root} (${describeFsError(error)}): nothing was written\n`);
    return undefined;
  }
}

const gigabytes = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

/**
 * Adds `report.html` to the results folder `dir`, written before: the report is built only now,
 * so a report that cannot be built or written costs nothing but itself. Returns false after
 * saying so in one line on stderr (the caller exits 1).
 */
export function addReportOrSay(io: Io, dir: string, build: () => Body): boolean {
  let html: Body;
  try {
    html = build();
  } catch (error) {
    io.stderr(`zonesim: could not build the report (${describeFsError(error)}): the results are in ${dir}\n`);
    return false;
  }
  try {
    writeFileAtomically(dir, 'report.html', html);
    return true;
  } catch (error) {
    io.stderr(`zonesim: could not write ${join(dir, 'report.html')} (${describeFsError(error)}): the results are in ${dir}, without the report\n`);
    return false;
  }
}

/** Longest folder name made from a scenario name (file systems allow 255 bytes; the run id goes below it). */
const MAX_NAME = 100;

/**
 * A scenario name as one folder name inside the results root: only `A-Z a-z 0-9 . _ -` (so no
 * `/` or `\`), no leading dot (so never `.`, `..` or a hidden folder), at most 100 characters.
 */
export function safeName(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, (dots) => '_'.repeat(dots.length)).slice(0, MAX_NAME);
  return s || 'scenario';
}
