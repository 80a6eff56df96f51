/**
 * The measured data behind `samples` and `histogram` distributions (SPEC 2.1): CSV exports of
 * measured response times (records from `csv-records.ts`) and Prometheus text exposition (sample lines read
 * with parse-prometheus-text-format), checked and converted to milliseconds. `loadDataFiles` walks
 * a schema-parsed scenario, loads every data file its distributions name (relative to the scenario
 * file) and fills the data in. Bad data is reported at the data file's line, by position and reason
 * without quoting the file; a missing or refused file or a series that does not exist is reported at
 * the scenario field that names it. File access (and where files may be: `data-root.ts`) comes in as
 * a function from `load.ts`, the scenario layer's reader; sampling belongs to the engine.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import parsePrometheusText from 'parse-prometheus-text-format';
import type { DataSource, DistSpec, HistogramSpec, SamplesSpec } from '../engine/distributions.js';
import { maxRecords, readCsvRecords, type CsvRecord, type Visit } from './csv-records.js';
import type { FieldPath } from './scenario-error.js';
import { bucketProblems, DATA_UNIT_MS, formatDuration, histogramOf, needsDataFile } from './units.js';

/** A position in a data file (1-based line and column). */
export interface DataPosition {
  line: number;
  col: number;
}

/** A problem with measured data: at a data-file position, or (without one) at the scenario field `path` + `key`. */
export interface DataIssue {
  /** Scenario path of the distribution. */
  path: FieldPath;
  /** The distribution's field the problem is about when it has no data-file position (`file`, `metric`, ...). */
  key: string;
  message: string;
  /** The data file as shown to the user (relative to where the scenario was named from). */
  file: string;
  at?: DataPosition;
}

type Found<T> = { ok: true; value: T } | { ok: false; at?: DataPosition; key?: string; message: string };

const NUMBER_RE = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const MAX_LISTED = 5;

// SECURITY: a data path may name any file the root allows (data-root.ts), and errors end up in CI
// logs. So messages give positions, counts, lengths and shapes, and repeat only what the scenario
// wrote (a column, metric or label it asked for), never text of the file: not a header row, a
// cell, a metric name or a label value. Numbers of a bucket series that parsed are fine.

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const linesOf = (lines: number[]) => `${lines.slice(0, MAX_LISTED).join(', ')}${lines.length > MAX_LISTED ? ', ...' : ''}`;

/** What `text` (from a data file) is, told by its shape only: for "expected a number, found ...". */
function shapeOf(text: string): string {
  if (text.startsWith('-') && NUMBER_RE.test(text.slice(1))) return 'a negative number';
  if (/^[+-]?(inf(inity)?|nan)$/i.test(text)) return 'a value that is not a finite number';
  if (/^[+]?(\d+(\.\d*)?|\.\d+)\s*(ms|s|us)$/.test(text)) return 'a number with a unit (write plain numbers and give unit: on the distribution)';
  return `text that is not one (${plural(text.length, 'character')})`;
}

// ---- CSV ----

/**
 * Measured values as they are read, in a Float64Array (a number[] costs twice the memory) sized
 * once for the most records the text can hold.
 */
class ValueList {
  readonly #values: Float64Array;
  length = 0;
  constructor(capacity: number) {
    this.#values = new Float64Array(capacity);
  }
  push(v: number): void {
    this.#values[this.length++] = v;
  }
  /** The values, sorted ascending; copied into an array of their own length when lines without a value left much room. */
  sorted(): Float64Array {
    const used = this.#values.subarray(0, this.length).sort();
    return this.length < 0.9 * this.#values.length ? used.slice() : used;
  }
}

/**
 * Measured values (ms, sorted) of one CSV column. With `column` the file needs a header row that
 * has it; without, the file must have a single column (header optional). Records are read one at a
 * time (`csv-records.ts`; `reader` as there) and only the values are kept.
 */
