/**
 * `check`'s worlds on several threads. The scenario as written and each strategy that changes something are one
 * world each, run through the fault timeline and probed (analysis/check.ts), independent of one another: this
 * thread and `threads - 1` workers each take the next job when free (a shared counter, as `parallel.ts` does for
 * simulations). The reports come back in the plan's order, so the output is the same for any `--jobs`.
 */
import { checkJob, type CheckJob, type CheckReport } from '../analysis/check.js';
import { collectIfGrown, heapUsedBytes } from './sim-task.js';
import { openPool, runShared } from './worker-pool.js';

/** Every job of a check, shared by the threads that run them: `claims` holds the index of the next job to take. */
export interface CheckBatch {
  jobs: CheckJob[];
  claims: SharedArrayBuffer;
}

/**
 * Takes jobs from `batch` until none is left; returns each one's report with its index. A world that grew the
 * heap by more than COLLECT_AFTER_BYTES is collected as soon as it is checked (as a simulation is, sim-task.ts):
 * only its report stays, and the next world is not built beside its garbage.
 */
export function claimCheckJobs(batch: CheckBatch): Array<[number, CheckReport]> {
  const taken = new Int32Array(batch.claims);
  const out: Array<[number, CheckReport]> = [];
  for (let i = Atomics.add(taken, 0, 1); i < batch.jobs.length; i = Atomics.add(taken, 0, 1)) {
    const usedAtStart = heapUsedBytes();
    try {
      out.push([i, checkJob(batch.jobs[i]!)]);
    } finally {
      collectIfGrown(usedAtStart);
    }
  }
  return out;
}

/** Runs `jobs` on up to `threads` threads (this one included); their reports in order. */
export async function runCheckJobs(jobs: CheckJob[], threads: number): Promise<CheckReport[]> {
  const workers = Math.min(threads, jobs.length) - 1;
  const batch: CheckBatch = { jobs, claims: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT) };
  if (workers < 1) return claimCheckJobs(batch).map(([, report]) => report);
  const { pool, destroy } = await openPool('parallel/sim-worker', workers);
  try {
    return await runShared<CheckReport>(pool, workers, batch, 'runClaimedChecks', jobs.length, () => claimCheckJobs(batch));
  } finally {
    await destroy();
  }
}
