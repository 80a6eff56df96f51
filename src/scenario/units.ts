/**
 * Values with units in scenario files (SPEC 2, 2.1): durations (`0.2ms`, `450ms`, `1.5s`, `2m`,
 * `1h`, or a number of milliseconds), rates (`2000/s`, `120/m`, or a number per second) and
 * distributions (a bare duration, `{ dist: ... }` objects, `{ mixture: [...] }`). It owns the text
 * parsers (unit-text.ts, re-exported here) and the zod schemas that turn those values into milliseconds, per-second rates and
 * `DistSpec`s (and back, `distToRaw`, for dumps); it does not own the rest of the file format
 * (`schema.ts`), error positions (`load.ts`) or the data files of measured distributions
 * (`data-files.ts`: a `samples`/`histogram` naming a file leaves here without its data).
 * Schema messages that start with "expected" get ", found <value>" appended later.
 */
import { z } from 'zod';
import type { DataSource, DistSpec, HistogramSpec, SamplesSpec } from '../engine/distributions.js';
import {
  DURATION_RE,
  EXPECTED_BANDWIDTH,
  EXPECTED_DURATION,
  EXPECTED_RATE,
  EXPECTED_SIZE,
  formatDuration,
  parseBandwidth,
  parseDuration,
  parseRate,
  parseSize,
  RATE_RE,
} from '../model/unit-text.js';

export { EXPECTED_DURATION, EXPECTED_RATE, formatDuration, parseDuration, parseRate } from '../model/unit-text.js';

const DIST_NAMES = ['constant', 'uniform', 'exponential', 'normal', 'lognormal', 'pareto', 'empirical', 'samples', 'histogram', 'mixture'];
const EXPECTED_DIST =
  'expected a distribution: a duration (constant) or { dist: ' + DIST_NAMES.join(' | ') + ', ... }';

/** A duration field: a string with a unit or a number of ms, parsed to ms. */
export const durationSchema = z
  .union(
    [
      z.number({ error: EXPECTED_DURATION }).min(0, { error: EXPECTED_DURATION }),
      z.string({ error: EXPECTED_DURATION }).trim().regex(DURATION_RE, { error: EXPECTED_DURATION }),
    ],
    { error: EXPECTED_DURATION },
  )
  .transform((v) => parseDuration(v)!)
  .meta({ id: 'Duration', description: 'Duration: 0.2ms, 450ms, 1.5s, 2m, 1h, or a number of milliseconds.' });

/** The longest simulated time a scenario may ask for (`duration`, `warmup`, `bucket`): 365 days (1000h still loads and meets the cost estimate; 1000000h does not). */
export const MAX_SIMULATED_MS = 365 * 86_400_000;
const TOO_LONG = 'expected at most 8760h (365 days of simulated time)';

/** `duration` and `warmup`: a duration of at most MAX_SIMULATED_MS. */
export const simulatedTimeSchema = durationSchema.refine((ms) => ms <= MAX_SIMULATED_MS, { error: TOO_LONG });

/** `bucket`: a duration > 0 and at most MAX_SIMULATED_MS. */
export const bucketSchema = durationSchema.superRefine((ms, ctx) => {
  if (!(ms > 0)) ctx.addIssue({ code: 'custom', input: ms, message: 'expected a bucket width > 0 such as 1s or 500ms' });
  else if (ms > MAX_SIMULATED_MS) ctx.addIssue({ code: 'custom', input: ms, message: TOO_LONG });
});

/** A rate field: `2000/s`, `120/m`, or a number per second, parsed to events per second. */
export const rateSchema = z
  .union(
    [
      z.number({ error: EXPECTED_RATE }).min(0, { error: EXPECTED_RATE }),
      z.string({ error: EXPECTED_RATE }).trim().regex(RATE_RE, { error: EXPECTED_RATE }),
    ],
    { error: EXPECTED_RATE },
  )
  .transform((v) => parseRate(v)!)
  .meta({ id: 'Rate', description: 'Rate: 2000/s, 120/m, 10/h, or a number per second.' });

