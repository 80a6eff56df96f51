/**
 * `zonesim run`: load a scenario (with `--set` overrides), run one or several seeds, write the
 * results folder and print the compact table (or only the summary JSON with `--json`). With
 * `--traces`, the first seed runs in this thread with a trace recorder and its traces are written
 * (traces-out.ts); the other seeds run as usual.
 */
import { resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { farMeasuredMeans } from '../analysis/measured-fit.js';
import { MAX_SIMULATED_MS, parseDuration } from '../scenario/units.js';
import { aggregateSummaries } from '../metrics/aggregate.js';
import { summaryCsv, timelineCsv, formatRunTable } from '../report/format.js';
import { guardCost, type CostOptions } from '../parallel/cost-guard.js';
import { UsageError, type Io } from '../scenario/io.js';
import { checkSeedRange } from './seed-options.js';
import { preflightPlugins } from '../plugins/plugins.js';
import { pluginTasks } from '../plugins/plugin-tasks.js';
import type { WarmWorkers } from '../parallel/jobs.js';
import { runSimTasks } from '../parallel/parallel.js';
import { NO_PROGRESS, progressBars, type ProgressSink } from '../parallel/progress.js';
import { runSimTask, type SimTask } from '../parallel/sim-task.js';
import type { Summary } from '../metrics/summary.js';
import type { TraceRecorder } from '../metrics/trace-recorder.js';
import { traceRecorder, tracesOut, writeTracesOrSay } from './traces-out.js';
import { addReportOrSay, checkResultsDir, newRunId, resultsRoot, writeResultsOrSay } from './results.js';
import { emitBody, jsonBody, type Body } from './json-out.js';

export interface RunCommandOptions extends CostOptions {
  scenario: string;
  seed?: number;
  seeds: number;
  set: string[];
  out?: string;
  json: boolean;
  bucket?: string;
  report: boolean;
  /** Worker threads for the seeds (1: all in this thread). */
  jobs: number;
  /** Workers started before the scenario was read (`withWarmWorkers`); `runSimTasks` takes them. */
  workers?: WarmWorkers;
  /** `--traces FILE`: write sampled simulated requests of the first seed as OTLP JSON. */
  traces?: string;
  /** `--trace-sample`: a fraction of requests, or `errors` (default 0.01). */
  traceSample?: string;
  /** `--per-instance`: the summary also lists every consumer instance's pushes (`registry.byConsumer`). */
  perInstance?: boolean;
}

/** Runs the command; returns the exit code. */
export async function runCommand(opts: RunCommandOptions, io: Io): Promise<number> {
  const path = resolve(io.cwd, opts.scenario);
  const { scenario, rawText } = loadScenarioWithRaw(path, opts.set);
  if (opts.bucket !== undefined) {
    const ms = parseDuration(opts.bucket);
    if (ms === undefined || !(ms > 0)) throw new UsageError(`--bucket: expected a positive duration such as 1s or 500ms, found "${opts.bucket}"`);
    if (ms > MAX_SIMULATED_MS) throw new UsageError(`--bucket: expected at most 8760h (365 days of simulated time), found "${opts.bucket}"`);
    scenario.bucketMs = ms;
  }
  if (!Number.isInteger(opts.seeds) || opts.seeds < 1) throw new UsageError(`--seeds: expected a whole number >= 1, found ${opts.seeds}`);
  const seed = opts.seed ?? scenario.seed;
  checkSeedRange(seed, opts.seeds);
  // Before any plugin code or simulation: the estimate, and a refusal or a dry run's end.
  const label = opts.seeds === 1 ? `seed ${seed}` : `seeds ${seed}..${seed + opts.seeds - 1}`;
  // --no-plugins refuses a plugin scenario in a dry run too (pipelines vet scenarios that way).
  preflightPlugins(scenario, path);
  const traces = tracesOut(io.cwd, scenario, opts.traces, opts.traceSample);
  const dryRun = guardCost('run', [{ label, scenario, count: opts.seeds }], opts, io);
  if (dryRun !== undefined) return dryRun;
  // A measured distribution that draws a mean far from the data's changes every figure the run gives.
  for (const far of farMeasuredMeans(scenario)) io.stderr(`zonesim: warning: ${far}\n`);
  // A bad --out is found now, not after a long simulation.
  const root = resultsRoot(io.cwd, opts.out);
  checkResultsDir(root, scenario.name);
  const tasks = Array.from({ length: opts.seeds }, (_, i) => ({ scenario, scenarioPath: path, seed: seed + i, force: opts.force, maxRequests: opts.maxRequests, perInstance: opts.perInstance }));
  const labels = tasks.map((t) => `seed ${t.seed}`);
  const progress = progressBars(io.progressStream, labels, scenario.durationMs);
  const traced = traces === undefined ? undefined : { out: traces, recorder: traceRecorder(traces, scenario, seed) };
  const perSeed =
    traced === undefined
      ? await runSimTasks(tasks, opts.jobs, progress, opts.workers, pluginTasks)
      : await runTraced(tasks, traced.recorder, opts, progress);
  const summary = perSeed.length === 1 ? perSeed[0]! : aggregateSummaries(perSeed);
  const summaryJson = jsonBody(summary);
  const files: Record<string, Body> = {
    'summary.json': summaryJson,
    'summary.csv': summaryCsv(summary),
    'timeline.csv': timelineCsv(summary),
    [`scenario${path.endsWith('.json') ? '.json' : '.yaml'}`]: rawText,
  };
  // Should writing fail after all, the output is still printed and stderr says nothing was written.
  const dir = writeResultsOrSay(io, root, scenario.name, newRunId(seed), files);
  if (opts.json) {
    emitBody(summaryJson, (s) => io.stdout(s));
  } else {
    io.stdout(formatRunTable(summary));
    if (dir !== undefined) io.stdout(`\nresults: ${dir}\n`);
  }
  const tracesWritten = traced === undefined || writeTracesOrSay(io, traced.out, traced.recorder, opts.json);
  // The report comes last: whatever happens to it, the results are written and printed.
  if (opts.report && dir !== undefined) {
    const { renderReport } = await import('../report/report.js');
    if (!addReportOrSay(io, dir, () => renderReport({ [scenario.name]: summary }))) return 1;
  }
  return dir === undefined || !tracesWritten ? 1 : 0;
}

/**
 * The first seed in this thread with the trace recorder (traces are recorded in this thread only),
 * then the others as `runSimTasks` runs them; summaries in seed order.
 */
async function runTraced(tasks: SimTask[], traced: TraceRecorder, opts: RunCommandOptions, progress: ProgressSink): Promise<Summary[]> {
  const rest = tasks.slice(1);
  // Workers started for the other seeds wait while this thread simulates the first.
  if (rest.length === 0) opts.workers?.close();
  let first: Summary;
  try {
    const watch = progress === NO_PROGRESS ? undefined : (simMs: number, requests: number) => progress.update(0, simMs, requests);
    first = await runSimTask(tasks[0]!, watch, undefined, traced);
    progress.done(0);
  } catch (error) {
    progress.stop();
    await opts.workers?.release();
    throw error;
  }
  if (rest.length === 0) {
    progress.stop();
    await opts.workers?.release();
    return [first];
  }
  const shifted: ProgressSink = {
    update: (i, simMs, requests) => progress.update(i + 1, simMs, requests),
    done: (i) => progress.done(i + 1),
    stop: () => progress.stop(),
  };
  return [first, ...(await runSimTasks(rest, opts.jobs, shifted, opts.workers, pluginTasks))];
}
