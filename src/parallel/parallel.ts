/**
 * Runs independent simulations (seeds, strategies, recommendation re-runs) on worker threads: a
 * Piscina pool, results returned in task order. One run stays single-threaded and deterministic;
 * only whole runs go to workers, so the output is the same for any `jobs`. At most
 * `simulationThreads(jobs, tasks)` threads simulate, never more than there are tasks: with one,
 * everything runs in this thread; with more, this thread runs tasks beside one fewer workers, each
 * executor taking the next task when it is free. When the scenarios name plugins every task runs on
 * a plugin worker, watched by the plugin time budget: that runner is the command's `PluginTasks`
 * (plugins/plugin-tasks.ts), since parallel/ never loads plugin code. A command may start the workers
 * before it knows its tasks (jobs.ts).
 */
import type { Summary } from '../metrics/summary.js';
import { pluginNames } from '../scenario/plugin-refs.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';
import { ProgressCells, runClaimedTasks, runSimTask, type ClaimedBatch, type SimTask } from './sim-task.js';
import { simulationThreads, type WarmWorkers } from './jobs.js';
import { openPool, runShared } from './worker-pool.js';

/**
 * What `runSimTasks` needs for tasks whose scenarios call plugins (plugins/plugin-tasks.ts gives it to
 * the commands): parallel/ sits below plugins/ and never loads plugin code itself.
 */
export interface PluginTasks {
  /** Refuses the plugin modules `names` when the command may not run plugins (`--no-plugins`: exit 2). */
  refuse(names: readonly string[]): void;
  /** Runs every task on workers that import the plugins it calls, under the plugin time budget; summaries in task order. */
  run(tasks: SimTask[], jobs: number, names: string[], progress: ProgressSink, warm: WarmWorkers | undefined): Promise<Summary[]>;
}

/**
 * Runs every task and returns the summaries in task order, reporting each one's simulated time to
 * `progress` (index = task index). Tasks whose scenarios call plugins need `plugins`.
 */
export async function runSimTasks(
  tasks: SimTask[],
  jobs: number,
  progress: ProgressSink = NO_PROGRESS,
  warm?: WarmWorkers,
  withPlugins?: PluginTasks,
): Promise<Summary[]> {
  const watching = progress !== NO_PROGRESS;
  const plugins = pluginNames(tasks.map((t) => t.scenario));
  try {
    withPlugins?.refuse(plugins);
    if (simulationThreads(jobs, tasks.length) === 1 && plugins.length === 0) {
      // Unused workers stop once loaded, while this thread simulates (`finally` waits for them).
      warm?.close();
      const out: Summary[] = [];
      for (let i = 0; i < tasks.length; i++) {
        out.push(await runSimTask(tasks[i]!, watching ? (simMs, requests) => progress.update(i, simMs, requests) : undefined));
        progress.done(i);
      }
      return out;
    }
    if (plugins.length > 0) {
      if (withPlugins === undefined) throw new Error(`simulations calling plugins (${plugins.join(', ')}) need the plugin runner (plugins/plugin-tasks.ts)`);
      return await withPlugins.run(tasks, jobs, plugins, progress, warm);
    }
    return await runClaimed(tasks, jobs, progress, warm);
  } finally {
    await warm?.release();
    progress.stop();
  }
}

/**
 * Tasks without plugins: this thread and `simulationThreads(jobs, tasks) - 1` workers each take the next task
 * when free (a shared counter), so a late-starting worker or a slow strategy does not leave a
 * thread idle at the end. Which thread ran a task does not change its summary.
 */
// PERF: this thread simulates too: its modules are loaded and its JIT warm, which a fresh worker's are
// not. Each worker gets the whole batch in one message and takes tasks from the shared counter itself:
// Piscina would hand it a next task only from this thread's event loop, which waits while it simulates.
async function runClaimed(tasks: SimTask[], jobs: number, progress: ProgressSink, warm: WarmWorkers | undefined): Promise<Summary[]> {
  const workers = simulationThreads(jobs, tasks.length) - 1;
  const { pool, destroy } = (await warm?.take(workers)) ?? (await openPool('parallel/sim-worker', workers));
  const watching = progress !== NO_PROGRESS;
  const cells = watching ? new ProgressCells(tasks.length) : undefined;
  const claims = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const taken = new Int32Array(claims);
  const reported = new Set<number>();
  const shownSimMs = new Float64Array(tasks.length);
  // Every task below `from` is reported.
  let from = 0;
  // Every executor writes its progress into the shared cells; this thread draws them all. This runs at
  // each progress step and a sweep has hundreds of tasks, so it reads only the tasks taken and not yet
  // reported (tasks are taken in index order) and passes on only cells that moved.
  const show = (): void => {
    if (cells === undefined) return;
    const end = Math.min(Atomics.load(taken, 0), tasks.length);
    while (from < end && reported.has(from)) from++;
    for (let i = from; i < end; i++) {
      if (reported.has(i)) continue;
      const { simMs, requests, done } = cells.read(i);
      if (simMs !== shownSimMs[i]) {
        shownSimMs[i] = simMs;
        progress.update(i, simMs, requests);
      }
      if (done) {
        reported.add(i);
        progress.done(i);
      }
    }
  };
  const timer = cells === undefined ? undefined : setInterval(show, 250);
  try {
    const batch: ClaimedBatch = { tasks, claims, progress: cells?.buffer };
    // While this thread simulates the timer cannot fire: every bar moves with this thread's progress.
    const results = await runShared<Summary>(pool, workers, batch, 'runClaimed', tasks.length, () => runClaimedTasks(batch, show));
    show();
    return results;
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await destroy();
  }
}
