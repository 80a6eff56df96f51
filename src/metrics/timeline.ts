/**
 * The timeline of SPEC 4.1: fixed buckets over the measured window, each request counted in the
 * bucket where it started, for the whole run and for each consumer zone (a "scope"). Counts live
 * in flat typed arrays; a bucket's latency histograms (per scope: all requests, ok ones) exist
 * only while the bucket can still change (it may receive starts, or requests that started in it
 * are in flight), then its p99s are kept and the histograms go back to a pool. The run's p99s
 * come from merging the scopes' histograms when the bucket closes, so each latency is recorded
 * once per histogram kind. Without per-scope rows (`perScope: false`, for timelines too long to
 * keep one per zone) every request goes to one hidden scope. Attribution of requests to buckets
 * and scopes, and the provider side of the timeline, are the recorder's job.
 */
import { LatencyHistogram } from './histogram.js';
import { OUTCOMES, ratio, roundMs, roundRatio, type ScopeTimelineRow, type TimelineRow } from './summary.js';

// Column layout of one bucket in the counts of the run and of each scope.
const REQUESTS = 0;
const OUTCOME0 = 1; // OUTCOMES.length columns
const ATTEMPTS = OUTCOME0 + OUTCOMES.length;
const CROSS = ATTEMPTS + 1;
const SCOPE_COLS = CROSS + 1;
/** The run's counts also keep the requests of the bucket still in flight. */
const OPEN = SCOPE_COLS;
const COLS = OPEN + 1;

const P99 = [99] as const;

/** Largest integer V8 keeps unboxed in an object (a 31-bit Smi). */
const SMALL_INT_MAX = 0x3fff_ffff;

/**
 * A count read from the float counters, as a small integer where it is one (same value, same JSON):
 * a row holds it unboxed (`#rowsOf`).
 */
export function countOf(x: number): number {
  return x <= SMALL_INT_MAX ? x | 0 : x;
}

/** The counters, p99s and open histograms of one scope (a consumer zone). */
class Scope {
  readonly name: string;
  readonly counts: Float64Array;
  readonly p99Ms: Float64Array;
  readonly p99OkMs: Float64Array;
  /** Per bucket: the histogram of all its requests' latencies, while the bucket is open. */
  readonly all: Array<LatencyHistogram | null>;
  /** Per bucket: the histogram of its ok requests' latencies, while the bucket is open. */
  readonly ok: Array<LatencyHistogram | null>;

  constructor(name: string, buckets: number) {
    this.name = name;
    this.counts = new Float64Array(buckets * SCOPE_COLS);
    this.p99Ms = new Float64Array(buckets);
    this.p99OkMs = new Float64Array(buckets);
    this.all = new Array<LatencyHistogram | null>(buckets).fill(null);
    this.ok = new Array<LatencyHistogram | null>(buckets).fill(null);
  }
}

/** Bucketed request counts and per-bucket p99s with memory bounded by the buckets still in flight. */
export class Timeline {
  readonly fromMs: number;
  readonly bucketMs: number;
  readonly buckets: number;
  /** Starts that landed in a bucket already closed (start times went backwards). */
  lateStarts = 0;
  // PERF: one Float64Array for every counter of every bucket; no per-request allocation.
  readonly #counts: Float64Array;
  readonly #p99Ms: Float64Array;
  readonly #p99OkMs: Float64Array;
  readonly #closed: Uint8Array;
  /** 1 while the bucket holds histograms in some scope. */
  readonly #live: Uint8Array;
  readonly #scopes: Scope[] = [];
  readonly #scopeIndex = new Map<string, number>();
  readonly #pool: LatencyHistogram[] = [];
  /** Scratch histograms the scopes of a closing bucket are merged into. */
  readonly #mergedAll = new LatencyHistogram();
  readonly #mergedOk = new LatencyHistogram();
  /** False: one hidden scope holds every request and `scopeRows` is empty. */
  readonly #perScope: boolean;
  /** Highest bucket a request started in so far; buckets below it take no more starts. */
  #startFrontier = 0;
  #liveBuckets = 0;
  #peakLive = 0;

