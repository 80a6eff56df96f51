/**
 * `--jobs` and the worker threads a command starts before it knows its tasks. Kept apart from
 * parallel.ts (which loads the whole model) so that the CLI can start the workers first thing: they
 * load their modules on the other cores while this thread reads and checks the scenario.
 */
import { availableParallelism } from 'node:os';
import { UsageError } from './io.js';
import { openPool, type OpenedPool } from './worker-pool.js';

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
    this.#pool = threads > 0 ? openPool('sim-worker', threads) : undefined;
    // Whoever takes or releases the pool sees a failure to open it; until then it is not unhandled.
    this.#pool?.catch(() => {});
  }

  /** The pool, now the caller's to destroy, if it has at least `threads` workers; else undefined. */
  async take(threads: number): Promise<OpenedPool | undefined> {
    if (this.#pool === undefined || this.threads < threads) return undefined;
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
 * Runs a command `body` with `jobs - 1` workers started now for the simulations it will run beside
 * this thread (none for `jobs` 1), and closes them afterwards unless `runSimTasks` took them.
 */
export async function withWarmWorkers<T>(jobs: number, body: (workers: WarmWorkers) => Promise<T>): Promise<T> {
  const workers = new WarmWorkers(jobs - 1);
  try {
    return await body(workers);
  } finally {
    await workers.release();
  }
}

