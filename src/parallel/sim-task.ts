/**
 * One independent simulation as data: a normalized scenario (strategy and overrides already
 * applied), the file it came from (for plugin paths) and a seed. The same function runs a task in
 * the main thread (`--jobs 1`) and in a worker thread, so both give the same summary. Also how
 * threads share a batch of tasks: a counter of the next task to take, and progress cells. Plugins a
 * task calls are given by the thread that runs it (`TaskPlugins`).
 */
import { getHeapStatistics } from 'node:v8';
import type { Summary } from '../metrics/summary.js';
import type { TraceRecorder } from '../metrics/trace-recorder.js';
import { runScenario, type Plugins } from '../scenario/run.js';
import type { Scenario } from '../model/types.js';
import { exitIfParentGone, watchingParent } from './parent-watch.js';
import { runWatch } from './run-watchdog.js';
import { VERSION } from '../scenario/version.js';

export interface SimTask {
  scenario: Scenario;
  /** Absolute path of the scenario file (plugin paths are relative to it). */
  scenarioPath: string;
  seed: number;
  /** Where a worker reports progress: cell `index` of a `ProgressCells` buffer. */
  progress?: { buffer: SharedArrayBuffer; index: number };
  /** The command's `--force`: no run watchdog (run-watchdog.ts) either. */
  force?: boolean;
  /** The command's `--max-requests` (the watchdog's floors never exceed it). */
  maxRequests?: number;
  /** The command's `--per-instance`: the summary lists every consumer instance's pushes. */
  perInstance?: boolean;
}

/**
 * How the thread that runs a task gets the plugins its simulation calls. This thread and the simulation
 * workers run only tasks that call none (`noPlugins`); a task that calls plugins runs on the plugin
 * worker, which imports them (plugins/plugin-worker.ts): parallel/ itself never loads plugin code.
 */
export type TaskPlugins = (task: SimTask) => Promise<Plugins>;

/** The plugins of a task that calls none: empty tables. */
export const noPlugins: TaskPlugins = async () => ({ loadBalances: {}, clusters: {}, routers: {} });

/** A simulation that grew its thread's heap by more than this is collected as soon as it has ended (see `collectIfGrown`). */
export const COLLECT_AFTER_BYTES = 256 * 1024 * 1024;

/** The heap this thread is using now (its own isolate's). */
export function heapUsedBytes(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * After a simulation: a full garbage collection when the thread's heap has grown by more than
 * `COLLECT_AFTER_BYTES` since `usedAtStart` (its world, garbage now), and node exposes one (the CLI child runs
 * with `--expose-gc`, see `CHILD_V8_FLAGS`). V8 would collect it only once the heap had grown by a quarter
 * again (`--heap-growing-percent=25`): a thread that ran another simulation built that world beside the last
 * one's garbage. Small worlds are not worth a collection each (a sweep or many seeds of a small scenario runs
 * thousands).
 */
export function collectIfGrown(
  usedAtStart: number,
  gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc,
  heapUsed: () => number = heapUsedBytes,
): void {
  if (typeof gc === 'function' && heapUsed() - usedAtStart > COLLECT_AFTER_BYTES) gc();
}

/**
 * Runs one task and returns its summary; progress goes to `onProgress`, else to the task's shared
 * buffer; `plugins` gives the plugins the simulation calls (none by default); `traces` records its
 * simulated traces (in this thread only: `run --traces`).
 */
export async function runSimTask(
  task: SimTask,
  onProgress?: (simMs: number, requests: number) => void,
  plugins: TaskPlugins = noPlugins,
  traces?: TraceRecorder,
): Promise<Summary> {
  let watch = onProgress;
  if (watch === undefined && task.progress !== undefined) {
    const cells = new ProgressCells(task.progress.buffer);
    const index = task.progress.index;
    watch = (simMs, requests) => cells.write(index, simMs, requests);
  }
  if (watchingParent()) {
    // A simulation holds this thread's event loop until it ends: check for a dead parent at each step.
    const shown = watch;
    watch = (simMs, requests) => {
      exitIfParentGone();
      shown?.(simMs, requests);
    };
  }
  const loaded = plugins(task);
  const budget = task.force === true ? undefined : runWatch(task.scenario, task.seed, task.maxRequests);
  const usedAtStart = heapUsedBytes();
  try {
    return runScenario(task.scenario, { seed: task.seed, version: VERSION, plugins: await loaded, onProgress: watch, watch: budget, traces, perInstance: task.perInstance }).summary;
  } finally {
    collectIfGrown(usedAtStart);
  }
}

const CELL_FIELDS = 3;

/**
 * Progress of many simulations in shared memory, one cell per task: simulated ms, requests started,
 * and whether it has finished. Whichever thread runs a task writes its cell; the main thread reads.
 */
export class ProgressCells {
  readonly buffer: SharedArrayBuffer;
  readonly #view: Float64Array;

  /** Cells for `tasks` tasks, or a view of an existing buffer (in a worker). */
  constructor(tasksOrBuffer: number | SharedArrayBuffer) {
    this.buffer =
      typeof tasksOrBuffer === 'number' ? new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * CELL_FIELDS * tasksOrBuffer) : tasksOrBuffer;
    this.#view = new Float64Array(this.buffer);
  }

  write(index: number, simMs: number, requests: number): void {
    this.#view[CELL_FIELDS * index] = simMs;
    this.#view[CELL_FIELDS * index + 1] = requests;
  }

  finish(index: number): void {
    this.#view[CELL_FIELDS * index + 2] = 1;
  }

  read(index: number): { simMs: number; requests: number; done: boolean } {
    const at = CELL_FIELDS * index;
    return { simMs: this.#view[at]!, requests: this.#view[at + 1]!, done: this.#view[at + 2] === 1 };
  }
}

/**
 * What a worker gets to share tasks with the other threads: all of them, the shared counter of the
 * next task to take (`claimNext`), and where to report progress.
 */
export interface ClaimedBatch {
  tasks: SimTask[];
  claims: SharedArrayBuffer;
  progress?: SharedArrayBuffer;
}

/** Takes the next task not yet taken by any thread: its index, or -1 when none is left. */
export function claimNext(claims: Int32Array, tasks: number): number {
  const i = Atomics.add(claims, 0, 1);
  return i < tasks ? i : -1;
}

/** After a failure: no thread takes another task. */
export function stopClaims(claims: Int32Array, tasks: number): void {
  Atomics.store(claims, 0, tasks);
}

/**
 * One thread's share of a batch: takes tasks until none is left and returns `[index, summary]` for
 * each one it ran, calling `onTick` after each progress write. A failure stops every thread from
 * taking more.
 */
export async function runClaimedTasks(batch: ClaimedBatch, onTick?: () => void): Promise<Array<[number, Summary]>> {
  const claims = new Int32Array(batch.claims);
  const cells = batch.progress === undefined ? undefined : new ProgressCells(batch.progress);
  const out: Array<[number, Summary]> = [];
  for (let i = claimNext(claims, batch.tasks.length); i >= 0; i = claimNext(claims, batch.tasks.length)) {
    const onProgress =
      cells === undefined
        ? undefined
        : (simMs: number, requests: number) => {
            cells.write(i, simMs, requests);
            onTick?.();
          };
    try {
      out.push([i, await runSimTask(batch.tasks[i]!, onProgress)]);
    } catch (error) {
      stopClaims(claims, batch.tasks.length);
      throw error;
    }
    cells?.finish(i);
    onTick?.();
  }
  return out;
}