  constructor(fromMs: number, toMs: number, bucketMs: number, opts: { perScope?: boolean } = {}) {
    if (!(bucketMs > 0)) throw new RangeError(`bucketMs must be > 0, got ${bucketMs}`);
    this.#perScope = opts.perScope ?? true;
    this.fromMs = fromMs;
    this.bucketMs = bucketMs;
    this.buckets = Math.max(0, Math.ceil((toMs - fromMs) / bucketMs));
    this.#counts = new Float64Array(this.buckets * COLS);
    this.#p99Ms = new Float64Array(this.buckets);
    this.#p99OkMs = new Float64Array(this.buckets);
    this.#closed = new Uint8Array(this.buckets);
    this.#live = new Uint8Array(this.buckets);
  }

  /** Buckets with latency histograms alive at most at once (memory check for tests and benchmarks). */
  get peakLiveHistograms(): number {
    return this.#peakLive;
  }

  /** The bucket of a measured start time. */
  bucketOf(startMs: number): number {
    const b = Math.floor((startMs - this.fromMs) / this.bucketMs);
    return b < this.buckets ? b : this.buckets - 1;
  }

  /** The index of the scope (consumer zone) `name`, created on first use (the hidden one without per-scope rows). */
  scopeOf(name: string): number {
    if (!this.#perScope) name = '';
    let s = this.#scopeIndex.get(name);
    if (s === undefined) {
      s = this.#scopes.length;
      this.#scopes.push(new Scope(name, this.buckets));
      this.#scopeIndex.set(name, s);
    }
    return s;
  }

  /** A measured request of scope `s` started in bucket `b`. */
  start(b: number, s: number): void {
    if (this.#closed[b] === 1) this.lateStarts++;
    if (b > this.#startFrontier) {
      for (let i = this.#startFrontier; i < b; i++) if (this.#counts[i * COLS + OPEN] === 0) this.#close(i);
      this.#startFrontier = b;
    }
    const base = b * COLS;
    this.#counts[base + REQUESTS]!++;
    this.#counts[base + OPEN]!++;
    this.#scopes[s]!.counts[b * SCOPE_COLS + REQUESTS]!++;
  }

  /** One attempt of a request of bucket `b` and scope `s`. */
  attempt(b: number, s: number, crossZone: boolean): void {
    const base = b * COLS;
    const scoped = this.#scopes[s]!.counts;
    const sBase = b * SCOPE_COLS;
    this.#counts[base + ATTEMPTS]!++;
    scoped[sBase + ATTEMPTS]!++;
    if (crossZone) {
      this.#counts[base + CROSS]!++;
      scoped[sBase + CROSS]!++;
    }
  }

  /** A request of bucket `b` and scope `s` ended with the outcome at `outcomeIndex` after `latencyMs`. */
  end(b: number, s: number, outcomeIndex: number, latencyMs: number): void {
    const base = b * COLS;
    const scope = this.#scopes[s]!;
    this.#counts[base + OUTCOME0 + outcomeIndex]!++;
    scope.counts[b * SCOPE_COLS + OUTCOME0 + outcomeIndex]!++;
    // p99Ms is over every request of the bucket (like latencyAllMs), so timeouts show in it.
    if (this.#closed[b] === 0) {
      if (this.#live[b] === 0) {
        this.#live[b] = 1;
        if (++this.#liveBuckets > this.#peakLive) this.#peakLive = this.#liveBuckets;
      }
      let h = scope.all[b] ?? null;
      if (h === null) scope.all[b] = h = this.#pool.pop() ?? new LatencyHistogram();
      h.record(latencyMs);
      if (outcomeIndex === 0) {
        let ok = scope.ok[b] ?? null;
        if (ok === null) scope.ok[b] = ok = this.#pool.pop() ?? new LatencyHistogram();
        ok.record(latencyMs);
      }
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

  /**
   * The SPEC 4.1 timeline rows of the run, with `pushes[b]` in bucket b's row (the recorder counts
   * pushes; the row is built whole so as to stay compact, see `#rowsOf`). Call after `finish`.
   */
  rows(pushes: Float64Array): TimelineRow[] {
    return this.#rowsOf(this.#counts, COLS, this.#p99Ms, this.#p99OkMs, pushes) as TimelineRow[];
  }

  /** The rows of each scope (consumer zone), by name in sorted order; empty without per-scope rows (call after `finish`). */
  scopeRows(): Record<string, ScopeTimelineRow[]> {
    const out: Record<string, ScopeTimelineRow[]> = {};
    if (!this.#perScope) return out;
    for (const scope of [...this.#scopes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      out[scope.name] = this.#rowsOf(scope.counts, SCOPE_COLS, scope.p99Ms, scope.p99OkMs, null);
    }
    return out;
  }

  // PERF: a long run's summary holds a row per bucket and scope (62,500 buckets x 3 kinds of rows for a
  // simulated day at 1 s), built at once at the end: that, not the run, set its peak memory. So each row
  // is one object literal with every column (V8 moves a property added later out of the object: twice
  // the size, and a spread copy is garbage plus a bigger object), and its counts are small integers
  // (a number read from a Float64Array is a boxed double in the object; an integer below 2^30 is not).
  #rowsOf(c: Float64Array, cols: number, p99s: Float64Array, p99Oks: Float64Array, pushes: Float64Array | null): ScopeTimelineRow[] {
    const rows: Array<ScopeTimelineRow | TimelineRow> = new Array<ScopeTimelineRow>(this.buckets);
    for (let i = 0; i < this.buckets; i++) {
      const base = i * cols;
      const o = base + OUTCOME0;
      const tMs = roundMs(this.fromMs + i * this.bucketMs);
      const requests = countOf(c[base + REQUESTS]!);
      const ok = countOf(c[o]!);
      const timeout = countOf(c[o + 1]!);
      const noProvider = countOf(c[o + 2]!);
      const rejected = countOf(c[o + 3]!);
      const network = countOf(c[o + 4]!);
      const forbidden = countOf(c[o + 5]!);
      const biz = countOf(c[o + 6]!);
      const mock = countOf(c[o + 7]!);
      const blocked = countOf(c[o + 8]!);
      const lost = countOf(c[o + 9]!);
      const p99Ms = roundMs(p99s[i]!);
      const p99OkMs = roundMs(p99Oks[i]!);
      const crossZoneRatio = roundRatio(ratio(c[base + CROSS]!, c[base + ATTEMPTS]!));
      rows[i] =
        pushes === null
          ? { tMs, requests, ok, timeout, noProvider, rejected, network, forbidden, biz, mock, blocked, lost, p99Ms, p99OkMs, crossZoneRatio }
          : { tMs, requests, ok, timeout, noProvider, rejected, network, forbidden, biz, mock, blocked, lost, p99Ms, p99OkMs, crossZoneRatio, pushes: countOf(pushes[i]!) };
    }
    return rows;
  }

  #close(b: number): void {
    if (this.#closed[b] === 1) return;
    this.#closed[b] = 1;
    if (this.#live[b] === 0) return;
    this.#live[b] = 0;
    this.#liveBuckets--;
    const mergedAll = this.#mergedAll;
    const mergedOk = this.#mergedOk;
    // PERF: when one scope holds every latency of the bucket (one consumer zone, or one zone busy),
    // the bucket's p99 is that scope's: no merge.
    let allIn = -1;
    let okIn = -1;
    for (let s = 0; s < this.#scopes.length; s++) {
      const scope = this.#scopes[s]!;
      if ((scope.all[b] ?? null) !== null) allIn = allIn === -1 ? s : -2;
      if ((scope.ok[b] ?? null) !== null) okIn = okIn === -1 ? s : -2;
    }
    for (let s = 0; s < this.#scopes.length; s++) {
      const scope = this.#scopes[s]!;
      this.#closeHistogram(scope.all, scope.p99Ms, allIn === -2 ? mergedAll : null, b);
      this.#closeHistogram(scope.ok, scope.p99OkMs, okIn === -2 ? mergedOk : null, b);
    }
    this.#p99Ms[b] = allIn >= 0 ? this.#scopes[allIn]!.p99Ms[b]! : mergedAll.percentilesMs(P99)[0]!;
    this.#p99OkMs[b] = okIn >= 0 ? this.#scopes[okIn]!.p99OkMs[b]! : mergedOk.percentilesMs(P99)[0]!;
    mergedAll.reset();
    mergedOk.reset();
  }

  // A scope's histogram of bucket `b`, if any: its p99 into `p99s`, its counts into `merged`, then released.
  #closeHistogram(histograms: (LatencyHistogram | null)[], p99s: Float64Array, merged: LatencyHistogram | null, b: number): void {
    const h = histograms[b] ?? null;
    if (h === null) return;
    p99s[b] = h.percentilesMs(P99)[0]!;
    merged?.add(h);
    this.#release(h);
    histograms[b] = null;
  }

  #release(h: LatencyHistogram): void {
    h.reset();
    this.#pool.push(h);
  }
}
