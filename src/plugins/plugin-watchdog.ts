/**
 * The plugin time budget, on the main thread. A simulation that uses plugins runs on a worker
 * thread; its plugin calls write into a slot of a SharedArrayBuffer which call of which plugin is
 * running (plugin-guard.ts). The watchdog reads the slots a few times a second: when the same
 * outermost plugin call has been running for longer than the budget (`--plugin-timeout`, default
 * 10 s), it stops the workers and fails with one line naming the plugin and the call, e.g.
 * `plugin ./my-lb.js: select() did not return within 10 s` (exit 1). Owns the wall-clock side
 * and the single-job worker that `check` and `select` use; simulations go through parallel.ts.
 */
import { callLabel, F_CALL, F_PLUGIN, F_SEQ, PLUGIN_CALLS, SLOT_FIELDS, type PluginSlot } from './plugin-guard.js';
import { fromTransferable } from '../parallel/worker-error.js';
import { openPool } from '../parallel/worker-pool.js';

/** A plugin call ran past the budget (CLI exit 1). */
export class PluginTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginTimeoutError';
  }
}

/** `10 s`, `1.5 s`, `500 ms`. */
export function formatBudget(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(3)} s` : `${+ms.toFixed(3)} ms`;
}

/** Watches the plugin calls of `slots` simulations against a time budget per call. */
export class PluginWatchdog {
  readonly buffer: SharedArrayBuffer;
  readonly #view: Int32Array;
  readonly #plugins: readonly string[];
  readonly #budgetMs: number;
  // Per slot: the sequence number last seen running and since when (wall ms).
  readonly #seen: Int32Array;
  readonly #sinceMs: Float64Array;

  constructor(slots: number, plugins: readonly string[], budgetMs: number) {
    this.buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * SLOT_FIELDS * Math.max(1, slots));
    this.#view = new Int32Array(this.buffer);
    this.#plugins = plugins;
    this.#budgetMs = budgetMs;
    this.#seen = new Int32Array(Math.max(1, slots));
    this.#sinceMs = new Float64Array(Math.max(1, slots));
  }

  /** The slot simulation `index` writes into. */
  slot(index: number): PluginSlot {
    return { buffer: this.buffer, index, plugins: this.#plugins };
  }

  /**
   * Reads every slot once at wall time `nowMs`: the message for a call running past the budget,
   * else undefined. A call is the outermost plugin call; the message names the innermost one running.
   */
  poll(nowMs: number): string | undefined {
    const v = this.#view;
    for (let i = 0; i < this.#seen.length; i++) {
      const b = i * SLOT_FIELDS;
      const seq = Atomics.load(v, b + F_SEQ);
      if (seq === 0) {
        this.#seen[i] = 0;
        continue;
      }
      if (seq !== this.#seen[i]) {
        this.#seen[i] = seq;
        this.#sinceMs[i] = nowMs;
        continue;
      }
      if (nowMs - this.#sinceMs[i]! < this.#budgetMs) continue;
      const plugin = this.#plugins[v[b + F_PLUGIN]! - 1];
      const call = PLUGIN_CALLS[v[b + F_CALL]!] ?? 'invoke';
      const verb = call === 'load' ? 'did not finish' : 'did not return';
      return `${plugin === undefined ? 'a plugin' : `plugin ${plugin}`}: ${callLabel(call)} ${verb} within ${formatBudget(this.#budgetMs)}`;
    }
    return undefined;
  }

  /**
   * Waits for `work`, reading the slots meanwhile. On a stall it calls `stop` (which terminates the
   * workers) and rejects with a PluginTimeoutError, whatever `work` then does.
   */
  async guard<T>(work: Promise<T>, stop: () => Promise<unknown>): Promise<T> {
    let stalled: string | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    const intervalMs = Math.min(250, Math.max(20, this.#budgetMs / 10));
    const watch = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        if (stalled !== undefined) return;
        stalled = this.poll(performance.now());
        if (stalled === undefined) return;
        clearInterval(timer);
        const fail = () => reject(new PluginTimeoutError(stalled!));
        stop().then(fail, fail);
      }, intervalMs);
    });
    watch.catch(() => undefined);
    try {
      return await Promise.race([work, watch]);
    } catch (error) {
      if (stalled !== undefined) throw new PluginTimeoutError(stalled);
      throw error;
    } finally {
      clearInterval(timer);
    }
  }
}


/**
 * Runs one job of plugin-worker.ts (a `check` or a `select` that calls plugins) on a worker thread
 * under the watchdog, and returns its result.
 */
export async function runWatchedJob<T>(job: object, plugins: readonly string[], budgetMs: number): Promise<T> {
  const { pool, destroy } = await openPool('plugins/plugin-worker', 1);
  const watchdog = new PluginWatchdog(1, plugins, budgetMs);
  try {
    const work = pool.run({ ...job, slot: watchdog.slot(0) }).catch((error: unknown) => {
      throw fromTransferable(error);
    }) as Promise<T>;
    return await watchdog.guard(work, destroy);
  } finally {
    await destroy();
  }
}
