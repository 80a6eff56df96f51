/**
 * Runs independent simulations (seeds, strategies, recommendation re-runs) on worker threads: a
 * Piscina pool of `jobs` threads, results returned in task order. One run stays single-threaded
 * and deterministic; only whole runs go to workers, so the output is the same for any `jobs`.
 * With `jobs` 1 (or a single task) everything runs in this thread, unless the scenarios name
 * plugins: then every task runs on a worker, watched by the plugin time budget (plugin-watchdog.ts).
 */
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../metrics/summary.js';
import { UsageError } from './io.js';
import { PluginWatchdog } from './plugin-watchdog.js';
import { pluginNames, pluginPolicy, refuseDerivedPlugins } from './plugins.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';
import { runSimTask, type SimTask } from './sim-task.js';
import { fromTransferable } from './worker-error.js';

/** `--jobs` default: one thread per core. */
export function defaultJobs(): number {
  return availableParallelism();
}

/** Checks a `--jobs` value (a whole number >= 1) and returns it. */
export function checkJobs(jobs: number | undefined): number {
  if (jobs === undefined) return defaultJobs();
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`--jobs: expected a whole number >= 1, found ${jobs}`);
  return jobs;
}

// The compiled worker. Under the TypeScript sources (tests) the build's copy is used.
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const compiled = here.endsWith('.ts') ? fileURLToPath(new URL('../../dist/cli/sim-worker.js', import.meta.url)) : fileURLToPath(new URL('./sim-worker.js', import.meta.url));
  if (!existsSync(compiled)) throw new Error(`worker file ${compiled} is missing: run npm run build`);
  return compiled;
}

/**
 * Runs every task and returns the summaries in task order, reporting each one's simulated time to
 * `progress` (index = task index).
 */
export async function runSimTasks(tasks: SimTask[], jobs: number, progress: ProgressSink = NO_PROGRESS): Promise<Summary[]> {
  const watching = progress !== NO_PROGRESS;
  const plugins = pluginNames(tasks.map((t) => t.scenario));
  try {
    refuseDerivedPlugins(plugins);
    if ((jobs <= 1 || tasks.length <= 1) && plugins.length === 0) {
      const out: Summary[] = [];
      for (let i = 0; i < tasks.length; i++) {
        out.push(await runSimTask(tasks[i]!, watching ? (simMs, requests) => progress.update(i, simMs, requests) : undefined));
        progress.done(i);
      }
      return out;
    }
    const { Piscina } = await import('piscina');
    const threads = Math.min(jobs, tasks.length);
    const pool = new Piscina({ filename: workerFile(), minThreads: threads, maxThreads: threads, idleTimeout: 100 });
    // Workers write their progress into shared memory; this thread reads it while it waits.
    const buffer = watching ? new SharedArrayBuffer(16 * tasks.length) : undefined;
    const view = buffer === undefined ? undefined : new Float64Array(buffer);
    // Plugin code runs only on the workers; this thread stops them when a plugin call overruns.
    const watchdog = plugins.length === 0 ? undefined : new PluginWatchdog(tasks.length, plugins, pluginPolicy().timeoutMs);
    const finished = new Set<number>();
    const timer =
      view === undefined
        ? undefined
        : setInterval(() => {
            for (let i = 0; i < tasks.length; i++) if (!finished.has(i)) progress.update(i, view[2 * i]!, view[2 * i + 1]!);
          }, 250);
    let destroyed = false;
    const destroy = async () => {
      if (destroyed) return;
      destroyed = true;
      await pool.destroy();
    };
    try {
      const work = Promise.all(
        tasks.map(async (task, i) => {
          const run = { ...task, progress: buffer === undefined ? undefined : { buffer, index: i }, pluginSlot: watchdog?.slot(i) };
          const summary = (await pool.run(run).catch((error: unknown) => {
            throw fromTransferable(error);
          })) as Summary;
          finished.add(i);
          progress.done(i);
          return summary;
        }),
      );
      return await (watchdog === undefined ? work : watchdog.guard(work, destroy));
    } finally {
      if (timer !== undefined) clearInterval(timer);
      await destroy();
    }
  } finally {
    progress.stop();
  }
}