/** A bandwidth field (`1Gbps`, `100Mbps`, `125MB/s`), parsed to bytes per second. */
export const bandwidthSchema = z
  .string({ error: EXPECTED_BANDWIDTH })
  .refine((v) => parseBandwidth(v) !== undefined, { error: EXPECTED_BANDWIDTH })
  .transform((v) => parseBandwidth(v)!)
  .meta({ id: 'Bandwidth', description: 'Bandwidth: 1Gbps, 100Mbps (bits per second) or 125MB/s (bytes per second).' });

/** A size field (`1MB`, `512KB`, or a number of bytes), parsed to bytes. */
export const sizeSchema = z
  .union([z.number({ error: EXPECTED_SIZE }), z.string({ error: EXPECTED_SIZE })], { error: EXPECTED_SIZE })
  .refine((v) => parseSize(v) !== undefined, { error: EXPECTED_SIZE })
  .transform((v) => parseSize(v)!)
  .meta({ id: 'Size', description: 'Size: 1MB, 512KB (binary multiples) or a number of bytes.' });

const positiveNumber = (what: string) =>
  z.number({ error: `expected ${what} (a number > 0)` }).positive({ error: `expected ${what} (a number > 0)` });

/** Field shapes of every distribution except mixture, keyed by `dist`. */
function distShapes() {
  return {
    constant: { dist: z.literal('constant'), value: durationSchema },
    uniform: { dist: z.literal('uniform'), min: durationSchema, max: durationSchema },
    exponential: { dist: z.literal('exponential'), mean: durationSchema },
    normal: { dist: z.literal('normal'), mean: durationSchema, stddev: durationSchema },
    lognormal: {
      dist: z.literal('lognormal'),
      p50: durationSchema.optional(),
      p99: durationSchema.optional(),
      mu: z.number({ error: 'expected a number (log of milliseconds)' }).optional(),
      sigma: z.number({ error: 'expected a number >= 0' }).min(0, { error: 'expected a number >= 0' }).optional(),
    },
    pareto: { dist: z.literal('pareto'), scale: durationSchema, shape: positiveNumber('a shape') },
    empirical: {
      dist: z.literal('empirical'),
      min: durationSchema.optional(),
      p50: durationSchema,
      p90: durationSchema,
      p99: durationSchema,
      p999: durationSchema,
      max: durationSchema,
    },
    samples: {
      dist: z.literal('samples'),
      file: z
        .string({ error: 'expected a CSV file path (relative to the scenario file)' })
        .min(1, { error: 'expected a CSV file path (relative to the scenario file)' })
        .optional()
        .describe('CSV file of measured values, one per row, relative to the scenario file.'),
      column: z.string({ error: 'expected a CSV column name' }).optional().describe('CSV column (default: the only column).'),
      unit: dataUnit.optional().describe('Unit of the values: ms (default), s or us.'),
      values: z
        .array(nonNegative('a measured value'), { error: 'expected a list of measured values' })
        .min(1, { error: 'expected at least one value' })
        .optional()
        .describe('Measured values written inline (instead of file).'),
    },
    histogram: {
      dist: z.literal('histogram'),
      buckets: z
        .record(z.string(), nonNegative('a cumulative count'), { error: 'expected a map of upper bound to cumulative count' })
        .optional()
        .describe('Cumulative counts per upper bound (le): { 5ms: 120, 10ms: 480, +Inf: 1000 }.'),
      file: z
        .string({ error: 'expected a Prometheus text-exposition file path (relative to the scenario file)' })
        .min(1, { error: 'expected a Prometheus text-exposition file path (relative to the scenario file)' })
        .optional()
        .describe('Prometheus text-exposition file, relative to the scenario file.'),
      metric: z.string({ error: 'expected a metric name such as dubbo_provider_rt_seconds' }).optional().describe('Histogram metric (its <metric>_bucket series are read).'),
      labels: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()], { error: 'expected a label value' }), {
          error: 'expected a map of label name to value',
        })
        .optional()
        .describe('Labels that pick exactly one series, e.g. { method: getUserById }.'),
      unit: dataUnit.optional().describe('Unit of le: default from the metric name (_seconds, _milliseconds, _microseconds).'),
      max: durationSchema
        .optional()
        .describe('Closes the +Inf bucket: its share is uniform up to max (default: at the last finite bound, as histogram_quantile).'),
    },
  };
}

