/**
 * What a sweep shows and writes (SPEC 4.2a), shared by `zonesim sweep` and `zonesim merge`: the
 * sweep document, `sweep.csv`, the table, the best cell by an objective, and the results folder.
 * Everything is rendered from the document alone, so a merged sweep prints and writes the same
 * bytes as the unsharded one. It runs no simulation.
 */
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { Summary } from '../metrics/summary.js';
import { figureAt } from '../metrics/aggregate.js';
import { UsageError, type Io } from './io.js';
import { newRunId, resultsRoot, writeResultsOrSay } from './results.js';

/** One cell of a finished sweep. */
export interface SweepCell {
  index: number;
  values: Record<string, string>;
  strategy: string | null;
  summary: Summary;
}

/** `sweep --json` and `sweep.json` (SPEC 4.2a). */
export interface SweepDoc {
  scenario: string;
  seed: number;
  seeds: number[];
  version: string;
  grid: Record<string, string[]>;
  strategies: string[];
  cells: SweepCell[];
}

/** A main figure: its path in a summary, its column in tables, and how it is shown. */
export interface SweepFigure {
  path: string;
  label: string;
  kind: 'count' | 'ms' | 'percent' | 'ratio';
}

/** The main figures of a cell, in the order of `sweep.csv`, the table and the report. */
export const SWEEP_FIGURES: SweepFigure[] = [
  { path: 'requests', label: 'requests', kind: 'count' },
  { path: 'latencyMs.p50', label: 'p50 ok ms', kind: 'ms' },
  { path: 'latencyMs.p99', label: 'p99 ok ms', kind: 'ms' },
  { path: 'latencyMs.p999', label: 'p999 ok ms', kind: 'ms' },
  { path: 'latencyAllMs.p99', label: 'p99 all ms', kind: 'ms' },
  { path: 'timeoutRate', label: 'timeout %', kind: 'percent' },
  { path: 'noProviderRate', label: 'no-provider %', kind: 'percent' },
  { path: 'errorRate', label: 'error %', kind: 'percent' },
  { path: 'duplicateExecutions', label: 'duplicates', kind: 'count' },
  { path: 'duplicateWrites', label: 'duplicate writes', kind: 'count' },
  { path: 'retryAmplification', label: 'attempts/req', kind: 'ratio' },
  { path: 'crossZoneRatio', label: 'cross-zone %', kind: 'percent' },
];

/** Shows a figure as the tables do. */
export function formatFigure(f: SweepFigure, x: number): string {
  switch (f.kind) {
    case 'count':
      return Number.isInteger(x) ? String(x) : x.toFixed(1);
    case 'ms':
      return x < 1 ? x.toFixed(3) : x.toFixed(2);
    case 'percent':
      return (x * 100).toFixed(3);
    case 'ratio':
      return x.toFixed(3);
  }
}

/** `sweep.csv`: one row per cell: the grid values, the strategy, then the main figures (raw numbers, rates as fractions). */
export function sweepCsv(doc: SweepDoc): string {
  const axes = Object.keys(doc.grid);
  const rows: Array<Array<string | number>> = [[...axes, 'strategy', ...SWEEP_FIGURES.map((f) => f.path)]];
  for (const c of doc.cells) {
    rows.push([...axes.map((a) => c.values[a] ?? ''), c.strategy ?? '', ...SWEEP_FIGURES.map((f) => figureAt(c.summary, f.path))]);
  }
  return stringify(rows);
}

/** Short column labels for the axes: the last path segment, or the whole path when two axes share it. */
export function axisLabels(paths: string[]): Record<string, string> {
  const last = (p: string) => {
    const m = /(?:\.|^)([^.[\]]+)$|\["([^"]+)"\]$|\['([^']+)'\]$|\[(\d+)\]$/.exec(p);
    return (m && (m[1] ?? m[2] ?? m[3] ?? m[4])) || p;
  };
  const short = paths.map(last);
  return Object.fromEntries(paths.map((p, i) => [p, short.filter((s) => s === short[i]).length > 1 ? p : short[i]!]));
}

