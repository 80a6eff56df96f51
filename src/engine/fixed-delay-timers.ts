/**
 * Timers that all wait one delay (a call's timeout): added in time order, they fire in that order,
 * so they wait in a first-in-first-out ring outside the agenda and only the oldest live one is on
 * it. Each timer takes its agenda position when it is added (`Simulation.reserveSeq`), so the kernel
 * runs it exactly where a `schedule` call would have. Cancelling is O(1) unless it is the oldest
 * live timer's (its agenda entry then moves to the next one). It owns no meaning of its timers; the
 * per-attempt timeout, set and cancelled on nearly every call, is the case it was made for.
 */
import type { QueueEntry } from './event-queue.js';
import { NORMAL, type Simulation } from './simulation.js';

/** A FIFO of timers of one delay and one callback; `add` returns the handle `cancel` takes. */
export class FixedDelayTimers {
  readonly delayMs: number;
  readonly #sim: Simulation;
  readonly #fire: (arg: unknown) => void;
  // PERF: a ring of parallel arrays, no object per timer. Handles are absolute numbers (the count of
  // timers added before); a timer's slot is `handle & mask` (exact for any handle: the low bits).
  #timesMs = new Float64Array(64);
  #seqs = new Float64Array(64);
  #args: unknown[] = new Array<unknown>(64).fill(undefined);
  #live = new Uint8Array(64);
  #mask = 63;
  /** The oldest timer not yet run or dropped: every timer before it has. */
  #head = 0;
  /** The handle the next `add` returns. */
  #tail = 0;
  // PERF: one agenda entry, rewritten for each timer that enters: the one before it has left.
  #entry: QueueEntry | undefined;
  /** True while `#entry` is on the agenda. */
  #queued = false;

  constructor(sim: Simulation, delayMs: number, fire: (arg: unknown) => void) {
    if (!(delayMs >= 0) || !Number.isFinite(delayMs)) throw new RangeError(`expected a finite delay >= 0, got ${delayMs}`);
    this.#sim = sim;
    this.delayMs = delayMs;
    this.#fire = fire;
  }

  /** Timers added and not yet run or cancelled. */
  get pending(): number {
    let n = 0;
    for (let h = this.#head; h < this.#tail; h++) if (this.#live[h & this.#mask] === 1) n++;
    return n;
  }

  /** Runs `fire(arg)` after the delay, where `sim.schedule(delayMs, fire, NORMAL, arg)` made now would run it. */
  add(arg: unknown): number {
    if (this.#tail - this.#head > this.#mask) this.#grow();
    const handle = this.#tail++;
    const slot = handle & this.#mask;
    // The agenda time `schedule` would compute, to the last bit; it never decreases from one add to the next.
    this.#timesMs[slot] = this.#sim.now + this.delayMs;
    this.#seqs[slot] = this.#sim.reserveSeq();
    this.#args[slot] = arg;
    this.#live[slot] = 1;
    if (!this.#queued) this.#enter(handle);
    return handle;
  }

  /** Cancels a timer (no effect when it has run or was cancelled). */
  cancel(handle: number): void {
    if (handle < this.#head || handle >= this.#tail) return;
    const slot = handle & this.#mask;
    if (this.#live[slot] === 0) return;
    this.#live[slot] = 0;
    this.#args[slot] = undefined;
    if (handle !== this.#head) return;
    this.#skipDead();
    // The entry moves to the next live timer (or leaves the agenda): the agenda never holds a timer
    // that will not run, so what it holds, and every step the kernel takes, is what one entry per
    // timer would give.
    if (this.#queued) {
      this.#sim.cancel(this.#entry!);
      this.#queued = false;
    }
    if (this.#head < this.#tail) this.#enter(this.#head);
  }

  #skipDead(): void {
    const live = this.#live;
    const mask = this.#mask;
    while (this.#head < this.#tail && live[this.#head & mask] === 0) this.#head++;
  }

  #enter(handle: number): void {
    const slot = handle & this.#mask;
    this.#entry = this.#sim.scheduleReserved(this.#timesMs[slot]!, this.#seqs[slot]!, this.#run, NORMAL, handle, this.#entry);
    this.#queued = true;
  }

  readonly #run = (arg: unknown): void => {
    let handle = arg as number;
    for (;;) {
      this.#queued = false;
      // The entry is always the head's, and the head is live (cancel moves the entry past dead timers).
      const slot = handle & this.#mask;
      const timerArg = this.#args[slot];
      this.#args[slot] = undefined;
      this.#live[slot] = 0;
      this.#head++;
      this.#skipDead();
      // The next timer enters before this one runs: whatever this one schedules comes after it in order.
      if (this.#head < this.#tail) this.#enter(this.#head);
      this.#fire(timerArg);
      // PERF: the next timer is due at this instant too (timers set together, such as the liveness ticks
      // of every registry client) and nothing this one queued comes before it: it runs now, in this step.
      if (!this.#queued || !this.#sim.claimNext(this.#entry!)) return;
      handle = this.#entry!.arg as number;
    }
  };

  #grow(): void {
    const capacity = (this.#mask + 1) * 2;
    const mask = capacity - 1;
    const times = new Float64Array(capacity);
    const seqs = new Float64Array(capacity);
    const args = new Array<unknown>(capacity).fill(undefined);
    const live = new Uint8Array(capacity);
    for (let h = this.#head; h < this.#tail; h++) {
      const from = h & this.#mask;
      const to = h & mask;
      times[to] = this.#timesMs[from]!;
      seqs[to] = this.#seqs[from]!;
      args[to] = this.#args[from];
      live[to] = this.#live[from]!;
    }
    this.#timesMs = times;
    this.#seqs = seqs;
    this.#args = args;
    this.#live = live;
    this.#mask = mask;
  }
}
