/**
 * The worker threads' pool (Piscina) as the commands use it: a fixed number of threads running one
 * compiled worker module, and a `destroy` that may be called more than once. What runs on the
 * workers and how their errors come back is the callers' (parallel.ts, plugin-watchdog.ts).
 */
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import { fromTransferable } from './worker-error.js';
import { WORKER_LOADED } from './worker-loaded.js';

/** How long `destroy` waits at most for workers still loading their module (one that hangs there). */
export const LOAD_WAIT_CAP_MS = 10_000;

/**
 * The compiled file of a worker module, named by its path under src/ without the extension
 * (`parallel/sim-worker`): beside this module in the bundle (dist/bundle/, where every worker is an
 * entry), else at its place in dist/; under the TypeScript sources (tests) the build's copy.
 */
export function compiledWorker(module: string): string {
  const here = fileURLToPath(import.meta.url);
  const name = module.slice(module.lastIndexOf('/') + 1);
  const file = here.endsWith('.ts')
    ? fileURLToPath(new URL(`../../dist/${module}.js`, import.meta.url))
    : basename(dirname(here)) === 'bundle'
      ? fileURLToPath(new URL(`./${name}.js`, import.meta.url))
      : fileURLToPath(new URL(`../${module}.js`, import.meta.url));
  if (!existsSync(file)) throw new Error(`worker file ${file} is missing: run npm run build`);
  return file;
}

export interface OpenedPool {
  pool: Piscina;
  /** Stops every worker, once each has loaded its module (see worker-loaded.ts); idempotent. */
  destroy: () => Promise<void>;
}

/** A pool of `threads` workers running `src/<module>.ts` (`parallel/sim-worker`), and an idempotent `destroy`. */
export async function openPool(module: string, threads: number): Promise<OpenedPool> {
  return openWorkerPool(compiledWorker(module), threads);
}

/**
 * A pool of `threads` workers running the module `filename`, which calls `announceLoaded` last.
 * `destroy` first waits until every worker has loaded (or one has gone, or `LOAD_WAIT_CAP_MS` has
 * passed): a command that stops early, on a bad scenario say, must not stop a worker in the middle of
 * loading, which can abort the whole process (worker-loaded.ts).
 */
export async function openWorkerPool(filename: string, threads: number, loadWaitCapMs = LOAD_WAIT_CAP_MS): Promise<OpenedPool> {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({ filename, minThreads: threads, maxThreads: threads, idleTimeout: 100 });
  let loaded = 0;
  let allLoaded!: () => void;
  const loading = new Promise<void>((resolve) => (allLoaded = resolve));
  pool.on('message', (message: unknown) => {
    if (message === WORKER_LOADED && ++loaded >= threads) allLoaded();
  });
  // A worker that has gone before it loaded failed to load its module: every worker runs the same module, so
  // none of the others will load either; stop waiting.
  pool.on('workerDestroy', () => allLoaded());
  let destroyed: Promise<void> | undefined;
  const destroy = (): Promise<void> =>
    (destroyed ??= (async () => {
      const cap = setTimeout(allLoaded, loadWaitCapMs);
      try {
        await loading;
      } finally {
        clearTimeout(cap);
      }
      await pool.destroy();
    })());
  return { pool, destroy };
}

/**
 * One batch shared by this thread and `workers` workers of `pool`: each worker gets the whole batch (its export
 * `name`) and, like `here` in this thread, takes the items not yet taken from the batch's shared counter until none
 * is left; returns the results by index. `here` starts once the workers' batches are sent: Piscina would hand a
 * worker a next item only from this thread's event loop, which waits while this thread works.
 */
export async function runShared<T>(
  pool: Piscina,
  workers: number,
  batch: unknown,
  name: string,
  count: number,
  here: () => Promise<Array<[number, T]>> | Array<[number, T]>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  const onWorkers = Array.from({ length: workers }, async () => {
    const done = (await pool.run(batch, { name }).catch((error: unknown) => {
      throw fromTransferable(error);
    })) as Array<[number, T]>;
    for (const [i, result] of done) results[i] = result;
  });
  const onThis = (async () => {
    await new Promise((resolve) => setImmediate(resolve));
    for (const [i, result] of await here()) results[i] = result;
  })();
  await Promise.all([...onWorkers, onThis]);
  return results;
}