/** What "best cell" means: minimize or maximize one figure among cells whose timeout rate is under a bound. */
export interface Objective {
  path: string;
  direction: 'min' | 'max';
  maxTimeoutRate: number;
  /** e.g. "lowest p99 ok ms". */
  describe: string;
}

const OBJECTIVE_ALIASES: Record<string, string> = {
  p50: 'latencyMs.p50',
  p90: 'latencyMs.p90',
  p99: 'latencyMs.p99',
  p999: 'latencyMs.p999',
  'p99-all': 'latencyAllMs.p99',
  'p999-all': 'latencyAllMs.p999',
  timeout: 'timeoutRate',
  'no-provider': 'noProviderRate',
  error: 'errorRate',
  duplicates: 'duplicateExecutions',
  'duplicate-writes': 'duplicateWrites',
  attempts: 'retryAmplification',
  'cross-zone': 'crossZoneRatio',
};

const LATENCY = ['mean', 'p50', 'p90', 'p99', 'p999', 'max'];
const OBJECTIVE_PATHS = new Set([
  'requests', 'ok', 'timeoutRate', 'noProviderRate', 'errorRate', 'attempts', 'retryAmplification', 'providerExecutions',
  'duplicateExecutions', 'duplicateWrites', 'orphanedExecutions', 'crossZoneRatio', 'registry.pushes', 'registry.pushBytes',
  'registry.staleCalls',
  ...LATENCY.flatMap((k) => [`latencyMs.${k}`, `latencyAllMs.${k}`]),
  ...['ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz'].map((o) => `outcomes.${o}`),
]);

/** Parses `--objective [min:|max:]FIGURE` (default `p99`, lowest) with `--max-timeout-rate`. */
export function parseObjective(text: string | undefined, maxTimeoutRate: number): Objective {
  if (!(maxTimeoutRate >= 0 && maxTimeoutRate <= 1)) {
    throw new UsageError(`--max-timeout-rate: expected a fraction between 0 and 1, found ${maxTimeoutRate}`);
  }
  const raw = (text ?? 'p99').trim();
  const m = /^(?:(min|max):)?(.+)$/.exec(raw)!;
  const direction = (m[1] ?? 'min') as 'min' | 'max';
  const name = m[2]!.trim();
  const path = OBJECTIVE_ALIASES[name] ?? name;
  if (!OBJECTIVE_PATHS.has(path)) {
    throw new UsageError(
      `--objective: unknown figure "${name}"`,
      `use [min:|max:] and one of ${Object.keys(OBJECTIVE_ALIASES).join(', ')}, or a summary path such as latencyAllMs.p99`,
    );
  }
  const label = SWEEP_FIGURES.find((f) => f.path === path)?.label ?? path;
  return { path, direction, maxTimeoutRate, describe: `${direction === 'min' ? 'lowest' : 'highest'} ${label}` };
}

/** The best cell by `objective` among cells with timeout rate under its bound (the lowest index on ties); undefined if none qualifies. */
export function bestCell(doc: SweepDoc, objective: Objective): SweepCell | undefined {
  let best: SweepCell | undefined;
  for (const c of doc.cells) {
    if (!(c.summary.timeoutRate < objective.maxTimeoutRate) && !(objective.maxTimeoutRate >= 1)) continue;
    const x = figureAt(c.summary, objective.path);
    if (best === undefined) best = c;
    else {
      const y = figureAt(best.summary, objective.path);
      if (objective.direction === 'min' ? x < y : x > y) best = c;
    }
  }
  return best;
}

/** A cell's grid values as `label=value` words (and its strategy first), for the axes `paths`. */
export function cellWords(paths: string[], c: Pick<SweepCell, 'values' | 'strategy'>): string {
  const labels = axisLabels(paths);
  const words = paths.map((p) => `${labels[p]}=${c.values[p]}`);
  if (c.strategy !== null) words.unshift(`strategy ${c.strategy}`);
  return words.join(', ');
}

