/**
 * The registry server's rules for delaying and merging the pushes of one list (a service's or an
 * application's): changes made while a push of that list waits become part of it, and the push then
 * carries the list as it is when it goes out. Two rules:
 *
 * - `window` (SPEC 2.5 `pushRate`, push rate control as the seed article's registry team built it):
 *   time is cut into windows aligned to multiples of `intervalMs` from t = 0; a list changed during a
 *   window is pushed once, at the window's end, as its then-current full list. A change exactly at a
 *   window's end belongs to the next window.
 * - `nacosDelay` (Nacos 2.x server, naming/push/v2): `NamingSubscriberServiceV2Impl.onEvent` turns a
 *   `ServiceChangedEvent` into a `PushDelayTask(service, pushTaskDelay)` added to the
 *   `PushDelayTaskExecuteEngine`; `NacosDelayTaskExecuteEngine.addTask` merges it with the service's
 *   waiting task, keeping the earlier `lastProcessTime` (`PushDelayTask.merge`); the engine's
 *   `ProcessRunnable` runs every 100 ms and processes a task once `now - lastProcessTime >= taskInterval`
 *   (`AbstractDelayTask.shouldProcess`). So a push leaves at the first engine tick at least
 *   `pushTaskDelay` (500 ms, `PushConstants.DEFAULT_PUSH_TASK_DELAY`) after the FIRST change it carries.
 *
 * What is sent, to whom, and whether it gets through is `PushDelivery`'s; this module only decides when
 * a list's push leaves. The read of `subscribe` is never delayed (it does not come through here).
 * `registry.pushesMerged` counts, per change absorbed into a waiting push, the subscriptions of that list
 * at that moment: the pushes per subscriber that were not sent because they were merged.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import type { Simulation } from '../engine/simulation.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { RegistrySpec } from '../model/types.js';
import { modelsServers } from './registry-servers.js';

/** Nacos 2.x `nacos.naming.push.pushTaskDelay` default (`PushConstants.DEFAULT_PUSH_TASK_DELAY`), ms. */
export const NACOS_PUSH_TASK_DELAY_MS = 500;
/** `NacosDelayTaskExecuteEngine`'s default `processInterval` (its `ProcessRunnable` period), ms. */
export const NACOS_DELAY_ENGINE_INTERVAL_MS = 100;

/**
 * The delay a Nacos registry's server merges each list's pushes over (`pushDelay`, 500 ms by default), or
 * undefined when it pushes each change at once: another type, a Nacos registry not modeled as a server (no
 * `servers` or `capacity`: the idealised registry), or `pushDelay: 0`.
 */
export function nacosServerPushDelayMs(spec: Pick<RegistrySpec, 'type' | 'servers' | 'capacity' | 'pushDelayMs'>): number | undefined {
  if (spec.type !== 'nacos' || !modelsServers(spec)) return undefined;
  const delayMs = spec.pushDelayMs ?? NACOS_PUSH_TASK_DELAY_MS;
  return delayMs > 0 ? delayMs : undefined;
}

/** How a registry delays and merges the pushes of one list. */
export type PushMergeRule =
  | { readonly kind: 'window'; readonly intervalMs: number }
  | {
      readonly kind: 'nacosDelay';
      readonly delayMs: number;
      readonly tickMs: number;
      /** Where the engine's ticks fall: `phaseMs + k * tickMs`, with 0 <= phaseMs < tickMs. */
      readonly phaseMs: number;
    };

/** What the merger drives: the push of some lists now, and the count of a push merged away (returns its subscriptions). */
export interface MergedPushTarget {
  publish(keys: readonly string[]): void;
  pushMerged(key: string): number;
}

/** Delays and merges the pushes of one discovery level's lists by a `PushMergeRule`. */
export class PushMerger {
  readonly #sim: Simulation;
  readonly #observer: WorldObserver;
  readonly #rule: PushMergeRule;
  readonly #target: MergedPushTarget;
  /** `window`: the lists changed in window `#window`, in first-change order, and the timer of its end. */
  readonly #pending = new Set<string>();
  #window = -1;
  #timer: QueueEntry | null = null;
  /** `nacosDelay`: the waiting PushDelayTask of each list (its timer is its first processing tick). */
  readonly #tasks = new Map<string, QueueEntry>();

  constructor(sim: Simulation, observer: WorldObserver, rule: PushMergeRule, target: MergedPushTarget) {
    this.#sim = sim;
    this.#observer = observer;
    this.#rule = rule;
    this.#target = target;
  }

  /** The lists `keys` changed now: each is pushed when the rule says, merged with any push of it waiting. */
  changed(keys: readonly string[]): void {
    if (this.#rule.kind === 'window') this.#windowChanged(keys, this.#rule.intervalMs);
    else for (const key of keys) this.#delayChanged(key, this.#rule);
  }

  #merged(key: string): void {
    const n = this.#target.pushMerged(key);
    if (n > 0) this.#observer.count('registry.pushesMerged', n);
  }

  #windowChanged(keys: readonly string[], intervalMs: number): void {
    const now = this.#sim.now;
    const w = Math.floor(now / intervalMs);
    // The previous window ends now and its timer has not run yet: it goes first, so this change
    // starts the next window's push rather than joining one that carries it anyway.
    if (w !== this.#window) this.#flushWindow();
    this.#window = w;
    for (const key of keys) {
      if (this.#pending.has(key)) this.#merged(key);
      else this.#pending.add(key);
    }
    if (this.#timer === null && this.#pending.size > 0) {
      this.#timer = this.#sim.schedule((w + 1) * intervalMs - now, () => this.#flushWindow());
    }
  }

  #flushWindow(): void {
    if (this.#timer !== null) {
      this.#sim.cancel(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.size === 0) return;
    const keys = [...this.#pending];
    this.#pending.clear();
    this.#target.publish(keys);
  }

  #delayChanged(key: string, rule: Extract<PushMergeRule, { kind: 'nacosDelay' }>): void {
    // PushDelayTask.merge keeps the earlier lastProcessTime: the waiting task's tick stands.
    if (this.#tasks.has(key)) {
      this.#merged(key);
      return;
    }
    const now = this.#sim.now;
    // The first ProcessRunnable tick at which shouldProcess() holds: now - lastProcessTime >= delay.
    const due = now + rule.delayMs;
    const k = Math.ceil((due - rule.phaseMs) / rule.tickMs);
    const at = Math.max(due, rule.phaseMs + k * rule.tickMs);
    this.#tasks.set(
      key,
      this.#sim.schedule(at - now, () => {
        this.#tasks.delete(key);
        this.#target.publish([key]);
      }),
    );
  }
}