export function parseSamplesCsv(
  text: string,
  opts: { column?: string; unit?: 'ms' | 's' | 'us'; reader?: 'csv-parse' },
): Found<Float64Array> {
  const numeric = (s: string | undefined) => s !== undefined && NUMBER_RE.test(s);
  // Only what the scenario wrote is named: the header row is the file's content (SECURITY above).
  const name = opts.column !== undefined ? `column "${opts.column}"` : 'the column';
  const factor = DATA_UNIT_MS[opts.unit ?? 'ms'];
  const values = new ValueList(maxRecords(text));
  let first: { line: number } | undefined;
  let columnIndex = 0;
  let refused: { at: DataPosition; message: string } | undefined;
  let bad: { at: DataPosition; message: string } | undefined;
  let badCount = 0;

  /** The first record: is it a header, and which field holds the values. */
  const head = (r: CsvRecord): 'value row' | 'header' | 'refused' => {
    if (opts.column !== undefined) {
      const header = r.fields;
      columnIndex = header.indexOf(opts.column);
      if (columnIndex < 0) {
        const wanted = opts.column.toLowerCase();
        const ci = header.findIndex((h) => h.toLowerCase() === wanted);
        if (ci >= 0 && header.filter((h) => h.toLowerCase() === wanted).length === 1) columnIndex = ci;
      }
      if (columnIndex >= 0) return 'header';
      refused = {
        at: { line: r.line, col: 1 },
        message: `no column "${opts.column}" in the header row (${plural(header.length, 'column')}; the name must match exactly or ignoring case)`,
      };
      return 'refused';
    }
    if (r.fields.length > 1) {
      refused = { at: { line: r.line, col: 1 }, message: `the file has ${r.fields.length} columns: name one with column:` };
      return 'refused';
    }
    return r.fields.every(numeric) ? 'value row' : 'header';
  };

  const visit: Visit = (r) => {
    if (first === undefined) {
      first = { line: r.line };
      const kind = head(r);
      if (kind === 'refused') return 'stop';
      if (kind === 'header') return 'next';
    }
    const cell = r.fields[columnIndex];
    let problem: string | undefined;
    const value = cell !== undefined && NUMBER_RE.test(cell) ? Number(cell) * factor : undefined;
    if (cell === undefined || cell === '') problem = `${name} is empty on this row`;
    else if (value === undefined) {
      const shape = shapeOf(cell);
      problem = shape === 'a negative number' ? `${name}: expected a measured value >= 0, found a negative number` : `${name}: expected a number, found ${shape}`;
    } else if (!Number.isFinite(value)) problem = `${name}: expected a finite number, found a number too large to represent`;
    if (problem === undefined) values.push(value!);
    else {
      badCount++;
      bad ??= { at: { line: r.line, col: r.column(columnIndex) }, message: problem };
    }
    return 'next';
  };

  const failure = readCsvRecords(text, visit, opts.reader);
  if (failure !== undefined) return { ok: false, ...failure };
  if (first === undefined) return { ok: false, at: { line: 1, col: 1 }, message: 'the file holds no values (it is empty)' };
  if (refused !== undefined) return { ok: false, ...refused };
  if (bad !== undefined) {
    return { ok: false, at: bad.at, message: badCount > 1 ? `${bad.message} (and ${badCount - 1} more bad rows)` : bad.message };
  }
  if (values.length === 0) {
    return { ok: false, at: { line: first.line + 1, col: 1 }, message: `the file holds no values below its header row` };
  }
  return { ok: true, value: values.sorted() };
}

// ---- Prometheus text exposition ----

interface BucketSample {
  labels: Record<string, string>;
  le: string;
  value: string;
  line: number;
}

/** The `le` unit of a metric from its name (`_seconds`, `_milliseconds`, `_microseconds`), if it tells. */
export function unitFromMetricName(metric: string): 'ms' | 's' | 'us' | undefined {
  if (/_seconds$/.test(metric)) return 's';
  if (/_(milliseconds|millis|ms)$/.test(metric)) return 'ms';
  if (/_(microseconds|micros|us)$/.test(metric)) return 'us';
  return undefined;
}

