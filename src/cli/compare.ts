/**
 * `zonesim compare`: run a scenario once per strategy with the same seeds and show them side by
 * side (table, CSV, and the JSON with one summary per strategy under `byStrategy`).
 */
import { basename, resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { aggregateSummaries } from '../metrics/aggregate.js';
import { applyStrategy, strategiesFor } from '../scenario/strategies.js';
import type { Summary } from '../metrics/summary.js';
import { summaryCsv } from '../report/format.js';
import { formatCompareTable, type CompareTableOptions } from '../report/compare-table.js';
import { inShard, parseShard } from '../scenario/grid.js';
import { guardCost, type CostOptions } from '../parallel/cost-guard.js';
import { UsageError, type Io } from '../scenario/io.js';
import { checkSeedRange } from './seed-options.js';
import { preflightPlugins } from '../plugins/plugins.js';
import { pluginTasks } from '../plugins/plugin-tasks.js';
import type { WarmWorkers } from '../parallel/jobs.js';
import { runSimTasks } from '../parallel/parallel.js';
import { progressBars } from '../parallel/progress.js';
import { comparePartHash, writePartOrSay, type CompareHeader, type ComparePart } from './parts.js';
import { strategyInfo, withStrategy } from '../report/report-strategy.js';
import { addReportOrSay, checkResultsDir, newRunId, resultsRoot, safeName, writeResultsOrSay } from './results.js';
import { emitBody, jsonBody, type Body } from './json-out.js';
import { VERSION } from '../scenario/version.js';

export interface CompareOptions extends CostOptions {
  scenario: string;
  strategies?: string[];
  seed?: number;
  seeds: number;
  set: string[];
  out?: string;
  json: boolean;
  report: boolean;
  /** `zone`: the table adds one row per strategy and consumer zone (the JSON has them anyway). */
  by?: CompareTableOptions['by'];
  /** Worker threads for the strategy x seed runs (1: all in this thread). */
  jobs: number;
  /** Workers started before the scenario was read (`withWarmWorkers`); `runSimTasks` takes them. */
  workers?: WarmWorkers;
  /** `k/n`: run only the (strategy, seed) runs i with i mod n = k-1 and write a part file for `zonesim merge`. */
  shard?: string;
  /** `--per-instance`: each summary also lists every consumer instance's pushes (`registry.byConsumer`). */
  perInstance?: boolean;
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
  // Before any plugin code or simulation: one estimate per strategy (each runs every seed).
  const planned = Object.entries(strategies).map(([name, st]) => ({ label: `strategy ${name}`, scenario: applyStrategy(scenario, st), count: opts.seeds }));
  preflightPlugins(scenario, path);
  const dryRun = guardCost('compare', planned, opts, io);
  if (dryRun !== undefined) return dryRun;
  // A bad --out is found now, not after a long simulation.
  checkResultsDir(resultsRoot(io.cwd, opts.out), scenario.name);
  const seed = opts.seed ?? scenario.seed;
  checkSeedRange(seed, opts.seeds);
  const seeds = Array.from({ length: opts.seeds }, (_, i) => seed + i);
  // Strategies outermost, seeds inside: one task per (strategy, seed), all independent.
  const names = Object.keys(strategies);
  const tasks = names.flatMap((name) => {
    const applied = applyStrategy(scenario, strategies[name]!);
    return seeds.map((s) => ({ scenario: applied, scenarioPath: path, seed: s, force: opts.force, maxRequests: opts.maxRequests, perInstance: opts.perInstance }));
  });
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
  const header: CompareHeader = {
    scenario: scenario.name,
    seed,
    seeds,
    version: VERSION,
    strategies: Object.fromEntries(Object.entries(strategies).map(([n, s]) => [n, s.description ?? ''])),
  };
  const picked = tasks.map((_, i) => i).filter((i) => inShard(i, shard));
  const strategyOf = (i: number) => names[Math.floor(i / seeds.length)]!;
  const labels = picked.map((i) => `${strategyOf(i)} seed ${seeds[i % seeds.length]}`);
  // Each summary says which strategy ran (zonesim addition `strategy`), so the JSON alone explains the comparison.
  const summaries = (
    await runSimTasks(
      picked.map((i) => tasks[i]!),
      opts.jobs,
      progressBars(io.progressStream, labels, scenario.durationMs),
      opts.workers,
      pluginTasks,
    )
  ).map((s, j) => withStrategy(s, strategyInfo(strategyOf(picked[j]!), strategies[strategyOf(picked[j]!)]!)));
  if (shard !== undefined) {
    const part: ComparePart = {
      zonesim: 'compare-part',
      shard,
      hash: comparePartHash(rawText, header),
      scenarioFile: basename(path),
      scenarioText: rawText,
      header,
      runCount: tasks.length,
      runs: picked.map((i, j) => ({ index: i, strategy: strategyOf(i), seed: seeds[i % seeds.length]!, summary: summaries[j]! })),
    };
    const dir = resolve(resultsRoot(io.cwd, opts.out), safeName(scenario.name));
    return writePartOrSay(io, dir, shard, part, opts.json, `compare shard ${shard.k}/${shard.n}: ${picked.length} of ${tasks.length} runs (strategy x seed)`);
  }
  const dir = await writeCompare({ ...header, byStrategy: compareByStrategy(names, seeds.length, summaries) }, { fileName: path, text: rawText }, opts, io);
  return dir === undefined ? 1 : 0;
}

/** One summary per strategy from the (strategy, seed) summaries in that order: the seed's own, or the mean of several. */
export function compareByStrategy(names: string[], seedCount: number, summaries: Summary[]): Record<string, Summary> {
  const byStrategy: Record<string, Summary> = {};
  names.forEach((name, i) => {
    // Aggregated as JSON, as part files hold them, so a merged comparison gives the same bytes.
    const perSeed = summaries.slice(i * seedCount, (i + 1) * seedCount).map((s) => JSON.parse(JSON.stringify(s)) as Summary);
    byStrategy[name] = perSeed.length === 1 ? perSeed[0]! : aggregateSummaries(perSeed);
  });
  return byStrategy;
}

/**
 * Writes a comparison's results folder and prints its JSON or table (also for `zonesim merge`); returns the folder,
 * or undefined when it could not be written (the output is printed all the same, and stderr says so).
 */
export async function writeCompare(
  doc: CompareHeader & { byStrategy: Record<string, Summary> },
  scenarioFile: { fileName: string; text: string },
  opts: { out?: string; json: boolean; report: boolean; by?: CompareTableOptions['by'] },
  io: Io,
): Promise<string | undefined> {
  const { byStrategy } = doc;
  const json = jsonBody(doc);
  const csv = Object.entries(byStrategy)
    .map(([name, s], i) => {
      const lines = summaryCsv(s).trimEnd().split('\n');
      const body = lines.slice(1).map((l) => `${name},${l}`);
      return (i === 0 ? [`strategy,${lines[0]}`, ...body] : body).join('\n');
    })
    .join('\n') + '\n';
  const files: Record<string, Body> = {
    'compare.json': json,
    'compare.csv': csv,
    [`scenario${scenarioFile.fileName.endsWith('.json') ? '.json' : '.yaml'}`]: scenarioFile.text,
  };
  const dir = writeResultsOrSay(io, resultsRoot(io.cwd, opts.out), doc.scenario, `${newRunId(doc.seed)}-compare`, files);
  if (opts.json) emitBody(json, (s) => io.stdout(s));
  else {
    io.stdout(formatCompareTable(byStrategy, { by: opts.by }));
    if (dir !== undefined) io.stdout(`\nresults: ${dir}\n`);
  }
  // The report comes last: whatever happens to it, the results are written and printed.
  if (opts.report && dir !== undefined) {
    const { renderReport } = await import('../report/report.js');
    if (!addReportOrSay(io, dir, () => renderReport(byStrategy, `${doc.scenario}: strategies compared`))) return undefined;
  }
  return dir;
}
