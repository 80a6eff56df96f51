/**
 * `zonesim sweep`: runs a scenario over the cross product of grid values (× strategies × seeds).
 * Each cell is the scenario loaded with the cell's values as `--set` overrides (after the
 * command's own `--set`s), with its strategy applied, run with the same seeds as a plain
 * `zonesim run` would use, so any cell can be reproduced alone (`--explain INDEX` prints how).
 * Cells run on the worker pool; `--shard k/n` runs every n-th cell and writes a part file that
 * `zonesim merge` combines. Rendering and writing belong to `sweep-output.ts`.
 */
import { basename, resolve } from 'node:path';
import { aggregateSummaries } from '../metrics/aggregate.js';
import type { Summary } from '../metrics/summary.js';
import { loadScenarioWithRaw, ScenarioError } from '../scenario/load.js';
import { readTextFile } from '../scenario/read-text-file.js';
import { dataRootInEffect } from '../scenario/data-root.js';
import { applyStrategy, strategiesFor } from '../scenario/strategies.js';
import { strategyInfo, withStrategy } from '../report/report-strategy.js';
import type { Scenario, StrategySpec } from '../model/types.js';
import { guardCost, type CostOptions } from '../parallel/cost-guard.js';
import { cellSets, checkGrid, gridCells, inShard, parseGridFile, parseGridOption, parseShard, shellWord, type GridAxis, type GridCell } from '../scenario/grid.js';
import { UsageError, type Io } from '../scenario/io.js';
import { checkSeedRange } from './seed-options.js';
import { preflightPlugins } from '../plugins/plugins.js';
import { pluginTasks } from '../plugins/plugin-tasks.js';
import { pluginPolicy } from '../plugins/plugin-policy.js';
import type { WarmWorkers } from '../parallel/jobs.js';
import { runSimTasks } from '../parallel/parallel.js';
import { sweepPartHash, writePartOrSay, type SweepPart } from './parts.js';
import { progressBars, type ProgressSink } from '../parallel/progress.js';
import { checkResultsDir, resultsRoot, safeName } from './results.js';
import type { SimTask } from '../parallel/sim-task.js';
import { parseObjective } from '../report/sweep-objective.js';
import { cellWords, sweepDoc, type SweepCell, type SweepHeader } from '../report/sweep-output.js';
import { writeSweep } from './sweep-results.js';
import { VERSION } from '../scenario/version.js';

export interface SweepOptions extends CostOptions {
  scenario: string;
  /** `--grid path=v1,v2,...` expressions, in order. */
  grid: string[];
  gridFile?: string;
  strategies?: string[];
  seed?: number;
  seeds: number;
  set: string[];
  shard?: string;
  objective?: string;
  /** `--max-timeout-rate`; undefined: the objective's default bound. */
  maxTimeoutRate?: number;
  /** Print the command that reproduces this cell instead of running the sweep. */
  explain?: number;
  out?: string;
  json: boolean;
  report: boolean;
  jobs: number;
  /** Workers started before the scenario was read (`withWarmWorkers`); `runSimTasks` takes them. */
  workers?: WarmWorkers;
}

/** Swaps `--set <expr>` for `--grid` in a scenario error caused by a grid value, so the message names what the user typed. */
function asGridError(error: unknown, sets: string[]): unknown {
  if (!(error instanceof ScenarioError)) return error;
  const issues = error.issues.map((i) => {
    let message = i.message;
    for (const expr of sets) message = message.split(`--set ${expr}`).join(`--grid value ${expr}`);
    return { ...i, message };
  });
  return new ScenarioError(issues);
}

/** Loads the scenario of one cell (base `--set`s, then the cell's values), strategy applied. */
function loadCell(path: string, baseSets: string[], cell: GridCell, strategies: Record<string, StrategySpec>): Scenario {
  const sets = cellSets(cell);
  let scenario: Scenario;
  try {
    scenario = loadScenarioWithRaw(path, [...baseSets, ...sets]).scenario;
  } catch (error) {
    throw asGridError(error, sets);
  }
  return cell.strategy === null ? scenario : applyStrategy(scenario, strategies[cell.strategy]!);
}

