/**
 * A deterministic first-come-first-served server with one unit of capacity: a NIC direction that
 * sends bytes at a fixed bandwidth, or a request pipeline that serves a fixed number of requests per
 * second. Work arrives at `now` and the link answers when it will be done (`max(now, busyUntil) +
 * work / rate`), in O(1) and without touching the agenda: the caller schedules what happens then.
 * It keeps the figures a capacity planner reads: busy time, work done and the peak backlog per
 * accounting bucket (a fixed grid the caller chooses, e.g. a timeline's), the total queueing delay
 * and the totals. An infinite rate is no server at all: work is done as it arrives and only counted.
 */

/** The accounting grid of a link: `buckets` buckets of `bucketMs` from `fromMs`. */
export interface LinkBuckets {
  readonly fromMs: number;
  readonly bucketMs: number;
  readonly buckets: number;
}

/** What a link did over a run. */
export interface LinkFigures {
  /** Work units per ms (Infinity: no queueing). */
  readonly ratePerMs: number;
  /** Items and work units that arrived. */
  readonly items: number;
  readonly work: number;
  /** Sum over items of the time each waited before its service started (ms). */
  readonly waitMs: number;
  /** Per bucket: ms the link was busy, work units done, most work units waiting or in service at once. */
  readonly busyMs: Float64Array;
  readonly workDone: Float64Array;
  readonly peakBacklog: Float64Array;
}

/** A FIFO single server with an accounting grid (see the module note). */
export class FifoLink {
  /** Work units per ms; Infinity means the work takes no time. */
  readonly ratePerMs: number;
  #busyUntilMs = -Infinity;
  #items = 0;
  #work = 0;
  #waitMs = 0;
  readonly #grid: LinkBuckets;
  readonly #busy: Float64Array;
  readonly #done: Float64Array;
  readonly #peak: Float64Array;

  /** `ratePerSec`: work units served per second (a NIC's bytes/s, a pipeline's requests/s); Infinity or undefined: unlimited. */
  constructor(ratePerSec: number | undefined, grid: LinkBuckets) {
    if (ratePerSec !== undefined && !(ratePerSec > 0)) throw new RangeError(`a link's rate must be > 0, got ${ratePerSec}`);
    this.ratePerMs = ratePerSec === undefined ? Infinity : ratePerSec / 1000;
    this.#grid = grid;
    this.#busy = new Float64Array(grid.buckets);
    this.#done = new Float64Array(grid.buckets);
    this.#peak = new Float64Array(grid.buckets);
  }

  /** True when work takes time on this link. */
  get limited(): boolean {
    return this.ratePerMs !== Infinity;
  }

  /** When the work queued so far is done (a time in the past when the link is idle). */
  get busyUntilMs(): number {
    return this.#busyUntilMs;
  }

  /** Work units waiting or in service at `nowMs`. */
  backlogAt(nowMs: number): number {
    return this.#busyUntilMs > nowMs ? (this.#busyUntilMs - nowMs) * this.ratePerMs : 0;
  }

  /** `work` units arrive at `nowMs`: returns when they are done (FIFO behind everything before). */
  serve(nowMs: number, work: number): number {
    this.#items++;
    this.#work += work;
    const rate = this.ratePerMs;
    if (rate === Infinity) {
      const b = this.#bucketOf(nowMs);
      if (b >= 0) {
        this.#done[b]! += work;
        if (work > this.#peak[b]!) this.#peak[b] = work;
      }
      return nowMs;
    }
    const startMs = this.#busyUntilMs > nowMs ? this.#busyUntilMs : nowMs;
    const endMs = startMs + work / rate;
    this.#busyUntilMs = endMs;
    this.#waitMs += startMs - nowMs;
    // The unfinished work jumps at arrivals only, so its peak is read here.
    const b = this.#bucketOf(nowMs);
    if (b >= 0) {
      const backlog = (endMs - nowMs) * rate;
      if (backlog > this.#peak[b]!) this.#peak[b] = backlog;
    }
    this.#account(startMs, endMs, rate);
    return endMs;
  }

  /**
   * `count` items of `work` units each arrive together at `nowMs` (a cohort's members, SPEC 2.12): returns
   * when item `index` (0-based, in FIFO order among them) is done. The link's figures are those of `count`
   * separate `serve` calls at `nowMs`; `serveMany(now, w, 1, 0)` is `serve(now, w)`.
   */
  serveMany(nowMs: number, work: number, count: number, index: number): number {
    if (count === 1) return this.serve(nowMs, work);
    this.#items += count;
    const total = work * count;
    this.#work += total;
    const rate = this.ratePerMs;
    const b = this.#bucketOf(nowMs);
    if (rate === Infinity) {
      if (b >= 0) {
        this.#done[b]! += total;
        // Each item is done as it arrives: the backlog never holds more than one.
        if (work > this.#peak[b]!) this.#peak[b] = work;
      }
      return nowMs;
    }
    const startMs = this.#busyUntilMs > nowMs ? this.#busyUntilMs : nowMs;
    const eachMs = work / rate;
    const endMs = startMs + total / rate;
    this.#busyUntilMs = endMs;
    // Item i waits for the i before it: Σ (start − now + i·each).
    this.#waitMs += count * (startMs - nowMs) + (eachMs * count * (count - 1)) / 2;
    if (b >= 0) {
      const backlog = (endMs - nowMs) * rate;
      if (backlog > this.#peak[b]!) this.#peak[b] = backlog;
    }
    this.#account(startMs, endMs, rate);
    return startMs + (index + 1) * eachMs;
  }

  /** Spreads the service interval `[startMs, endMs)` over the buckets it crosses. */
  #account(startMs: number, endMs: number, rate: number): void {
    const { fromMs, bucketMs, buckets } = this.#grid;
    let t = startMs > fromMs ? startMs : fromMs;
    const end = endMs < fromMs + buckets * bucketMs ? endMs : fromMs + buckets * bucketMs;
    // PERF: a service crosses a bucket boundary rarely; the loop runs once for most items.
    while (t < end) {
      let b = Math.floor((t - fromMs) / bucketMs);
      let bucketEnd = fromMs + (b + 1) * bucketMs;
      // A time a rounding error short of a boundary: it belongs to the next bucket.
      if (bucketEnd <= t) bucketEnd = fromMs + (++b + 1) * bucketMs;
      if (b >= buckets) break;
      const to = bucketEnd < end ? bucketEnd : end;
      this.#busy[b]! += to - t;
      this.#done[b]! += (to - t) * rate;
      t = to;
    }
  }

  #bucketOf(tMs: number): number {
    const { fromMs, bucketMs, buckets } = this.#grid;
    if (tMs < fromMs) return -1;
    const b = Math.floor((tMs - fromMs) / bucketMs);
    return b < buckets ? b : -1;
  }

  /** The link's figures so far (the arrays are its own: read, do not keep while it runs). */
  figures(): LinkFigures {
    return {
      ratePerMs: this.ratePerMs,
      items: this.#items,
      work: this.#work,
      waitMs: this.#waitMs,
      busyMs: this.#busy,
      workDone: this.#done,
      peakBacklog: this.#peak,
    };
  }
}
