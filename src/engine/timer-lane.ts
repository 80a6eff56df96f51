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

/**
 * The arrays of one lane, kept for the next lane once it is done (see `LANE_POOL`): a push to
 * thousands of subscribers wrote several arrays of thousands of slots that lived as long as the push
 * was on its way, long enough to be promoted and collected by a full collection.
 */
class LaneBuffers {
  timesMs: Float64Array = new Float64Array(16);
  seqs: Float64Array = new Float64Array(16);
  tags: Float64Array = new Float64Array(16);
  // Written by index, never truncated (a truncated array gives its storage back; it is regrown every lane).
  args: unknown[] = new Array<unknown>(16).fill(undefined);

  /** Room for `n` timers, the first `keep` of them kept. */
  reserve(n: number, keep: number): void {
    if (n <= this.timesMs.length) return;
    const size = Math.max(n, 2 * this.timesMs.length);
    this.timesMs = grown(this.timesMs, size, keep);
    this.seqs = grown(this.seqs, size, keep);
    this.tags = grown(this.tags, size, keep);
    const args = new Array<unknown>(size).fill(undefined);
    for (let i = 0; i < keep; i++) args[i] = this.args[i];
    this.args = args;
  }
}

function grown(a: Float64Array, size: number, keep: number): Float64Array {
  const b = new Float64Array(size);
  b.set(a.subarray(0, keep));
  return b;
}

// PERF: buffers of finished lanes, taken by new ones (every kept one has its `args` cleared). A few
// dozen lanes run at once at most (the pushes of the changes of a few hundred ms); more are dropped.
const LANE_POOL: LaneBuffers[] = [];
const LANE_POOL_MAX = 64;

function takeBuffers(): LaneBuffers {
  return LANE_POOL.pop() ?? new LaneBuffers();
}

/** Takes back the buffers of a lane of `size` timers (the arguments are let go). */
function giveBack(buffers: LaneBuffers, size: number): void {
  buffers.args.fill(undefined, 0, size);
  if (LANE_POOL.length < LANE_POOL_MAX) LANE_POOL.push(buffers);
}

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
  // A number per timer beside its argument (the tag), so that a caller needs no object per timer to
  // pass two values.
  /** Before `start`: the timers in the order added; after: in firing order. Null once every timer ran. */
  #buffers: LaneBuffers | null = takeBuffers();
  #size = 0;
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
    const b = this.#buffers!;
    const i = this.#size++;
    b.reserve(i + 1, i);
    // The agenda time `schedule` would compute, to the last bit.
    b.timesMs[i] = this.#sim.now + delayMs;
    b.seqs[i] = this.#sim.reserveSeq();
    b.args[i] = arg;
    b.tags[i] = tag;
  }

  /** Puts the first timer on the agenda (call once, at the instant the timers were added). */
  start(): void {
    if (this.#started) throw new Error('timer lane already started');
    this.#started = true;
    const n = this.#size;
    const added = this.#buffers!;
    if (n === 0) {
      giveBack(added, 0);
      this.#buffers = null;
      return;
    }
    const order = timeOrder(added.timesMs.subarray(0, n));
    const sorted = takeBuffers();
    sorted.reserve(n, 0);
    const { timesMs, seqs, tags, args } = added;
    const sortedTimes = sorted.timesMs;
    const sortedSeqs = sorted.seqs;
    const sortedTags = sorted.tags;
    const sortedArgs = sorted.args;
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      sortedTimes[k] = timesMs[i]!;
      sortedSeqs[k] = seqs[i]!;
      sortedArgs[k] = args[i];
      sortedTags[k] = tags[i]!;
    }
    giveBack(added, n);
    this.#buffers = sorted;
    this.#enter(0);
  }

  #enter(k: number): void {
    const b = this.#buffers!;
    this.#entry = this.#sim.scheduleReserved(b.timesMs[k]!, b.seqs[k]!, this.#run, NORMAL, k, this.#entry);
  }

  readonly #run = (arg: unknown): void => {
    const k = arg as number;
    const b = this.#buffers!;
    const timerArg = b.args[k];
    const tag = b.tags[k]!;
    // The next timer enters before this one runs: whatever this one schedules comes after it in order.
    if (k + 1 < this.#size) {
      b.args[k] = undefined;
      this.#enter(k + 1);
    } else {
      // The last timer: the arrays go to the next lane.
      giveBack(b, this.#size);
      this.#buffers = null;
    }
    this.#fire(timerArg, tag);
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
