/**
 * PERF: a discovery registry's pushes held off the agenda. While the world runs (`holdPushes`), a
 * push to a subscription whose listeners take late lists waits in the subscription, as its arrival
 * time, the agenda sequence number it reserved when sent and its list, and is delivered when its
 * subscriber next reads (`CatchUp`) or `catchUpAll` is called, in order and with the effect it
 * would have had at its arrival. What has not arrived goes back on the agenda, at the place it was
 * held for, when holding stops, a zone is cut off or a subscription stops being holdable. A
 * notification its RegistryNotifier defers waits the same way, in the notifier.
 */
import { EventQueue } from '../engine/event-queue.js';
import { NORMAL, URGENT, type Simulation } from '../engine/simulation.js';
import type { RegistrySpec } from '../model/types.js';
import type { CatchUp } from './registry.js';
import type { Delivery, ServiceRef, Snapshot, Subscription } from './registry-subscription.js';

/** Held pushes a subscription keeps before it delivers those that have arrived (see `hold`). */
const HELD_BEFORE_CATCH_UP = 64;

/**
 * The agenda place of a deferred notification (RegistryNotifier), with priority URGENT: before
 * everything else at its instant, a push arriving then included, whether it is held or queued (held
 * and queued runs then agree to the last tie; Dubbo's millisecond clock gives no order to keep).
 */
export const DEFERRED_NOTIFY_SEQ = -1;

/** What `HeldPushes` calls back into its push delivery. */
export interface HeldPushCallbacks {
  /** Delivers a push that has arrived (`PushDelivery`'s arrival). */
  readonly arrive: (sub: Subscription, seq: number, snapshot: Snapshot, atMs: number) => void;
  /** The agenda callback of a push (`Delivery`), for pushes put back on the agenda. */
  readonly deliver: (arg: unknown) => void;
  /** Runs the subscription's deferred notification. */
  readonly runDeferred: (sub: Subscription) => void;
  /** The agenda callback of a deferred notification (its argument: the subscription). */
  readonly deferredFire: (arg: unknown) => void;
}

/** The held pushes of one registry's subscriptions. */
export class HeldPushes {
  readonly #sim: Simulation;
  readonly #spec: RegistrySpec;
  readonly #appLevel: boolean;
  readonly #arrive: (sub: Subscription, seq: number, snapshot: Snapshot, atMs: number) => void;
  readonly #deliver: (arg: unknown) => void;
  readonly #runDeferred: (sub: Subscription) => void;
  readonly #deferredFire: (arg: unknown) => void;
  /**
   * PERF: pushes to holdable subscriptions wait in the subscription instead of on the agenda (see
   * `holdPushes`). A rolling restart sends every change to thousands of consumer instances, each of
   * which reads its list a few times a second: an agenda entry per push cost more than the rest of
   * the restart, and most pushes are replaced by the next one before the instance reads.
   */
  #holding = false;
  /** Subscriptions that may hold pushes (some may have delivered them all since). */
  readonly #heldSubs: Subscription[] = [];
  /**
   * PERF: the subscriptions that hold something, by the earliest time it can be due (`Subscription.heldDueMs`;
   * an entry is never later than what it stands for, and may be earlier once the subscriber caught up by
   * itself). `catchUpAll` runs once per timeline bucket: at the seed scale it scanned 64,000 subscriptions each
   * time for the few hundred whose push had arrived. Which subscriptions it catches up, and in which order,
   * changes nothing: a held push's delivery reads and writes only its own subscription, its listeners and the
   * push counts (the tests run every scenario with pushes held and on the agenda, in the agenda's order).
   */
  readonly #due = new EventQueue();
  #pushesHeld = 0;

  constructor(sim: Simulation, spec: RegistrySpec, appLevel: boolean, callbacks: HeldPushCallbacks) {
    this.#sim = sim;
    this.#spec = spec;
    this.#appLevel = appLevel;
    this.#arrive = callbacks.arrive;
    this.#deliver = callbacks.deliver;
    this.#runDeferred = callbacks.runDeferred;
    this.#deferredFire = callbacks.deferredFire;
  }

  /** True while pushes to holdable subscriptions are held. */
  get holding(): boolean {
    return this.#holding;
  }

