/**
 * A batch of timers set at one instant that wait outside the agenda and enter it one at a time.
 * Each timer takes its agenda position when it is added (`Simulation.reserveSeq`), and once the
 * lane starts, the timers enter the agenda in (time, position) order, each when the one before it
 * runs. The kernel runs them exactly where one `schedule` call per timer would have, while the heap
 * holds one entry per lane instead of one per timer. It owns no meaning of its timers: a registry
 * push to thousands of subscribers is the case it was made for.
 */
import type { QueueEntry } from './event-queue.js';
import { NORMAL, type Simulation } from './simulation.js';

/** Timers of one instant, with one callback, added then started once; each carries an argument and a number. */
export class TimerLane {
  readonly #sim: Simulation;
  readonly #fire: (arg: unknown, tag: number) => void;
  // PERF: parallel arrays, not one object per timer, sorted once by (time, index) when the lane
  // starts and rewritten in that order; each timer then enters the agenda in O(1), reading the next
  // slot of each array. A sift-down per timer through a heap of thousands (a push to every
  // subscriber), or reads at scattered indexes, paid a cache miss at each delivery: between two
  // deliveries the rest of the run evicts the lane from the cache. One warm pass up front does not.
  // Agenda positions are reserved in the order timers are added, so the index breaks time ties.
  #timesMs: number[] = [];
  #seqs: number[] = [];
  #args: unknown[] = [];
  // PERF: a number per timer beside its argument, so that a caller needs no object per timer to pass two values.
  #tags: number[] = [];
  /** After `start`: times, agenda positions and numbers in firing order. */
  #sortedTimesMs = new Float64Array(0);
  #sortedSeqs = new Float64Array(0);
  #sortedTags = new Float64Array(0);
  #started = false;
  // PERF: one agenda entry per lane, rewritten for each timer: the lane's entry has just fired (or
  // never entered) when the next timer enters, so no entry is allocated per timer.
  #entry: QueueEntry | undefined;

  constructor(sim: Simulation, fire: (arg: unknown, tag: number) => void) {
    this.#sim = sim;
    this.#fire = fire;
  }

  /** Adds a timer that runs `fire(arg, tag)` after `delayMs`, ordered as `sim.schedule(delayMs, ...)` now would be. */
  add(delayMs: number, arg: unknown, tag = 0): void {
    if (this.#started) throw new Error('timer lane already started');
    if (!(delayMs >= 0)) throw new RangeError(`negative or NaN delay: ${delayMs}`);
    // The agenda time `schedule` would compute, to the last bit.
    this.#timesMs.push(this.#sim.now + delayMs);
    this.#seqs.push(this.#sim.reserveSeq());
    this.#args.push(arg);
    this.#tags.push(tag);
  }

  /** Puts the first timer on the agenda (call once, at the instant the timers were added). */
  start(): void {
    if (this.#started) throw new Error('timer lane already started');
    this.#started = true;
    const n = this.#timesMs.length;
    if (n === 0) return;
    const times = this.#timesMs;
    const seqs = this.#seqs;
    const args = this.#args;
    const tags = this.#tags;
    const order = timeOrder(times);
    const sortedTimes = new Float64Array(n);
    const sortedSeqs = new Float64Array(n);
    const sortedArgs = new Array<unknown>(n);
    const sortedTags = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      sortedTimes[k] = times[i]!;
      sortedSeqs[k] = seqs[i]!;
      sortedArgs[k] = args[i];
      sortedTags[k] = tags[i]!;
    }
    this.#sortedTimesMs = sortedTimes;
    this.#sortedSeqs = sortedSeqs;
    this.#args = sortedArgs;
    this.#sortedTags = sortedTags;
    this.#timesMs = [];
    this.#seqs = [];
    this.#tags = [];
    this.#enter(0);
  }

  #enter(k: number): void {
    this.#entry = this.#sim.scheduleReserved(this.#sortedTimesMs[k]!, this.#sortedSeqs[k]!, this.#run, NORMAL, k, this.#entry);
  }

  readonly #run = (arg: unknown): void => {
    const k = arg as number;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    if (k + 1 < this.#sortedTimesMs.length) this.#enter(k + 1);
    const timerArg = this.#args[k];
    this.#args[k] = undefined;
    this.#fire(timerArg, this.#sortedTags[k]!);
  };
}

/** Below this many timers a comparison sort is quicker than the radix passes. */
const RADIX_MIN = 64;
/** Byte 0 of a double is its least significant on this platform. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The indexes of `timesMs` (times >= 0, no NaN) in firing order: earlier time first, then the
 * lower index (the timer added first). Exported for its differential test.
 */
// PERF: a push to thousands of subscribers sorts thousands of times at once. A least-significant-
// byte-first radix sort over the 8 bytes of each double (for non-negative doubles the bit pattern
// orders as the value does) is stable, so equal times keep index order, and it runs in linear time;
// a comparison sort with a callback took several times longer from a few hundred timers on. A pass
// whose byte is the same for every time (the high bytes of times a few hundred ms apart) is skipped.
export function timeOrder(timesMs: ArrayLike<number>): Int32Array {
  const n = timesMs.length;
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (n < RADIX_MIN) return order.sort((a, b) => timesMs[a]! - timesMs[b]! || a - b);
  // The times as doubles whose bytes the passes read; +0 for -0, whose sign bit would sort it last.
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = timesMs[i]! + 0;
  const bytes = new Uint8Array(keys.buffer);
  let next = new Int32Array(n);
  const counts = new Int32Array(256);
  for (let pass = 0; pass < 8; pass++) {
    const byte = LITTLE_ENDIAN ? pass : 7 - pass;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[bytes[8 * i + byte]!]!++;
    if (counts[bytes[byte]!] === n) continue;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      next[counts[bytes[8 * i + byte]!]!++] = i;
    }
    const done = order;
    order = next;
    next = done;
  }
  return order;
}
