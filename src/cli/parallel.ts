/**
 * Runs independent simulations (seeds, strategies, recommendation re-runs) on worker threads: a
 * Piscina pool of `jobs` threads, results returned in task order. One run stays single-threaded
 * and deterministic; only whole runs go to workers, so the output is the same for any `jobs`.
 * With `jobs` 1 (or a single task) everything runs in this thread; with more, this thread runs its
 * share beside `jobs - 1` workers. When the scenarios name plugins every task runs on a worker,
 * watched by the plugin time budget (plugin-watchdog.ts).
 */
import { availableParallelism } from 'node:os';
import type { Summary } from '../metrics/summary.js';
import { UsageError } from './io.js';
import { PluginWatchdog } from './plugin-watchdog.js';
import { pluginNames, pluginPolicy, refuseDerivedPlugins } from './plugins.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';
import { runSimTask, type SimTask } from './sim-task.js';
import { fromTransferable } from './worker-error.js';
import { openPool } from './worker-pool.js';

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
    const threads = Math.min(jobs, tasks.length);
    // PERF: without plugins this thread simulates too, as one of the `threads`: its modules are loaded
    // and its JIT warm, which a fresh worker's are not. Tasks are dealt in turn (task i to executor
    // i mod threads, this thread first), so each executor gets a mix of strategies and seeds.
    const local = plugins.length === 0 ? tasks.map((_, i) => i).filter((i) => i % threads === 0) : [];
    const remote = tasks.map((_, i) => i).filter((i) => !local.includes(i));
    const workers = Math.max(1, Math.min(threads - (local.length > 0 ? 1 : 0), remote.length));
    // PERF: Piscina hands a worker its next task from this thread's event loop, which waits while this
    // thread simulates; without plugins each worker gets all its tasks at once and runs them in turn.
    // (With plugins this thread only watches, and one task at a time keeps the watchdog's slot exact.)
    const tasksPerWorker = local.length > 0 ? Math.ceil(remote.length / workers) : 1;
    const { pool, destroy } = await openPool('sim-worker', workers, { tasksPerWorker });
    // Workers write their progress into shared memory; this thread reads it while it waits.
    const buffer = watching ? new SharedArrayBuffer(16 * tasks.length) : undefined;
    const view = buffer === undefined ? undefined : new Float64Array(buffer);
    // Plugin code runs only on the workers; this thread stops them when a plugin call overruns.
    const watchdog = plugins.length === 0 ? undefined : new PluginWatchdog(tasks.length, plugins, pluginPolicy().timeoutMs);
    const finished = new Set<number>();
    const showWorkers = (): void => {
      if (view !== undefined) for (const i of remote) if (!finished.has(i)) progress.update(i, view[2 * i]!, view[2 * i + 1]!);
    };
    const timer = view === undefined ? undefined : setInterval(showWorkers, 250);
    try {
      const results: Summary[] = new Array(tasks.length);
      const onWorkers = remote.map(async (i) => {
        const run = { ...tasks[i]!, progress: buffer === undefined ? undefined : { buffer, index: i }, pluginSlot: watchdog?.slot(i) };
        results[i] = (await pool.run(run).catch((error: unknown) => {
          throw fromTransferable(error);
        })) as Summary;
        finished.add(i);
        progress.done(i);
      });
      const here = (async () => {
        for (const i of local) {
          // Let the workers' tasks be sent first (and results be taken in) before this thread is busy.
          await new Promise((resolve) => setImmediate(resolve));
          // While this thread simulates the timer cannot fire: the workers' bars move with this one's.
          const onProgress = watching
            ? (simMs: number, requests: number) => {
                progress.update(i, simMs, requests);
                showWorkers();
              }
            : undefined;
          results[i] = await runSimTask(tasks[i]!, onProgress);
          finished.add(i);
          progress.done(i);
        }
      })();
      const work = Promise.all([...onWorkers, here]).then(() => results);
      return await (watchdog === undefined ? work : watchdog.guard(work, destroy));
    } finally {
      if (timer !== undefined) clearInterval(timer);
      await destroy();
    }
  } finally {
    progress.stop();
  }
}