const dataUnit = z.enum(['ms', 's', 'us'], { error: 'expected ms, s or us' });
const nonNegative = (what: string) =>
  z.number({ error: `expected ${what} (a number >= 0)` }).min(0, { error: `expected ${what} (a number >= 0)` });

/** Milliseconds per unit of measured data. */
export const DATA_UNIT_MS: Record<'ms' | 's' | 'us', number> = { ms: 1, s: 1000, us: 0.001 };

const INF_KEYS = new Set(['+inf', 'inf', '+infinity', 'infinity', '.inf', '+.inf']);

/** The upper bound (ms) of a histogram bucket key (`5ms`, `0.5s`, `+Inf`, or a number of ms); undefined if malformed. */
export function parseBucketBound(key: string): number | undefined {
  const k = key.trim();
  if (INF_KEYS.has(k.toLowerCase())) return Infinity;
  if (/^[+]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(k)) return Number(k);
  return parseDuration(k);
}

/** The problems of cumulative bucket counts, in bound order (`at` is the bucket key or line). */
export function bucketProblems<K>(buckets: Array<{ le: number; count: number; at: K }>): Array<{ at: K; message: string }> {
  const out: Array<{ at: K; message: string }> = [];
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const label = (le: number) => (le === Infinity ? '+Inf' : formatDuration(le));
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (cur.le === prev.le) out.push({ at: cur.at, message: `bucket le=${label(cur.le)} appears twice` });
    else if (cur.count < prev.count) {
      out.push({
        at: cur.at,
        message: `cumulative count ${cur.count} at le=${label(cur.le)} is below ${prev.count} at le=${label(prev.le)}; bucket counts never decrease`,
      });
    }
  }
  if (out.length === 0 && buckets.length > 0 && sorted[sorted.length - 1]!.count === 0) {
    out.push({ at: sorted[sorted.length - 1]!.at, message: 'every bucket count is 0: the histogram holds no observations' });
  }
  if (out.length === 0 && buckets.length > 0 && sorted.every((b) => b.le === Infinity)) {
    out.push({ at: sorted[0]!.at, message: 'only a +Inf bucket: give at least one finite upper bound' });
  }
  return out;
}

/** A histogram spec of checked buckets (bounds in ms, `Infinity` for +Inf). */
export function histogramOf(buckets: Array<{ le: number; count: number }>, max?: number, source?: DataSource): HistogramSpec {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const finite = sorted.filter((b) => b.le !== Infinity);
  const inf = sorted.find((b) => b.le === Infinity);
  const out: HistogramSpec = {
    dist: 'histogram',
    le: finite.map((b) => b.le),
    counts: finite.map((b) => b.count),
    total: inf?.count ?? finite[finite.length - 1]!.count,
  };
  if (max !== undefined) out.max = max;
  if (source !== undefined) out.source = source;
  return out;
}

type Ctx = z.core.$RefinementCtx;

/** Flags a later field below an earlier one (`p99` below `p50`). */
function ordered(ctx: Ctx, v: Record<string, unknown>, keys: string[], strict = false): void {
  let prevKey: string | undefined;
  for (const k of keys) {
    const x = v[k];
    if (typeof x !== 'number') continue;
    if (prevKey !== undefined) {
      const p = v[prevKey] as number;
      if (strict ? x <= p : x < p) {
        ctx.addIssue({
          code: 'custom',
          path: [k],
          message: `${k} (${formatDuration(x)}) must be ${strict ? 'above' : 'at least'} ${prevKey} (${formatDuration(p)})`,
        });
      }
    }
    prevKey = k;
  }
}

