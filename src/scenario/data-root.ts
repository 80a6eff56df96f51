/**
 * Where the data files of measured distributions may be read from: inside the folder tree of the
 * scenario file, or of the folder an invocation names with `--data-root` instead. A path, relative
 * or absolute, is followed through every symbolic link (realpath) and must land inside the root's
 * own realpath, so neither `../`, an absolute path nor a link inside the tree reaches a file outside
 * it. This is what keeps a scenario from others from reading the user's secrets into an error
 * message; the messages here name paths, never what a file holds. The CLI sets the root for one
 * invocation (`withDataRoot`); the scenario loader asks for it (`dataFileReader`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { readTextFile, TextFileError } from './read-text-file.js';

/** Data files of measured distributions (CSV, Prometheus text) above this size are refused (100 MB). */
export const MAX_DATA_FILE_BYTES = 100 * 1024 * 1024;

/** What one invocation allows data files: `root` is the absolute `--data-root` folder, if one was given. */
export interface DataAccess {
  root?: string;
}

const accesses = new AsyncLocalStorage<DataAccess>();

/** Runs `f` (a whole CLI invocation) under `access`; main.ts sets `root` from `--data-root`. */
export function withDataAccess<T>(access: DataAccess, f: () => T): T {
  return accesses.run(access, f);
}

/** The `--data-root` of the invocation in progress, if any. */
export function dataRootInEffect(): string | undefined {
  return accesses.getStore()?.root;
}

/** True when `path` is `root` or lies below it (both absolute and normalized). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function reasonOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'ENOTDIR') return 'a part of the path is not a folder';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  return e instanceof TextFileError ? e.message : (code ?? (e as Error).message);
}

/**
 * A reader of the data files named by `scenarioFile`: given a file's absolute path (relative paths
 * resolved against the scenario's folder), its text, or a thrown Error whose message is the reason
 * (`no such file`, `it is outside ...`). The root is `dataRoot` when given, else the scenario
 * file's folder.
 */
export function dataFileReader(scenarioFile: string, dataRoot = dataRootInEffect()): (absPath: string) => string {
  const root = resolve(dataRoot ?? dirname(scenarioFile));
  const realRoot = realOrResolved(root);
  const where =
    dataRoot === undefined
      ? `outside the scenario's folder ${root} (a data file must be in it or below it; --data-root DIR names another folder)`
      : `outside ${root}, the --data-root folder`;
  return (absPath) => {
    const lexical = resolve(absPath);
    const lexicallyInside = inside(root, lexical) || inside(realRoot, lexical);
    let real: string;
    try {
      real = realpathSync(lexical);
    } catch (e) {
      // Whether a file outside the root exists is none of the scenario's business either.
      throw new Error(lexicallyInside ? reasonOf(e) : `it is ${where}`);
    }
    if (!inside(realRoot, real)) throw new Error(lexicallyInside ? `it leads through a symbolic link ${where}` : `it is ${where}`);
    try {
      // The resolved path, so that what is read is what was checked.
      return readTextFile(real, MAX_DATA_FILE_BYTES);
    } catch (e) {
      throw new Error(reasonOf(e));
    }
  };
}
