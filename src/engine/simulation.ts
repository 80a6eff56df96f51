/**
 * The discrete-event kernel: a simulated clock in float milliseconds, one agenda, events that
 * succeed or fail, generator processes, and any-of conditions. It knows no RPC words; thread
 * pools, networks and registries are built from these pieces in higher layers.
 */
import { EventQueue, type QueueEntry } from './event-queue.js';

/** Priority of event processing: triggered events run before timers due at the same instant. */
export const URGENT = 0;
/** Priority of timers. */
export const NORMAL = 1;

/** More agenda entries than this at one simulated instant means the model is looping (see `step`). */
export const MAX_EVENTS_PER_INSTANT = 10_000_000;

type Callback<T> = (ev: SimEvent<T>) => void;

/** A generator process: yields events to wait on, receives their values, returns its result. */
export type Proc<T> = Generator<SimEvent<any>, T, any>;

/** Something that happens at one instant; processes wait on it by yielding it. */
export class SimEvent<T = unknown> {
  readonly sim: Simulation;
  value: T | undefined = undefined;
  /** False when the event failed; `value` is then the error. */
  ok = true;
  triggered = false;
  processed = false;
  /** Set when a failure is handled by someone, so that the kernel does not raise it. */
  defused = false;
  // PERF: most events have exactly one waiter, so the first callback gets its own slot. A process waits as
  // itself (`addWaiter`), not through a closure: one object less per process.
  #first: Waiter<T> | null = null;
  #more: Waiter<T>[] | null = null;

  constructor(sim: Simulation) {
    this.sim = sim;
  }

  /** Triggers the event with a value; waiters resume through the agenda at the current time. */
  succeed(value?: T): this {
    if (this.triggered) throw new Error('event already triggered');
    this.triggered = true;
    this.value = value;
    this.sim.enqueueEvent(this, URGENT, 0);
    return this;
  }

  /** Triggers the event as failed; waiting processes get the error thrown at their `yield`. */
  fail(error: unknown): this {
    if (this.triggered) throw new Error('event already triggered');
    this.triggered = true;
    this.ok = false;
    this.value = error as T;
    this.sim.enqueueEvent(this, URGENT, 0);
    return this;
  }

  /**
   * PERF: succeeds without a trip through the agenda when nobody waits yet (a finished top-level
   * process); a later `addCallback` still runs through the agenda at the time it is added.
   */
  succeedUnwatched(value?: T): void {
    if (this.#first !== null) {
      this.succeed(value);
      return;
    }
    if (this.triggered) throw new Error('event already triggered');
    this.triggered = true;
    this.processed = true;
    this.value = value;
  }

  /**
   * PERF: `succeed` as the last action of an agenda callback. When the kernel says the event would be
   * the very next agenda entry processed (`Simulation.takeTail`), its waiters run now instead of
   * after a trip through the agenda: the same order, one agenda entry less. Otherwise a plain `succeed`.
   */
  succeedLast(value?: T): void {
    if (this.triggered) throw new Error('event already triggered');
    if (!this.sim.takeTail(URGENT)) {
      this.succeed(value);
      return;
    }
    this.triggered = true;
    this.value = value;
    this.process();
  }

  /** Registers a callback run when the event is processed (immediately queued if already processed). */
  addCallback(cb: Callback<T>): void {
    this.#addWaiter(cb);
  }

  /** Called by processes only: `process` resumes with this event when it is processed, as a callback would. */
  addWaiter(process: Process<any>): void {
    this.#addWaiter(process);
  }