  /** `RegistryModel.holdPushes`: on, pushes to holdable subscriptions are held; off, none is and none stays held. */
  holdPushes(on: boolean): void {
    if (on) {
      // With a `zone`, whether a push arrives depends on network partitions, which the registry is not
      // told of when they start: every push then goes through the agenda.
      this.#holding = this.#spec.zone === undefined;
      return;
    }
    this.#holding = false;
    // Between instants, after the kernel ran every entry due by now: what has arrived is delivered.
    for (const sub of this.#heldSubs) this.#deliverDue(sub, false);
    // PERF: holding stops when the run's arrivals end, and the run stops once its last requests are done, a
    // few simulated seconds later at most: the pushes still on their way then (after a storm, millions, minutes
    // of them queued on the registry's cards) are never delivered. Each enters the agenda only when the one
    // before it to the same subscriber is delivered, not all at once (an object and an agenda entry each:
    // 1.1 GB at a tenth of the seed scale with its consumers per instance).
    for (const sub of this.#heldSubs) {
      sub.inHeldSubs = false;
      this.#queueDeferral(sub);
      this.#chainNext(sub);
    }
    this.#heldSubs.length = 0;
  }

  /**
   * Puts `sub`'s first held push on the agenda, at the place it was held for; when it is delivered, the
   * next (see `holdPushes`). Each is after the one before it in the agenda's order (arrival times never
   * decrease and agenda places were reserved in sending order), so the kernel runs them exactly where
   * putting them all there at once would.
   */
  #chainNext(sub: Subscription): void {
    if (sub.heldHead === sub.heldEnd) {
      sub.chained = false;
      clearHeld(sub);
      return;
    }
    sub.chained = true;
    this.#enter(sub, sub.heldHead++, this.#onChained);
  }

