/**
 * The worker threads' pool (Piscina) as the commands use it: a fixed number of threads running one
 * compiled worker module, and a `destroy` that may be called more than once. What runs on the
 * workers and how their errors come back is the callers' (parallel.ts, plugin-watchdog.ts).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';

/** The compiled file of a worker module; under the TypeScript sources (tests) the build's copy. */
export function compiledWorker(name: string): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts') ? fileURLToPath(new URL(`../../dist/cli/${name}.js`, import.meta.url)) : fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  if (!existsSync(file)) throw new Error(`worker file ${file} is missing: run npm run build`);
  return file;
}

/** A pool of `threads` workers running `src/cli/<name>.ts`, and an idempotent `destroy`. */
export async function openPool(name: string, threads: number): Promise<{ pool: Piscina; destroy: () => Promise<void> }> {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({
    filename: compiledWorker(name),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 100,
  });
  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    await pool.destroy();
  };
  return { pool, destroy };
}