/** The object options of the `dist` discriminated union, optionally with a mixture `weight`. */
function distObjects(withWeight: boolean) {
  const shapes = distShapes();
  const weight = withWeight
    ? { weight: positiveNumber('a mixture weight').meta({ description: 'Relative weight of this component.' }) }
    : {};
  return [
    z.strictObject({ ...shapes.constant, ...weight }),
    z.strictObject({ ...shapes.uniform, ...weight }).superRefine((v, ctx) => ordered(ctx, v, ['min', 'max'])),
    z.strictObject({ ...shapes.exponential, ...weight }),
    z.strictObject({ ...shapes.normal, ...weight }),
    z.strictObject({ ...shapes.lognormal, ...weight }).superRefine((v, ctx) => {
      const byPercentiles = v.p50 !== undefined || v.p99 !== undefined;
      const byParams = v.mu !== undefined || v.sigma !== undefined;
      if (byPercentiles === byParams || (byPercentiles && (v.p50 === undefined || v.p99 === undefined)) ||
        (byParams && (v.mu === undefined || v.sigma === undefined))) {
        ctx.addIssue({ code: 'custom', message: 'lognormal needs either p50 and p99 (durations), or mu and sigma (numbers)' });
        return;
      }
      if (v.p50 !== undefined && v.p50 <= 0) {
        ctx.addIssue({ code: 'custom', path: ['p50'], message: 'p50 of a lognormal must be above 0' });
      }
      // mu is the log of milliseconds: mu 800 or a huge sigma gives an infinite (or absurd) mean.
      if (v.mu !== undefined && v.sigma !== undefined) {
        const mean = Math.exp(v.mu + (v.sigma * v.sigma) / 2);
        if (!(mean <= MAX_SIMULATED_MS)) {
          ctx.addIssue({
            code: 'custom',
            path: [Math.exp(v.mu) > MAX_SIMULATED_MS ? 'mu' : 'sigma'],
            message: `mu ${v.mu} and sigma ${v.sigma} give a mean exp(mu + sigma²/2) of ${Number.isFinite(mean) ? `${mean.toExponential(2)} ms` : 'infinity'}, above 8760h (365 days); mu is the log of milliseconds (mu 3 ≈ 20ms)`,
          });
        }
      }
      ordered(ctx, v, ['p50', 'p99']);
    }),
    z.strictObject({ ...shapes.pareto, ...weight }).superRefine((v, ctx) => {
      if (v.scale <= 0) ctx.addIssue({ code: 'custom', path: ['scale'], message: 'scale of a pareto must be above 0' });
    }),
    z.strictObject({ ...shapes.empirical, ...weight }).superRefine((v, ctx) =>
      ordered(ctx, v, ['min', 'p50', 'p90', 'p99', 'p999', 'max']),
    ),
    z.strictObject({ ...shapes.samples, ...weight }).superRefine((v, ctx) => {
      if ((v.file === undefined) === (v.values === undefined)) {
        ctx.addIssue({
          code: 'custom',
          ...(v.file === undefined ? {} : { path: ['values'] }),
          message: v.file === undefined ? 'samples needs file: (a CSV file) or values: [...]' : 'give either file or values, not both',
        });
      }
      if (v.column !== undefined && v.file === undefined) {
        ctx.addIssue({ code: 'custom', path: ['column'], message: 'column goes with file:' });
      }
    }),
    z.strictObject({ ...shapes.histogram, ...weight }).superRefine((v, ctx) => histogramIssues(v, ctx)),
  ] as const;
}

type RawHistogram = {
  buckets?: Record<string, number>;
  file?: string;
  metric?: string;
  labels?: Record<string, unknown>;
  unit?: string;
  max?: number;
};

