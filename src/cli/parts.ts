/**
 * Part files of sharded sweeps and comparisons (`--shard k/n`): their format, the hash that ties
 * the parts of one job together, atomic writing, and reading and checking a set of parts for
 * `zonesim merge` (same job, same n, every shard once, every cell once). Merging the figures
 * themselves belongs to `merge.ts`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { MAX_RESULT_FILE_BYTES, readTextFile, TextFileError } from '../scenario/read-text-file.js';
import { basename, join, resolve } from 'node:path';
import type { Summary } from '../metrics/summary.js';
import type { Shard } from './grid.js';
import { inFolder } from './results.js';
import { UsageError, type Io } from './io.js';
import { exitIfParentGone } from './parent-watch.js';
import type { SweepCell, SweepHeader } from './sweep-output.js';

/** What every part carries: which job, which shard, and the scenario as run (for the merged results folder). */
interface PartBase {
  shard: Shard;
  /** sha256 of the job's inputs: scenario text (after `--set`), grid or strategies, seeds and version. */
  hash: string;
  /** The scenario file's name (for `scenario.yaml` / `.json` in the merged folder) and its text as run. */
  scenarioFile: string;
  scenarioText: string;
}

/** `sweep.part-<k>-of-<n>.json`: the cells `i` with `i mod n = k - 1`. */
export interface SweepPart extends PartBase {
  zonesim: 'sweep-part';
  /** The sweep document without its best cell and its cells (`merge` finds the best among all cells). */
  header: SweepHeader;
  cellCount: number;
  cells: SweepCell[];
}

/** One (strategy, seed) run of a comparison. */
export interface CompareRun {
  index: number;
  strategy: string;
  seed: number;
  summary: Summary;
}

/** The comparison document without `byStrategy` (`compare --json`). */
export interface CompareHeader {
  scenario: string;
  seed: number;
  seeds: number[];
  version: string;
  strategies: Record<string, string>;
}

/** `compare.part-<k>-of-<n>.json`: the (strategy, seed) runs `i` with `i mod n = k - 1`, strategies outermost. */
export interface ComparePart extends PartBase {
  zonesim: 'compare-part';
  header: CompareHeader;
  runCount: number;
  runs: CompareRun[];
}

export type Part = SweepPart | ComparePart;

/** The hash of a job's inputs (any JSON value). */
export function jobHash(inputs: unknown): string {
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

/** `sweep.part-2-of-4.json`. */
export function partFileName(kind: 'sweep' | 'compare', shard: Shard): string {
  return `${kind}.part-${shard.k}-of-${shard.n}.json`;
}

/** Writes a part file atomically into `dir` (created when missing) and returns its path. */
export function writePart(dir: string, name: string, json: string): string {
  // A shard whose supervisor was killed writes nothing (parent-watch.ts).
  exitIfParentGone();
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    // ENOENT: another zonesim's check removed a parent this mkdir had just made; `inFolder` makes it again.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--out: cannot create ${dir} (${(error as Error).message})`);
  }
  const target = join(dir, name);
  const tmp = join(dir, `.${name}.tmp-${process.pid}`);
  // Once the file is written the folder is not empty, so nobody removes it before the rename.
  inFolder(dir, () => writeFileSync(tmp, json));
  renameSync(tmp, target);
  return target;
}

const PART_NAME = /^(sweep|compare)\.part-\d+-of-\d+\.json$/;

/** The part files named on the command line; a folder stands for the `*.part-K-of-N.json` files in it. */
export function partPaths(args: string[], io: Io): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const p = resolve(io.cwd, arg);
    if (existsSync(p) && statSync(p).isDirectory()) {
      const found = readdirSync(p).filter((f) => PART_NAME.test(f)).sort();
      if (found.length === 0) throw new UsageError(`${arg}: no sweep.part-K-of-N.json or compare.part-K-of-N.json files in this folder`);
      out.push(...found.map((f) => join(p, f)));
    } else out.push(p);
  }
  if (out.length === 0) throw new UsageError('merge needs part files', 'zonesim merge results/<scenario>/sweep.part-*-of-*.json');
  return out;
}

