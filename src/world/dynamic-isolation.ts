/**
 * Dynamic thread-pool isolation, as the "Dubbo practice" article describes it (SPEC 2.3
 * `isolation.dynamic`). NOT a Dubbo built-in: Dubbo 3.2+ only has static isolation (a service's own
 * executor). Per provider process: a method whose concurrent executions exceed `concurrency` while
 * its mean execution time over the last `window` exceeds `rt` moves to its own pool of `threads`
 * (no queue); it moves back once its mean time has stayed at or under `rt` for `restoreAfter`.
 * Decisions are taken when a call of the method arrives or finishes (no timers); calls already on a
 * thread finish in the pool they started in. Moves are counted as events `isolation.movedOut` and
 * `isolation.movedBack`.
 */
import { Resource } from '../engine/resource.js';
import type { Simulation } from '../engine/simulation.js';
import type { DynamicIsolationSpec } from '../model/types.js';
import type { IncomingCall } from './provider-call.js';
import type { WorldObserver } from '../metrics/observer.js';

interface MethodState {
  /** Calls of the method on a thread now (any pool). */
  running: number;
  /** Completion times and execution times in the window, oldest first (from `head`). */
  ends: number[];
  rts: number[];
  head: number;
  rtSum: number;
  /** The method's own pool, once it has been moved out. */
  pool: Resource<IncomingCall> | null;
  isolated: boolean;
  /** Since when the mean time has been normal while isolated. */
  normalSinceMs: number;
}

/** One process's dynamic isolation state. */
export class DynamicIsolation {
  readonly #sim: Simulation;
  readonly #spec: DynamicIsolationSpec;
  readonly #observer: WorldObserver;
  readonly #methods = new Map<string, MethodState>();

  constructor(sim: Simulation, spec: DynamicIsolationSpec, observer: WorldObserver) {
    this.#sim = sim;
    this.#spec = spec;
    this.#observer = observer;
  }

  /** The pool for a call arriving now: the method's own while it is isolated, else null (the shared one). */
  poolFor(service: string, method: string): Resource<IncomingCall> | null {
    const st = this.#state(service, method);
    this.#decide(st);
    return st.isolated ? st.pool : null;
  }

  /** A call of the method got a thread. */
  started(service: string, method: string): void {
    this.#state(service, method).running++;
  }

  /** A call of the method finished after `rtMs` on its thread. */
  finished(service: string, method: string, rtMs: number): void {
    const st = this.#state(service, method);
    st.running--;
    st.ends.push(this.#sim.now);
    st.rts.push(rtMs);
    st.rtSum += rtMs;
    this.#decide(st);
  }

  /** Mean execution time of the method over the window ending now (0 when nothing finished in it). */
  meanRtMs(service: string, method: string): number {
    const st = this.#state(service, method);
    this.#expire(st);
    const n = st.ends.length - st.head;
    return n === 0 ? 0 : st.rtSum / n;
  }

  /** True while the method runs in its own pool. */
  isIsolated(service: string, method: string): boolean {
    return this.#methods.get(`${service}#${method}`)?.isolated ?? false;
  }

  #state(service: string, method: string): MethodState {
    const key = `${service}#${method}`;
    let st = this.#methods.get(key);
    if (st === undefined) {
      st = { running: 0, ends: [], rts: [], head: 0, rtSum: 0, pool: null, isolated: false, normalSinceMs: -1 };
      this.#methods.set(key, st);
    }
    return st;
  }

  #expire(st: MethodState): void {
    const from = this.#sim.now - this.#spec.windowMs;
    while (st.head < st.ends.length && st.ends[st.head]! <= from) {
      st.rtSum -= st.rts[st.head]!;
      st.head++;
    }
    if (st.head > 1024 && st.head * 2 > st.ends.length) {
      st.ends = st.ends.slice(st.head);
      st.rts = st.rts.slice(st.head);
      st.head = 0;
    }
    if (st.head === st.ends.length) st.rtSum = 0;
  }

  #decide(st: MethodState): void {
    this.#expire(st);
    const n = st.ends.length - st.head;
    const slow = n > 0 && st.rtSum / n > this.#spec.rtMs;
    const now = this.#sim.now;
    if (!st.isolated) {
      if (slow && st.running > this.#spec.concurrency) {
        st.isolated = true;
        st.normalSinceMs = -1;
        st.pool ??= new Resource<IncomingCall>(this.#sim, this.#spec.threads, 0);
        this.#observer.count('isolation.movedOut');
      }
      return;
    }
    if (slow) {
      st.normalSinceMs = -1;
      return;
    }
    if (st.normalSinceMs < 0) st.normalSinceMs = now;
    if (now - st.normalSinceMs >= this.#spec.restoreAfterMs) {
      st.isolated = false;
      st.normalSinceMs = -1;
      this.#observer.count('isolation.movedBack');
    }
  }
}
