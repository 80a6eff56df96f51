/**
 * What a sweep shows (SPEC 4.2a), shared by `zonesim sweep` and `zonesim merge`: the sweep document
 * with its best cell (by `sweep-objective.ts`), `sweep.csv`, and the table with the objective's
 * figures and the costs of retries first. Everything is rendered from the document alone, so a
 * merged sweep prints and writes the same bytes as the unsharded one (cli/sweep-results.ts writes
 * them). It runs no simulation.
 */
import { resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { Summary } from '../metrics/summary.js';
import { figureAt } from '../metrics/aggregate.js';
import { bestCell, sweepBest, type Objective, type SweepBest } from './sweep-objective.js';

/** One cell of a finished sweep. */
export interface SweepCell {
  index: number;
  values: Record<string, string>;
  strategy: string | null;
  summary: Summary;
}

/** What a sweep document says before its best cell and its cells (a part file carries it as is). */
export interface SweepHeader {
  scenario: string;
  seed: number;
  seeds: number[];
  version: string;
  grid: Record<string, string[]>;
  strategies: string[];
}

/** `sweep --json` and `sweep.json` (SPEC 4.2a). */
export interface SweepDoc extends SweepHeader {
  /** The best cell by the objective; absent only in files written before zonesim wrote it. */
  best?: SweepBest;
  cells: SweepCell[];
}

/** The sweep document of `cells` (in cell order), with the best cell by `objective`: the same bytes from `sweep` and `merge`. */
export function sweepDoc(header: SweepHeader, cells: SweepCell[], objective: Objective): SweepDoc {
  const { scenario, seed, seeds, version, grid, strategies } = header;
  return { scenario, seed, seeds, version, grid, strategies, best: sweepBest(cells, objective), cells };
}

/** A main figure: its path in a summary (or a name, for a figure derived by `of`), its column in tables, and how it is shown. */
export interface SweepFigure {
  path: string;
  label: string;
  kind: 'count' | 'ms' | 'percent' | 'ratio';
  /** How the figure is derived from a summary when it is not a summary path. */
  of?: (s: Summary) => number;
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

/** Attempts beyond the first per request, as a share of requests: (attempts − requests) / requests. */
export const EXTRA_ATTEMPTS: SweepFigure = {
  path: 'extraAttempts',
  label: 'extra attempts %',
  kind: 'percent',
  of: (s) => (s.requests > 0 ? s.attempts / s.requests - 1 : 0),
};

/** The costs of retries, shown beside the objective: duplicate executions, extra attempts, duplicate writes. */
const RETRY_COSTS: SweepFigure[] = [
  SWEEP_FIGURES.find((f) => f.path === 'duplicateExecutions')!,
  EXTRA_ATTEMPTS,
  SWEEP_FIGURES.find((f) => f.path === 'duplicateWrites')!,
];

/** A figure's value in a summary. */
export function figureValue(f: SweepFigure, s: Summary): number {
  return f.of ? f.of(s) : figureAt(s, f.path);
}

/** The figure shown for a summary path: a main figure's, else one labelled with the path. */
function figureFor(path: string): SweepFigure {
  const known = SWEEP_FIGURES.find((f) => f.path === path);
  if (known) return known;
  const kind = /^latency/.test(path) ? 'ms' : /(Rate|Ratio)$/.test(path) ? 'percent' : 'count';
  return { path, label: path, kind };
}

/**
 * The columns of the sweep table and the report's cell table: the objective's figures in order,
 * then the costs of retries (duplicates, extra attempts %, duplicate writes), then the other main
 * figures. Extra attempts stand for attempts per request.
 */
export function tableFigures(objective: Objective): SweepFigure[] {
  const lead = objectiveFigures(objective);
  const shown = new Set(lead.map((f) => f.path));
  return [...lead, ...SWEEP_FIGURES.filter((f) => f.path !== 'retryAmplification' && !shown.has(f.path))];
}

/** The objective's figures in order, then the costs of retries it does not already name. */
function objectiveFigures(objective: Objective): SweepFigure[] {
  const lead = objective.keys.map((k) => figureFor(k.path));
  return [...lead, ...RETRY_COSTS.filter((f) => !lead.some((l) => l.path === f.path))];
}

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

const PERCENT: SweepFigure = { path: '', label: '', kind: 'percent' };

/** The objective for people: "lowest error %, then lowest p99 all ms, then lowest duplicates", and the bound when any. */
export function describeObjective(objective: Objective): string {
  const keys = objective.keys.map((k) => `${k.direction === 'min' ? 'lowest' : 'highest'} ${figureFor(k.path).label}`).join(', then ');
  return objective.maxTimeoutRate === undefined ? keys : `${keys}, timeout % under ${formatFigure(PERCENT, objective.maxTimeoutRate)}`;
}

/** The figures that describe the best cell: the objective's, the costs of retries, and the timeout rate when it was bounded. */
export function bestFigures(objective: Objective): SweepFigure[] {
  const figures = objectiveFigures(objective);
  const timeout = SWEEP_FIGURES.find((f) => f.path === 'timeoutRate')!;
  return objective.maxTimeoutRate !== undefined && !figures.includes(timeout) ? [...figures, timeout] : figures;
}

/** A cell's grid values as `label=value` words (and its strategy first), for the axes `paths`. */
export function cellWords(paths: string[], c: Pick<SweepCell, 'values' | 'strategy'>): string {
  const labels = axisLabels(paths);
  const words = paths.map((p) => `${labels[p]}=${c.values[p]}`);
  if (c.strategy !== null) words.unshift(`strategy ${c.strategy}`);
  return words.join(', ');
}

/** One line naming the best cell and its figures (or saying that none qualifies). */
export function bestLine(doc: SweepDoc, objective: Objective): string {
  const best = bestCell(doc.cells, objective);
  const head = `best (${describeObjective(objective)})`;
  if (best === undefined) return `${head}: no cell qualifies`;
  const figures = bestFigures(objective).map((f) => `${f.label} ${formatFigure(f, figureValue(f, best.summary))}`);
  return `${head}: #${best.index} ${cellWords(Object.keys(doc.grid), best)}: ${figures.join(', ')}`;
}

/** The sweep table: one row per cell (index, grid values, strategy when any, then the figures of `tableFigures`). */
export function formatSweepTable(doc: SweepDoc, objective: Objective): string {
  const axes = Object.keys(doc.grid);
  const labels = axisLabels(axes);
  const withStrategy = doc.strategies.length > 0;
  const figures = tableFigures(objective);
  const rows: string[][] = [['#', ...axes.map((a) => labels[a]!), ...(withStrategy ? ['strategy'] : []), ...figures.map((f) => f.label)]];
  for (const c of doc.cells) {
    rows.push([
      String(c.index),
      ...axes.map((a) => c.values[a] ?? ''),
      ...(withStrategy ? [c.strategy ?? '-'] : []),
      ...figures.map((f) => formatFigure(f, figureValue(f, c.summary))),
    ]);
  }
  // Grid values and the strategy read left-aligned, figures right-aligned.
  const left = 1 + axes.length + (withStrategy ? 1 : 0);
  // A loop, not Math.max(...): a sweep has up to 100,000 rows, more than a call takes arguments.
  const widths = rows[0]!.map((_, i) => rows.reduce((w, r) => Math.max(w, r[i]!.length), 0));
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