  /** Puts `sub`'s i-th held push on the agenda at the place it was held for, with `fire` as its callback. */
  #enter(sub: Subscription, i: number, fire: (arg: unknown) => void): void {
    const at = sub.heldAt;
    const delivery: Delivery = { sub, seq: at[3 * i + 2]!, snapshot: sub.heldSnapshots[i]! };
    sub.heldSnapshots[i] = null;
    this.#sim.scheduleReserved(at[3 * i]!, at[3 * i + 1]!, fire, NORMAL, delivery);
  }

  readonly #onChained = (arg: unknown): void => {
    this.#deliver(arg);
    const sub = (arg as Delivery).sub;
    // `#queueHeld` (a zone cut off, a subscription no longer holdable) may have queued the rest meanwhile.
    if (sub.chained) this.#chainNext(sub);
  };

  /** Pushes held off the agenda so far (a performance counter of the run). */
  get pushesHeld(): number {
    return this.#pushesHeld;
  }

  /** Delivers every held push that has arrived before what runs now (before push counts are read). */
  catchUpAll(): void {
    const now = this.#sim.now;
    const due: Subscription[] = [];
    while (this.#due.peekTime() <= now) {
      const entry = this.#due.pop()!;
      const sub = entry.arg as Subscription;
      // An entry it was filed under before an earlier one (that one, or a later filing, speaks for it).
      if (entry.time !== sub.heldDueMs) continue;
      sub.heldDueMs = Infinity;
      due.push(sub);
    }
    for (const sub of due) {
      this.catchUp(sub);
      this.#fileDue(sub, nextHeldMs(sub));
    }
  }

  /** Files `sub` under `atMs` in the due order, unless it is filed under a time no later. */
  #fileDue(sub: Subscription, atMs: number): void {
    if (atMs >= sub.heldDueMs) return;
    sub.heldDueMs = atMs;
    this.#due.push(atMs, NORMAL, noop, sub);
  }

  /** Holds a push to `sub` arriving at `timeMs`, at the agenda place a timer set now would take. */
  hold(sub: Subscription, timeMs: number, seq: number, snapshot: Snapshot): void {
    // A subscriber that does not read (no traffic), in a run without timeline samples, would hold every
    // push: from 64 on, what has arrived is delivered first, so that it holds what is on its way.
    if (sub.heldEnd - sub.heldHead >= HELD_BEFORE_CATCH_UP) this.catchUp(sub);
    // Slots before the first held push are free again once the arrays are full.
    if (sub.heldHead > 0 && 3 * sub.heldEnd >= sub.heldAt.length) compactHeld(sub);
    const agendaSeq = this.#sim.reserveSeq();
    this.#pushesHeld++;
    const i = sub.heldEnd++;
    if (i === sub.heldHead) {
      this.#tellHeld(sub, timeMs);
      this.#fileDue(sub, timeMs);
    }
    const at = sub.heldAt;
    if (3 * i < at.length) {
      at[3 * i] = timeMs;
      at[3 * i + 1] = agendaSeq;
      at[3 * i + 2] = seq;
      sub.heldSnapshots[i] = snapshot;
    } else {
      at.push(timeMs, agendaSeq, seq);
      sub.heldSnapshots.push(snapshot);
    }
    if (!sub.inHeldSubs) {
      sub.inHeldSubs = true;
      this.#heldSubs.push(sub);
    }
  }

  /**
   * Delivers `sub`'s held pushes whose agenda place is before what runs now, in order, as the kernel
   * would have at their arrival: what they do reads and writes only the subscription, its
   * listeners' state (read by the subscriber through a `CatchUp` first) and push counts (read after
   * `catchUpAll`); whether one arrives (the registry's `netReachable`) changes only after `queueAllHeld`.
   */
  catchUp(sub: Subscription): void {
    if ((sub.heldHead === sub.heldEnd && !heldDeferral(sub)) || sub.catchingUp) return;
    sub.catchingUp = true;
    try {
      this.#deliverDue(sub, true);
    } finally {
      sub.catchingUp = false;
    }
    if (sub.heldHead === sub.heldEnd) sub.heldHead = sub.heldEnd = 0;
    // Some have not arrived yet: the listeners' subscriber catches up again once the first has.
    const next = nextHeldMs(sub);
    if (next !== Infinity) this.#tellHeld(sub, next);
  }

  /**
   * Delivers `sub`'s held pushes and held deferred notification in agenda order, those the kernel
   * has fired by now (`fired`), else those due by now (between instants).
   */
  #deliverDue(sub: Subscription, fired: boolean): void {
    const sim = this.#sim;
    const at = sub.heldAt;
    const notifier = sub.notifier;
    for (;;) {
      const i = 3 * sub.heldHead;
      const pushes = sub.heldHead < sub.heldEnd;
      if (notifier !== null && notifier.pending !== null && notifier.entry === null && (!pushes || notifier.pendingAtMs <= at[i]!)) {
        // The deferred notification sorts first at its instant (DEFERRED_NOTIFY_SEQ).
        const due = fired ? sim.hasFired(notifier.pendingAtMs, DEFERRED_NOTIFY_SEQ, URGENT) : notifier.pendingAtMs <= sim.now;
        if (!due) return;
        sim.eventsProcessed++;
        this.#runDeferred(sub);
        continue;
      }
      if (!pushes) {
        clearHeld(sub);
        return;
      }
      if (!(fired ? sim.hasFired(at[i]!, at[i + 1]!, NORMAL) : at[i]! <= sim.now)) return;
      this.#deliverHeld(sub);
    }
  }

  /** `sub`'s deferred notification waits in its notifier, off the agenda, like a held push. */
  holdDeferred(sub: Subscription): void {
    this.#tellHeld(sub, sub.notifier!.pendingAtMs);
    this.#fileDue(sub, sub.notifier!.pendingAtMs);
    if (!sub.inHeldSubs) {
      sub.inHeldSubs = true;
      this.#heldSubs.push(sub);
    }
  }

  #tellHeld(sub: Subscription, atMs: number): void {
    for (const ref of sub.refs) ref.onHeld!(atMs);
  }

  /** Delivers `sub`'s first held push (counted as the agenda entry it stands for). */
  #deliverHeld(sub: Subscription): void {
    const i = sub.heldHead++;
    const snapshot = sub.heldSnapshots[i]!;
    sub.heldSnapshots[i] = null;
    this.#sim.eventsProcessed++;
    this.#arrive(sub, sub.heldAt[3 * i + 2]!, snapshot, sub.heldAt[3 * i]!);
  }

  /** Puts `sub`'s held pushes (and held deferred notification) on the agenda, each at the place it was held for. */
  #queueHeld(sub: Subscription): void {
    this.#queueDeferral(sub);
    // A chain's push on the agenda stays there; the ones after it go there now.
    sub.chained = false;
    for (let i = sub.heldHead; i < sub.heldEnd; i++) this.#enter(sub, i, this.#deliver);
    clearHeld(sub);
  }

  /** Puts `sub`'s held deferred notification, if any, on the agenda at its place. */
  #queueDeferral(sub: Subscription): void {
    if (!heldDeferral(sub)) return;
    const notifier = sub.notifier!;
    notifier.entry = this.#sim.scheduleReserved(notifier.pendingAtMs, DEFERRED_NOTIFY_SEQ, this.#deferredFire, URGENT, sub);
  }

  /**
   * Puts `sub`'s held pushes on the agenda, each at the place it was held for (call after delivering
   * what has arrived): from now on what its listeners do with a push depends on when it arrives.
   */
  release(sub: Subscription): void {
    this.#queueHeld(sub);
  }

  /** Delivers what has arrived, puts every other held push on the agenda. */
  queueAllHeld(): void {
    this.catchUpAll();
    this.#queueEveryHeld();
  }

  /** Puts every held push on the agenda. */
  #queueEveryHeld(): void {
    for (const sub of this.#heldSubs) {
      sub.inHeldSubs = false;
      this.#queueHeld(sub);
    }
    this.#heldSubs.length = 0;
  }

  /** Whether `sub` may hold pushes; one that no longer may puts those it holds on the agenda. */
  refreshHoldable(sub: Subscription): void {
    // A ZooKeeper watch event (interface level, or application level through a server) reads the list when
    // its thread gets to it, through the registry's node: it goes through the agenda.
    const holdable = sub.zk === null && sub.cache === null && sub.refs.every((r) => r.onHeld !== undefined && r.subs.length === 1);
    if (sub.holdable && !holdable) this.#queueHeld(sub);
    sub.holdable = holdable;
  }

  /** What `ref`'s subscriber calls before reading what its listener built, when the listener takes late lists. */
  catchUpOf(ref: ServiceRef): CatchUp | undefined {
    if (ref.onHeld === undefined) return undefined;
    // At interface level a listener's subscriptions are those it got when it subscribed.
    if (!this.#appLevel && ref.subs.length === 1) {
      const sub = ref.subs[0]!;
      return () => this.catchUp(sub);
    }
    return () => {
      const subs = ref.subs;
      for (let i = 0; i < subs.length; i++) {
        const sub = subs[i]!;
        if (sub.heldHead !== sub.heldEnd || heldDeferral(sub)) this.catchUp(sub);
      }
    };
  }
}