/** One progress bar for many runs (a bar per run would not fit a terminal), e.g. a sweep's. */
export function combinedProgress(stream: NodeJS.WritableStream | undefined, label: string, durations: number[], delayMs?: number): ProgressSink {
  const total = durations.reduce((a, b) => a + b, 0);
  const inner = progressBars(stream, [label], total, delayMs);
  const simMs = durations.map(() => 0);
  const requests = durations.map(() => 0);
  let left = durations.length;
  // Running totals, not sums over every run at each step: a sweep may have thousands of runs.
  let simTotal = 0;
  let requestTotal = 0;
  const set = (i: number, ms: number, n: number) => {
    simTotal += ms - simMs[i]!;
    requestTotal += n - requests[i]!;
    simMs[i] = ms;
    requests[i] = n;
  };
  return {
    update(i, ms, n) {
      set(i, ms, n);
      inner.update(0, simTotal, requestTotal);
    },
    done(i) {
      set(i, durations[i]!, requests[i]!);
      if (--left === 0) inner.done(0);
      else inner.update(0, simTotal, requestTotal);
    },
    stop() {
      inner.stop();
    },
  };
}

/** The grid axes: `--grid-file` first, then each `--grid` in order. */
export function readAxes(opts: Pick<SweepOptions, 'grid' | 'gridFile'>, io: Io): GridAxis[] {
  const axes: GridAxis[] = [];
  if (opts.gridFile !== undefined) {
    const file = resolve(io.cwd, opts.gridFile);
    let text: string;
    try {
      text = readTextFile(file);
    } catch (error) {
      throw new UsageError(`--grid-file: cannot read "${opts.gridFile}": ${(error as Error).message}`);
    }
    axes.push(...parseGridFile(text, opts.gridFile));
  }
  for (const g of opts.grid) axes.push(parseGridOption(g));
  return axes;
}

