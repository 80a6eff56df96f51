/**
 * A counted resource with a FIFO wait queue, built from kernel callbacks: the building block of
 * thread pools. It owns slot accounting, queue order and the busy-time integral; what a slot is
 * used for (a provider call) belongs to the caller.
 */
import { URGENT, type Simulation } from './simulation.js';

/** What `acquire` did with a request. */
export type AcquireResult = 'granted' | 'queued' | 'rejected';

interface Waiter<A> {
  grant: (arg: A) => void;
  arg: A;
}

/** A pool of `capacity` slots; `queueLimit` 0 = no queue, < 0 = unbounded, > 0 = bounded. */
export class Resource<A = unknown> {
  readonly #sim: Simulation;
  readonly capacity: number;
  readonly queueLimit: number;
  inUse = 0;
  peakInUse = 0;
  /** Slots given back so far (ThreadPoolExecutor's `getCompletedTaskCount`). */
  completed = 0;
  /** Highest `inUse` since the last `takeWindowPeak()` (per-bucket peaks of a timeline). */
  windowPeakInUse = 0;
  // The wait queue as two stacks (amortized O(1) per hand-over, nothing kept once served): arrivals
  // are pushed on `#arrived`; `#next` holds the oldest ones, oldest last, refilled from `#arrived`
  // reversed when it runs empty.
  #arrived: Array<Waiter<A>> = [];
  #next: Array<Waiter<A>> = [];
  #busyArea = 0;
  #lastChange = 0;

  constructor(sim: Simulation, capacity: number, queueLimit: number) {
    this.#sim = sim;
    this.capacity = capacity;
    this.queueLimit = queueLimit;
    this.#lastChange = sim.now;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#arrived.length + this.#next.length;
  }

  /**
   * Takes a slot now ('granted', the caller proceeds synchronously), or queues the request
   * ('queued', `grant(arg)` runs through the agenda when a slot frees), or refuses it ('rejected').
   */
  acquire(grant: (arg: A) => void, arg: A): AcquireResult {
    if (this.inUse < this.capacity) {
      this.#take();
      return 'granted';
    }
    // A limit of 0 (no queue) refuses every request that finds the slots taken; a negative one never refuses.
    if (this.queueLimit >= 0 && this.queued >= this.queueLimit) return 'rejected';
    this.#arrived.push({ grant, arg });
    return 'queued';
  }

  /** Frees a slot; the oldest waiter, if any, gets it through the agenda at the current time. */
  release(): void {
    this.#account();
    this.inUse--;
    this.completed++;
    if (this.#next.length === 0) {
      if (this.#arrived.length === 0) return;
      const empty = this.#next;
      this.#next = this.#arrived.reverse();
      this.#arrived = empty;
    }
    const next = this.#next.pop()!;
    this.#take();
    this.#sim.schedule(0, next.grant as (arg: unknown) => void, URGENT, next.arg);
  }

  /** The highest `inUse` of the window that ends now; the next window starts at the current use. */
  takeWindowPeak(): number {
    const peak = this.windowPeakInUse;
    this.windowPeakInUse = this.inUse;
    return peak;
  }

  /** Slot-milliseconds used so far (for utilization). */
  busyMs(): number {
    this.#account();
    return this.#busyArea;
  }

  #take(): void {
    this.#account();
    this.inUse++;
    this.peakInUse = Math.max(this.peakInUse, this.inUse);
    this.windowPeakInUse = Math.max(this.windowPeakInUse, this.inUse);
  }

  #account(): void {
    const now = this.#sim.now;
    this.#busyArea += this.inUse * (now - this.#lastChange);
    this.#lastChange = now;
  }
}
