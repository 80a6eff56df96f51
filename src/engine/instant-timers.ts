/**
 * Timers set at one instant that all fall due at one later instant, with one callback: they wait
 * outside the agenda, the first on it, and run in the order added. Each takes its agenda position
 * when it is added (`Simulation.reserveSeq`), so the kernel runs each exactly where its own `schedule`
 * call would have, and one that is next on the agenda when the one before it has run runs in the same
 * step (`Simulation.claimNext`). It owns no meaning of its timers: the liveness messages of one
 * process's records, answered together by a registry node, are the case it was made for.
 */
import type { QueueEntry } from './event-queue.js';
import { NORMAL, type Simulation } from './simulation.js';

/** Timers of one instant for one later instant; `add` them at the instant the batch was made. */
export class InstantTimers {
  /** When the timers fall due. */
  readonly atMs: number;
  /** The instant they are set at. */
  readonly setAtMs: number;
  readonly #sim: Simulation;
  readonly #fire: (arg: unknown) => void;
  readonly #args: unknown[] = [];
  readonly #seqs: number[] = [];
  #next = 0;
  #entry: QueueEntry | undefined;

  constructor(sim: Simulation, atMs: number, fire: (arg: unknown) => void) {
    if (!(atMs >= sim.now)) throw new RangeError(`time in the past or NaN: ${atMs} < ${sim.now}`);
    this.#sim = sim;
    this.atMs = atMs;
    this.setAtMs = sim.now;
    this.#fire = fire;
  }

  /** Runs `fire(arg)` at `atMs`, where `sim.schedule(atMs - now, fire, NORMAL, arg)` made now would run it. */
  add(arg: unknown): void {
    if (this.#sim.now !== this.setAtMs || this.#next > 0) throw new Error('instant timers are added at the instant they were set, before they run');
    this.#args.push(arg);
    this.#seqs.push(this.#sim.reserveSeq());
    if (this.#args.length === 1) this.#enter(0);
  }

  #enter(k: number): void {
    this.#entry = this.#sim.scheduleReserved(this.atMs, this.#seqs[k]!, this.#run, NORMAL, k, this.#entry);
  }

  readonly #run = (arg: unknown): void => {
    let k = arg as number;
    const n = this.#args.length;
    for (;;) {
      this.#next = k + 1;
      const timerArg = this.#args[k];
      this.#args[k] = undefined;
      // The next timer enters before this one runs: whatever this one schedules comes after it in order.
      if (k + 1 < n) this.#enter(k + 1);
      this.#fire(timerArg);
      if (k + 1 >= n || !this.#sim.claimNext(this.#entry!)) return;
      k++;
    }
  };
}