const labelText = (labels: Record<string, string>) =>
  `{${Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

/** One sample line through the exposition parser (it merges every series of a histogram family, so lines go one at a time). */
function parseSampleLine(line: string): { name: string; labels: Record<string, string>; value: string } {
  const families = parsePrometheusText(`${line}\n`);
  const family = families[0];
  const sample = family?.metrics[0];
  if (family === undefined || sample === undefined || typeof sample.value !== 'string') throw new Error('not a sample line');
  return { name: family.name, labels: sample.labels ?? {}, value: sample.value };
}

/** A Prometheus histogram series: its buckets (le in ms) and, when the file has them, its `_sum` (ms) and `_count`. */
export interface PrometheusSeries {
  buckets: Array<{ le: number; count: number; line: number }>;
  sumMs?: number;
  count?: number;
}

/**
 * The buckets (le in ms) of the one `<metric>_bucket` series whose labels include `labels`, with
 * the `_sum` and `_count` of the same labels when the file has them.
 * Errors name the line of a bad sample; a missing or ambiguous series names the scenario field.
 */
export function parsePrometheusHistogram(
  text: string,
  opts: { metric: string; labels?: Record<string, string>; unit?: 'ms' | 's' | 'us' },
): Found<PrometheusSeries> {
  const metric = opts.metric.replace(/_bucket$/, '');
  const bucketName = `${metric}_bucket`;
  // Other histograms in the file, by the line each first appears on (their names are the file's, not
  // shown), as many as a message lists.
  const histograms = new Map<string, number>();
  const samples: BucketSample[] = [];
  /** `_sum` and `_count` values by series labels (a malformed one is left out: they only inform). */
  const totals = { sum: new Map<string, number>(), count: new Map<string, number>() };
  // Line by line without splitting: a 100 MB file of short lines would be millions of strings at once.
  for (let start = 0, i = 0; start <= text.length; i++) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const t = text.slice(start, end).trim();
    start = end + 1;
    if (t === '' || t.startsWith('#')) continue;
    const name = /^[^\s{]+/.exec(t)?.[0] ?? '';
    if (name.endsWith('_bucket') && !histograms.has(name) && histograms.size <= MAX_LISTED) histograms.set(name, i + 1);
    if (name === `${metric}_sum` || name === `${metric}_count`) {
      try {
        const s = parseSampleLine(t);
        if (NUMBER_RE.test(s.value)) totals[name.endsWith('_sum') ? 'sum' : 'count'].set(labelText(s.labels), Number(s.value));
      } catch {
        // Not a sample line: the buckets alone make the distribution.
      }
    }
    if (name !== bucketName) continue;
    let s: ReturnType<typeof parseSampleLine>;
    try {
      s = parseSampleLine(t);
    } catch {
      return { ok: false, at: { line: i + 1, col: 1 }, message: `malformed sample line (expected name{label="value",...} value)` };
    }
    const { le, ...labels } = s.labels;
    if (le === undefined) return { ok: false, at: { line: i + 1, col: 1 }, message: `${bucketName} sample without an le label` };
    samples.push({ labels, le, value: s.value, line: i + 1 });
  }
  if (samples.length === 0) {
    const hint = histograms.size === 0 ? 'the file has no _bucket series' : `other histograms start at lines ${linesOf([...histograms.values()])}`;
    return { ok: false, key: 'metric', message: `no ${bucketName} series in the file (${hint})` };
  }
  const wanted = opts.labels ?? {};
  const series = new Map<string, BucketSample[]>();
  for (const s of samples) {
    if (!Object.entries(wanted).every(([k, v]) => s.labels[k] === v)) continue;
    const key = labelText(s.labels);
    const list = series.get(key) ?? [];
    list.push(s);
    series.set(key, list);
  }
  if (series.size !== 1) {
    if (series.size === 0) {
      // Label names and values in the file are its content: say which asked-for label fails, and where series start.
      const hints = Object.entries(wanted).map(([k, v]) => {
        const lines = new Map<string, number>();
        for (const s of samples) if (s.labels[k] !== undefined && !lines.has(s.labels[k])) lines.set(s.labels[k], s.line);
        if (lines.size === 0) return `no series has a label ${k}`;
        return lines.has(v)
          ? `${k}="${v}" appears, but not together with the other labels`
          : `${k}="${v}" appears nowhere (series with ${plural(lines.size, `other ${k} value`)} start at lines ${linesOf([...lines.values()])})`;
      });
      return { ok: false, key: 'labels', message: `no ${bucketName} series has the labels ${labelText(wanted)}: ${hints.join('; ')}` };
    }
    const starts = [...series.values()].map((l) => l[0]!.line);
    return {
      ok: false,
      key: 'labels',
      message: `${series.size} ${bucketName} series have the labels ${labelText(wanted)}, at lines ${linesOf(starts)}; add labels that pick one`,
    };
  }
  const unit = opts.unit ?? unitFromMetricName(metric);
  if (unit === undefined) {
    return { ok: false, key: 'metric', message: `cannot tell the unit of le from the name "${metric}": add unit: s, ms or us` };
  }
  const factor = DATA_UNIT_MS[unit];
  const buckets: Array<{ le: number; count: number; line: number }> = [];
  const [key, chosen] = [...series.entries()][0]!;
  for (const s of chosen) {
    const le = /^\+?inf$/i.test(s.le) ? Infinity : NUMBER_RE.test(s.le) ? Number(s.le) * factor : undefined;
    if (le === undefined) return { ok: false, at: { line: s.line, col: 1 }, message: `expected le to be a number >= 0 or +Inf, found ${shapeOf(s.le)}` };
    // A bound too large to represent is not +Inf: only the literal +Inf is.
    if (le === Infinity && !/^\+?inf$/i.test(s.le)) {
      return { ok: false, at: { line: s.line, col: 1 }, message: 'expected le to be a number >= 0 or +Inf, found a number too large to represent' };
    }
    const count = NUMBER_RE.test(s.value) ? Number(s.value) : undefined;
    if (count === undefined) return { ok: false, at: { line: s.line, col: 1 }, message: `expected a cumulative count >= 0, found ${shapeOf(s.value)}` };
    if (!Number.isFinite(count)) return { ok: false, at: { line: s.line, col: 1 }, message: 'expected a cumulative count >= 0, found a number too large to represent' };
    buckets.push({ le, count, line: s.line });
  }
  const problems = bucketProblems(buckets.map((b) => ({ le: b.le, count: b.count, at: b.line })));
  if (problems.length > 0) return { ok: false, at: { line: problems[0]!.at, col: 1 }, message: problems[0]!.message };
  const sum = totals.sum.get(key);
  const count = totals.count.get(key);
  return { ok: true, value: { buckets, ...(sum === undefined ? {} : { sumMs: sum * factor }), ...(count === undefined ? {} : { count }) } };
}

// ---- loading the data of a parsed scenario ----

/** The data file of `source` relative to the scenario file: where to read it and how to show it. */
function locate(scenarioFile: string, file: string): { abs: string; shown: string } {
  if (isAbsolute(file)) return { abs: file, shown: file };
  return { abs: resolve(dirname(scenarioFile), file), shown: join(dirname(scenarioFile), file) };
}

/**
 * Loads the data of every measured distribution in a schema-parsed scenario (in place): sorted
 * values for `samples`, buckets for `histogram`, with `source.file` made absolute. `raw` is the
 * document before parsing, used to give mixture shorthands their file path. Returns the problems.
 */
export function loadDataFiles(parsed: unknown, raw: unknown, scenarioFile: string, readText: (absPath: string) => string): DataIssue[] {
  const issues: DataIssue[] = [];
  const texts = new Map<string, { text: string } | { error: string }>();
  const read = (abs: string) => {
    let t = texts.get(abs);
    if (t === undefined) {
      try {
        t = { text: readText(abs) };
      } catch (e) {
        // The reader's reasons name paths and kinds of refusal (data-root.ts), never file content.
        t = { error: (e as Error).message };
      }
      texts.set(abs, t);
    }
    return t;
  };

  const load = (spec: SamplesSpec | HistogramSpec, path: FieldPath): void => {
    const source = spec.source!;
    const { abs, shown } = locate(scenarioFile, source.file);
    const t = read(abs);
    if ('error' in t) {
      issues.push({ path, key: 'file', file: shown, message: `cannot read the data file ${shown}: ${t.error}` });
      return;
    }
    const fail = (f: { at?: DataPosition; key?: string; message: string }) =>
      issues.push({ path, key: f.key ?? 'file', file: shown, message: f.message, ...(f.at ? { at: f.at } : {}) });
    const absSource: DataSource = { ...source, file: abs };
    if (spec.dist === 'samples') {
      const found = parseSamplesCsv(t.text, { column: source.column, unit: source.unit });
      if (!found.ok) return void fail(found);
      Object.assign(spec, { values: found.value, source: absSource });
      return;
    }
    const found = parsePrometheusHistogram(t.text, { metric: source.metric!, labels: source.labels, unit: source.unit });
    if (!found.ok) return void fail(found);
    const { buckets, sumMs, count } = found.value;
    const lastFinite = buckets.filter((b) => b.le !== Infinity).reduce((m, b) => Math.max(m, b.le), 0);
    if (spec.max !== undefined && spec.max < lastFinite) {
      issues.push({ path, key: 'max', file: shown, message: `max (${formatDuration(spec.max)}) must be at least the last finite bound of the series (${formatDuration(lastFinite)})` });
      return;
    }
    const h = histogramOf(buckets, spec.max, absSource);
    Object.assign(spec, { le: h.le, counts: h.counts, total: h.total, source: absSource, ...(sumMs !== undefined && count !== undefined && count > 0 ? { dataMeanMs: sumMs / count } : {}) });
  };

  const walk = (node: unknown, rawNode: unknown, path: FieldPath): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((x, i) => walk(x, Array.isArray(rawNode) ? rawNode[i] : undefined, [...path, i]));
      return;
    }
    if ('dist' in node && needsDataFile(node as DistSpec)) {
      load(node as SamplesSpec | HistogramSpec, path);
      return;
    }
    const rawObj = rawNode !== null && typeof rawNode === 'object' ? (rawNode as Record<string, unknown>) : {};
    for (const [k, v] of Object.entries(node)) {
      if (v === null || typeof v !== 'object') continue;
      // `{ mixture: [...] }` is parsed to `{ dist: mixture, components }`: follow the name the file used.
      const rawKey = k === 'components' && !('components' in rawObj) && 'mixture' in rawObj ? 'mixture' : k;
      walk(v, rawObj[rawKey], [...path, rawKey]);
    }
  };
  walk(parsed, raw, []);
  return issues;
}
