/**
 * Sweep grids (SPEC 1 `sweep`): the axes given with `--grid 'path=v1,v2,...'` and `--grid-file`,
 * value ranges (`100ms..1s/100ms`), the fixed cell order (strategies outermost, then the axes in
 * the order given, last axis fastest), `--shard k/n`, and the `zonesim run` command line that
 * reproduces one cell. Values stay the text the user wrote: each cell applies them as
 * `--set path=value`, so the scenario loader validates them like any other override. It owns no
 * simulation and no output.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { parseSetExpression } from './overrides.js';
import { ScenarioError } from './scenario-error.js';
import { parseDuration } from './units.js';
import { UsageError } from './io.js';

/** One grid axis: a `--set` path and its values, as YAML text, in order. */
export interface GridAxis {
  path: string;
  values: string[];
}

/** One cell of a sweep: its index in the fixed order, one value per axis, and the strategy (null: as written). */
export interface GridCell {
  index: number;
  values: Record<string, string>;
  strategy: string | null;
}

/** A shard of a sweep or comparison: `k` of `n`, 1-based. */
export interface Shard {
  k: number;
  n: number;
}

/** At most this many values on one axis and cells in one sweep (a typo such as `1ms..1h/1ms` is refused, not run). */
export const MAX_AXIS_VALUES = 10_000;
export const MAX_CELLS = 100_000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const RANGE_PART = String.raw`(-?(?:\d+(?:\.\d*)?|\.\d+))\s*(ms|s|min|m|h)?`;
const RANGE_RE = new RegExp(String.raw`^${RANGE_PART}\s*\.\.\s*${RANGE_PART}(?:\s*/\s*${RANGE_PART})?$`);
const LOOKS_LIKE_RANGE = /^[^{}[\]"']*\.\.[^{}[\]"']*$/;

/** Splits `text` at commas outside brackets, braces and quotes. */
export function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim());
}

const clean = (x: number) => Number(x.toPrecision(12)) + 0;

/**
 * The values of a range `start..end[/step]` (inclusive; ascending; step 1 of the start's unit by
 * default). Durations keep their unit when all three parts share it, else they are written in ms.
 * Returns undefined when `text` is not a range; throws a RangeError saying why when it is a bad one.
 */
export function expandRange(text: string): string[] | undefined {
  const t = text.trim();
  if (!LOOKS_LIKE_RANGE.test(t)) return undefined;
  const m = RANGE_RE.exec(t);
  if (!m) throw new RangeError(`"${t}" is not a range: expected start..end/step, e.g. 100ms..1s/100ms or 0..4`);
  const [, a, ua, b, ub, s, us] = m;
  const units = [ua, ub, us].filter((u): u is string => u !== undefined);
  const timed = units.length > 0;
  if (timed && (ua === undefined || ub === undefined)) throw new RangeError(`"${t}": give the start and the end the same kind of value (both durations or both numbers)`);
  const stepUnit = s === undefined ? ua : (us ?? ua);
  const toMs = (n: string, u: string | undefined) => Number(n) * (u === undefined ? 1 : UNIT_MS[u]!);
  const start = toMs(a!, ua);
  const end = toMs(b!, ub);
  const step = s === undefined ? toMs('1', ua) : toMs(s, stepUnit);
  if (!(step > 0)) throw new RangeError(`"${t}": the step must be above 0`);
  if (end < start) throw new RangeError(`"${t}": the end is below the start`);
  if (timed && start < 0) throw new RangeError(`"${t}": a duration cannot be negative`);
  const count = Math.floor((end - start) / step + 1e-9) + 1;
  if (count > MAX_AXIS_VALUES) throw new RangeError(`"${t}" has ${count} values; at most ${MAX_AXIS_VALUES} per axis`);
  const outUnit = timed && [ua, ub, stepUnit].every((u) => u === ua) ? ua! : timed ? 'ms' : '';
  const size = outUnit === '' ? 1 : UNIT_MS[outUnit]!;
  return Array.from({ length: count }, (_, i) => `${clean(clean(start + i * step) / size)}${outUnit}`);
}

/** The values of a comma list whose items may be ranges; `where` prefixes error messages. */
export function expandValues(text: string, where: string): string[] {
  const out: string[] = [];
  for (const item of splitTopLevel(text)) {
    if (item === '') throw new UsageError(`${where}: an empty value in "${text}"`, 'separate values with single commas: path=v1,v2,v3');
    let range: string[] | undefined;
    try {
      range = expandRange(item);
    } catch (error) {
      throw new UsageError(`${where}: ${(error as Error).message}`);
    }
    out.push(...(range ?? [item]));
  }
  return out;
}

/** The position of the `=` that ends the path (outside brackets and quotes), or -1. */
function pathEnd(expr: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '=' && depth === 0) return i;
  }
  return -1;
}

/** Checks the path's syntax and every value's YAML as `--set` would read them; `where` prefixes the message. */
function checkAxis(axis: GridAxis, where: string): GridAxis {
  if (axis.values.length === 0) throw new UsageError(`${where}: no values`, 'write path=v1,v2,... or a range path=100ms..1s/100ms');
  if (axis.values.length > MAX_AXIS_VALUES) throw new UsageError(`${where}: ${axis.values.length} values; at most ${MAX_AXIS_VALUES} per axis`);
  const seen = new Set<string>();
  for (const v of axis.values) {
    if (seen.has(v)) throw new UsageError(`${where}: the value ${v} appears twice`);
    seen.add(v);
    try {
      parseSetExpression(`${axis.path}=${v}`, where);
    } catch (error) {
      const prefix = `--set ${axis.path}=${v}: `;
      const raw = (error as Error).message;
      const message = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
      throw new UsageError(`${where}: ${message}`, 'paths are written as for --set, e.g. consumers[0].reference["com.example.UserService"].timeout');
    }
  }
  return axis;
}

