/**
 * Part files of sharded sweeps and comparisons (`--shard k/n`): their format, the hash that ties
 * the parts of one job together, atomic writing, and reading and checking a set of parts for
 * `zonesim merge` (same job, same n, every shard once, every cell once). Merging the figures
 * themselves belongs to `merge.ts`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Summary } from '../metrics/summary.js';
import { clipText } from '../scenario/clip-text.js';
import { MAX_CELLS, type Shard } from '../scenario/grid.js';
import { UsageError, type Io } from '../scenario/io.js';
import { exitIfParentGone } from '../parallel/parent-watch.js';
import { emitBody, jsonBody, type Body } from './json-out.js';
import { readJsonChecked, summarySchema, sweepCellProblem, sweepCellSchema, sweepHeaderSchema, type DocCheck, type DocProblem } from './report-input.js';
import { describeFsError, inFolder } from './results.js';
import { removeStaleTemps, writeFileAtomically } from './safe-write.js';
import type { SweepCell, SweepHeader } from '../report/sweep-output.js';
import { VERSION } from '../scenario/version.js';

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

/**
 * The hash of a sweep's inputs, from what its part files carry: the scenario text as run (after
 * `--set`) and the header (grid, strategies by name, seeds, version). Strategies are named: a
 * name means the scenario's strategy of that name, or zonesim's built-in one of its version.
 */
export function sweepPartHash(scenarioText: string, h: SweepHeader): string {
  const header = { scenario: h.scenario, seed: h.seed, seeds: h.seeds, version: h.version, grid: h.grid, strategies: h.strategies };
  return jobHash({ kind: 'sweep', scenarioText, header });
}

/** The hash of a comparison's inputs, from what its part files carry (as `sweepPartHash`). */
export function comparePartHash(scenarioText: string, h: CompareHeader): string {
  const header = { scenario: h.scenario, seed: h.seed, seeds: h.seeds, version: h.version, strategies: h.strategies };
  return jobHash({ kind: 'compare', scenarioText, header });
}

/** `sweep.part-2-of-4.json`. */
export function partFileName(kind: 'sweep' | 'compare', shard: Shard): string {
  return `${kind}.part-${shard.k}-of-${shard.n}.json`;
}

/**
 * Writes a part file atomically into `dir` (created when missing) and returns its path; throws
 * when it cannot (nothing left behind).
 */
export function writePart(dir: string, name: string, body: Body): string {
  // A shard whose supervisor was killed writes nothing (parent-watch.ts).
  exitIfParentGone();
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    // ENOENT: another zonesim's check removed a parent this mkdir had just made; `inFolder` makes it again.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--out: cannot create ${dir} (${(error as Error).message})`);
  }
  // Once the temporary file is there the folder is not empty, so nobody removes it before the rename.
  inFolder(dir, () => {
    removeStaleTemps(dir);
    writeFileAtomically(dir, name, body);
  });
  return join(dir, name);
}

/**
 * Writes a shard's part file and prints its JSON (`--json`) or where it went; returns the exit
 * code. When the file cannot be written, stderr says so in one line and the JSON is printed all
 * the same (exit 1).
 */