/** Runs the command; returns the exit code. */
export async function runSweep(opts: SweepOptions, io: Io): Promise<number> {
  const path = resolve(io.cwd, opts.scenario);
  const { scenario: base, rawText } = loadScenarioWithRaw(path, opts.set);
  const axes = readAxes(opts, io);
  let strategies: Record<string, StrategySpec> = {};
  if (opts.strategies !== undefined && opts.strategies.length > 0) {
    try {
      strategies = strategiesFor(base, opts.strategies);
    } catch (error) {
      throw new UsageError(`--strategies: ${(error as Error).message}`);
    }
  }
  const names = Object.keys(strategies);
  checkGrid(axes, names.length);
  if (!Number.isInteger(opts.seeds) || opts.seeds < 1) throw new UsageError(`--seeds: expected a whole number >= 1, found ${opts.seeds}`);
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
  const objective = parseObjective(opts.objective, opts.maxTimeoutRate);
  const cells = gridCells(axes, names);
  if (opts.explain !== undefined && !(Number.isInteger(opts.explain) && opts.explain >= 0 && opts.explain < cells.length)) {
    throw new UsageError(`--explain: expected a cell index from 0 to ${cells.length - 1}, found ${opts.explain}`);
  }
  // Every value of every axis is checked once up front, so a bad value fails before anything runs, in every shard alike.
  for (const axis of axes) {
    for (const v of axis.values) loadCell(path, opts.set, { index: -1, values: { [axis.path]: v }, strategy: null }, strategies);
  }
  const firstSeed = opts.seed ?? base.seed;
  checkSeedRange(firstSeed, opts.seeds);
  const seeds = Array.from({ length: opts.seeds }, (_, i) => firstSeed + i);

  if (opts.explain !== undefined) return explain(opts, cells, cells[opts.explain]!, path, strategies, io);

  const picked = cells.filter((c) => inShard(c.index, shard));
  const cellScenarios = picked.map((cell) => loadCell(path, opts.set, cell, strategies));
  // Before any plugin code or simulation: the estimate of every cell this shard runs.
  const planned = picked.map((cell, i) => ({ label: `cell ${cell.index} (${cellWords(axes.map((a) => a.path), cell)})`, scenario: cellScenarios[i]!, count: opts.seeds }));
  preflightPlugins(base, path);
  const dryRun = guardCost('sweep', planned, opts, io);
  if (dryRun !== undefined) return dryRun;
  // A bad --out is found now, not after a long simulation.
  checkResultsDir(resultsRoot(io.cwd, opts.out), base.name);
  const tasks: SimTask[] = [];
  picked.forEach((_, i) => {
    const scenario = cellScenarios[i]!;
    // The seed a plain `run` of this cell would use (a grid over `seed` changes it).
    const first = opts.seed ?? scenario.seed;
    for (let s = 0; s < opts.seeds; s++) tasks.push({ scenario, scenarioPath: path, seed: first + s, force: opts.force, maxRequests: opts.maxRequests });
  });
  const label = `sweep ${picked.length} cells${opts.seeds > 1 ? ` x ${opts.seeds} seeds` : ''}`;
  const summaries = await runSimTasks(tasks, opts.jobs, combinedProgress(io.progressStream, label, tasks.map((t) => t.scenario.durationMs)), opts.workers, pluginTasks);
  const done: SweepCell[] = picked.map((cell, i) => {
    // A strategy cell's summary says which strategy ran, as the comparison's does (`--explain` points there).
    const perSeed: Summary[] = summaries
      .slice(i * opts.seeds, (i + 1) * opts.seeds)
      .map((s) => (cell.strategy === null ? s : withStrategy(s, strategyInfo(cell.strategy, strategies[cell.strategy]!))));
    return { index: cell.index, values: cell.values, strategy: cell.strategy, summary: perSeed.length === 1 ? perSeed[0]! : aggregateSummaries(perSeed) };
  });
  const header: SweepHeader = {
    scenario: base.name,
    seed: firstSeed,
    seeds,
    version: VERSION,
    grid: Object.fromEntries(axes.map((a) => [a.path, a.values])),
    strategies: names,
  };
  const scenarioFile = { fileName: path, text: rawText };
  if (shard !== undefined) {
    const part: SweepPart = {
      zonesim: 'sweep-part',
      shard,
      hash: sweepPartHash(rawText, header),
      scenarioFile: basename(path),
      scenarioText: rawText,
      header,
      cellCount: cells.length,
      cells: done,
    };
    const dir = resolve(resultsRoot(io.cwd, opts.out), safeName(base.name));
    return writePartOrSay(io, dir, shard, part, opts.json, `sweep shard ${shard.k}/${shard.n}: ${picked.length} of ${cells.length} cells`);
  }
  const dir = await writeSweep(sweepDoc(header, done, objective), scenarioFile, { out: opts.out, json: opts.json, report: opts.report, objective }, io);
  return dir === undefined ? 1 : 0;
}

/** `--explain INDEX`: the command that reproduces one cell alone. */
function explain(
  opts: SweepOptions,
  cells: GridCell[],
  cell: GridCell,
  path: string,
  strategies: Record<string, StrategySpec>,
  io: Io,
): number {
  const scenario = loadCell(path, opts.set, cell, strategies);
  const seed = opts.seed ?? scenario.seed;
  const argv = [
    'zonesim',
    cell.strategy === null ? 'run' : 'compare',
    opts.scenario,
    ...(cell.strategy === null ? [] : ['--strategies', cell.strategy]),
    '--seed',
    String(seed),
    ...(opts.seeds > 1 ? ['--seeds', String(opts.seeds)] : []),
    ...[...opts.set, ...cellSets(cell)].flatMap((s) => ['--set', s]),
    // What this invocation allowed, so the cell reproduces under the same rules.
    ...(dataRootInEffect() === undefined ? [] : ['--data-root', dataRootInEffect()!]),
    ...(pluginPolicy().allowed ? [] : ['--no-plugins']),
  ];
  const command = argv.map(shellWord).join(' ');
  if (opts.json) {
    const seeds = Array.from({ length: opts.seeds }, (_, i) => seed + i);
    io.stdout(JSON.stringify({ index: cell.index, values: cell.values, strategy: cell.strategy, seeds, argv, command }, null, 2) + '\n');
    return 0;
  }
  const words = cellWords(Object.keys(cell.values), cell);
  io.stdout(`cell ${cell.index} of ${cells.length} (0-based): ${words}\n${command}\n`);
  if (cell.strategy !== null) io.stdout(`(its summary is byStrategy["${cell.strategy}"] of that comparison)\n`);
  return 0;
}
