/**
 * The objective that picks a sweep's best cell (SPEC 4.2a `best`): a list of summary figures
 * compared in order (lexicographic), each lowest or highest first, then the cell index. The
 * default is `recommend`'s objective with duplicate executions as the tie-breaker:
 * `errorRate,latencyAllMs.p99,duplicateExecutions`. It owns parsing `--objective` and
 * `--max-timeout-rate`, the ranking and the `best` field; showing it belongs to `sweep-output.ts`.
 *
 * Figures are compared exactly, with no "within sampling error" ties as `recommend`'s verdict
 * allows: a comparison with tolerances is not transitive (a ≈ b, b ≈ c, yet a < c), so a ranking
 * built on it depends on the order the cells are looked at. An exact lexicographic order is a
 * strict total order with the index last, so the best cell is the same however the cells were
 * sharded. Cells do tie exactly where it matters: every cell replays the same arrivals and a
 * percentile is the top of a histogram bin, so cells often share an error rate and a p99 (many
 * cells of timeout-sweep have no failure and a p99 of 802.30 ms), and duplicates rank them.
 */
import { OUTCOMES, type Summary } from '../metrics/summary.js';
import { figureAt } from '../metrics/aggregate.js';
import { RECOMMEND_OBJECTIVE } from '../analysis/recommend-verdict.js';
import { UsageError } from '../scenario/io.js';

/** One figure of an objective: its summary path and whether lower or higher is better. */
export interface ObjectiveKey {
  path: string;
  direction: 'min' | 'max';
}

/** What "best cell" means: the keys in order, and an optional bound on the timeout rate. */
export interface Objective {
  keys: ObjectiveKey[];
  /** Cells with a timeout rate at or above this do not qualify; undefined: no bound. */
  maxTimeoutRate?: number;
  /** The canonical text: paths joined by commas, `max:` before those maximized (the `best.objective` of the JSON). */
  name: string;
}

/** `sweep --json`'s `best`: the best cell's index (null when no cell qualifies) and the objective it was picked by. */
export interface SweepBest {
  index: number | null;
  objective: string;
  /** Present only when a timeout-rate bound applied. */
  maxTimeoutRate?: number;
}

/** The default objective (SPEC 4.2a): error rate of all calls, then their p99, then duplicate executions. */
export const DEFAULT_OBJECTIVE = `${RECOMMEND_OBJECTIVE},duplicateExecutions`;

/** The bound on the timeout rate that a custom `--objective` gets when `--max-timeout-rate` is not given. */
export const CUSTOM_OBJECTIVE_MAX_TIMEOUT_RATE = 0.001;

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
  'requests', 'ok', 'timeoutRate', 'noProviderRate', 'errorRate', 'mockRate', 'attempts', 'retryAmplification', 'providerExecutions',
  'duplicateExecutions', 'duplicateWrites', 'orphanedExecutions', 'crossZoneRatio', 'registry.pushes', 'registry.pushBytes',
  'registry.staleCalls',
  ...LATENCY.flatMap((k) => [`latencyMs.${k}`, `latencyAllMs.${k}`]),
  ...OUTCOMES.map((o) => `outcomes.${o}`),
]);

/** One `[min:|max:]FIGURE` item of `--objective`. */
function parseKey(item: string): ObjectiveKey {
  const m = /^(?:(min|max):)?(.*)$/.exec(item)!;
  const name = m[2]!.trim();
  const path = OBJECTIVE_ALIASES[name] ?? name;
  if (!OBJECTIVE_PATHS.has(path)) {
    throw new UsageError(
      `--objective: unknown figure "${name}"`,
      `use a comma list of [min:|max:] and one of ${Object.keys(OBJECTIVE_ALIASES).join(', ')}, or a summary path such as latencyAllMs.p99`,
    );
  }
  return { path, direction: (m[1] ?? 'min') as 'min' | 'max' };
}

