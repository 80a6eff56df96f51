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
  // PERF: parallel arrays, not one object per timer, sorted once by (time, index) when the lane
  // starts; each timer then enters the agenda in O(1). A sift-down per timer through a heap of
  // thousands (a push to every subscriber) cost about a microsecond each: between two deliveries
  // the rest of the run evicts the lane from the cache, and a warm sort up front does not pay that.
  // Agenda positions are reserved in the order timers are added, so the index breaks time ties.
  readonly #timesMs: number[] = [];
  readonly #seqs: number[] = [];
  readonly #args: unknown[] = [];
  #order: Int32Array = new Int32Array(0);
  #next = 0;
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
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const times = this.#timesMs;
    // Earlier time first, then the timer added first (no NaN: `add` refuses it).
    order.sort((a, b) => times[a]! - times[b]! || a - b);
    this.#order = order;
    this.#enter(order[0]!);
  }

  #enter(i: number): void {
    this.#sim.scheduleReserved(this.#timesMs[i]!, this.#seqs[i]!, this.#run, NORMAL, i);
  }

  readonly #run = (arg: unknown): void => {
    const i = arg as number;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    const next = ++this.#next;
    if (next < this.#order.length) this.#enter(this.#order[next]!);
    const timerArg = this.#args[i];
    this.#args[i] = undefined;
    this.#fire(timerArg);
  };
}
