/**
 * A streaming latency distribution: exact count, sum and max, and counts of integer microseconds
 * in HdrHistogram's log-linear layout with 3 significant digits (at most 0.1% relative error,
 * SPEC 5). Percentiles are read as hdr-histogram-js reads them. It owns no policy on what is recorded;
 * the recorder decides which requests go where.
 */
import { emptyLatency, roundMs, type LatencyStats } from './summary.js';

// HdrHistogram with 3 significant digits and a unit of 1 µs: 2048 sub-buckets, so values below
// 2048 µs are exact and each later power-of-two range is split in 1024 bins of equal width.
const SUB_HALF_MAGNITUDE = 10;
const SUB_HALF = 1 << SUB_HALF_MAGNITUDE;
const SUB_COUNT = 2 * SUB_HALF;

/** The bin of a value in µs (HdrHistogram's `countsArrayIndex` for 3 digits and unit 1). */
export function binOf(us: number): number {
  if (us < SUB_COUNT) return us;
  if (us < 0x80000000) {
    // PERF: floor(log2(us)) from clz32 and a shift, instead of hdr-histogram-js's log2/pow per
    // value, which made recording five times slower than the rest of the recorder together.
    const b = 21 - Math.clz32(us);
    return (b << SUB_HALF_MAGNITUDE) + (us >>> b);
  }
  let b = Math.floor(Math.log2(us)) - SUB_HALF_MAGNITUDE;
  while (Math.floor(us / 2 ** b) >= SUB_COUNT) b++;
  while (b > 0 && Math.floor(us / 2 ** b) < SUB_HALF) b--;
  return b * SUB_HALF + Math.floor(us / 2 ** b);
}

/** The lowest value in µs that falls in `bin` (inverse of `binOf`). */
export function binLowestUs(bin: number): number {
  if (bin < SUB_COUNT) return bin;
  const b = Math.floor(bin / SUB_HALF) - 1;
  return (bin - b * SUB_HALF) * 2 ** b;
}

/** Bin counts: one byte each until a bin passes 255, then two until one passes 65,535, then four. */
type Counts = Uint8Array | Uint16Array | Uint32Array;

const NO_COUNTS: Counts = new Uint8Array(0);

/** The width in µs of `bin` (HdrHistogram's `sizeOfEquivalentValueRange` of its lowest value). */
function binWidthUs(bin: number): number {
  return bin < SUB_COUNT ? 1 : 2 ** (Math.floor(bin / SUB_HALF) - 1);
}

// hdr-histogram-js's `ulp` (the spacing of doubles at x), used to round its percentile rank.
const ulp = (x: number): number => Math.pow(2, Math.floor(Math.log2(x)) - 52);

/**
 * Streaming latency figures in milliseconds; memory grows with the largest value, not the count.
 * PERF: the counts take one byte a bin until a bin holds 255, then two, then four (`#widen`): an estate
 * of thousands of (zone, service method) cells keeps two histograms each for the whole run, of 9,216 bins
 * or more, most of them holding a few hundred values at most (the seed articles' estate: 148 MB at four
 * bytes a bin).
 */
export class LatencyHistogram {
  count = 0;
  sumMs = 0;
  maxMs = 0;
  #counts: Counts = NO_COUNTS;
  /** The largest count a bin of `#counts` can hold. */
  #maxCount = 0xff;
  #usedBins = 0;

