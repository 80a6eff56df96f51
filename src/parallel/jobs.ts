/**
 * `--jobs` and the worker threads a command starts before it knows its tasks. Kept apart from
 * parallel.ts (which loads the whole model) so that the CLI can start the workers first thing: they
 * load their modules on the other cores while this thread reads and checks the scenario.
 */
import { availableParallelism } from 'node:os';
import { UsageError } from '../scenario/io.js';
import { openPool, type OpenedPool } from './worker-pool.js';

/**
 * The largest `--jobs` accepted. Each thread runs one simulation at a time and a simulation is
 * single-threaded, so threads beyond the cores add memory (a worker's isolate and modules, then its
 * simulation), never speed; the cost check refuses what does not fit in RAM (cost-guard.ts). This
 * bound only stops values no machine can use (`--jobs 1e9` started threads until memory ran out).
 * It is the same on every machine, so that a command line that works on one works on all, and above
 * the core count of any machine Node runs on (`--jobs $(nproc)` always passes).
 */
export const MAX_JOBS = 1024;

/** `--jobs` default: one thread per core. */
export function defaultJobs(): number {
  return Math.min(availableParallelism(), MAX_JOBS);
}

/** Checks a `--jobs` value (a whole number from 1 to `MAX_JOBS`) and returns it. */
export function checkJobs(jobs: number | undefined): number {
  if (jobs === undefined) return defaultJobs();
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`--jobs: expected a whole number >= 1, found ${jobs}`);
  if (jobs > MAX_JOBS) {
    throw new UsageError(
      `--jobs: at most ${MAX_JOBS}, found ${jobs}`,
      `threads beyond the cores (${availableParallelism()} here) add memory, not speed; the default is one per core`,
    );
  }
  return jobs;
}

/**
 * How many threads simulate at once when `simulations` independent simulations run on `--jobs`
 * `jobs`: never more than there are simulations (at least 1). What `runSimTasks` starts and what the
 * cost estimate counts (`threads`): this thread and one fewer workers, or that many workers when the
 * scenarios name plugins (this thread then only watches).
 */
export function simulationThreads(jobs: number, simulations: number): number {
  return Math.max(1, Math.min(jobs, simulations));
}

/**
 * Simulation workers started before the tasks are known: a command opens them first thing, so the
 * threads load their modules while this one reads and checks the scenario. `runSimTasks` takes them
 * when they fit and otherwise closes them; `release` closes them if nothing took them (safe to call
 * more than once, and after a take).
 */
export class WarmWorkers {
  readonly threads: number;
  #pool: Promise<OpenedPool> | undefined;
  #closing: Promise<void> | undefined;

  constructor(threads: number) {
    this.threads = threads;
    this.#pool = threads > 0 ? openPool('parallel/sim-worker', threads) : undefined;
    // Whoever takes or releases the pool sees a failure to open it; until then it is not unhandled.
    this.#pool?.catch(() => {});
  }

  /**
   * The pool, now the caller's to destroy, if it has exactly `threads` workers; else undefined, and
   * the warm workers start closing (a pool of another size is opened instead: fewer would leave
   * simulations waiting, more would hold memory for nothing).
   */
  async take(threads: number): Promise<OpenedPool | undefined> {
    if (this.threads !== threads) {
      this.close();
      return undefined;
    }
    const pool = this.#pool;
    this.#pool = undefined;
    return pool;
  }

  /**
   * Starts closing the workers if nothing took them, without waiting: a worker still loading is
   * stopped once it has loaded (worker-pool.ts), while this thread goes on. `release` waits for it.
   */
  close(): void {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool === undefined) return;
    this.#closing = pool.then((p) => p.destroy());
    // `release` reports a failure; until then it is not unhandled.
    this.#closing.catch(() => {});
  }

  /** Closes the workers if nothing took them and waits until they are closed. */
  async release(): Promise<void> {
    this.close();
    const closing = this.#closing;
    this.#closing = undefined;
    await closing;
  }
}

/**
 * Runs a command `body` with workers started now for the simulations it will run beside this
 * thread, and closes them afterwards unless `runSimTasks` took them: `simulationThreads - 1` of
 * them for `simulations` when the command line tells how many it runs, else as if there were one
 * per core (none for `jobs` 1). Starting more than the cores would not load them any sooner, and
 * `runSimTasks` opens a pool of the right size when the guess was wrong.
 */
export async function withWarmWorkers<T>(jobs: number, body: (workers: WarmWorkers) => Promise<T>, simulations?: number): Promise<T> {
  const workers = new WarmWorkers(simulationThreads(jobs, simulations ?? availableParallelism()) - 1);
  try {
    return await body(workers);
  } finally {
    await workers.release();
  }
}