function readPart(path: string): Part {
  let doc: unknown;
  try {
    doc = JSON.parse(readTextFile(path, MAX_RESULT_FILE_BYTES));
  } catch (error) {
    const e = error as Error;
    throw new UsageError(`${path}: ${e instanceof TextFileError ? e.message : `not a readable JSON file (${e.message})`}`);
  }
  const p = doc as Partial<Part> | null;
  const ok =
    p !== null &&
    typeof p === 'object' &&
    (p.zonesim === 'sweep-part' || p.zonesim === 'compare-part') &&
    typeof p.hash === 'string' &&
    typeof p.shard?.k === 'number' &&
    typeof p.shard?.n === 'number' &&
    typeof p.header === 'object' &&
    Array.isArray(p.zonesim === 'sweep-part' ? (p as SweepPart).cells : (p as ComparePart).runs);
  if (!ok) throw new UsageError(`${path}: not a part file of zonesim sweep --shard or zonesim compare --shard`);
  return p as Part;
}

/** What differs between two parts' headers, for the "different job" message. */
function difference(a: Part, b: Part): string {
  const keys = ['scenario', 'seeds', 'version', 'grid', 'strategies'] as const;
  const diff = keys.filter((k) => JSON.stringify((a.header as never)[k]) !== JSON.stringify((b.header as never)[k]));
  if (diff.length > 0) return `their ${diff.join(', ')} differ`;
  if (a.scenarioText !== b.scenarioText) return 'their scenario texts differ (the file or a --set)';
  return 'their inputs differ';
}

/**
 * Reads and checks the parts of one job: one kind, one hash, one shard count, each shard 1..n
 * exactly once, and every cell or run exactly once. Throws a UsageError (exit 2) naming the files.
 */
export function readParts(paths: string[]): Part[] {
  const parts = paths.map((path) => ({ path, part: readPart(path) }));
  const first = parts[0]!;
  for (const { path, part } of parts.slice(1)) {
    if (part.zonesim !== first.part.zonesim) {
      throw new UsageError(`${basename(path)} is a ${part.zonesim} but ${basename(first.path)} is a ${first.part.zonesim}: they cannot be merged`);
    }
    if (part.hash !== first.part.hash) {
      throw new UsageError(
        `${path} belongs to another ${first.part.zonesim === 'sweep-part' ? 'sweep' : 'comparison'} than ${first.path}: ${difference(first.part, part)}`,
        'merge the parts of one job: the same scenario, --set, grid, strategies, seeds and zonesim version',
      );
    }
    if (part.shard.n !== first.part.shard.n) {
      throw new UsageError(`${path} is shard ${part.shard.k} of ${part.shard.n} but ${first.path} is shard ${first.part.shard.k} of ${first.part.shard.n}`);
    }
  }
  const n = first.part.shard.n;
  const byK = new Map<number, string>();
  for (const { path, part } of parts) {
    const k = part.shard.k;
    if (!Number.isInteger(k) || k < 1 || k > n) throw new UsageError(`${path}: shard ${k} of ${n} is out of range`);
    const other = byK.get(k);
    if (other !== undefined) throw new UsageError(`shard ${k} of ${n} is given twice: ${other} and ${path}`, 'give each part once');
    byK.set(k, path);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((k) => !byK.has(k));
  if (missing.length > 0) {
    throw new UsageError(
      `missing shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${n} (have ${[...byK.keys()].sort((a, b) => a - b).join(', ')})`,
      `run the same command with --shard ${missing[0]}/${n}, then merge all ${n} parts`,
    );
  }
  // Every cell (run) exactly once, each in the shard its index says.
  const total = first.part.zonesim === 'sweep-part' ? first.part.cellCount : first.part.runCount;
  const seen = new Set<number>();
  for (const { path, part } of parts) {
    const items: Array<{ index: number }> = part.zonesim === 'sweep-part' ? part.cells : part.runs;
    for (const { index } of items) {
      if (!Number.isInteger(index) || index < 0 || index >= total || index % n !== part.shard.k - 1 || seen.has(index)) {
        throw new UsageError(`${path}: item ${index} does not belong in shard ${part.shard.k} of ${n}`, 'the part file was edited or damaged; run that shard again');
      }
      seen.add(index);
    }
  }
  if (seen.size !== total) throw new UsageError(`the parts hold ${seen.size} of ${total} items`, 'a part file was cut short; run its shard again');
  return [...byK.entries()].sort((a, b) => a[0] - b[0]).map(([, path]) => parts.find((p) => p.path === path)!.part);
}
