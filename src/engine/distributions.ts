/**
 * Distributions of SPEC 2.1 as samplers over a seeded stream. Values are in milliseconds (or any
 * unit the caller chooses); parsing units from text belongs to the scenario layer. Measured
 * distributions (`samples`, `histogram`) arrive here with their data already loaded: reading and
 * checking data files belongs to the scenario layer too (`scenario/data-files.ts`).
 */
import type { Rng } from './random.js';

/** Where a measured distribution's data came from: shown in labels and written back by dumps; sampling ignores it. */
export interface DataSource {
  /** The data file (absolute once the scenario is loaded). */
  file: string;
  /** CSV column of `samples`. */
  column?: string;
  /** Prometheus metric (base name, without `_bucket`) of `histogram`. */
  metric?: string;
  /** Prometheus labels that pick the series of `histogram`. */
  labels?: Record<string, string>;
  /** Unit of the values in the file, when given. */
  unit?: 'ms' | 's' | 'us';
}

/** Sorted measured values: a plain list when written inline, a Float64Array (8 bytes a value) when read from a data file. */
export type SampleValues = readonly number[] | Float64Array;

/** Measured values, sorted ascending (ms); draws interpolate linearly between order statistics. */
export type SamplesSpec = { dist: 'samples'; values: SampleValues; source?: DataSource };

/**
 * Cumulative counts at ascending finite upper bounds `le` (ms), as Prometheus `_bucket{le}` series
 * give them, and `total` (the `+Inf` bucket). Uniform within a bucket, the first bucket starting at
 * 0; the mass above the last bound is uniform up to `max`, or sits at the last bound without it.
 */
export type HistogramSpec = {
  dist: 'histogram';
  le: readonly number[];
  counts: readonly number[];
  total: number;
  max?: number;
  source?: DataSource;
  /** The data's own mean (ms), where the file gives it (Prometheus `_sum / _count`); sampling ignores it. */
  dataMeanMs?: number;
};

