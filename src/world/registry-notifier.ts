/**
 * The consumer side's notification stage between a registry event and the directory refresh, as
 * Dubbo 3.x throttles it (`delay-notification` on the registry URL, default 5000 ms; Dubbo 2.7 has
 * no such stage). Two notifiers, both per subscription (one consumer instance's watch on one list):
 *
 * - `RegistryNotifier` (3.3 RegistryNotifier.java, used by NacosRegistry at interface level and by
 *   ZooKeeper service discovery at application level): the first 11 notifications run at once (the
 *   11th is the one that switches the delay on, RegistryNotifier.java:90-93); from then on an event
 *   within the delay of the last EXECUTED notification is deferred to `lastExecute + delay`
 *   (:72-87), and when that task runs only the latest event's list is notified (:128-130): the
 *   events in between are superseded. An event later than that runs at once.
 * - `ZookeeperRegistryNotifier` (3.3 ZookeeperRegistry.java:441-474, interface level): the watch
 *   event's list is read when the event is processed, then the ZooKeeper event thread sleeps until
 *   the delay since the last notification has passed (no grace for the first ones: the first watch
 *   event runs at once only because nothing ran before), and notifies the list it read. The event
 *   thread serves every watcher of that ZooKeeper client, so the sleep holds up the consumer
 *   process's other subscriptions (`ZookeeperEventThread`), and the watch is one-shot: changes
 *   while an event waits or sleeps make one further event, which reads the list when it is processed.
 *
 * Nacos at application level (NacosServiceDiscovery's listener) calls the instances-changed
 * listener directly: no notifier. The read at subscribe bypasses both (NacosRegistry.doSubscribe,
 * ZookeeperRegistry.doSubscribe call `notify` themselves). This file holds the state and the
 * timing; `PushDelivery` runs them on the simulated clock.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import type { Subscriber } from './registry.js';

/** `CommonConstants.DEFAULT_DELAY_EXECUTE_TIMES`: notifications counted before the delay applies. */
export const DEFAULT_DELAY_EXECUTE_TIMES = 10;

/**
 * The `delay-notification` of a subscriber's registry URL: its consumer group's Dubbo profile (a
 * provider's downstream side carries its provider group's); 0 (no notifier) for a subscriber
 * without one.
 */
export function notificationDelayOf(subscriber: Subscriber): number {
  const group = (subscriber as { group?: { dubbo?: { delayNotificationMs?: number } } }).group;
  return group?.dubbo?.delayNotificationMs ?? 0;
}

/**
 * What `RegistryNotifier.event` decided: notify `now`; `deferred` to `pendingAtMs` (a new deferred
 * notification); or deferred, `superseded` the list of the one already pending.
 */
export type NotifyDecision = 'now' | 'deferred' | 'superseded';

/** Dubbo 3's RegistryNotifier for one listener: which notifications run now, which wait, and with what list. */
export class RegistryNotifier<T> {
  readonly delayMs: number;
  #executeTimes = 0;
  #shouldDelay = false;
  /** When the last notification ran (`lastExecuteTime`; Java's 0 is long before any simulated time). */
  lastExecuteMs = -Infinity;
  /** The latest list of the deferred notification, or null when none is pending. */
  pending: T | null = null;
  /** When the deferred notification runs (`lastExecute + delay` when it was deferred). */
  pendingAtMs = 0;
  /** The deferred notification's agenda entry; null while it is held off the agenda or none is pending. */
  entry: QueueEntry | null = null;

  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }

  /**
   * An event with `list` at `nowMs` (RegistryNotifier.notify, :67-94). `Now`: the caller notifies
   * `list` at once (counted as executed now); otherwise `list` is the pending one, due at `pendingAtMs`.
   */
  event(nowMs: number, list: T): NotifyDecision {
    if (this.#shouldDelay && nowMs - this.lastExecuteMs < this.delayMs) {
      const superseded = this.pending !== null;
      this.pending = list;
      this.pendingAtMs = this.lastExecuteMs + this.delayMs;
      return superseded ? 'superseded' : 'deferred';
    }
    if (!this.#shouldDelay && ++this.#executeTimes > DEFAULT_DELAY_EXECUTE_TIMES) this.#shouldDelay = true;
    // A pending task due now (a tie) would find its event time outdated (:128) and do nothing.
    this.pending = null;
    this.lastExecuteMs = nowMs;
    return 'now';
  }

  /** The deferred notification runs (NotificationTask.run, :126-131): its list, which is no longer pending. */
  takePending(): T {
    const list = this.pending!;
    this.pending = null;
    this.entry = null;
    this.lastExecuteMs = this.pendingAtMs;
    return list;
  }
}

/** 3.3 ZookeeperRegistry.ZookeeperRegistryNotifier for one (consumer URL, listener): interface level. */
export class ZookeeperRegistryNotifier<S> {
  readonly delayMs: number;
  /** The ZooKeeper client's event thread this watcher's events are processed on. */
  readonly thread: ZookeeperEventThread<S>;
  /** When the last notification ran (`lastExecuteTime`). */
  #lastExecuteMs = -Infinity;
  /** The child watch is set: the next change of the list fires an event (one-shot, set again by each read). */
  armed = true;
  /** When the change that fired the pending watch event left the server (push lag of the read it makes). */
  firedAtMs = 0;

  constructor(delayMs: number, thread: ZookeeperEventThread<S>) {
    this.delayMs = delayMs;
    this.thread = thread;
  }

  /**
   * A watch event processed at `nowMs`, its list just read: when the notification runs, after the
   * sleep of ZookeeperRegistry.java:463-471 (`delay - (now - lastExecute)` when positive).
   */
  executeAt(nowMs: number): number {
    const interval = this.delayMs - (nowMs - this.#lastExecuteMs);
    this.#lastExecuteMs = interval > 0 ? nowMs + interval : nowMs;
    return this.#lastExecuteMs;
  }
}

/**
 * One ZooKeeper client's event thread (a consumer process's connection to one registry): watch
 * events wait here in arrival order while an earlier one is processed or its notifier sleeps.
 */
export class ZookeeperEventThread<S> {
  /** Events waiting, `queue[head..]` in arrival order (what each is an event of is the caller's). */
  readonly queue: S[] = [];
  head = 0;
  /** A notifier sleeps on the thread. */
  busy = false;

  /** Adds an event to the end of the queue. */
  add(event: S): void {
    this.queue.push(event);
  }

  /** The next event, or undefined when none waits. */
  next(): S | undefined {
    if (this.head === this.queue.length) return undefined;
    const event = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    return event;
  }
}