  #addWaiter(waiter: Waiter<T>): void {
    if (this.processed) {
      this.sim.schedule(0, () => wake(waiter, this), URGENT);
      return;
    }
    if (this.#first === null) this.#first = waiter;
    else (this.#more ??= []).push(waiter);
  }

  /** Called by the kernel only. */
  process(): void {
    this.processed = true;
    const first = this.#first;
    if (first === null) {
      if (!this.ok && !this.defused) throw this.value;
      return;
    }
    this.#first = null;
    // The first waiter's work is not the last of this entry when more waiters follow it.
    if (this.#more !== null) this.sim.takeTail();
    if (!this.ok) this.defused = true;
    wake(first, this);
    const more = this.#more;
    if (more !== null) {
      this.#more = null;
      for (const waiter of more) wake(waiter, this);
    }
  }
}

/** A callback or a process waiting for an event (`SimEvent.addWaiter`). */
type Waiter<T> = Callback<T> | Process<any>;

function wake<T>(waiter: Waiter<T>, ev: SimEvent<T>): void {
  if (typeof waiter === 'function') waiter(ev);
  else waiter.resume(ev);
}

/** What runs, in the process's last step, with its return value (see `Simulation.processLast`). */
export type ProcessDone<T> = (value: T, arg: unknown) => void;

/** A running generator; as an event it triggers with the generator's return value. */
export class Process<T = unknown> extends SimEvent<T> {
  // Null until the first step when the process was given `start` instead.
  #gen: Proc<T> | null;
  #start: ((arg: unknown) => Proc<T>) | null;
  readonly #onDone: ProcessDone<T> | null;
  readonly #doneArg: unknown;

  /**
   * `startNow`: the first step runs at once (`Simulation.processLast`), not through the agenda.
   * `onDone(value, doneArg)` runs in the step in which the generator returns. With `gen` null, the
   * first step makes the generator: `start(doneArg)` (see `Simulation.processLastFrom`).
   */
  constructor(
    sim: Simulation,
    gen: Proc<T> | null,
    startNow = false,
    onDone: ProcessDone<T> | null = null,
    doneArg?: unknown,
    start: ((arg: unknown) => Proc<T>) | null = null,
  ) {
    super(sim);
    this.#gen = gen;
    this.#start = start;
    this.#onDone = onDone;
    this.#doneArg = doneArg;
    if (startNow) this.#step(START);
    else sim.schedule(0, startProcess, URGENT, this);
  }

  /** Called by the kernel only: the next step, with the event the process waited for. */
  resume(ev: SimEvent<any>): void {
    this.#step(ev);
  }

  #step(ev: SimEvent<unknown>): void {
    let res: IteratorResult<SimEvent<any>, T>;
    try {
      let gen = this.#gen;
      if (gen === null) {
        gen = this.#gen = this.#start!(this.#doneArg);
        this.#start = null;
      }
      res = ev.ok ? gen.next(ev.value) : gen.throw(ev.value);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (res.done) {
      this.succeedUnwatched(res.value);
      if (this.#onDone !== null) this.#onDone(res.value, this.#doneArg);
      return;
    }
    const next = res.value;
    if (!(next instanceof SimEvent)) {
      this.fail(new TypeError(`a process yielded ${String(next)}, not an event`));
      return;
    }
    next.addWaiter(this);
  }
}

// The event a process starts with: already processed, successful, no value.
const START = { ok: true, value: undefined } as unknown as SimEvent<unknown>;

// A process's first step through the agenda.
function startProcess(process: unknown): void {
  (process as Process<unknown>).resume(START);
}

/** The simulation: clock, agenda and the factories for events and processes. */
export class Simulation {
  /** Current simulated time in milliseconds. */
  now = 0;
  /** Agenda entries processed so far (the "kernel events" of the benchmark). */
  eventsProcessed = 0;

  /**
   * True until the kernel takes its first agenda entry: the world is being built, and what it does now is
   * the state the run starts from (the running estate's registrations and subscriptions), not an event of it.
   */
  get building(): boolean {
    return this.eventsProcessed === 0;
  }
  readonly #queue = new EventQueue();
  #sameInstant = 0;
  /**
   * True while the agenda entry being fired ran after every URGENT entry of this instant and has
   * queued nothing that sorts before a new URGENT entry at this instant: an event triggered now would
   * then be the next entry processed (see `takeTail`).
   */
  #tailFree = false;
  // The greatest (priority, seq) of the entries fired at the instant `#firedAtMs`, counting what ran at
  // once in an entry's place (`scheduleLast`, `succeedLast`, `processLast`: an entry added then, so after
  // every sequence number reserved so far). An entry that was on the agenda at that instant has been
  // fired iff it sorts before this (see `hasFired`).
  #firedAtMs = -Infinity;
  #firedPriority = NORMAL;
  #firedSeq = 0;
  // The watcher (`watch`): called once `eventsProcessed` reaches `#watchAt`; Infinity when none.
  #watchAt = Infinity;
  #watchEvery = Infinity;
  #watcher: (() => void) | null = null;

  /** Runs `fire(arg)` after `delayMs` of simulated time; returns a handle for `cancel`. */
  schedule(delayMs: number, fire: (arg: unknown) => void, priority: number = NORMAL, arg?: unknown): QueueEntry {
    if (!(delayMs >= 0)) throw new RangeError(`negative or NaN delay: ${delayMs}`);
    if (delayMs === 0 && priority <= URGENT) this.#tailFree = false;
    return this.#queue.push(this.now + delayMs, priority, fire, arg);
  }

  /**
   * PERF: `schedule` at NORMAL priority as the last action of an agenda callback (or of a process's
   * step run at the tail, see `processLast`). A zero delay whose entry would be the very next one
   * processed (the tail of this instant, and no other entry due now) runs `fire(arg)` at once and
   * counts as processed, as the kernel would have run it: the same order, one agenda entry less.
   * Returns the entry, or null when it ran at once.
   */
  scheduleLast(delayMs: number, fire: (arg: unknown) => void, arg?: unknown): QueueEntry | null {
    if (delayMs !== 0 || !this.#tailFree || this.#queue.peekTimeAfterTaken() <= this.now) {
      return this.schedule(delayMs, fire, NORMAL, arg);
    }
    this.#countSameInstant();
    this.eventsProcessed++;
    this.#fired(NORMAL, Infinity);
    // As `step` fires a NORMAL entry: its own last action is a tail again.
    this.#tailFree = true;
    fire(arg);
    this.#tailFree = false;
    return null;
  }

  /**
   * PERF: reserves the agenda position of a timer that would be scheduled now, so that many timers
   * set at one instant (a push to thousands of subscribers) can wait outside the agenda and enter
   * it one at a time, in order, through `scheduleReserved`: a smaller heap, the same order.
   */
  reserveSeq(): number {
    return this.#queue.reserveSeq();
  }

  /**
   * Schedules `fire(arg)` at absolute time `timeMs` (not before now) with a sequence number from
   * `reserveSeq`: it runs exactly where a `schedule` call made at reservation time would have run.
   * `reuse`, a handle this returned before whose callback has run (or was cancelled), is reused.
   */
  scheduleReserved(
    timeMs: number,
    seq: number,
    fire: (arg: unknown) => void,
    priority: number = NORMAL,
    arg?: unknown,
    reuse?: QueueEntry,
  ): QueueEntry {
    if (!(timeMs >= this.now)) throw new RangeError(`time in the past or NaN: ${timeMs} < ${this.now}`);
    if (timeMs === this.now && priority <= URGENT) this.#tailFree = false;
    return this.#queue.pushReserved(timeMs, priority, seq, fire, arg, reuse);
  }

  /**
   * PERF: for a callback that runs agenda work one item after another (`FixedDelayTimers`): true when
   * `entry`, queued at this instant at NORMAL priority, is the next agenda entry the kernel would process.
   * It then leaves the agenda and counts as processed, as the kernel would have fired it (its own last
   * action a tail, see `takeTail`), and the caller runs its work at once: the same order, one agenda step
   * less. False: it stays on the agenda.
   */
  claimNext(entry: QueueEntry): boolean {
    if (entry.time !== this.now || entry.priority !== NORMAL || !this.#queue.isNext(entry)) return false;
    this.#queue.remove(entry);
    this.#countSameInstant();
    this.eventsProcessed++;
    this.#fired(NORMAL, entry.seq);
    this.#tailFree = true;
    return true;
  }

  /** Cancels a scheduled callback (removed from the agenda at once). */
  cancel(entry: QueueEntry): void {
    this.#queue.remove(entry);
  }

  /** Called by events only. */
  enqueueEvent(ev: SimEvent<any>, priority: number, delayMs: number): void {
    if (delayMs === 0 && priority <= URGENT) this.#tailFree = false;
    this.#queue.push(this.now + delayMs, priority, processEvent, ev);
  }

  /**
   * PERF: true when an event triggered now, as the last action of the agenda callback being fired,
   * would be the next agenda entry processed: the callback's entry sorted after every URGENT entry of
   * this instant and it queued nothing for this instant at URGENT or before. The caller may then
   * process that event at once (`succeedLast`, `processLast`). The answer is given once: work done
   * inline is not the tail of anything, so the next call says false until the next entry fires.
   * `inlinePriority`: the caller runs at once, when allowed, what it would have queued now at this
   * priority (the position `hasFired` compares with).
   */
  takeTail(inlinePriority?: number): boolean {
    const free = this.#tailFree;
    this.#tailFree = false;
    if (free && inlinePriority !== undefined) this.#fired(inlinePriority, Infinity);
    return free;
  }

  #fired(priority: number, seq: number): void {
    if (this.#firedAtMs !== this.now) {
      this.#firedAtMs = this.now;
      this.#firedPriority = priority;
      this.#firedSeq = seq;
    } else if (priority > this.#firedPriority || (priority === this.#firedPriority && seq > this.#firedSeq)) {
      this.#firedPriority = priority;
      this.#firedSeq = seq;
    }
  }

  /**
   * True when an entry at `timeMs` (not later than now) with `priority` and the sequence number `seq`
   * (from `reserveSeq`, not later than its instant) would have been fired by now, counting the one
   * being fired: for work kept off the agenda and applied when first needed (see `DiscoveryRegistry`'s
   * held pushes). At the current instant, the kernel has fired such an entry iff it sorts before one
   * already fired at this instant (entries are fired smallest first, and one added while others wait
   * may sort before them: an URGENT entry added now sorts before NORMAL ones fired earlier).
   */
  hasFired(timeMs: number, seq: number, priority: number = NORMAL): boolean {
    if (timeMs !== this.now) return timeMs < this.now;
    if (this.#firedAtMs !== timeMs) return false;
    return priority < this.#firedPriority || (priority === this.#firedPriority && seq < this.#firedSeq);
  }

  /** A new untriggered event. */
  event<T = unknown>(): SimEvent<T> {
    return new SimEvent<T>(this);
  }

  /** An event that succeeds with `value` after `delayMs`. */
  timeout<T = undefined>(delayMs: number, value?: T): SimEvent<T> {
    if (!(delayMs >= 0)) throw new RangeError(`negative or NaN delay: ${delayMs}`);
    const ev = new SimEvent<T>(this);
    ev.triggered = true;
    ev.value = value;
    this.enqueueEvent(ev, NORMAL, delayMs);
    return ev;
  }

  /** Starts a generator as a process. */
  process<T>(gen: Proc<T>): Process<T> {
    return new Process<T>(this, gen);
  }

  /**
   * PERF: `process` as the last action of an agenda callback: the first step runs at once when
   * `takeTail` allows (it would have been the next entry processed), otherwise through the agenda.
   * `onDone(value, doneArg)`, when given, runs in the process's last step, as code after a `yield*`
   * of `gen` in a wrapping generator would, without the wrapper (one generator less per process).
   */
  processLast<T>(gen: Proc<T>, onDone: ProcessDone<T> | null = null, doneArg?: unknown): Process<T> {
    return this.#processLast(gen, null, onDone, doneArg);
  }

  /**
   * PERF: `processLast` of the generator `start(arg)` makes, made by the process's first step (at once or
   * through the agenda, as `processLast` runs that step): code that runs up to its first `yield` and then
   * hands on to another generator can be a plain function returning that generator, one generator
   * fewer per process. `onDone(value, arg)` as in `processLast`.
   */
  processLastFrom<T, A>(start: (arg: A) => Proc<T>, onDone: ProcessDone<T> | null, arg: A): Process<T> {
    return this.#processLast(null, start as (arg: unknown) => Proc<T>, onDone, arg);
  }

  #processLast<T>(gen: Proc<T> | null, start: ((arg: unknown) => Proc<T>) | null, onDone: ProcessDone<T> | null, doneArg: unknown): Process<T> {
    if (!this.takeTail(URGENT)) return new Process<T>(this, gen, false, onDone, doneArg, start);
    // The first step is the next entry processed and no urgent entry of this instant is left: what it
    // does last is the tail of this instant too (`scheduleLast`, `succeedLast`).
    this.#tailFree = true;
    const process = new Process<T>(this, gen, true, onDone, doneArg, start);
    this.#tailFree = false;
    return process;
  }

  /** An event that succeeds, with the first of `events` to be processed, as soon as one is. */
  anyOf(events: SimEvent<any>[]): SimEvent<SimEvent<any>> {
    const cond = new SimEvent<SimEvent<any>>(this);
    const onOne = (ev: SimEvent<any>): void => {
      if (!ev.ok) ev.defused = true;
      if (!cond.triggered) cond.succeed(ev);
    };
    for (const ev of events) ev.addCallback(onOne);
    return cond;
  }

  /** Entries on the agenda now. */
  get agendaSize(): number {
    return this.#queue.size;
  }

  /** Time of the next agenda entry, or Infinity. */
  peek(): number {
    return this.#queue.peekTime();
  }

  // A model bug that keeps rescheduling at one instant would hang the run: fail it instead.
  #countSameInstant(): void {
    if (++this.#sameInstant > MAX_EVENTS_PER_INSTANT) {
      throw new Error(`simulation stuck: more than ${MAX_EVENTS_PER_INSTANT} events at t=${this.now} ms`);
    }
  }

  /**
   * Calls `watcher` each time `everyEvents` more agenda entries have been processed, between two
   * entries: a run watchdog that reads figures and may throw to stop the run. It must change nothing,
   * so that a run it does not stop is the same as without it (one comparison per entry otherwise).
   */
  watch(everyEvents: number, watcher: () => void): void {
    if (!(everyEvents >= 1)) throw new RangeError(`watch every ${everyEvents} events`);
    this.#watchEvery = everyEvents;
    this.#watcher = watcher;
    this.#watchAt = this.eventsProcessed + everyEvents;
  }

  /** Processes one agenda entry; false when the agenda is empty. */
  step(): boolean {
    if (this.eventsProcessed >= this.#watchAt) {
      this.#watchAt = this.eventsProcessed + this.#watchEvery;
      this.#watcher!();
    }
    const queue = this.#queue;
    const entry = queue.take();
    if (entry === undefined) return false;
    try {
      if (entry.time === this.now) this.#countSameInstant();
      else this.#sameInstant = 0;
      this.now = entry.time;
      this.eventsProcessed++;
      this.#fired(entry.priority, entry.seq);
      this.#tailFree = entry.priority > URGENT;
      entry.fire(entry.arg);
    } finally {
      // The entry leaves the root (unless its callback's first push took the slot), also on a throw.
      queue.settle();
    }
    this.#tailFree = false;
    return true;
  }

  /** Processes every entry due at or before `until`, leaving the clock at the last one processed. */
  runDue(until: number): void {
    const queue = this.#queue;
    while (queue.size > 0 && queue.peekTime() <= until) this.step();
  }

  /** Runs until the agenda is empty or the next entry is later than `until` (the clock then stops at `until`). */
  run(options: { until?: number } = {}): void {
    const until = options.until ?? Infinity;
    const queue = this.#queue;
    while (queue.size > 0 && queue.peekTime() <= until) this.step();
    if (until !== Infinity && this.now < until) this.now = until;
  }
}

function processEvent(ev: unknown): void {
  (ev as SimEvent<unknown>).process();
}