export function writePartOrSay(io: Io, dir: string, shard: Shard, part: Part, json: boolean, summary: string): number {
  const name = partFileName(part.zonesim === 'sweep-part' ? 'sweep' : 'compare', shard);
  const body = jsonBody(part);
  let file: string | undefined;
  try {
    file = writePart(dir, name, body);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    io.stderr(`zonesim: could not write the part file ${join(dir, name)} (${describeFsError(error)}): nothing was written\n`);
  }
  if (json) emitBody(body, (s) => io.stdout(s));
  else io.stdout(`${summary}\n${file === undefined ? '' : `part: ${file}\n`}`);
  return file === undefined ? 1 : 0;
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

/** A whole number from `min` to `max` (zod's own `int()` words large values as "expected int to be <= 2^53 - 1"). */
const whole = (min: number, max: number, what: string) =>
  z.number().refine((x) => Number.isInteger(x) && x >= min && x <= max, { message: `expected a whole number of ${what} from ${min} to ${max}` });
const partBase = {
  shard: z.object({ k: whole(1, MAX_CELLS, 'the shard'), n: whole(1, MAX_CELLS, 'shards') }),
  hash: z.string(),
  scenarioFile: z.string(),
  scenarioText: z.string(),
};
const kindSchema = z.object({ zonesim: z.enum(['sweep-part', 'compare-part']) });
const sweepPartSchema = z.object({
  zonesim: z.literal('sweep-part'),
  ...partBase,
  header: sweepHeaderSchema,
  cellCount: whole(0, MAX_CELLS, 'cells'),
  cells: z.array(z.unknown()),
});
const comparePartSchema = z.object({
  zonesim: z.literal('compare-part'),
  ...partBase,
  header: z.object({
    scenario: z.string(),
    seed: z.number(),
    seeds: z.array(z.number()).min(1, { message: 'expected at least one seed' }),
    version: z.string(),
    strategies: z.record(z.string(), z.string()).refine((r) => Object.keys(r).length > 0, { message: 'expected at least one strategy' }),
  }),
  runCount: whole(0, Number.MAX_SAFE_INTEGER, 'runs'),
  runs: z.array(z.unknown()),
});
const compareRunSchema = z.object({ index: z.number(), strategy: z.string(), seed: z.number(), summary: summarySchema });

/** The cell a sweep has at `index` (strategies outermost, the last axis fastest, as `gridCells`). */
function cellAt(header: SweepHeader, index: number): { values: Record<string, string>; strategy: string | null } {
  const axes = Object.entries(header.grid);
  const perStrategy = axes.reduce((n, [, v]) => n * v.length, 1);
  let rest = index % perStrategy;
  const values: Record<string, string> = {};
  for (let a = axes.length - 1; a >= 0; a--) {
    const [path, list] = axes[a]!;
    values[path] = list[rest % list.length]!;
    rest = Math.floor(rest / list.length);
  }
  const strategy = header.strategies.length === 0 ? null : header.strategies[Math.floor(index / perStrategy)]!;
  return { values: Object.fromEntries(axes.map(([path]) => [path, values[path]!])), strategy };
}

/**
 * What a (schema-checked) part says that cannot be: a header whose seeds are not `seed`, `seed + 1`,
 * …, an item count other than the header gives, an item out of range, or an item that is not the
 * cell or run its index names. The hash is checked separately.
 */
function partProblem(part: Part): DocProblem | undefined {
  const { header } = part;
  if (header.seeds.length === 0 || header.seeds.some((s, i) => s !== header.seed + i)) {
    return { path: ['header', 'seeds'], message: `expected the seeds ${header.seed}, ${header.seed + 1}, … (at least one), found ${JSON.stringify(header.seeds).slice(0, 80)}` };
  }
  if (part.zonesim === 'sweep-part') {
    const axes = Object.values(part.header.grid);
    const count = axes.reduce((n, v) => n * v.length, Math.max(1, part.header.strategies.length));
    if (part.cellCount !== count) return { path: ['cellCount'], message: `expected ${count} (the cells of the grid and strategies), found ${part.cellCount}` };
    for (const [i, cell] of part.cells.entries()) {
      const fits = sweepCellProblem(part.header, cell);
      if (fits !== undefined) return { path: ['cells', i, ...fits.path], message: fits.message };
      if (!(cell.index >= 0 && cell.index < count && Number.isInteger(cell.index))) return { path: ['cells', i, 'index'], message: `expected a cell index from 0 to ${count - 1}, found ${cell.index}` };
      const expected = cellAt(part.header, cell.index);
      if (expected.strategy !== cell.strategy || Object.entries(expected.values).some(([p, v]) => cell.values[p] !== v)) {
        return { path: ['cells', i], message: `cell ${cell.index} of this grid is ${JSON.stringify({ values: expected.values, strategy: expected.strategy }).slice(0, 160)}; this cell says otherwise` };
      }
    }
    return undefined;
  }
  const names = Object.keys(part.header.strategies);
  const seeds = part.header.seeds;
  const count = names.length * seeds.length;
  if (part.runCount !== count) return { path: ['runCount'], message: `expected ${count} (strategies × seeds), found ${part.runCount}` };
  for (const [i, run] of part.runs.entries()) {
    if (!(Number.isInteger(run.index) && run.index >= 0 && run.index < count)) return { path: ['runs', i, 'index'], message: `expected a run index from 0 to ${count - 1}, found ${run.index}` };
    const strategy = names[Math.floor(run.index / seeds.length)]!;
    if (run.strategy !== strategy) return { path: ['runs', i, 'strategy'], message: `run ${run.index} is of the strategy ${JSON.stringify(strategy)}, found ${JSON.stringify(run.strategy).slice(0, 80)}` };
    const seed = seeds[run.index % seeds.length]!;
    if (run.seed !== seed) return { path: ['runs', i, 'seed'], message: `run ${run.index} is of the seed ${seed}, found ${run.seed}` };
  }
  return undefined;
}

/** Reads one part file and checks it on its own: its shape, its summaries, its items, and its hash against its contents. */
function readPart(path: string): Part {
  const part = readJsonChecked(path, (doc): DocCheck => {
    if (!kindSchema.safeParse(doc).success) throw new UsageError(`${path}: not a part file of zonesim sweep --shard or zonesim compare --shard`);
    return (doc as Part).zonesim === 'sweep-part'
      ? { schema: sweepPartSchema, items: { cells: sweepCellSchema }, problem: partProblem }
      : { schema: comparePartSchema, items: { runs: compareRunSchema }, problem: partProblem };
  }) as Part;
  if (part.header.version !== VERSION) {
    throw new UsageError(`${path} was written by zonesim ${clipText(part.header.version, 40)}; this is zonesim ${VERSION}`, 'merge parts with the zonesim version that wrote them');
  }
  const hash = part.zonesim === 'sweep-part' ? sweepPartHash(part.scenarioText, part.header) : comparePartHash(part.scenarioText, part.header);
  if (part.hash !== hash) {
    throw new UsageError(`${path}: its contents do not match its hash: the part file was edited or damaged`, 'run that shard again');
  }
  return part;
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
  const byPath = new Map(parts.map((p) => [p.path, p.part]));
  return [...byK.entries()].sort((a, b) => a[0] - b[0]).map(([, path]) => byPath.get(path)!);
}
