/**
 * Failback: one attempt; on failure an empty result (value `null`) is returned at once and the call
 * is retried in the background, up to `retries` times (default 3, not failover's 2), each retry
 * selecting over the original list while avoiding the previous invoker. The retries run on the
 * invoker's retry timer, a HashedWheelTimer with 1 s ticks and at most `failbacktasks` pending
 * timeouts, whose single worker thread runs every due retry itself, one after another: a retry is a
 * synchronous call, so the worker is blocked until it answers or times out, and the retries due
 * behind it wait. A retry fires on the first tick after its 5 s delay (5 to 6 s after it was
 * scheduled, later when the worker is busy). It owns that timer; the attempts are real simulated
 * calls. Follows dubbo-cluster `support/FailbackClusterInvoker.java` and dubbo-common
 * `timer/HashedWheelTimer.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import {
  DEFAULT_FAILBACK_TASKS,
  DEFAULT_FAILBACK_TIMES,
  FAIL_BACK_TASKS_KEY,
  RETRIES_KEY,
  RETRY_FAILED_PERIOD,
} from '../constants.js';
import type { Directory } from '../directory/directory.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcInvocation } from '../rpc.js';
import type { DubboRuntime } from '../runtime.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/** The retry timer's tick (`new HashedWheelTimer(..., 1, TimeUnit.SECONDS, 32, failbackTasks)`). */
export const FAILBACK_TIMER_TICK_MS = 1000;

/** Dubbo's RetryTimerTask state: what one failed call needs to be retried. */
interface RetryTask {
  readonly loadbalance: LoadBalance;
  readonly invocation: RpcInvocation;
  /** The list of the original call; retries never re-list. */
  readonly invokers: Invoker[];
  lastInvoker: Invoker | null;
  retriedTimes: number;
}

/** A pending HashedWheelTimeout: its task and the wheel tick whose processing expires it. */
interface Timeout {
  readonly task: RetryTask;
  readonly tick: number;
}

/** Dubbo's `failback` cluster: fail silently now, retry later (for notifications). */
export class FailbackClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'failback';

  /** Background retries after the first failure (the first call not included). */
  readonly retries: number;
  /** Maximum pending retry timers (HashedWheelTimer `maxPendingTimeouts`). */
  readonly failbackTasks: number;
  /** The worker's `startTime`: set when the timer first gets a timeout (Dubbo creates it lazily). */
  #timerStartMs: number | null = null;
  // Pending timeouts in expiry order. Every delay is the same 5 s, so each new timeout's tick is at
  // least the last one's, and the wheel (bucket by tick, FIFO per bucket) expires them in this order.
  readonly #timeouts: Timeout[] = [];
  #workerRunning = false;

  constructor(directory: Directory, runtime: DubboRuntime) {
    super(directory, runtime);
    // Read once, interface level only, as Dubbo's constructor does: `getUrl().getParameter(RETRIES_KEY, 3)`.
    let retries = Math.trunc(this.getUrl().getNumber(RETRIES_KEY, DEFAULT_FAILBACK_TIMES));
    if (retries < 0) retries = DEFAULT_FAILBACK_TIMES;
    let tasks = Math.trunc(this.getUrl().getNumber(FAIL_BACK_TASKS_KEY, DEFAULT_FAILBACK_TASKS));
    if (tasks <= 0) tasks = DEFAULT_FAILBACK_TASKS;
    this.retries = retries;
    this.failbackTasks = tasks;
  }

  /** Retry timeouts scheduled and not yet taken by the timer's worker (HashedWheelTimer `pendingTimeouts`). */
  get pendingTasks(): number {
    return this.#timeouts.length;
  }

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    const invoker = this.select(loadbalance, invocation, invokers, null);
    if (invoker !== null) {
      const result = yield* this.invokeWithContextNow(invoker, invocation);
      if (result.kind === 'ok') return result;
    }
    // Dubbo catches every Throwable, a thrown biz RpcException (code 3) included.
    if (this.retries > 0) {
      this.#newTimeout({ loadbalance, invocation, invokers, lastInvoker: invoker, retriedTimes: 0 });
    }
    return { kind: 'ok', value: null };
  }

  /**
   * `failTimer.newTimeout(task, RETRY_FAILED_PERIOD, SECONDS)` (addFailed and RetryTimerTask.rePut).
   * Beyond `failbacktasks` pending timeouts it throws RejectedExecutionException, which Dubbo logs:
   * the retry is dropped.
   */
  #newTimeout(task: RetryTask): void {
    if (this.#timeouts.length >= this.failbackTasks) {
      this.runtime.events.count('failback.rejected');
      return;
    }
    const sim = this.runtime.sim;
    this.#timerStartMs ??= sim.now;
    // HashedWheelTimer: deadline = nanoTime + delay - startTime, expired by the processing of tick
    // deadline / tickDuration (transferTimeoutsToBuckets). Whole nanoseconds, as System.nanoTime.
    const deadlineNs = Math.round((sim.now - this.#timerStartMs) * 1e6) + RETRY_FAILED_PERIOD * 1e6;
    this.#timeouts.push({ task, tick: Math.floor(deadlineNs / (FAILBACK_TIMER_TICK_MS * 1e6)) });
    if (!this.#workerRunning) {
      this.#workerRunning = true;
      sim.process(this.#worker());
    }
  }

  // HashedWheelTimer.Worker: tick t is processed once the clock reaches the end of tick t
  // (waitForNextTick), or at once when the worker is behind; each expired task runs on this one
  // thread. Idle ticks change nothing, so the worker sleeps from one due timeout to the next.
  *#worker(): Proc<void> {
    const sim = this.runtime.sim;
    while (this.#timeouts.length > 0) {
      const dueMs = this.#timerStartMs! + (this.#timeouts[0]!.tick + 1) * FAILBACK_TIMER_TICK_MS;
      if (sim.now < dueMs) yield sim.timeout(dueMs - sim.now);
      // destroy() stops the timer: pending timeouts never run.
      if (this.isDestroyed()) {
        this.#timeouts.length = 0;
        break;
      }
      yield* this.#retry(this.#timeouts.shift()!.task);
    }
    this.#workerRunning = false;
  }

  // RetryTimerTask.run: select avoiding the last invoker, invoke and wait (the invocation is
  // synchronous); on failure count it and re-put it, or abandon after `retries`.
  *#retry(task: RetryTask): Proc<void> {
    this.runtime.events.count('failback.retry');
    const avoid = task.lastInvoker === null ? null : [task.lastInvoker];
    const retryInvoker = this.select(task.loadbalance, task.invocation, task.invokers, avoid);
    task.lastInvoker = retryInvoker;
    if (retryInvoker !== null) {
      const result = yield* this.invokeWithContextNow(retryInvoker, task.invocation);
      if (result.kind === 'ok') return;
    }
    if (++task.retriedTimes >= this.retries) {
      // "Failed retry times exceed threshold (<retries>), We have to abandon, invocation->..."
      this.runtime.events.count('failback.abandoned');
      return;
    }
    if (!this.isDestroyed()) this.#newTimeout(task);
  }
}