/**
 * Parses `--objective` (a comma list of `[min:|max:]FIGURE`, compared in order; default
 * {@link DEFAULT_OBJECTIVE}) and `--max-timeout-rate` (default: no bound for the default
 * objective, {@link CUSTOM_OBJECTIVE_MAX_TIMEOUT_RATE} for a custom one, as before lists existed).
 */
export function parseObjective(text: string | undefined, maxTimeoutRate: number | undefined): Objective {
  if (maxTimeoutRate !== undefined && !(maxTimeoutRate >= 0 && maxTimeoutRate <= 1)) {
    throw new UsageError(`--max-timeout-rate: expected a fraction between 0 and 1, found ${maxTimeoutRate}`);
  }
  return objectiveFrom(text ?? DEFAULT_OBJECTIVE, maxTimeoutRate ?? (text === undefined ? undefined : CUSTOM_OBJECTIVE_MAX_TIMEOUT_RATE));
}

/** The objective of `text` (a comma list of `[min:|max:]FIGURE`) with exactly the bound given. */
function objectiveFrom(text: string, maxTimeoutRate: number | undefined): Objective {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`--objective: an empty figure in "${text}"`, 'separate figures with single commas: errorRate,p99-all,duplicates');
  const keys = items.map(parseKey);
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.path)) throw new UsageError(`--objective: ${k.path} is given twice in "${text}"`);
    seen.add(k.path);
  }
  return {
    keys,
    ...(maxTimeoutRate === undefined ? {} : { maxTimeoutRate }),
    name: keys.map((k) => `${k.direction === 'max' ? 'max:' : ''}${k.path}`).join(','),
  };
}

/**
 * The objective a `sweep.json` (at `file`) was written with, from its `best`; the default for
 * files written before `best` existed. A bad `best` is a UsageError naming the file.
 */
export function objectiveOf(best: SweepBest | undefined, file: string): Objective {
  if (best === undefined) return parseObjective(undefined, undefined);
  try {
    return objectiveFrom(best.objective, best.maxTimeoutRate);
  } catch (error) {
    throw new UsageError(`${file}: best.objective: ${(error as Error).message.replace(/^--objective: /, '')}`);
  }
}

/** Whether a cell may be the best: its timeout rate is under the bound (a bound of 1 lets every cell in). */
export function qualifies(summary: Summary, objective: Objective): boolean {
  const bound = objective.maxTimeoutRate;
  return bound === undefined || bound >= 1 || summary.timeoutRate < bound;
}

/** A figure for ordering: a NaN sorts last whichever the direction, so the order stays total. */
function orderValue(summary: Summary, key: ObjectiveKey): number {
  const x = figureAt(summary, key.path);
  if (Number.isNaN(x)) return Infinity;
  return key.direction === 'min' ? x : -x;
}

/** Negative when `a` ranks above `b`: the keys in order, then the lower index. A strict total order on cells. */
export function compareCells(a: { index: number; summary: Summary }, b: { index: number; summary: Summary }, objective: Objective): number {
  for (const key of objective.keys) {
    const x = orderValue(a.summary, key);
    const y = orderValue(b.summary, key);
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.index - b.index;
}

/** The cells that qualify, best first. */
export function rankCells<C extends { index: number; summary: Summary }>(cells: C[], objective: Objective): C[] {
  return cells.filter((c) => qualifies(c.summary, objective)).sort((a, b) => compareCells(a, b, objective));
}

/** The best cell by `objective` among those that qualify; undefined if none does. */
export function bestCell<C extends { index: number; summary: Summary }>(cells: C[], objective: Objective): C | undefined {
  return rankCells(cells, objective)[0];
}

/** The `best` field of a sweep document. */
export function sweepBest(cells: Array<{ index: number; summary: Summary }>, objective: Objective): SweepBest {
  return {
    index: bestCell(cells, objective)?.index ?? null,
    objective: objective.name,
    ...(objective.maxTimeoutRate === undefined ? {} : { maxTimeoutRate: objective.maxTimeoutRate }),
  };
}
