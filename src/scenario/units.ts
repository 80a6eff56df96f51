/**
 * Values with units in scenario files (SPEC 2, 2.1): durations (`0.2ms`, `450ms`, `1.5s`, `2m`,
 * `1h`, or a number of milliseconds), rates (`2000/s`, `120/m`, or a number per second) and
 * distributions (a bare duration, `{ dist: ... }` objects, `{ mixture: [...] }`). It owns the text
 * parsers and the zod schemas that turn those values into milliseconds, per-second rates and
 * `DistSpec`s; it does not own the rest of the file format (`schema.ts`) or error positions
 * (`load.ts`). Schema messages that start with "expected" get ", found <value>" appended later.
 */
import { z } from 'zod';
import type { DistSpec } from '../engine/distributions.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const NUMBER = String.raw`(\d+(?:\.\d*)?|\.\d+)`;
const DURATION_RE = new RegExp(String.raw`^${NUMBER}\s*(ms|s|min|m|h)$`);
const RATE_RE = new RegExp(String.raw`^${NUMBER}\s*/\s*(ms|s|min|m|h)$`);

/** The expected-phrase of a malformed duration. */
export const EXPECTED_DURATION = 'expected a duration such as 450ms, 1.5s, 2m or a number of milliseconds';
/** The expected-phrase of a malformed rate. */
export const EXPECTED_RATE = 'expected a rate such as 2000/s or 120/m, or a number per second';
const DIST_NAMES = ['constant', 'uniform', 'exponential', 'normal', 'lognormal', 'pareto', 'empirical', 'mixture'];
const EXPECTED_DIST =
  'expected a distribution: a duration (constant) or { dist: ' + DIST_NAMES.join(' | ') + ', ... }';

/** Milliseconds of a duration value (`450ms`, `1.5s`, `2m`, `1h`, or a number of ms); undefined if malformed or negative. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = DURATION_RE.exec(value.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}

/** Events per second of a rate value (`2000/s`, `120/m`, or a number per second); undefined if malformed or negative. */
export function parseRate(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = RATE_RE.exec(value.trim());
  return m ? (Number(m[1]) * 1000) / UNIT_MS[m[2]!]! : undefined;
}

/** A short human form of a duration in ms (`450ms`, `1.5s`, `2m`, `1h`), used in messages and dumps. */
export function formatDuration(ms: number): string {
  const units: Array<[string, number]> = [['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  for (const [unit, size] of units) {
    if (ms >= size && Number.isInteger((ms / size) * 1000)) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

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
  };
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
      ordered(ctx, v, ['p50', 'p99']);
    }),
    z.strictObject({ ...shapes.pareto, ...weight }).superRefine((v, ctx) => {
      if (v.scale <= 0) ctx.addIssue({ code: 'custom', path: ['scale'], message: 'scale of a pareto must be above 0' });
    }),
    z.strictObject({ ...shapes.empirical, ...weight }).superRefine((v, ctx) =>
      ordered(ctx, v, ['min', 'p50', 'p90', 'p99', 'p999', 'max']),
    ),
  ] as const;
}

const distDiscriminatorError = (iss: { code: string; input?: unknown }) =>
  iss.code === 'invalid_union' ? `expected dist to be one of ${DIST_NAMES.join(', ')}` : undefined;

const mixtureComponents = z
  .array(z.discriminatedUnion('dist', [...distObjects(true)], { error: distDiscriminatorError }), {
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
  if ('mixture' in v) return { dist: 'mixture', components: v.mixture.map(stripLognormal) as never };
  if (v.dist === 'mixture') return { dist: 'mixture', components: v.components.map(stripLognormal) as never };
  return stripLognormal(v) as DistSpec;
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
      'mixture {components: [{weight, dist, ...}]} or { mixture: [...] }.',
  });
