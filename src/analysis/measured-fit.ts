/**
 * How closely a measured distribution (`samples`, `histogram`) draws what was measured: the mean
 * and p99 of what the simulator draws (linear between order statistics, uniform within each
 * bucket) beside the data's own (the values' mean and p99; a Prometheus file's `_sum / _count`).
 * A histogram's buckets hide where in a bucket the requests fell, so its drawn mean can be far from
 * the measured one (coarse buckets, or the +Inf bucket's `max`). `check` lists every such
 * distribution; `run` warns when the drawn mean is more than `MEAN_GAP_WARNING` away. Owns the
 * figures and their wording, not where they are printed.
 */
import { measuredLabel, measuredMean, quantile, samplesQuantile, type DistSpec, type HistogramSpec, type SamplesSpec } from '../engine/distributions.js';
import type { Scenario } from '../model/types.js';

/** `run` warns when the drawn mean differs from the data's by more than this share of the data's. */
export const MEAN_GAP_WARNING = 0.05;

/** One measured distribution of a scenario, with the figures it draws and the data's. */
export interface MeasuredFit {
  /** Where it is in the scenario (`services["S"].methods.m.serviceTime`, `network.rtt["a->b"]`), and how many more places use the same one. */
  path: string;
  alsoAt: number;
  /** The service of a service time, else empty. */
  service: string;
  label: string;
  drawnMeanMs: number;
  drawnP99Ms: number;
  /** The data's mean: the values' (samples) or the file's `_sum / _count` (histogram); absent for inline buckets. */
  dataMeanMs?: number;
  /** The data's p99 (samples only: type 7, as numpy and R). */
  dataP99Ms?: number;
  /** (drawn − data) / data, when the data has a mean. */
  meanGap?: number;
}

/** Every measured distribution in `scenario` (mixture components included), each once, in scenario order. */
export function measuredFits(scenario: Scenario): MeasuredFit[] {
  const found = new Map<SamplesSpec | HistogramSpec, { path: string; service: string; alsoAt: number }>();
  const visit = (d: DistSpec | undefined, path: string, service = ''): void => {
    if (d === undefined) return;
    if (d.dist === 'mixture') d.components.forEach((c, i) => visit(c, `${path}.components[${i}]`, service));
    if (d.dist !== 'samples' && d.dist !== 'histogram') return;
    const seen = found.get(d);
    if (seen !== undefined) seen.alsoAt++;
    else found.set(d, { path, service, alsoAt: 0 });
  };
  for (const [service, spec] of Object.entries(scenario.services)) {
    for (const [method, m] of Object.entries(spec.methods)) visit(m.serviceTime, `services["${service}"].methods.${method}.serviceTime`, service);
  }
  visit(scenario.network.sameZone, 'network.rtt.same-zone');
  visit(scenario.network.default, 'network.rtt.default');
  for (const p of scenario.network.pairs) visit(p.dist, `network.rtt["${p.from}->${p.to}"]`);
  visit(scenario.registry.pushLag, 'registry.pushLag');
  for (const [name, r] of Object.entries(scenario.registries)) visit(r.pushLag, `registries.${name}.pushLag`);
  scenario.faults.forEach((f, i) => {
    if (f.action.kind === 'rtt') visit(f.action.set, `faults[${i}].rtt.set`);
  });
  return [...found].map(([spec, at]) => fitOf(spec, at));
}

function fitOf(spec: SamplesSpec | HistogramSpec, at: { path: string; service: string; alsoAt: number }): MeasuredFit {
  const fit: MeasuredFit = { ...at, label: measuredLabel(spec), drawnMeanMs: measuredMean(spec), drawnP99Ms: quantile(spec, 0.99)! };
  if (spec.dist === 'samples') {
    let sum = 0;
    for (const v of spec.values) sum += v;
    fit.dataMeanMs = sum / spec.values.length;
    fit.dataP99Ms = samplesQuantile(spec.values, 0.99);
  } else if (spec.dataMeanMs !== undefined) fit.dataMeanMs = spec.dataMeanMs;
  if (fit.dataMeanMs !== undefined && fit.dataMeanMs > 0) fit.meanGap = (fit.drawnMeanMs - fit.dataMeanMs) / fit.dataMeanMs;
  return fit;
}

const ms = (x: number): string => (x >= 1000 ? `${+(x / 1000).toPrecision(3)}s` : `${+x.toPrecision(3)}ms`);
const pct = (x: number): string => `${+(Math.abs(x) * 100).toFixed(Math.abs(x) < 0.01 ? 2 : 1)}%`;

/** One line: what it draws, what the data says, and how far apart the means are. */
export function describeFit(f: MeasuredFit): string {
  const where = `${f.path}${f.alsoAt > 0 ? ` (and ${f.alsoAt} more place${f.alsoAt === 1 ? '' : 's'})` : ''}`;
  const drawn = `${where}: ${f.label} draws mean ${ms(f.drawnMeanMs)}, p99 ${ms(f.drawnP99Ms)}`;
  if (f.dataMeanMs === undefined) return `${drawn}; the data has no mean to compare with (inline buckets, or no _sum and _count in the file)`;
  const data = f.dataP99Ms === undefined ? `mean ${ms(f.dataMeanMs)} (_sum / _count)` : `mean ${ms(f.dataMeanMs)}, p99 ${ms(f.dataP99Ms)}`;
  const gap = f.meanGap ?? 0;
  const far = Math.abs(gap) > MEAN_GAP_WARNING;
  return (
    `${drawn}; the data: ${data}; the drawn mean is ${pct(gap)} ${gap >= 0 ? 'above' : 'below'} the data's` +
    (far ? (f.label.startsWith('histogram') ? ' (draws are uniform within each bucket: coarse buckets, or the +Inf bucket and max:, move the mean)' : ' (few values: the smallest and largest count half)') : '')
  );
}

/** `check`'s warnings for every measured distribution (one per distribution, in scenario order). */
export function measuredDistributionNotes(scenario: Scenario): Array<{ kind: 'measured-distribution'; consumer: ''; zone: ''; service: string; message: string }> {
  return measuredFits(scenario).map((f) => ({ kind: 'measured-distribution', consumer: '', zone: '', service: f.service, message: describeFit(f) }));
}

/** `run`'s warnings: the measured distributions whose drawn mean is more than `MEAN_GAP_WARNING` from the data's. */
export function farMeasuredMeans(scenario: Scenario): string[] {
  return measuredFits(scenario)
    .filter((f) => f.meanGap !== undefined && Math.abs(f.meanGap) > MEAN_GAP_WARNING)
    .map(describeFit);
}
