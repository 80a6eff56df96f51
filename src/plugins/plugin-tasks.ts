/**
 * Simulations whose scenarios call plugins: every task runs on a plugin worker (plugin-worker.ts),
 * which imports the plugins that simulation calls, one task at a time per worker, while this thread
 * watches their calls against the time budget (plugin-watchdog.ts) and stops the workers on overrun.
 * The commands hand `pluginTasks` to `runSimTasks` (parallel/parallel.ts), which runs everything else
 * itself: parallel/ sits below plugins/ and never loads plugin code.
 */
import type { Summary } from '../metrics/summary.js';
import type { PluginTasks } from '../parallel/parallel.js';
import { NO_PROGRESS, type ProgressSink } from '../parallel/progress.js';
import { ProgressCells, type SimTask } from '../parallel/sim-task.js';
import { fromTransferable } from '../parallel/worker-error.js';
import { simulationThreads, type WarmWorkers } from '../parallel/jobs.js';
import { openPool } from '../parallel/worker-pool.js';
import type { PluginSlot } from './plugin-guard.js';
import { pluginPolicy } from './plugin-policy.js';
import { PluginWatchdog } from './plugin-watchdog.js';
import type { SimulateJob } from './plugin-worker.js';
import { refuseDerivedPlugins } from './plugins.js';

/** How `runSimTasks` runs tasks that call plugins, and refuses them under `--no-plugins`. */
export const pluginTasks: PluginTasks = { refuse: refuseDerivedPlugins, run: runOnWorkersWatched };

/**
 * Tasks whose scenarios name plugins: every task runs on a plugin worker, one at a time per worker,
 * while this thread watches the plugin calls against the time budget and stops the workers on overrun.
 */
async function runOnWorkersWatched(
  tasks: SimTask[],
  jobs: number,
  plugins: string[],
  progress: ProgressSink,
  warm: WarmWorkers | undefined,
): Promise<Summary[]> {
  // The warm workers are one fewer than needed here (this thread only watches): they stop once loaded.
  warm?.close();
  const { pool, destroy } = await openPool('plugins/plugin-worker', simulationThreads(jobs, tasks.length));
  const cells = progress !== NO_PROGRESS ? new ProgressCells(tasks.length) : undefined;
  const watchdog = new PluginWatchdog(tasks.length, plugins, pluginPolicy().timeoutMs);
  const finished = new Set<number>();
  const show = (): void => {
    if (cells === undefined) return;
    for (let i = 0; i < tasks.length; i++) {
      if (finished.has(i)) continue;
      const { simMs, requests } = cells.read(i);
      progress.update(i, simMs, requests);
    }
  };
  const timer = cells === undefined ? undefined : setInterval(show, 250);
  try {
    const results: Summary[] = new Array(tasks.length);
    const work = Promise.all(
      tasks.map(async (task, i) => {
        const job: SimulateJob & { slot: PluginSlot } = {
          kind: 'simulate',
          task: { ...task, progress: cells === undefined ? undefined : { buffer: cells.buffer, index: i } },
          slot: watchdog.slot(i),
        };
        results[i] = (await pool.run(job).catch((error: unknown) => {
          throw fromTransferable(error);
        })) as Summary;
        finished.add(i);
        progress.done(i);
      }),
    ).then(() => results);
    return await watchdog.guard(work, destroy);
  } finally {
    if (timer !== undefined) clearInterval(timer);
    await destroy();
  }
}