  /** Records one latency (ms, >= 0). */
  record(ms: number): void {
    this.count++;
    this.sumMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
    const bin = binOf(Math.round(ms * 1000));
    if (bin >= this.#counts.length) this.#grow(bin);
    if (this.#counts[bin] === this.#maxCount) this.#widen();
    this.#counts[bin]!++;
    if (bin >= this.#usedBins) this.#usedBins = bin + 1;
  }

  /** Adds every value recorded in `other` to this one. */
  add(other: LatencyHistogram): void {
    if (other.count === 0) return;
    this.count += other.count;
    this.sumMs += other.sumMs;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
    const n = other.#usedBins;
    if (n > this.#counts.length) this.#grow(n - 1);
    // A sum may pass what either side's bins hold: four bytes a bin (merging is for totals, a few per run).
    if (this.#maxCount < 0xffffffff) this.#widen(0xffffffff);
    const mine = this.#counts;
    const theirs = other.#counts;
    for (let i = 0; i < n; i++) mine[i]! += theirs[i]!;
    if (n > this.#usedBins) this.#usedBins = n;
  }

  /**
   * The values at `percentiles` (0..100) in ms, as hdr-histogram-js reports them (the highest value
   * equivalent to the one at that rank), capped at the exact maximum; zeros when empty.
   */
  percentilesMs(percentiles: readonly number[]): number[] {
    return percentiles.map((p) => Math.min(this.#valueAtPercentileUs(p) / 1000, this.maxMs));
  }

  // PERF: hdr-histogram-js's `getValueAtPercentile` read straight from these counts (same bins, same
  // rank rounding, the highest value of the bin reached). Loading the counts into an hdr histogram
  // first cost more than the run itself once the timeline took a p99 per bucket, zone and outcome;
  // test/metrics/histogram.test.ts checks every answer against hdr-histogram-js.
  #valueAtPercentileUs(percentile: number): number {
    if (this.count === 0) return 0;
    const fpCount = (Math.min(percentile, 100) / 100) * this.count;
    const countAtPercentile = Math.max(Math.ceil(fpCount - ulp(fpCount)), 1);
    const counts = this.#counts;
    if (percentile >= 50) {
      // PERF: a high percentile is near the top: walk down from the highest bin to the lowest bin
      // whose cumulative count still reaches the rank (the bin the upward walk stops at). The
      // timeline takes a p99 per bucket, scope and outcome, over bins that reach the timeout.
      let i = this.#usedBins - 1;
      let cumulative = this.count;
      while (i > 0 && cumulative - counts[i]! >= countAtPercentile) cumulative -= counts[i--]!;
      return binLowestUs(i) + binWidthUs(i) - 1;
    }
    let total = 0;
    for (let i = 0; i < this.#usedBins; i++) {
      total += counts[i]!;
      if (total >= countAtPercentile) {
        const low = binLowestUs(i);
        return percentile === 0 ? low : low + binWidthUs(i) - 1;
      }
    }
    return 0;
  }

  /** mean, p50, p90, p99, p999 and max, rounded to 3 decimals. */
  stats(): LatencyStats {
    if (this.count === 0) return emptyLatency();
    const [p50, p90, p99, p999] = this.percentilesMs([50, 90, 99, 99.9]) as [number, number, number, number];
    return {
      mean: roundMs(this.sumMs / this.count),
      p50: roundMs(p50),
      p90: roundMs(p90),
      p99: roundMs(p99),
      p999: roundMs(p999),
      max: roundMs(this.maxMs),
    };
  }

  /** Forgets every value but keeps the allocated counts, for reuse. */
  reset(): void {
    this.count = 0;
    this.sumMs = 0;
    this.maxMs = 0;
    this.#counts.fill(0, 0, this.#usedBins);
    this.#usedBins = 0;
  }

  /** Bytes held by the counts (memory checks). */
  get footprintBytes(): number {
    return this.#counts.byteLength;
  }

  #grow(bin: number): void {
    // Whole power-of-two ranges at a time; start with values below 262 ms (9,216 bins).
    let length = Math.max(this.#counts.length, 9 * SUB_HALF);
    while (length <= bin) length += 4 * SUB_HALF;
    this.#counts = this.#copy(length, this.#maxCount);
  }

  // A bin is full: the next wider counts (one byte to two, two to four), or `maxCount`'s, same length and values.
  #widen(maxCount = this.#maxCount === 0xff ? 0xffff : 0xffffffff): void {
    this.#counts = this.#copy(this.#counts.length, maxCount);
    this.#maxCount = maxCount;
  }

  #copy(length: number, maxCount: number): Counts {
    const counts = maxCount === 0xff ? new Uint8Array(length) : maxCount === 0xffff ? new Uint16Array(length) : new Uint32Array(length);
    counts.set(this.#counts);
    return counts;
  }
}
