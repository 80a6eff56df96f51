/**
 * `zonesim compare`: run a scenario once per strategy with the same seeds and show them side by
 * side (table, CSV, and the JSON with one summary per strategy under `byStrategy`).
 */
import { resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { aggregateSummaries } from '../metrics/aggregate.js';
import { applyStrategy, strategiesFor } from '../scenario/strategies.js';
import type { Summary } from '../metrics/summary.js';
import { formatCompareTable, summaryCsv } from './format.js';
import { UsageError, type Io } from './io.js';
import { loadPlugins } from './plugins.js';
import { runSimTasks } from './parallel.js';
import { progressBars } from './progress.js';
import { newRunId, writeResults } from './results.js';
import { VERSION } from './version.js';

export interface CompareOptions {
  scenario: string;
  strategies?: string[];
  seed?: number;
  seeds: number;
  set: string[];
  out?: string;
  json: boolean;
  report: boolean;
  /** Worker threads for the strategy x seed runs (1: all in this thread). */
  jobs: number;
}

/** Runs every strategy; returns the exit code. */
export async function runCompare(opts: CompareOptions, io: Io): Promise<number> {
  const path = resolve(io.cwd, opts.scenario);
  const { scenario, rawText } = loadScenarioWithRaw(path, opts.set);
  let strategies;
  try {
    strategies = strategiesFor(scenario, opts.strategies);
  } catch (error) {
    throw new UsageError(`--strategies: ${(error as Error).message}`);
  }
  if (!Number.isInteger(opts.seeds) || opts.seeds < 1) throw new UsageError(`--seeds: expected a whole number >= 1, found ${opts.seeds}`);
  await loadPlugins(scenario, path);
  const seed = opts.seed ?? scenario.seed;
  const seeds = Array.from({ length: opts.seeds }, (_, i) => seed + i);
  // Strategies outermost, seeds inside: one task per (strategy, seed), all independent.
  const names = Object.keys(strategies);
  const tasks = names.flatMap((name) => {
    const applied = applyStrategy(scenario, strategies[name]!);
    return seeds.map((s) => ({ scenario: applied, scenarioPath: path, seed: s }));
  });
  const labels = names.flatMap((name) => seeds.map((s) => `${name} seed ${s}`));
  const summaries = await runSimTasks(tasks, opts.jobs, progressBars(io.progressStream, labels, scenario.durationMs));
  const byStrategy: Record<string, Summary> = {};
  names.forEach((name, i) => {
    const perSeed = summaries.slice(i * seeds.length, (i + 1) * seeds.length);
    byStrategy[name] = perSeed.length === 1 ? perSeed[0]! : aggregateSummaries(perSeed);
  });
  const doc = { scenario: scenario.name, seed, seeds, version: VERSION, strategies: Object.fromEntries(
    Object.entries(strategies).map(([n, s]) => [n, s.description ?? '']),
  ), byStrategy };
  const json = JSON.stringify(doc, null, 2) + '\n';
  const csv = Object.entries(byStrategy)
    .map(([name, s], i) => {
      const lines = summaryCsv(s).trimEnd().split('\n');
      const body = lines.slice(1).map((l) => `${name},${l}`);
      return (i === 0 ? [`strategy,${lines[0]}`, ...body] : body).join('\n');
    })
    .join('\n') + '\n';
  const files: Record<string, string> = {
    'compare.json': json,
    'compare.csv': csv,
    [`scenario${path.endsWith('.json') ? '.json' : '.yaml'}`]: rawText,
  };
  if (opts.report) {
    const { renderReport } = await import('./report.js');
    files['report.html'] = renderReport(byStrategy, `${scenario.name}: strategies compared`);
  }
  const dir = writeResults(resolve(io.cwd, opts.out ?? 'results'), scenario.name, `${newRunId(seed)}-compare`, files);
  if (opts.json) io.stdout(json);
  else {
    io.stdout(formatCompareTable(byStrategy));
    io.stdout(`\nresults: ${dir}\n`);
  }
  return 0;
}