/** One `--grid 'path=v1,v2,...'` option. */
export function parseGridOption(expr: string): GridAxis {
  const where = `--grid ${expr}`;
  const eq = pathEnd(expr);
  if (eq <= 0) throw new UsageError(`${where}: expected path=v1,v2,... (e.g. 'consumers[0].consumerDefaults.retries=0,1,2')`);
  const path = expr.slice(0, eq).trim();
  return checkAxis({ path, values: expandValues(expr.slice(eq + 1), where) }, where);
}

/**
 * A `--grid-file`: a YAML map from path to a list of values or a `--grid`-style string
 * (`"0,1,2"`, `"100ms..1s/100ms"`). Scalars keep their text as written (quotes included), so a
 * quoted `"1"` stays a string; other items are written as flow YAML. Errors name file, line and column.
 */
export function parseGridFile(text: string, file: string): GridAxis[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  const fail = (node: unknown, path: string, message: string): never => {
    const offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0] ?? 0;
    const { line, col } = lc.linePos(offset);
    throw new ScenarioError([{ file, line, col, path, message }]);
  };
  if (doc.errors.length > 0) fail({ range: [doc.errors[0]!.pos[0]] }, '', `YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  if (!isMap(doc.contents)) fail(doc.contents, '', 'expected a map from --set path to values, e.g. "consumers[0].consumerDefaults.retries: [0, 1, 2]"');
  const axes: GridAxis[] = [];
  for (const pair of (doc.contents as { items: Array<{ key: unknown; value: unknown }> }).items) {
    const path = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const where = `${file}: ${path}`;
    const value = pair.value as Node | null;
    const itemText = (node: Node): string[] => {
      if (isScalar(node)) {
        const source = node.range ? text.slice(node.range[0], node.range[1]).trim() : String(node.value);
        if (node.type === 'PLAIN') {
          try {
            return expandRange(source) ?? [source];
          } catch (error) {
            return fail(node, path, (error as Error).message);
          }
        }
        return [source];
      }
      return [JSON.stringify(node.toJSON())];
    };
    let values: string[];
    if (isSeq(value)) values = value.items.flatMap((item) => itemText(item as Node));
    else if (isScalar(value) && typeof value.value === 'string' && value.type === 'PLAIN') {
      try {
        values = expandValues(value.value, where);
      } catch (error) {
        return fail(value, path, (error as Error).message.slice(where.length + 2));
      }
    } else if (isScalar(value) && value.value !== null) values = itemText(value);
    else return fail(value ?? pair.key, path, 'expected a list of values or a "v1,v2" / "start..end/step" string');
    try {
      axes.push(checkAxis({ path, values }, where));
    } catch (error) {
      return fail(value ?? pair.key, path, (error as Error).message.slice(where.length + 2));
    }
  }
  if (axes.length === 0) fail(doc.contents, '', 'the grid file names no axis');
  return axes;
}

/** Checks that no path is an axis twice and the cross product stays within MAX_CELLS. */
export function checkGrid(axes: GridAxis[], strategies: number): void {
  if (axes.length === 0) throw new UsageError('sweep needs at least one axis', "give --grid 'path=v1,v2,...' or --grid-file grid.yaml");
  const seen = new Set<string>();
  for (const a of axes) {
    if (seen.has(a.path)) throw new UsageError(`--grid: the path ${a.path} is given twice`, 'give each path once, with all its values');
    seen.add(a.path);
  }
  const cells = axes.reduce((n, a) => n * a.values.length, Math.max(1, strategies));
  if (cells > MAX_CELLS) throw new UsageError(`the sweep has ${cells} cells; at most ${MAX_CELLS}`, 'use fewer values per axis, or split the sweep');
}

/** Every cell in the fixed order: strategies outermost, then the axes as given, the last one fastest. */
export function gridCells(axes: GridAxis[], strategies: Array<string | null>): GridCell[] {
  const cells: GridCell[] = [];
  const names = strategies.length === 0 ? [null] : strategies;
  for (const strategy of names) {
    const walk = (k: number, values: Record<string, string>) => {
      if (k === axes.length) {
        cells.push({ index: cells.length, values: { ...values }, strategy });
        return;
      }
      for (const v of axes[k]!.values) walk(k + 1, { ...values, [axes[k]!.path]: v });
    };
    walk(0, {});
  }
  return cells;
}

/** The `--set` expressions that make a cell. */
export function cellSets(cell: GridCell): string[] {
  return Object.entries(cell.values).map(([path, v]) => `${path}=${v}`);
}

/** Parses `--shard k/n` (1 <= k <= n). */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || !(n >= 1) || !(k >= 1) || k > n || !Number.isSafeInteger(n)) {
    throw new UsageError(`--shard: expected k/n with 1 <= k <= n, found "${text}"`, 'shards are 1-based: --shard 1/4 ... --shard 4/4');
  }
  // `merge` takes at most this many parts (one per cell of the largest sweep).
  if (n > MAX_CELLS) throw new UsageError(`--shard: at most ${MAX_CELLS} shards, found "${text}"`);
  return { k, n };
}

/** True when item `index` belongs to `shard` (index mod n = k - 1). */
export function inShard(index: number, shard: Shard | undefined): boolean {
  return shard === undefined || index % shard.n === shard.k - 1;
}

/** A number for a grid value when it is one (a plain number or a duration in ms), else undefined. */
export function numericValue(value: string): number | undefined {
  const t = value.trim().replace(/^(["'])(.*)\1$/, '$2');
  if (/^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  return parseDuration(t);
}

/** A word for the shell: quoted with single quotes unless it is plain. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
