/**
 * How a worker thread's module tells the pool it has loaded (see `openWorkerPool` in worker-pool.ts).
 * Node 20 aborts the whole process with a V8 fatal error (`v8::Module::IsGraphAsync ... must be used on
 * an instantiated module`) when a worker is terminated while `require` is instantiating an ES module
 * graph, which is how Piscina loads a worker's module: a pool is destroyed only once every worker has
 * said this, that is, once its module graph has been instantiated and run.
 */
import { parentPort } from 'node:worker_threads';

/** The message a worker module posts to its pool as the last statement of its top level. */
export const WORKER_LOADED = 'zonesim:worker-loaded';

/** Tells the pool this worker's module has loaded (nothing outside a worker thread). */
export function announceLoaded(): void {
  parentPort?.postMessage(WORKER_LOADED);
}
