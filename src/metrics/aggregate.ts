/**
 * Multi-seed aggregation (`run --seeds K`, each strategy of `compare --seeds K`): the mean of every
 * numeric figure across seeds, nested scopes and timeline buckets included, plus Student-t 95%
 * confidence half-widths of the main figures, for the run and for each consumer zone and service
 * method. It owns the statistics across runs, not the runs themselves.
 *
 * Rules: a figure missing from a seed (a consumer zone or cause that never showed up) counts as 0
 * for that seed, which is exactly what the seed measured; strings, fault markers and `strategy`
 * come from the first summary; `seeds` lists every seed in input order and `seed` is the first.
 * Timeline rows (`timeline`, `timelineByZone`, `timelineByProviderGroup`) are averaged bucket by
 * bucket like every other figure. `registry.byConsumerGroup` is averaged too (the spread figures: the mean of
 * each seed's min, median and max), without its `worst` instances, which name one seed's instances; the
 * per-instance `registry.byConsumer` stays only when every seed has it (`--per-instance`).
 */
import { sampleStandardDeviation } from 'simple-statistics';
import { roundMs, roundRatio, type ScopeSummary, type Summary } from './summary.js';

/** The figures that get a `ci95` half-width, by path. */
export const CI95_FIGURES = [
  'requests',
  'timeoutRate',
  'noProviderRate',
  'errorRate',
  'latencyMs.p50',
  'latencyMs.p99',
  'latencyMs.p999',
  'latencyAllMs.p99',
  'retryAmplification',
  'duplicateExecutions',
  'duplicateWrites',
  'crossZoneRatio',
  'outcomes.rejected',
  'mockRate',
] as const;

// Scopes that get a `ci95` of their own.
const SCOPE_MAPS = new Set(['byConsumerZone', 'byService']);

// t(0.975, dof) for dof = 1..30 (two-sided 95%).
const T975 = [
  12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448,
  2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484,
  2.0452, 2.0423,
];
const Z975 = 1.959963984540054;

/** Student's t quantile for a two-sided 95% interval with `dof` degrees of freedom. */
export function tQuantile975(dof: number): number {
  if (!(dof >= 1)) return NaN;
  if (dof <= 30) return T975[Math.floor(dof) - 1]!;
  // Cornish-Fisher expansion around the normal quantile; exact to 4 decimals from 30 dof on.
  const z = Z975;
  const z3 = z * z * z;
  const z5 = z3 * z * z;
  const z7 = z5 * z * z;
  return (
    z +
    (z3 + z) / (4 * dof) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * dof * dof * dof)
  );
}

/** Half-width of the 95% confidence interval of the mean of `values` (0 for fewer than 2 values). */
export function ci95HalfWidth(values: number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  return (tQuantile975(n - 1) * sampleStandardDeviation(values)) / Math.sqrt(n);
}

// Objects keyed by data (zones, services, groups, causes, counters): their key union is sorted.
const MAP_KEYS = new Set([
  'byConsumerZone',
  'byConsumerGroup',
  'byConsumer',
  'byService',
  'byProviderGroup',
  'noProviderCauses',
  'rejectedCauses',
  'mockCauses',
  'blockedCauses',
  'events',
  'byStrategy',
  'timelineByZone',
  'timelineByProviderGroup',
]);
// Keys whose values are milliseconds (rounded to 3 decimals rather than 6).
const MS_KEYS = new Set(['tMs', 'p99Ms', 'p99OkMs', 'simulatedMs', 'measuredFromMs', 'pushLagP99Ms']);
const LATENCY_PARENTS = new Set(['latencyMs', 'latencyAllMs', 'pushLagMs']);

