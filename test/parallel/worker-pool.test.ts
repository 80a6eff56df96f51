import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openWorkerPool } from '../../src/parallel/worker-pool.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/workers/${name}.mjs`, import.meta.url));
// Where the slow-loading fixture notes each load (workers share this process's pid).
const loadLog = join(tmpdir(), `zonesim-slow-loading-${process.pid}.log`);

// Node 20 aborts the process (a V8 fatal error in `v8::Module::IsGraphAsync`) when a worker is stopped
// while `require` instantiates its module graph; a command that stops early (a bad scenario with
// --jobs 2) used to stop its warm workers at once, whatever they were doing.
describe('worker pool', () => {
  it('stops workers that are still loading only once they have loaded their module', async () => {
    rmSync(loadLog, { force: true });
    const { destroy } = await openWorkerPool(fixture('slow-loading'), 2);
    await destroy();
    // Stopped at once, neither worker would have got past its 300 ms of loading.
    expect(readFileSync(loadLog, 'utf8')).toBe('loaded\nloaded\n');
    rmSync(loadLog, { force: true });
  });

  it('runs tasks and stops at once when the workers have loaded; destroy may be called again', async () => {
    rmSync(loadLog, { force: true });
    const { pool, destroy } = await openWorkerPool(fixture('slow-loading'), 1);
    expect(await pool.run(null)).toBe('ran');
    await Promise.all([destroy(), destroy()]);
    await destroy();
    expect(readFileSync(loadLog, 'utf8')).toBe('loaded\n');
    rmSync(loadLog, { force: true });
  });

  it('does not wait for a worker whose module failed to load', async () => {
    // With a cap of some 24 days, only the worker's end can let destroy return (else the test times out).
    const { pool, destroy } = await openWorkerPool(fixture('failing-load'), 1, 2 ** 31 - 1);
    await expect(pool.run(null)).rejects.toThrow(/cannot load/);
    await destroy();
  });
});
