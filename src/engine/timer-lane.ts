/**
 * A batch of timers set at one instant that wait outside the agenda and enter it one at a time.
 * Each timer takes its agenda position when it is added (`Simulation.reserveSeq`), and once the
 * lane starts, the timers enter the agenda in (time, position) order, each when the one before it
 * runs. The kernel runs them exactly where one `schedule` call per timer would have, while the heap
 * holds one entry per lane instead of one per timer. It owns no meaning of its timers: a registry
 * push to thousands of subscribers is the case it was made for.
 */
import { NORMAL, type Simulation } from './simulation.js';

interface LaneTimer {
  readonly timeMs: number;
  readonly seq: number;
  readonly arg: unknown;
}

/** Timers of one instant, with one callback, added then started once. */
export class TimerLane {
  readonly #sim: Simulation;
  readonly #fire: (arg: unknown) => void;
  readonly #timers: LaneTimer[] = [];
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
    this.#timers.push({ timeMs: this.#sim.now + delayMs, seq: this.#sim.reserveSeq(), arg });
  }

  /** Puts the first timer on the agenda (call once, at the instant the timers were added). */
  start(): void {
    if (this.#started) throw new Error('timer lane already started');
    this.#started = true;
    const timers = this.#timers;
    if (timers.length === 0) return;
    if (timers.length > 1) timers.sort((a, b) => a.timeMs - b.timeMs || a.seq - b.seq);
    this.#enter();
  }

  #enter(): void {
    const t = this.#timers[this.#next]!;
    this.#sim.scheduleReserved(t.timeMs, t.seq, this.#run, NORMAL, t);
  }

  readonly #run = (arg: unknown): void => {
    this.#next++;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    if (this.#next < this.#timers.length) this.#enter();
    this.#fire((arg as LaneTimer).arg);
  };
}