/** One line naming the best cell (or saying that none qualifies). */
export function bestLine(doc: SweepDoc, objective: Objective): string {
  const best = bestCell(doc, objective);
  const head = `best (${objective.describe}, timeout % under ${formatFigure({ path: '', label: '', kind: 'percent' }, objective.maxTimeoutRate)})`;
  if (best === undefined) return `${head}: no cell qualifies`;
  const p99 = SWEEP_FIGURES.find((f) => f.path === 'latencyMs.p99')!;
  const figure = SWEEP_FIGURES.find((f) => f.path === objective.path);
  const shown = figure && figure !== p99 ? `, ${figure.label} ${formatFigure(figure, figureAt(best.summary, figure.path))}` : '';
  return (
    `${head}: #${best.index} ${cellWords(Object.keys(doc.grid), best)}: p99 ${formatFigure(p99, best.summary.latencyMs.p99)} ms, ` +
    `timeout ${formatFigure({ path: '', label: '', kind: 'percent' }, best.summary.timeoutRate)} %${shown}`
  );
}

/** The sweep table: one row per cell (index, grid values, strategy when any, main figures). */
export function formatSweepTable(doc: SweepDoc): string {
  const axes = Object.keys(doc.grid);
  const labels = axisLabels(axes);
  const withStrategy = doc.strategies.length > 0;
  const figures = SWEEP_FIGURES.filter((f) => f.path !== 'duplicateWrites' || doc.cells.some((c) => c.summary.duplicateWrites > 0));
  const rows: string[][] = [['#', ...axes.map((a) => labels[a]!), ...(withStrategy ? ['strategy'] : []), ...figures.map((f) => f.label)]];
  for (const c of doc.cells) {
    rows.push([
      String(c.index),
      ...axes.map((a) => c.values[a] ?? ''),
      ...(withStrategy ? [c.strategy ?? '-'] : []),
      ...figures.map((f) => formatFigure(f, figureAt(c.summary, f.path))),
    ]);
  }
  // Grid values and the strategy read left-aligned, figures right-aligned.
  const left = 1 + axes.length + (withStrategy ? 1 : 0);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) => r.map((cell, i) => (i > 0 && i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd())
    .join('\n') + '\n';
}

/** The heading line of the table. */
export function sweepHeading(doc: SweepDoc): string {
  const axes = Object.values(doc.grid).map((v) => v.length);
  const dims = [...(doc.strategies.length > 0 ? [doc.strategies.length] : []), ...axes].join(' × ');
  const seeds = doc.seeds.length > 1 ? `mean of ${doc.seeds.length} seeds (${doc.seeds.join(', ')})` : `seed ${doc.seed}`;
  return `${doc.scenario}: ${doc.cells.length} cells (${dims}), ${seeds}`;
}

export interface SweepWriteOptions {
  out?: string;
  json: boolean;
  report: boolean;
  objective: Objective;
}

/**
 * Writes the sweep's results folder (`sweep.json`, `sweep.csv`, the scenario as run, and
 * `report.html` when asked) and prints the JSON or the table; returns the folder, or undefined when it
 * could not be written (the output is printed all the same, and stderr says so).
 */
export async function writeSweep(
  doc: SweepDoc,
  scenario: { fileName: string; text: string },
  opts: SweepWriteOptions,
  io: Io,
): Promise<string | undefined> {
  const json = JSON.stringify(doc, null, 2) + '\n';
  const files: Record<string, string> = {
    'sweep.json': json,
    'sweep.csv': sweepCsv(doc),
    [`scenario${scenario.fileName.endsWith('.json') ? '.json' : '.yaml'}`]: scenario.text,
  };
  if (opts.report) {
    const { renderSweepReport } = await import('./sweep-report.js');
    files['report.html'] = renderSweepReport(doc, opts.objective);
  }
  const dir = writeResultsOrSay(io, resultsRoot(io.cwd, opts.out), doc.scenario, `${newRunId(doc.seed)}-sweep`, files);
  if (opts.json) io.stdout(json);
  else {
    io.stdout(`${sweepHeading(doc)}\n\n${formatSweepTable(doc)}\n${bestLine(doc, opts.objective)}\n`);
    if (dir !== undefined) io.stdout(`\nresults: ${dir}\n`);
  }
  return dir;
}