/** A parsed distribution. */
export type DistSpec =
  | { dist: 'constant'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  | { dist: 'exponential'; mean: number }
  | { dist: 'normal'; mean: number; stddev: number }
  | { dist: 'lognormal'; p50: number; p99: number }
  | { dist: 'lognormal'; mu: number; sigma: number }
  | { dist: 'pareto'; scale: number; shape: number }
  | { dist: 'empirical'; min?: number; p50: number; p90: number; p99: number; p999: number; max: number }
  | SamplesSpec
  | HistogramSpec
  | { dist: 'mixture'; components: Array<{ weight: number } & DistSpec> };

/** Draws one value per call. */
export type Sampler = () => number;

/** z such that Phi(z) = 0.99. */
export const Z99 = 2.3263478740408408;

/** (mu, sigma) of the underlying normal for a lognormal given by its median and 99th percentile. */
export function lognormalParams(spec: { p50: number; p99: number }): { mu: number; sigma: number } {
  const mu = Math.log(spec.p50);
  return { mu, sigma: Math.max(0, (Math.log(spec.p99) - mu) / Z99) };
}

/** A standard normal draw (Box-Muller, one of the pair). */
export function standardNormal(rng: Rng): number {
  let u = rng.next();
  while (u === 0) u = rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Builds a sampler for `spec` drawing from `rng`. */
export function sampler(spec: DistSpec, rng: Rng): Sampler {
  switch (spec.dist) {
    case 'constant': {
      const v = spec.value;
      return () => v;
    }
    case 'uniform': {
      const { min, max } = spec;
      return () => min + (max - min) * rng.next();
    }
    case 'exponential': {
      const mean = spec.mean;
      return () => -mean * Math.log(1 - rng.next());
    }
    case 'normal': {
      const { mean, stddev } = spec;
      return () => {
        // Truncated at 0 by rejection; a distribution mostly below 0 degrades to 0 after 64 tries.
        for (let i = 0; i < 64; i++) {
          const x = mean + stddev * standardNormal(rng);
          if (x >= 0) return x;
        }
        return 0;
      };
    }
    case 'lognormal': {
      const { mu, sigma } = 'p50' in spec ? lognormalParams(spec) : spec;
      return () => Math.exp(mu + sigma * standardNormal(rng));
    }
    case 'pareto': {
      const { scale, shape } = spec;
      return () => scale / Math.pow(1 - rng.next(), 1 / shape);
    }
    case 'empirical': {
      const qs = [0, 0.5, 0.9, 0.99, 0.999, 1];
      const vs = [spec.min ?? 0, spec.p50, spec.p90, spec.p99, spec.p999, spec.max];
      return () => {
        const u = rng.next();
        let i = 1;
        while (i < qs.length - 1 && u > qs[i]!) i++;
        const q0 = qs[i - 1]!;
        const q1 = qs[i]!;
        return vs[i - 1]! + ((vs[i]! - vs[i - 1]!) * (u - q0)) / (q1 - q0);
      };
    }
    case 'samples': {
      const xs = spec.values;
      const last = xs.length - 1;
      if (last < 0) throw new Error('samples distribution without values (its data file was not loaded)');
      return () => {
        const h = rng.next() * last;
        const i = Math.floor(h);
        return i >= last ? xs[last]! : xs[i]! + (h - i) * (xs[i + 1]! - xs[i]!);
      };
    }
    case 'histogram': {
      if (!(spec.total > 0)) throw new Error('histogram distribution without counts (its data file was not loaded)');
      return () => histogramAt(spec, rng.next() * spec.total);
    }
    case 'mixture': {
      const parts = spec.components.map((c) => ({ weight: c.weight, draw: sampler(c, rng) }));
      const total = parts.reduce((s, p) => s + p.weight, 0);
      return () => {
        let r = rng.next() * total;
        for (const p of parts) {
          r -= p.weight;
          if (r < 0) return p.draw();
        }
        return parts[parts.length - 1]!.draw();
      };
    }
  }
}

/** The exact q-quantile where it has a closed form, otherwise undefined. */
export function quantile(spec: DistSpec, q: number): number | undefined {
  switch (spec.dist) {
    case 'constant':
      return spec.value;
    case 'uniform':
      return spec.min + (spec.max - spec.min) * q;
    case 'exponential':
      return -spec.mean * Math.log(1 - q);
    case 'pareto':
      return spec.scale / Math.pow(1 - q, 1 / spec.shape);
    case 'samples':
      return samplesQuantile(spec.values, q);
    case 'histogram':
      return q >= 1 ? histogramMax(spec) : histogramAt(spec, Math.max(0, q) * spec.total);
    default:
      return undefined;
  }
}

/** The q-quantile of sorted values, linear between order statistics (Hyndman-Fan type 7, as numpy and R default). */
export function samplesQuantile(sorted: SampleValues, q: number): number {
  const last = sorted.length - 1;
  const h = Math.min(1, Math.max(0, q)) * last;
  const i = Math.floor(h);
  return i >= last ? sorted[last]! : sorted[i]! + (h - i) * (sorted[i + 1]! - sorted[i]!);
}

/** The largest value a histogram draws: `max`, else the upper bound of its last non-empty bucket. */
function histogramMax(spec: HistogramSpec): number {
  const { le, counts, total } = spec;
  if (total > (counts[counts.length - 1] ?? 0)) return spec.max ?? le[le.length - 1] ?? 0;
  for (let i = 0; i < le.length; i++) if (counts[i] === total) return le[i]!;
  return le[le.length - 1] ?? 0;
}

/** The value below which `target` of the histogram's `total` lies: uniform inside the bucket that holds it. */
function histogramAt(spec: HistogramSpec, target: number): number {
  const { le, counts } = spec;
  // First bucket whose cumulative count reaches the target (binary search: counts never decrease),
  // so a bucket's share maps to its upper bound; a target of 0 skips leading empty buckets.
  let lo = 0;
  let hi = le.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (target > 0 ? counts[mid]! >= target : counts[mid]! > 0) hi = mid;
    else lo = mid + 1;
  }
  const below = lo === 0 ? 0 : counts[lo - 1]!;
  const from = lo === 0 ? 0 : le[lo - 1]!;
  if (lo === le.length) {
    // The +Inf bucket: up to `max` when given, else at the last finite bound (Prometheus' histogram_quantile).
    if (spec.max === undefined || spec.total === below) return from;
    return from + ((spec.max - from) * (target - below)) / (spec.total - below);
  }
  return from + ((le[lo]! - from) * (target - below)) / (counts[lo]! - below);
}

/**
 * P(X <= x) of a measured distribution: for samples the piecewise-linear CDF through the order
 * statistics, for a histogram exactly each bucket's cumulative share at its bound, linear inside.
 */
export function measuredCdf(spec: SamplesSpec | HistogramSpec): (x: number) => number {
  if (spec.dist === 'samples') {
    const xs = spec.values;
    const last = xs.length - 1;
    return (x) => {
      if (x < xs[0]!) return 0;
      if (x >= xs[last]!) return 1;
      // Last order statistic at or below x.
      let lo = 0;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (xs[mid]! <= x) lo = mid;
        else hi = mid - 1;
      }
      const gap = xs[lo + 1]! - xs[lo]!;
      return (lo + (gap > 0 ? (x - xs[lo]!) / gap : 0)) / last;
    };
  }
  const { le, counts, total } = spec;
  return (x) => {
    if (x < 0) return 0;
    let from = 0;
    let below = 0;
    for (let i = 0; i < le.length; i++) {
      if (x <= le[i]!) {
        const width = le[i]! - from;
        return (width > 0 ? below + ((counts[i]! - below) * (x - from)) / width : counts[i]!) / total;
      }
      from = le[i]!;
      below = counts[i]!;
    }
    if (spec.max === undefined || x >= spec.max) return 1;
    return (below + ((total - below) * (x - from)) / (spec.max - from)) / total;
  };
}

