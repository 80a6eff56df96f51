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
  /** The set whose figures are read with this resource's (see `WatchedResources`), or null. */
  #watch: WatchedResources | null = null;
  /** This resource's place in its watch, and whether it is on the watch's list of those to read. */
  watchIndex = -1;
  watchListed = false;

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

  /** Joins `watch` (once): its reads of busy time and window peaks then include this resource. */
  watchedBy(watch: WatchedResources): void {
    if (this.#watch !== null) throw new Error('a resource joins one watch');
    this.#watch = watch;
  }

  #take(): void {
    if (!this.watchListed && this.#watch !== null) this.#watch.touched(this);
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

/** What a watch reads of a member (a `Resource`). */
export interface WatchMember {
  readonly inUse: number;
  watchIndex: number;
  watchListed: boolean;
  watchedBy(watch: WatchedResources): void;
  takeWindowPeak(): number;
  busyMs(): number;
}

/**
 * Resources whose busy time and window peaks are read together at the end of every timeline bucket (a
 * provider group's thread pools): the same figures as reading every member, visiting only the members
 * taken since the last read or busy at it. PERF: 10^5 provider processes, most of them idle in any one
 * bucket, were each read per bucket (a cold object apiece). A member that was idle at the last read and
 * not taken since has the same busy area (an idle resource accounts nothing) and a window peak of 0, so
 * its area is read from the copy kept at that read, and the sum is taken in member order as before.
 */
export class WatchedResources {
  #size = 0;
  /** Each member's busy area at its last read, in member order. */
  #areas = new Float64Array(16);
  /** The members to read next time: taken since the last read, or busy at it. */
  #toRead: WatchMember[] = [];

  get size(): number {
    return this.#size;
  }

  /** Adds a member (read from the next read on). */
  add(r: WatchMember): void {
    r.watchedBy(this);
    r.watchIndex = this.#size++;
    if (this.#size > this.#areas.length) {
      const areas = new Float64Array(2 * this.#areas.length);
      areas.set(this.#areas);
      this.#areas = areas;
    }
    this.touched(r);
  }

  /** A member was taken while not listed (Resource's hook). */
  touched(resource: WatchMember): void {
    resource.watchListed = true;
    this.#toRead.push(resource);
  }

  /**
   * Takes every member's window peak (see `Resource.takeWindowPeak`) and returns the highest, and the
   * members' busy thread-ms summed in member order onto `initialMs`: what reading each member gives.
   */
  read(initialMs: number): { busyMs: number; peak: number } {
    const list = this.#toRead;
    const areas = this.#areas;
    let peak = 0;
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      const w = r.takeWindowPeak();
      if (w > peak) peak = w;
      areas[r.watchIndex] = r.busyMs();
      if (r.inUse > 0) list[kept++] = r;
      else r.watchListed = false;
    }
    list.length = kept;
    let busyMs = initialMs;
    for (let i = 0; i < this.#size; i++) busyMs += areas[i]!;
    return { busyMs, peak };
  }
}
