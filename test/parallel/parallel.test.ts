/**
 * `--jobs`: independent simulations run on worker threads and give the same bytes as one thread.
 * The worker runs the compiled code (dist/), which `npm test` builds first (pretest).
 */
import { describe, expect, it, vi } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkJobs, MAX_JOBS, simulationThreads, WarmWorkers } from '../../src/parallel/jobs.js';
import { main } from '../../src/cli/main.js';
import { runSimTasks } from '../../src/parallel/parallel.js';
import type { ProgressSink } from '../../src/parallel/progress.js';
import { claimNext, collectIfGrown, COLLECT_AFTER_BYTES, ProgressCells, runClaimedTasks, stopClaims, type SimTask } from '../../src/parallel/sim-task.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { useTempDirs } from '../helpers/tmp.js';

// Counts the pools opened and their threads (and opens them as usual): a command's warm workers must be the ones used.
const opened = vi.hoisted(() => ({ pools: 0, threads: [] as number[] }));
vi.mock('../../src/parallel/worker-pool.js', async (actual) => {
  const real = await actual<typeof import('../../src/parallel/worker-pool.js')>();
  return {
    ...real,
    openPool: (...args: Parameters<typeof real.openPool>) => {
      opened.pools++;
      opened.threads.push(args[1]);
      return real.openPool(...args);
    },
  };
});

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const SHORT = ['--set', 'duration=12s', '--set', 'warmup=1s'];

describe('--jobs', () => {
  it('gives compare --seeds 2 byte-identical JSON on 1 and 2 worker threads', async () => {
    const args = ['compare', 'scenarios/zone-a-down.yaml', '--seeds', '2', '--json', ...SHORT];
    const one = await cli([...args, '--jobs', '1', '--out', tempDir('zs-')]);
    const two = await cli([...args, '--jobs', '2', '--out', tempDir('zs-')]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(two.out).toBe(one.out);
    // Two strategies, each the mean of two seeds with confidence intervals.
    const doc = JSON.parse(one.out);
    expect(Object.keys(doc.byStrategy)).toHaveLength(2);
    expect(doc.byStrategy['dubbo-default'].seeds).toEqual([1, 2]);
    expect(doc.byStrategy['dubbo-default'].ci95).toBeDefined();
  });

  it('gives run --seeds 3 the same summary.json on 1 and 3 worker threads', async () => {
    const dirs = [tempDir('zs-'), tempDir('zs-')];
    const runs = [];
    for (const [i, jobs] of ['1', '3'].entries()) {
      runs.push(await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--seeds', '3', '--jobs', jobs, '--json', '--out', dirs[i]!, ...SHORT]));
    }
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs[1]!.out).toBe(runs[0]!.out);
    const files = dirs.map((d) => {
      const [scenario] = readdirSync(d);
      const [run] = readdirSync(join(d, scenario!));
      return readFileSync(join(d, scenario!, run!, 'summary.json'), 'utf8');
    });
    expect(files[1]).toBe(files[0]);
    expect(JSON.parse(files[0]!).seeds).toEqual([1, 2, 3]);
  });

  it('gives recommend the same JSON on 1 and 2 worker threads', async () => {
    const args = ['recommend', 'scenarios/timeout-retry-storm.yaml', '--json', '--set', 'duration=10s'];
    const one = await cli([...args, '--jobs', '1']);
    const two = await cli([...args, '--jobs', '2']);
    expect(one.code).toBe(0);
    expect(two.out).toBe(one.out);
  });

  it.each(['0', '-1', '1.5'])('refuses --jobs %s with exit 2', async (jobs) => {
    const r = await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--jobs', jobs, ...SHORT]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--jobs: expected a whole number >= 1');
  });

  it.each(['1025', '1e9'])('refuses --jobs %s above the bound with exit 2, before anything runs (J-jobs-1e9 ran out of memory)', async (jobs) => {
    const before = opened.pools;
    const out = tempDir('zs-');
    const r = await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--seeds', '4', '--jobs', jobs, '--out', out, ...SHORT]);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(`zonesim: --jobs: at most 1024, found ${Number(jobs)}`);
    expect(r.err).toMatch(/^hint: threads beyond the cores \(\d+ here\) add memory, not speed/m);
    expect(opened.pools).toBe(before);
    expect(readdirSync(out)).toEqual([]);
  });

  it('accepts --jobs up to the bound, the same on every machine', () => {
    expect(MAX_JOBS).toBe(1024);
    expect(checkJobs(1024)).toBe(1024);
    expect(() => checkJobs(1025)).toThrow('--jobs: at most 1024, found 1025');
    expect(checkJobs(undefined)).toBeLessThanOrEqual(MAX_JOBS);
  });

  it('never runs more threads than simulations', () => {
    expect(simulationThreads(1000, 2)).toBe(2);
    expect(simulationThreads(2, 1000)).toBe(2);
    expect(simulationThreads(1, 5)).toBe(1);
    expect(simulationThreads(8, 1)).toBe(1);
    expect(simulationThreads(8, 0)).toBe(1);
  });

  it('run --seeds 2 --jobs 1000 starts 1 worker, the 2 threads its estimate counts (J-jobs-1000 started 999)', async () => {
    const args = ['run', 'scenarios/dual-zone-baseline.yaml', '--seeds', '2', '--jobs', '1000', '--json', ...SHORT];
    const dry = JSON.parse((await cli([...args, '--dry-run'])).out);
    expect(dry.limits.threads).toBe(2);
    const from = opened.threads.length;
    const r = await cli([...args, '--out', tempDir('zs-')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).seeds).toEqual([1, 2]);
    // The workers started first thing are the pool that runs: one, beside this thread.
    expect(opened.threads.slice(from)).toEqual([dry.limits.threads - 1]);
  });

  it('compare of 2 runs with --jobs 300 starts 1 worker (J-jobs-300-compare started 299)', async () => {
    const from = opened.threads.length;
    const r = await cli(['compare', 'scenarios/zone-a-down.yaml', '--jobs', '300', '--json', '--out', tempDir('zs-'), ...SHORT]);
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(r.out).byStrategy)).toHaveLength(2);
    // The warm workers, started before the scenario said how many runs there are, are one per core at most.
    const warm = opened.threads.slice(from);
    expect(warm.at(-1)).toBe(1);
    expect(Math.max(...warm)).toBeLessThanOrEqual(availableParallelism() - 1 || 1);
  });
});