function histogramIssues(v: RawHistogram, ctx: Ctx): void {
  if ((v.buckets === undefined) === (v.file === undefined)) {
    ctx.addIssue({
      code: 'custom',
      ...(v.file === undefined ? {} : { path: ['buckets'] }),
      message:
        v.file === undefined
          ? 'histogram needs buckets: { 5ms: 120, ..., +Inf: 1000 } or file: + metric: (a Prometheus text file)'
          : 'give either buckets or file, not both',
    });
    return;
  }
  if (v.file !== undefined) {
    if (v.metric === undefined) ctx.addIssue({ code: 'custom', path: ['metric'], message: 'expected metric: the histogram to read, such as dubbo_provider_rt_seconds' });
    return;
  }
  for (const k of ['metric', 'labels', 'unit'] as const) {
    if (v[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `${k} goes with file: (bucket keys carry their unit)` });
  }
  const parsed: Array<{ le: number; count: number; at: string }> = [];
  for (const [key, count] of Object.entries(v.buckets!)) {
    const le = parseBucketBound(key);
    if (le === undefined) {
      ctx.addIssue({ code: 'custom', path: ['buckets', key], message: `expected an upper bound such as 5ms, 0.25s or +Inf, found "${key}"` });
    } else parsed.push({ le, count, at: key });
  }
  if (parsed.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['buckets'], message: 'buckets is empty: give cumulative counts such as { 5ms: 120, +Inf: 130 }' });
    return;
  }
  for (const p of bucketProblems(parsed)) ctx.addIssue({ code: 'custom', path: ['buckets', p.at], message: p.message });
  const lastFinite = Math.max(...parsed.filter((b) => b.le !== Infinity).map((b) => b.le));
  if (v.max !== undefined && Number.isFinite(lastFinite) && v.max < lastFinite) {
    ctx.addIssue({ code: 'custom', path: ['max'], message: `max (${formatDuration(v.max)}) must be at least the last finite bound (${formatDuration(lastFinite)})` });
  }
}

const distDiscriminatorError = (iss: { code: string; input?: unknown }) =>
  iss.code === 'invalid_union' ? `expected dist to be one of ${DIST_NAMES.join(', ')}` : undefined;

const NESTED_MIXTURE = 'a mixture component cannot itself be a mixture: list the inner components in the outer mixture (multiply their weights)';
const componentDiscriminatorError = (iss: { code: string; input?: unknown }) =>
  iss.code === 'invalid_union' ? `expected dist to be one of ${DIST_NAMES.filter((n) => n !== 'mixture').join(', ')}` : undefined;

// Components are any distribution but a mixture: nesting is not supported, and said so, whichever
// form the inner mixture takes (`dist: mixture` or the `mixture: [...]` shorthand, which has no
// `dist` and would otherwise read as a component missing it). The check runs before the union, so
// its message wins over what the union's branches would say.
const mixtureComponent = z.preprocess(
  (v, ctx) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (o.dist === 'mixture' || 'mixture' in o) {
        ctx.addIssue({ code: 'custom', path: [o.dist === 'mixture' ? 'dist' : 'mixture'], message: NESTED_MIXTURE, input: v });
      }
    }
    return v;
  },
  z.discriminatedUnion('dist', [...distObjects(true)], { error: componentDiscriminatorError }),
);

const mixtureComponents = z
  .array(mixtureComponent, {
    error: 'expected a list of weighted distributions ({ weight, dist, ... })',
  })
  .min(1, { error: 'expected at least one mixture component' })
  .meta({ description: 'Weighted components, e.g. 99% lognormal + 1% 300ms GC pause.' });

const distObject = z.discriminatedUnion(
  'dist',
  [...distObjects(false), z.strictObject({ dist: z.literal('mixture'), components: mixtureComponents })],
  { error: distDiscriminatorError },
);

const mixtureShorthand = z.strictObject({ mixture: mixtureComponents });

type DistObjectOut = z.output<typeof distObject> | z.output<typeof mixtureShorthand>;

function toDistSpec(v: number | DistObjectOut): DistSpec {
  if (typeof v === 'number') return { dist: 'constant', value: v };
  if ('mixture' in v) return { dist: 'mixture', components: v.mixture.map(component) as never };
  if (v.dist === 'mixture') return { dist: 'mixture', components: v.components.map(component) as never };
  return component(v) as DistSpec;
}

/** One distribution object as a `DistSpec` (a mixture component keeps its weight). */
function component(v: { dist: string }): DistSpec {
  const w = (v as { weight?: number }).weight;
  const weight = w === undefined ? {} : { weight: w };
  if (v.dist === 'samples') return { ...samplesSpec(v as never), ...weight };
  if (v.dist === 'histogram') return { ...histogramSpec(v as never), ...weight };
  return stripLognormal(v) as DistSpec;
}

