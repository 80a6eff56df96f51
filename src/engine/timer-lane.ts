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
  // starts and rewritten in that order; each timer then enters the agenda in O(1), reading the next
  // slot of each array. A sift-down per timer through a heap of thousands (a push to every
  // subscriber), or reads at scattered indexes, paid a cache miss at each delivery: between two
  // deliveries the rest of the run evicts the lane from the cache. One warm pass up front does not.
  // Agenda positions are reserved in the order timers are added, so the index breaks time ties.
  #timesMs: number[] = [];
  #seqs: number[] = [];
  #args: unknown[] = [];
  /** After `start`: times and agenda positions in firing order. */
  #sortedTimesMs = new Float64Array(0);
  #sortedSeqs = new Float64Array(0);
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
    const seqs = this.#seqs;
    const args = this.#args;
    // Earlier time first, then the timer added first (no NaN: `add` refuses it).
    order.sort((a, b) => times[a]! - times[b]! || a - b);
    const sortedTimes = new Float64Array(n);
    const sortedSeqs = new Float64Array(n);
    const sortedArgs = new Array<unknown>(n);
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      sortedTimes[k] = times[i]!;
      sortedSeqs[k] = seqs[i]!;
      sortedArgs[k] = args[i];
    }
    this.#sortedTimesMs = sortedTimes;
    this.#sortedSeqs = sortedSeqs;
    this.#args = sortedArgs;
    this.#timesMs = [];
    this.#seqs = [];
    this.#enter(0);
  }

  #enter(k: number): void {
    this.#sim.scheduleReserved(this.#sortedTimesMs[k]!, this.#sortedSeqs[k]!, this.#run, NORMAL, k);
  }

  readonly #run = (arg: unknown): void => {
    const k = arg as number;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    if (k + 1 < this.#sortedTimesMs.length) this.#enter(k + 1);
    const timerArg = this.#args[k];
    this.#args[k] = undefined;
    this.#fire(timerArg);
  };
}