/** The mean of several seeds' summaries of one scenario, with `ci95` when there are at least two. */
export function aggregateSummaries(summaries: Summary[]): Summary {
  if (summaries.length === 0) throw new RangeError('aggregateSummaries needs at least one summary');
  const first = summaries[0]!;
  const out: Record<string, unknown> = {};
  const add = (key: string, value: unknown): void => {
    out[key] = value;
  };
  for (const key of Object.keys(first)) {
    if (key === 'ci95') continue;
    const values = summaries.map((s) => (s as unknown as Record<string, unknown>)[key]);
    if (key === 'seed') add(key, first.seed);
    else if (key === 'seeds') add(key, summaries.flatMap((s) => s.seeds));
    else if (key === 'faults') add(key, structuredClone(first.faults));
    else if (key === 'strategy') add(key, structuredClone(first.strategy));
    else if (key === 'byStrategy') add(key, aggregateStrategies(summaries));
    else if (SCOPE_MAPS.has(key) && summaries.length > 1) add(key, withScopeCi95(meanOf(values, key, '') as Record<string, ScopeSummary>, values));
    else add(key, meanOf(values, key, ''));
    if (key === 'timeline' && summaries.length > 1) add('ci95', ci95Of(summaries));
    if (key === 'registry' && summaries.length > 1) add(key, registryMean(out[key] as Summary['registry'], summaries));
  }
  if (!('timeline' in first) && summaries.length > 1) add('ci95', ci95Of(summaries));
  return out as unknown as Summary;
}

/** The registry's mean without what cannot be averaged: the worst instances, and a per-instance map some seeds lack. */
function registryMean(mean: Summary['registry'], summaries: Summary[]): Summary['registry'] {
  for (const group of Object.values(mean.byConsumerGroup ?? {})) delete group.worst;
  if (summaries.some((s) => s.registry.byConsumer === undefined)) delete mean.byConsumer;
  return mean;
}

function aggregateStrategies(summaries: Summary[]): Record<string, Summary> {
  const names = [...new Set(summaries.flatMap((s) => Object.keys(s.byStrategy ?? {})))].sort();
  const out: Record<string, Summary> = {};
  for (const name of names) {
    const per = summaries.map((s) => s.byStrategy?.[name]).filter((s): s is Summary => s !== undefined);
    out[name] = aggregateSummaries(per);
  }
  return out;
}

/** Each scope of a `byConsumerZone` / `byService` mean with the half-widths over the seeds' scopes (a missing one counts as 0). */
function withScopeCi95(mean: Record<string, ScopeSummary>, perSeed: unknown[]): Record<string, ScopeSummary> {
  for (const [name, scope] of Object.entries(mean)) {
    scope.ci95 = ci95Of(perSeed.map((m) => (m as Record<string, ScopeSummary> | undefined)?.[name]));
  }
  return mean;
}

function ci95Of(scopes: Array<ScopeSummary | undefined>): Record<string, number> {
  const ci: Record<string, number> = {};
  for (const path of CI95_FIGURES) {
    const values = scopes.map((s) => figureAt(s, path));
    const half = ci95HalfWidth(values);
    ci[path] = path.startsWith('latency') ? roundMs(half) : roundRatio(half);
  }
  return ci;
}

/** The number at a dotted `path` of a summary or scope (0 when absent). */
export function figureAt(summary: ScopeSummary | undefined, path: string): number {
  let v: unknown = summary;
  for (const part of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return typeof v === 'number' ? v : 0;
}

function meanOf(values: unknown[], key: string, parentKey: string): unknown {
  const present = values.filter((v) => v !== undefined && v !== null);
  const sample = present[0];
  if (sample === undefined) return undefined;
  if (typeof sample === 'number') {
    let sum = 0;
    for (const v of values) sum += typeof v === 'number' ? v : 0;
    const mean = sum / values.length;
    return MS_KEYS.has(key) || LATENCY_PARENTS.has(parentKey) ? roundMs(mean) : roundRatio(mean);
  }
  if (Array.isArray(sample)) {
    // A loop, not Math.max(...): there may be more seeds than a call takes arguments.
    const length = present.reduce<number>((m, v) => Math.max(m, (v as unknown[]).length), 0);
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) {
      out.push(meanOf(values.map((v) => (Array.isArray(v) ? v[i] : undefined)), key, parentKey));
    }
    return out;
  }
  if (typeof sample === 'object') {
    const keys: string[] = [];
    const seen = new Set<string>();
    for (const v of present) {
      for (const k of Object.keys(v as object)) {
        if (!seen.has(k)) {
          seen.add(k);
          keys.push(k);
        }
      }
    }
    const dataKeyed = MAP_KEYS.has(key);
    if (dataKeyed) keys.sort();
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      // A scope's half-widths are recomputed from the seeds, never averaged.
      if (k === 'ci95' && !dataKeyed) continue;
      out[k] = meanOf(
        values.map((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined)),
        k,
        key,
      );
    }
    return out;
  }
  return sample;
}
