/**
 * A counted resource with a FIFO wait queue, built from kernel callbacks: the building block of
 * thread pools. It owns slot accounting, queue order and the busy-time integral; what a slot is
 * used for (a provider call) belongs to the caller.
 */
import { URGENT, type Simulation } from './simulation.js';

/** What `acquire` did with a request. */
export type AcquireResult = 'granted' | 'queued' | 'rejected';

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
  #waiting: Array<{ grant: (arg: A) => void; arg: A }> = [];
  #head = 0;
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
    return this.#waiting.length - this.#head;
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
    if (this.queueLimit === 0 || (this.queueLimit > 0 && this.queued >= this.queueLimit)) return 'rejected';
    this.#waiting.push({ grant, arg });
    return 'queued';
  }

  /** Frees a slot; the oldest waiter, if any, gets it through the agenda at the current time. */
  release(): void {
    this.#account();
    this.inUse--;
    this.completed++;
    if (this.#head < this.#waiting.length) {
      const next = this.#waiting[this.#head]!;
      this.#waiting[this.#head] = undefined as never;
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
        this.#waiting = this.#waiting.slice(this.#head);
        this.#head = 0;
      }
      this.#take();
      this.#sim.schedule(0, next.grant as (arg: unknown) => void, URGENT, next.arg);
    }
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
    if (this.inUse > this.peakInUse) this.peakInUse = this.inUse;
    if (this.inUse > this.windowPeakInUse) this.windowPeakInUse = this.inUse;
  }

  #account(): void {
    const now = this.#sim.now;
    this.#busyArea += this.inUse * (now - this.#lastChange);
    this.#lastChange = now;
  }
}
