/**
 * Sentinel's sliding window: a ring of `sampleCount` buckets of `intervalInMs / sampleCount` ms each,
 * reused as time passes (a bucket older than the interval is reset when its slot comes round). Pure:
 * time comes in as whole milliseconds. Follows sentinel-core `slots/statistic/base/LeapArray.java` and
 * `WindowWrap.java`.
 */

/** One bucket of the ring and the window it covers (Sentinel `WindowWrap`). */
export class WindowWrap<T> {
  readonly windowLengthInMs: number;
  windowStart: number;
  value: T;

  constructor(windowLengthInMs: number, windowStart: number, value: T) {
    this.windowLengthInMs = windowLengthInMs;
    this.windowStart = windowStart;
    this.value = value;
  }

  /** `resetTo`: the bucket now covers the window starting at `startTime`. */
  resetTo(startTime: number): this {
    this.windowStart = startTime;
    return this;
  }

  /** `isTimeInWindow`: windowStart <= time < windowStart + windowLength. */
  isTimeInWindow(timeMillis: number): boolean {
    return this.windowStart <= timeMillis && timeMillis < this.windowStart + this.windowLengthInMs;
  }
}

/** The ring of buckets; a subclass says how a bucket is made and reset (Sentinel `LeapArray<T>`). */
export abstract class LeapArray<T> {
  readonly windowLengthInMs: number;
  readonly sampleCount: number;
  readonly intervalInMs: number;
  readonly intervalInSecond: number;
  readonly #array: (WindowWrap<T> | null)[];

  constructor(sampleCount: number, intervalInMs: number) {
    if (!(sampleCount > 0)) throw new Error(`bucket count is invalid: ${sampleCount}`);
    if (!(intervalInMs > 0)) throw new Error('total time interval of the sliding window should be positive');
    if (intervalInMs % sampleCount !== 0) throw new Error('time span needs to be evenly divided');
    this.windowLengthInMs = intervalInMs / sampleCount;
    this.intervalInMs = intervalInMs;
    this.intervalInSecond = intervalInMs / 1000;
    this.sampleCount = sampleCount;
    this.#array = new Array<WindowWrap<T> | null>(sampleCount).fill(null);
  }

  /** A new, empty bucket. */
  abstract newEmptyBucket(timeMillis: number): T;
  /** Empties `w` for the window starting at `startTime`. */
  protected abstract resetWindowTo(w: WindowWrap<T>, startTime: number): WindowWrap<T>;

  #timeIdx(timeMillis: number): number {
    return Math.floor(timeMillis / this.windowLengthInMs) % this.#array.length;
  }

  /** `calculateWindowStart`: the start of the bucket window holding `timeMillis`. */
  calculateWindowStart(timeMillis: number): number {
    return timeMillis - (timeMillis % this.windowLengthInMs);
  }

  /**
   * The bucket for `timeMillis`: created when the slot is empty, reset when it holds an older window,
   * and (clock moved back) a detached empty bucket when it holds a newer one, as `currentWindow` does.
   */
  currentWindow(timeMillis: number): WindowWrap<T> | null {
    if (timeMillis < 0) return null;
    const idx = this.#timeIdx(timeMillis);
    const windowStart = this.calculateWindowStart(timeMillis);
    const old = this.#array[idx]!;
    if (old === null) {
      const w = new WindowWrap(this.windowLengthInMs, windowStart, this.newEmptyBucket(timeMillis));
      this.#array[idx] = w;
      return w;
    }
    if (windowStart === old.windowStart) return old;
    if (windowStart > old.windowStart) return this.resetWindowTo(old, windowStart);
    return new WindowWrap(this.windowLengthInMs, windowStart, this.newEmptyBucket(timeMillis));
  }

  /** `getPreviousWindow`: the bucket just before the one holding `timeMillis`, if still valid. */
  getPreviousWindow(timeMillis: number): WindowWrap<T> | null {
    // Java's epoch milliseconds are never within a window of 0; the simulated clock starts there.
    if (timeMillis - this.windowLengthInMs < 0) return null;
    const idx = this.#timeIdx(timeMillis - this.windowLengthInMs);
    const t = timeMillis - this.windowLengthInMs;
    const wrap = this.#array[idx]!;
    // Java reads isWindowDeprecated against the clock, which is `timeMillis` here.
    if (wrap === null || this.isWindowDeprecated(timeMillis, wrap)) return null;
    if (wrap.windowStart + this.windowLengthInMs < t) return null;
    return wrap;
  }

  /** `getWindowValue`: the value of the bucket holding `timeMillis`, if the slot covers it. */
  getWindowValue(timeMillis: number): T | null {
    if (timeMillis < 0) return null;
    const bucket = this.#array[this.#timeIdx(timeMillis)]!;
    if (bucket === null || !bucket.isTimeInWindow(timeMillis)) return null;
    return bucket.value;
  }

  /** `isWindowDeprecated`: the bucket started more than one interval before `time`. */
  isWindowDeprecated(time: number, w: WindowWrap<T>): boolean {
    return time - w.windowStart > this.intervalInMs;
  }

  /** `list(validTime)`: the buckets not deprecated at `validTime`. */
  list(validTime: number): WindowWrap<T>[] {
    const out: WindowWrap<T>[] = [];
    for (const w of this.#array) if (w !== null && !this.isWindowDeprecated(validTime, w)) out.push(w);
    return out;
  }

  /**
   * The buckets not deprecated at `timeMillis` (what `values` lists), in slot order, or null for an
   * empty slot or a deprecated bucket. PERF: the sums read the ring without building `values`'s list.
   */
  validAt(i: number, timeMillis: number): T | null {
    const w = this.#array[i]!;
    return w === null || this.isWindowDeprecated(timeMillis, w) ? null : w.value;
  }

  /** `values(timeMillis)`: the values of the buckets not deprecated at `timeMillis`. */
  values(timeMillis: number): T[] {
    const out: T[] = [];
    if (timeMillis < 0) return out;
    for (const w of this.#array) if (w !== null && !this.isWindowDeprecated(timeMillis, w)) out.push(w.value);
    return out;
  }
}