describe('sharing tasks between threads', () => {
  const file = join(root, 'scenarios/dual-zone-baseline.yaml');
  const { scenario } = loadScenarioWithRaw(file, ['duration=3s', 'warmup=1s']);
  const tasks = (n: number): SimTask[] => Array.from({ length: n }, (_, i) => ({ scenario, scenarioPath: file, seed: 1 + i }));
  const counter = () => new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  // A task whose run throws (a consumer group without calls).
  const brokenTask = () =>
    ({ ...tasks(1)[0]!, scenario: { ...scenario, consumers: [{ ...scenario.consumers[0]!, calls: null }] } }) as unknown as SimTask;

  it('hands out each task index once, then -1, and -1 for good after a stop', () => {
    const claims = counter();
    expect([0, 1, 2, 3].map(() => claimNext(claims, 3))).toEqual([0, 1, 2, -1]);
    const stopped = counter();
    expect(claimNext(stopped, 5)).toBe(0);
    stopClaims(stopped, 5);
    expect([claimNext(stopped, 5), claimNext(stopped, 5)]).toEqual([-1, -1]);
  });

  it('runs what is left of a batch in one thread, marking each task finished in the progress cells', async () => {
    const claims = counter();
    expect(claimNext(claims, 3)).toBe(0); // another thread took task 0
    const cells = new ProgressCells(3);
    const done = await runClaimedTasks({ tasks: tasks(3), claims: claims.buffer as SharedArrayBuffer, progress: cells.buffer });
    expect(done.map(([i]) => i)).toEqual([1, 2]);
    const alone = await runSimTasks(tasks(3), 1);
    expect(done.map(([, s]) => JSON.stringify(s))).toEqual([JSON.stringify(alone[1]), JSON.stringify(alone[2])]);
    expect([0, 1, 2].map((i) => cells.read(i).done)).toEqual([false, true, true]);
    expect(cells.read(1).simMs).toBeGreaterThan(2_900);
    expect(cells.read(1).requests).toBeGreaterThan(0);
  });

  it('collects after a simulation that grew the heap by more than COLLECT_AFTER_BYTES, where node exposes gc', () => {
    const MB = 1024 * 1024;
    let collections = 0;
    const gc = () => collections++;
    collectIfGrown(100 * MB, gc, () => 100 * MB + COLLECT_AFTER_BYTES); // grew by exactly the threshold
    expect(collections).toBe(0);
    collectIfGrown(100 * MB, gc, () => 100 * MB + COLLECT_AFTER_BYTES + 1); // a large world's garbage
    expect(collections).toBe(1);
    collectIfGrown(900 * MB, gc, () => 950 * MB); // a small world beside what is kept
    expect(collections).toBe(1);
    // Without gc exposed (node run without the CLI's child flags): nothing, whatever the growth.
    collectIfGrown(0, undefined, () => 100 * COLLECT_AFTER_BYTES);
    expect(collections).toBe(1);
  });

  it('stops every thread taking tasks when one of its tasks fails', async () => {
    const claims = counter();
    const broken = brokenTask();
    const batch = { tasks: [broken, ...tasks(3)], claims: claims.buffer as SharedArrayBuffer };
    await expect(runClaimedTasks(batch)).rejects.toThrow();
    expect(claimNext(claims, 4)).toBe(-1);
  });

  it('gives 5 tasks on 2 threads the summaries of 1 thread, in task order, each task done once on the progress sink', async () => {
    const events: string[] = [];
    const lastSimMs = new Map<number, number>();
    const sink: ProgressSink = {
      update: (i, simMs) => {
        if (simMs <= 0) events.push(`zero ${i}`);
        // Only progress that moved is passed on (a sweep has hundreds of tasks).
        if (lastSimMs.get(i) === simMs) events.push(`again ${i}`);
        lastSimMs.set(i, simMs);
      },
      done: (i) => events.push(`done ${i}`),
      stop: () => events.push('stop'),
    };
    const two = await runSimTasks(tasks(5), 2, sink);
    const one = await runSimTasks(tasks(5), 1);
    expect(two.map((s) => JSON.stringify(s))).toEqual(one.map((s) => JSON.stringify(s)));
    expect(events.filter((e) => e.startsWith('done')).sort()).toEqual(['done 0', 'done 1', 'done 2', 'done 3', 'done 4']);
    expect(events.filter((e) => e.startsWith('zero') || e.startsWith('again'))).toEqual([]);
    expect(events.at(-1)).toBe('stop');
  });

  it('fails the whole run when a task fails, on whichever thread took it', async () => {
    const broken = brokenTask();
    // The broken task last: taken by whichever thread is free first.
    await expect(runSimTasks([...tasks(3), broken], 2)).rejects.toThrow();
    await expect(runSimTasks([broken, ...tasks(3)], 2)).rejects.toThrow();
  });

  it('runs on workers started before the tasks were known, and closes them', async () => {
    const before = opened.pools;
    const warm = new WarmWorkers(1);
    const out = await runSimTasks(tasks(2), 2, undefined, warm);
    expect(out.map((s) => s.seed)).toEqual([1, 2]);
    expect(opened.pools - before).toBe(1);
    // runSimTasks took the pool (and destroyed it when done): nothing is left to take.
    expect(await warm.take(1)).toBeUndefined();
  });

  it('hands its warm workers only to a pool of their size, and closes them otherwise', async () => {
    const fitting = new WarmWorkers(1);
    const pool = await fitting.take(1);
    expect(pool).toBeDefined();
    await pool!.destroy();
    await fitting.release();
    // Fewer would leave simulations waiting, more would hold memory for nothing: both are closed.
    for (const [threads, wanted] of [
      [1, 2],
      [2, 1],
    ] as const) {
      const warm = new WarmWorkers(threads);
      expect(await warm.take(wanted)).toBeUndefined();
      expect(await warm.take(threads)).toBeUndefined();
      await warm.release();
    }
  });
});
