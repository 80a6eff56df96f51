/**
 * A batch of timers set at one instant that wait outside the agenda and enter it one at a time.
 * Each timer takes its agenda position when it is added (`Simulation.reserveSeq`), and once the
 * lane starts, the timers enter the agenda in (time, position) order, each when the one before it
 * runs. The kernel runs them exactly where one `schedule` call per timer would have, while the heap
 * holds one entry per lane instead of one per timer. It owns no meaning of its timers: a registry
 * push to thousands of subscribers is the case it was made for.
 */
import { NORMAL, type Simulation } from './simulation.js';

/** Timers of one instant, with one callback, added then started once. */
export class TimerLane {
  readonly #sim: Simulation;
  readonly #fire: (arg: unknown) => void;
  // PERF: parallel arrays, not one object per timer; after `start` a binary heap of timer indexes
  // ordered by (time, index) hands them out one at a time: a lane of thousands of timers (a push to
  // every subscriber) costs no comparator sort up front, and a plain number is each entry's argument.
  // Agenda positions are reserved in the order timers are added, so the index breaks time ties.
  readonly #timesMs: number[] = [];
  readonly #seqs: number[] = [];
  readonly #args: unknown[] = [];
  #heap: Int32Array = new Int32Array(0);
  #size = 0;
  #started = false;

  constructor(sim: Simulation, fire: (arg: unknown) => void) {
    this.#sim = sim;
    this.#fire = fire;
  }

  /** Adds a timer that runs `fire(arg)` after `delayMs`, ordered as `sim.schedule(delayMs, fire, NORMAL, arg)` now would be. */
  add(delayMs: number, arg: unknown): void {
    if (this.#started) throw new Error('timer lane already started');
    if (!(delayMs >= 0)) throw new RangeError(`negative or NaN delay: ${delayMs}`);
    // The agenda time `schedule` would compute, to the last bit.
    this.#timesMs.push(this.#sim.now + delayMs);
    this.#seqs.push(this.#sim.reserveSeq());
    this.#args.push(arg);
  }

  /** Puts the first timer on the agenda (call once, at the instant the timers were added). */
  start(): void {
    if (this.#started) throw new Error('timer lane already started');
    this.#started = true;
    const n = this.#timesMs.length;
    if (n === 0) return;
    const heap = new Int32Array(n);
    for (let i = 0; i < n; i++) heap[i] = i;
    this.#heap = heap;
    this.#size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.#down(i);
    this.#enter();
  }

  #enter(): void {
    const i = this.#heap[0]!;
    this.#sim.scheduleReserved(this.#timesMs[i]!, this.#seqs[i]!, this.#run, NORMAL, i);
  }

  readonly #run = (arg: unknown): void => {
    const i = arg as number;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    const heap = this.#heap;
    const last = --this.#size;
    if (last > 0) {
      heap[0] = heap[last]!;
      this.#down(0);
      this.#enter();
    }
    const timerArg = this.#args[i];
    this.#args[i] = undefined;
    this.#fire(timerArg);
  };

  // Sift down in the heap of indexes: earlier time first, then the timer added first.
  #down(start: number): void {
    const heap = this.#heap;
    const times = this.#timesMs;
    const size = this.#size;
    const item = heap[start]!;
    const itemMs = times[item]!;
    let at = start;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      let childItem = heap[child]!;
      let childMs = times[childItem]!;
      const right = child + 1;
      if (right < size) {
        const rightItem = heap[right]!;
        const rightMs = times[rightItem]!;
        if (rightMs < childMs || (rightMs === childMs && rightItem < childItem)) {
          child = right;
          childItem = rightItem;
          childMs = rightMs;
        }
      }
      if (itemMs < childMs || (itemMs === childMs && item < childItem)) break;
      heap[at] = childItem;
      at = child;
    }
    heap[at] = item;
  }
}
