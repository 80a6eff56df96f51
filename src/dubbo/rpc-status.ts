/**
 * Dubbo's RpcStatus: per (invoker URL identity, method) active and completed counts and elapsed
 * times. Only ActiveLimitFilter updates it in Dubbo 3.3, so without `actives` every count stays 0.
 * Follows dubbo-rpc-api `RpcStatus.java`.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import type { SimEvent, Simulation } from '../engine/simulation.js';
import type { URL } from './url.js';

interface Waiter {
  ev: SimEvent<unknown>;
  timer: QueueEntry | null;
}

const NO_WAITERS: readonly Waiter[] = Object.freeze([]) as readonly Waiter[];

/** Counters of one invoker and method. */
export class RpcStatus {
  active = 0;
  total = 0;
  failed = 0;
  totalElapsed = 0;
  failedElapsed = 0;
  maxElapsed = 0;
  succeededMaxElapsed = 0;
  /** Callers blocked in ActiveLimitFilter (Java: threads in `rpcStatus.wait`), with their wait timers. */
  // PERF: a status per consumer instance, provider and method; most never have a waiter, so they share one empty list.
  #waiters = NO_WAITERS as Waiter[];

  /**
   * Java's `rpcStatus.wait(remainMs)`: an event that succeeds on `notifyAll` or after `remainMs`
   * (0 = no time limit, as `Object.wait(0)`).
   */
  waitFor(sim: Simulation, remainMs: number): SimEvent<unknown> {
    const waiter: Waiter = { ev: sim.event(), timer: null };
    if (remainMs > 0) {
      waiter.timer = sim.schedule(remainMs, () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        waiter.ev.succeed();
      });
    }
    if (this.#waiters === NO_WAITERS) this.#waiters = [];
    this.#waiters.push(waiter);
    return waiter.ev;
  }

  /** Java's `rpcStatus.notifyAll()`: wakes every waiter. */
  notifyAll(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = NO_WAITERS as Waiter[];
    for (const w of waiters) {
      if (w.timer !== null) w.ev.sim.cancel(w.timer);
      w.ev.succeed();
    }
  }

  getActive(): number {
    return this.active;
  }
  getSucceeded(): number {
    return this.total - this.failed;
  }
  getSucceededElapsed(): number {
    return this.totalElapsed - this.failedElapsed;
  }
}

const NO_BUSY: ReadonlyMap<string, RpcStatus> = new Map();

/** The JVM-wide table of RpcStatus (one per simulated consumer instance). */
export class RpcStatusTable {
  // PERF: Dubbo's key is `identity + "#" + method`; a map per method keyed by the identity string (memoized
  // per URL) finds the same status without building a string per lookup (one per invoker per pick).
  // PERF: the three tables are made on first use: a consumer process whose calls nothing counts (no
  // ActiveLimitFilter, leastactive or shortestresponse) never needs them, and a cohort estate has 32,000.
  #byMethod: Map<string, Map<string, RpcStatus>> | null = null;
  /**
   * PERF: per method, the statuses whose active count is not 0, by URL identity string. Least active
   * reads this instead of every invoker's count: without ActiveLimitFilter it stays empty, and with
   * it a consumer instance has a few calls in flight among hundreds of providers.
   */
  #busy: Map<string, Map<string, RpcStatus>> | null = null;
  /** Methods some status of which has counted a call (until then every status of the method reads all zeros). */
  #countedMethods: Set<string> | null = null;

  /** Status for `url` and `method` (created on first use). */
  getStatus(url: URL, method: string): RpcStatus {
    const byMethod = (this.#byMethod ??= new Map());
    let byIdentity = byMethod.get(method);
    if (byIdentity === undefined) byMethod.set(method, (byIdentity = new Map()));
    const identity = url.toIdentityString();
    let s = byIdentity.get(identity);
    if (s === undefined) {
      s = new RpcStatus();
      byIdentity.set(identity, s);
    }
    return s;
  }

  /**
   * `getStatus(url, method).getActive()` without creating the status: one that was never counted
   * reads 0 either way (Dubbo creates it on read; nothing can tell the difference but memory).
   */
  activeOf(url: URL, method: string): number {
    return this.#byMethod?.get(method)?.get(url.toIdentityString())?.active ?? 0;
  }

  /** True once `beginCount` took a slot or `endCount` ran for `method` (on any URL). */
  hasCounted(method: string): boolean {
    return this.#countedMethods?.has(method) ?? false;
  }

  /** The statuses of `method` whose active count is not 0, by URL identity string. */
  busyFor(method: string): ReadonlyMap<string, RpcStatus> {
    return this.#busy?.get(method) ?? NO_BUSY;
  }

  /**
   * Dubbo `RpcStatus.beginCount(url, method, max)`: takes a slot unless `max` (> 0) are already
   * active; without `max` it always counts.
   */
  beginCount(url: URL, method: string, max = 0): boolean {
    const s = this.getStatus(url, method);
    const limit = max <= 0 ? Number.MAX_SAFE_INTEGER : max;
    if (s.active + 1 > limit) return false;
    s.active++;
    this.#track(url, method, s);
    return true;
  }

  /** Dubbo `RpcStatus.endCount`. */
  endCount(url: URL, method: string, elapsedMs: number, succeeded: boolean): void {
    const s = this.getStatus(url, method);
    s.active--;
    this.#track(url, method, s);
    s.total++;
    s.totalElapsed += elapsedMs;
    if (s.maxElapsed < elapsedMs) s.maxElapsed = elapsedMs;
    if (succeeded) {
      if (s.succeededMaxElapsed < elapsedMs) s.succeededMaxElapsed = elapsedMs;
    } else {
      s.failed++;
      s.failedElapsed += elapsedMs;
    }
  }

  // Keeps `#busy` in step with one status's active count.
  #track(url: URL, method: string, s: RpcStatus): void {
    (this.#countedMethods ??= new Set()).add(method);
    const byMethod = (this.#busy ??= new Map());
    let busy = byMethod.get(method);
    if (s.active !== 0) {
      if (busy === undefined) byMethod.set(method, (busy = new Map()));
      busy.set(url.toIdentityString(), s);
    } else busy?.delete(url.toIdentityString());
  }
}