/** The source of a measured distribution, without absent fields. */
function dataSource(s: DataSource): DataSource {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(s)) if (x !== undefined) out[k] = x;
  return out as unknown as DataSource;
}

/**
 * A `samples` spec: inline values sorted (in ms), or, for a file, a spec without values whose
 * `source` names the file as written; `load.ts` reads the file and fills the values in.
 */
function samplesSpec(v: { file?: string; column?: string; unit?: 'ms' | 's' | 'us'; values?: number[] }): SamplesSpec {
  if (v.values !== undefined) {
    const ms = DATA_UNIT_MS[v.unit ?? 'ms'];
    return { dist: 'samples', values: v.values.map((x) => x * ms).sort((a, b) => a - b) };
  }
  return { dist: 'samples', values: [], source: dataSource({ file: v.file!, column: v.column, unit: v.unit }) };
}

/** A `histogram` spec: inline buckets parsed, or, for a file, a spec without buckets whose `source` names the series. */
function histogramSpec(v: RawHistogram): HistogramSpec {
  if (v.buckets !== undefined) {
    const buckets = Object.entries(v.buckets).map(([k, count]) => ({ le: parseBucketBound(k)!, count }));
    return histogramOf(buckets, v.max);
  }
  const labels = v.labels === undefined ? undefined : Object.fromEntries(Object.entries(v.labels).map(([k, x]) => [k, String(x)]));
  const source = dataSource({ file: v.file!, metric: v.metric!, labels, unit: v.unit as DataSource['unit'] });
  return { dist: 'histogram', le: [], counts: [], total: 0, ...(v.max === undefined ? {} : { max: v.max }), source };
}

/**
 * A distribution as the file format writes it (the inverse of `distSchema`, for dumps): measured
 * distributions go back to their file reference (absolute path) or their inline data in ms.
 */
export function distToRaw(d: DistSpec): unknown {
  const weight = (d as { weight?: number }).weight;
  const w = weight === undefined ? {} : { weight };
  if (d.dist === 'mixture') return { dist: 'mixture', components: d.components.map(distToRaw) };
  if (d.dist === 'samples') {
    if (d.source !== undefined) return { dist: 'samples', ...d.source, ...w };
    return { dist: 'samples', values: [...d.values], ...w };
  }
  if (d.dist === 'histogram') {
    const max = d.max === undefined ? {} : { max: d.max };
    if (d.source !== undefined) return { dist: 'histogram', ...d.source, ...max, ...w };
    const buckets: Record<string, number> = {};
    d.le.forEach((le, i) => (buckets[String(le)] = d.counts[i]!));
    buckets['+Inf'] = d.total;
    return { dist: 'histogram', buckets, ...max, ...w };
  }
  return d;
}

/** True for a measured distribution whose data file is named but not loaded yet (`load.ts` loads it). */
export function needsDataFile(spec: DistSpec): spec is SamplesSpec | HistogramSpec {
  return (spec.dist === 'samples' || spec.dist === 'histogram') && spec.source !== undefined &&
    (spec.dist === 'samples' ? spec.values.length === 0 : spec.total === 0);
}

/** Drops the unused half of a lognormal's two parameterizations (and any undefined optional). */
function stripLognormal<T extends { dist: string }>(v: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = x;
  return out as T;
}

/** A distribution field (SPEC 2.1), parsed to a `DistSpec` in milliseconds. */
export const distSchema = z
  .union([durationSchema, distObject, mixtureShorthand], { error: EXPECTED_DIST })
  .transform(toDistSpec)
  .meta({
    id: 'Distribution',
    description:
      'Distribution in ms: a duration (constant), { dist: constant, value }, uniform {min,max}, exponential {mean}, ' +
      'normal {mean,stddev}, lognormal {p50,p99} or {mu,sigma}, pareto {scale,shape}, empirical {p50,p90,p99,p999,max,min?}, ' +
      'samples {file, column?, unit?} or {values}, histogram {buckets: {5ms: 120, ..., +Inf: 1000}, max?} or {file, metric, labels?, unit?, max?}, ' +
      'mixture {components: [{weight, dist, ...}]} or { mixture: [...] }.',
  });
