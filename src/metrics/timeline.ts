/**
 * The timeline of SPEC 4.1: fixed buckets over the measured window, each request counted in the
 * bucket where it started. Counts live in one flat typed array; a bucket's latency histogram
 * exists only while the bucket can still change (it may receive starts, or requests that started
 * in it are in flight), then its p99 is kept and the histogram goes back to a pool. Attribution
 * of requests to buckets is the recorder's job.
 */
import { LatencyHistogram } from './histogram.js';
import { OUTCOMES, ratio, roundMs, roundRatio, type TimelineRow } from './summary.js';

// Column layout of one bucket in `#counts`.
const REQUESTS = 0;
const OUTCOME0 = 1; // OUTCOMES.length columns
const ATTEMPTS = OUTCOME0 + OUTCOMES.length;
const CROSS = ATTEMPTS + 1;
const OPEN = CROSS + 1;
const COLS = OPEN + 1;

/** Bucketed request counts and per-bucket p99 with memory bounded by the buckets still in flight. */
export class Timeline {
  readonly fromMs: number;
  readonly bucketMs: number;
  readonly buckets: number;
  /** Starts that landed in a bucket already closed (start times went backwards). */
  lateStarts = 0;
  // PERF: one Float64Array for every counter of every bucket; no per-request allocation.
  readonly #counts: Float64Array;
  readonly #p99Ms: Float64Array;
  readonly #closed: Uint8Array;
  readonly #hists: Array<LatencyHistogram | null>;
  readonly #pool: LatencyHistogram[] = [];
  /** Highest bucket a request started in so far; buckets below it take no more starts. */
  #startFrontier = 0;
  #live = 0;
  #peakLive = 0;

  constructor(fromMs: number, toMs: number, bucketMs: number) {
    if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be > 0, got ${bucketMs}`);
    this.fromMs = fromMs;
    this.bucketMs = bucketMs;
    this.buckets = Math.max(0, Math.ceil((toMs - fromMs) / bucketMs));
    this.#counts = new Float64Array(this.buckets * COLS);
    this.#p99Ms = new Float64Array(this.buckets);
    this.#closed = new Uint8Array(this.buckets);
    this.#hists = new Array<LatencyHistogram | null>(this.buckets).fill(null);
  }

  /** Latency histograms alive at most at once (memory check for tests and benchmarks). */
  get peakLiveHistograms(): number {
    return this.#peakLive;
  }

  /** The bucket of a measured start time. */
  bucketOf(startMs: number): number {
    const b = Math.floor((startMs - this.fromMs) / this.bucketMs);
    return b < this.buckets ? b : this.buckets - 1;
  }

  /** A measured request started in bucket `b`. */
  start(b: number): void {
    if (this.#closed[b] === 1) this.lateStarts++;
    if (b > this.#startFrontier) {
      for (let i = this.#startFrontier; i < b; i++) if (this.#counts[i * COLS + OPEN] === 0) this.#close(i);
      this.#startFrontier = b;
    }
    const base = b * COLS;
    this.#counts[base + REQUESTS]!++;
    this.#counts[base + OPEN]!++;
  }

  /** One attempt of a request of bucket `b`. */
  attempt(b: number, crossZone: boolean): void {
    const base = b * COLS;
    this.#counts[base + ATTEMPTS]!++;
    if (crossZone) this.#counts[base + CROSS]!++;
  }

  /** A request of bucket `b` ended with the outcome at `outcomeIndex` after `latencyMs`. */
  end(b: number, outcomeIndex: number, latencyMs: number): void {
    const base = b * COLS;
    this.#counts[base + OUTCOME0 + outcomeIndex]!++;
    // p99Ms is over every request of the bucket (like latencyAllMs), so timeouts show in it.
    if (this.#closed[b] === 0) {
      let h = this.#hists[b] ?? null;
      if (h === null) {
        h = this.#pool.pop() ?? new LatencyHistogram();
        this.#hists[b] = h;
        if (++this.#live > this.#peakLive) this.#peakLive = this.#live;
      }
      h.record(latencyMs);
    }
    if (--this.#counts[base + OPEN]! === 0 && b < this.#startFrontier) this.#close(b);
  }

  /** Closes every bucket (end of run). */
  finish(): void {
    for (let i = 0; i < this.buckets; i++) if (this.#closed[i] === 0) this.#close(i);
  }

  /** Σ requests over buckets. */
  totalRequests(): number {
    let n = 0;
    for (let i = 0; i < this.buckets; i++) n += this.#counts[i * COLS + REQUESTS]!;
    return n;
  }

  /** The SPEC 4.1 timeline rows (call after `finish`). */
  rows(): TimelineRow[] {
    const rows: TimelineRow[] = [];
    const c = this.#counts;
    for (let i = 0; i < this.buckets; i++) {
      const base = i * COLS;
      const o = base + OUTCOME0;
      rows.push({
        tMs: roundMs(this.fromMs + i * this.bucketMs),
        requests: c[base + REQUESTS]!,
        ok: c[o]!,
        timeout: c[o + 1]!,
        noProvider: c[o + 2]!,
        rejected: c[o + 3]!,
        network: c[o + 4]!,
        forbidden: c[o + 5]!,
        biz: c[o + 6]!,
        p99Ms: roundMs(this.#p99Ms[i]!),
        crossZoneRatio: roundRatio(ratio(c[base + CROSS]!, c[base + ATTEMPTS]!)),
      });
    }
    return rows;
  }

  #close(b: number): void {
    if (this.#closed[b] === 1) return;
    this.#closed[b] = 1;
    const h = this.#hists[b] ?? null;
    if (h === null) return;
    this.#p99Ms[b] = h.percentilesMs([99])[0]!;
    h.reset();
    this.#hists[b] = null;
    this.#pool.push(h);
    this.#live--;
  }
}
