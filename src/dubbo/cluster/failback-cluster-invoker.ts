/**
 * Failback: one attempt; on failure an empty result (value `null`) is returned at once and the call
 * is retried in the background every 5 s, up to `retries` times (default 3, not failover's 2),
 * each retry selecting over the original list while avoiding the previous invoker. It owns the
 * retry timer (a bounded set of pending tasks, `failbacktasks`); the attempts themselves are real
 * simulated calls. Follows dubbo-cluster `support/FailbackClusterInvoker.java`.
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

/** Dubbo's RetryTimerTask state: what one failed call needs to be retried. */
interface RetryTask {
  readonly loadbalance: LoadBalance;
  readonly invocation: RpcInvocation;
  /** The list of the original call; retries never re-list. */
  readonly invokers: Invoker[];
  lastInvoker: Invoker | null;
  retriedTimes: number;
}

/** Dubbo's `failback` cluster: fail silently now, retry later (for notifications). */
export class FailbackClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'failback';

  /** Background retries after the first failure (the first call not included). */
  readonly retries: number;
  /** Maximum pending retry timers (HashedWheelTimer `maxPendingTimeouts`). */
  readonly failbackTasks: number;
  #pendingTasks = 0;

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

  /** Retry timers scheduled and not yet fired. */
  get pendingTasks(): number {
    return this.#pendingTasks;
  }

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    const invoker = this.select(loadbalance, invocation, invokers, null);
    if (invoker !== null) {
      const result = yield* this.invokeWithContext(invoker, invocation);
      if (result.kind === 'ok') return result;
    }
    // Dubbo catches every Throwable, a thrown biz RpcException (code 3) included.
    if (this.retries > 0) {
      this.#addFailed({ loadbalance, invocation, invokers, lastInvoker: invoker, retriedTimes: 0 });
    }
    return { kind: 'ok', value: null };
  }

  #addFailed(task: RetryTask): void {
    // HashedWheelTimer.newTimeout rejects beyond maxPendingTimeouts; Dubbo logs and drops the task.
    if (this.#pendingTasks >= this.failbackTasks) {
      this.runtime.events.count('failback.rejected');
      return;
    }
    this.#pendingTasks++;
    // DIVERGENCE: the wheel's 1 s tick makes Dubbo's delay 5 s to 6 s; zonesim fires at exactly 5 s.
    this.runtime.sim.schedule(RETRY_FAILED_PERIOD, () => {
      this.#pendingTasks--;
      if (this.isDestroyed()) return; // destroy() stops the timer
      this.runtime.sim.process(this.#retry(task));
    });
  }

  // RetryTimerTask.run: select avoiding the last invoker, invoke; on failure count and re-put.
  *#retry(task: RetryTask): Proc<void> {
    this.runtime.events.count('failback.retry');
    const avoid = task.lastInvoker === null ? null : [task.lastInvoker];
    const retryInvoker = this.select(task.loadbalance, task.invocation, task.invokers, avoid);
    task.lastInvoker = retryInvoker;
    if (retryInvoker !== null) {
      const result = yield* this.invokeWithContext(retryInvoker, task.invocation);
      if (result.kind === 'ok') return;
    }
    if (++task.retriedTimes >= this.retries) {
      // "Failed retry times exceed threshold (<retries>), We have to abandon, invocation->..."
      this.runtime.events.count('failback.abandoned');
      return;
    }
    this.#addFailed(task);
  }
}
