/**
 * The worker side of `parallel.ts`: runs one simulation task (a normalized scenario and a seed) in a
 * worker thread and returns its summary, or takes tasks from a batch shared with the other threads
 * until none is left, or takes `check`'s jobs the same way (check-jobs.ts). Its tasks call no plugin:
 * those that do run on the plugin worker (plugins/plugin-worker.ts), which imports them.
 */
import { runClaimedTasks, runSimTask, type ClaimedBatch, type SimTask } from './sim-task.js';
import { toTransferable } from './worker-error.js';
import type { CheckBatch } from './check-jobs.js';
import { announceLoaded } from './worker-loaded.js';

/** Piscina calls the default export with each task; errors go back whole (worker-error.ts). */
export default async function run(task: SimTask) {
  try {
    return await runSimTask(task);
  } catch (error) {
    throw toTransferable(error);
  }
}

/** A batch shared with the other threads (`pool.run(batch, { name: 'runClaimed' })`): see `runClaimedTasks`. */
export async function runClaimed(batch: ClaimedBatch) {
  try {
    return await runClaimedTasks(batch);
  } catch (error) {
    throw toTransferable(error);
  }
}

/**
 * `check`'s jobs shared with the other threads (`pool.run(batch, { name: 'runClaimedChecks' })`): see
 * check-jobs.ts, loaded only by a worker that gets some.
 */
export async function runClaimedChecks(batch: CheckBatch) {
  try {
    const { claimCheckJobs } = await import('./check-jobs.js');
    return claimCheckJobs(batch);
  } catch (error) {
    throw toTransferable(error);
  }
}

// Last: every module this one needs has loaded, so the pool may now stop this thread safely.
announceLoaded();