/** The due order's entries run nothing (see `HeldPushes.#due`). */
function noop(): void {}

/** True when `sub`'s notifier holds a deferred notification off the agenda. */
function heldDeferral(sub: Subscription): boolean {
  const notifier = sub.notifier;
  return notifier !== null && notifier.pending !== null && notifier.entry === null;
}

/** When `sub`'s first held push or held deferred notification is due, or Infinity. */
function nextHeldMs(sub: Subscription): number {
  const push = sub.heldHead < sub.heldEnd ? sub.heldAt[3 * sub.heldHead]! : Infinity;
  return heldDeferral(sub) ? Math.min(push, sub.notifier!.pendingAtMs) : push;
}

/** Held pushes a subscription keeps room for once it holds none (more would be heap kept after a storm). */
const HELD_ROOM_KEPT = 8;

/**
 * `sub` holds no push now: its arrays start over, and give back the room a storm grew them to (at the seed
 * scale, 64,000 representatives' subscriptions each kept room for 64 pushes).
 */
function clearHeld(sub: Subscription): void {
  sub.heldHead = sub.heldEnd = 0;
  if (sub.heldSnapshots.length > HELD_ROOM_KEPT) {
    sub.heldAt.length = 0;
    sub.heldSnapshots.length = 0;
  }
}

/** Moves `sub`'s held pushes to the front of its arrays. */
function compactHeld(sub: Subscription): void {
  const at = sub.heldAt;
  const snapshots = sub.heldSnapshots;
  const head = sub.heldHead;
  const n = sub.heldEnd - head;
  for (let i = 0; i < n; i++) {
    at[3 * i] = at[3 * (head + i)]!;
    at[3 * i + 1] = at[3 * (head + i) + 1]!;
    at[3 * i + 2] = at[3 * (head + i) + 2]!;
    snapshots[i] = snapshots[head + i]!;
  }
  for (let i = n; i < sub.heldEnd; i++) snapshots[i] = null;
  sub.heldHead = 0;
  sub.heldEnd = n;
}