/**
 * The mean of what a measured distribution draws: for samples, linear between order statistics
 * (each gap between neighbours weighs the same, so the smallest and largest value count half);
 * for a histogram, each bucket's mid-point, and the +Inf bucket's share at the last bound (or
 * half-way to `max`).
 */
export function measuredMean(spec: SamplesSpec | HistogramSpec): number {
  if (spec.dist === 'samples') {
    const xs = spec.values;
    const last = xs.length - 1;
    if (last <= 0) return xs[0] ?? 0;
    let sum = 0;
    for (let i = 0; i < last; i++) sum += (xs[i]! + xs[i + 1]!) / 2;
    return sum / last;
  }
  const { le, counts, total } = spec;
  let sum = 0;
  let below = 0;
  let from = 0;
  le.forEach((to, i) => {
    sum += (counts[i]! - below) * ((from + to) / 2);
    below = counts[i]!;
    from = to;
  });
  sum += (total - below) * (spec.max !== undefined ? (from + spec.max) / 2 : from);
  return total > 0 ? sum / total : 0;
}

/** A short label of a measured distribution for messages and reports (`samples rt.csv:rt_ms (10000 values)`). */
export function measuredLabel(spec: SamplesSpec | HistogramSpec): string {
  const src = spec.source;
  const file = src === undefined ? 'inline' : src.file.slice(Math.max(src.file.lastIndexOf('/'), src.file.lastIndexOf('\\')) + 1);
  if (spec.dist === 'samples') {
    return `samples ${file}${src?.column === undefined ? '' : `:${src.column}`} (${spec.values.length} values)`;
  }
  const labels = Object.entries(src?.labels ?? {}).map(([k, v]) => `${k}="${v}"`).join(',');
  const series = src?.metric === undefined ? '' : ` ${src.metric}${labels === '' ? '' : `{${labels}}`}`;
  return `histogram ${file}${series} (${spec.le.length} buckets, ${spec.total} counts)`;
}
