/**
 * Renderings of summary JSON for people and spreadsheets: the run and compare tables printed by
 * the CLI, `summary.csv` and `timeline.csv`. Everything here is derived from a `Summary`; no
 * figure is computed that the JSON does not already hold. The tables never hide a failure: they
 * always carry `error %` and `p99 all ms`, mark ok-only latencies as such, and list the failed
 * outcomes and the registry's pushes under the table.
 *
 * CSV layouts (documented in docs/outputs.md, "CSV files"):
 * - `summary.csv`: one row per scope: `overall`, then each `consumerZone`, then each `service`
 *   (`service.method`), with the scope figures flattened (`latencyMs.p99`, ...).
 * - `timeline.csv`: one row per bucket; the `marker` column lists the fault markers that fall in
 *   the bucket as `start <label> @<tMs>ms`, joined by ` | ` (markers before the first bucket go to
 *   the first row, after the last bucket to the last row).
 */
import { stringify } from 'csv-stringify/sync';
import { OUTCOMES, type FaultMarker, type LatencyStats, type Outcome, type ScopeSummary, type Summary, type TimelineRow } from '../metrics/summary.js';

const LATENCY_KEYS = ['mean', 'p50', 'p90', 'p99', 'p999', 'max'] as const satisfies ReadonlyArray<keyof LatencyStats>;

const SCOPE_COLUMNS = [
  'requests',
  'ok',
  'timeout',
  'noProvider',
  'rejected',
  'network',
  'forbidden',
  'biz',
  'timeoutRate',
  'noProviderRate',
  'errorRate',
  ...LATENCY_KEYS.map((k) => `latencyMs.${k}`),
  ...LATENCY_KEYS.map((k) => `latencyAllMs.${k}`),
  'attempts',
  'retryAmplification',
  'providerExecutions',
  'duplicateExecutions',
  'duplicateWrites',
  'orphanedExecutions',
  'crossZoneRatio',
];

function scopeRow(s: ScopeSummary): number[] {
  const o = s.outcomes;
  return [
    s.requests,
    o.ok,
    o.timeout,
    o.noProvider,
    o.rejected,
    o.network,
    o.forbidden,
    o.biz,
    s.timeoutRate,
    s.noProviderRate,
    s.errorRate,
    ...LATENCY_KEYS.map((k) => s.latencyMs[k]),
    ...LATENCY_KEYS.map((k) => s.latencyAllMs[k]),
    s.attempts,
    s.retryAmplification,
    s.providerExecutions,
    s.duplicateExecutions,
    s.duplicateWrites,
    s.orphanedExecutions,
    s.crossZoneRatio,
  ];
}

/** `summary.csv`: a header and one row per scope (overall, each consumer zone, each service method). */
export function summaryCsv(summary: Summary): string {
  const rows: Array<Array<string | number>> = [['scope', 'name', ...SCOPE_COLUMNS]];
  rows.push(['overall', '', ...scopeRow(summary)]);
  for (const [zone, s] of Object.entries(summary.byConsumerZone)) rows.push(['consumerZone', zone, ...scopeRow(s)]);
  for (const [key, s] of Object.entries(summary.byService)) rows.push(['service', key, ...scopeRow(s)]);
  return stringify(rows);
}

const TIMELINE_COLUMNS = [
  'tMs',
  'requests',
  'ok',
  'timeout',
  'noProvider',
  'rejected',
  'network',
  'forbidden',
  'biz',
  'p99Ms',
  'p99OkMs',
  'crossZoneRatio',
  'pushes',
] as const satisfies ReadonlyArray<keyof TimelineRow>;

/** `timeline.csv`: a header and one row per bucket, with fault markers in a `marker` column. */
export function timelineCsv(summary: Summary): string {
  const timeline = summary.timeline;
  const markers: string[][] = timeline.map(() => []);
  if (timeline.length > 0) {
    for (const m of summary.faults ?? []) markers[rowOfMarker(timeline, m)]!.push(markerText(m));
  }
  const rows: Array<Array<string | number>> = [[...TIMELINE_COLUMNS, 'marker']];
  timeline.forEach((row, i) => rows.push([...TIMELINE_COLUMNS.map((k) => row[k] ?? 0), markers[i]!.join(' | ')]));
  return stringify(rows);
}

function rowOfMarker(timeline: TimelineRow[], m: FaultMarker): number {
  // Bucket starts ascend; the marker belongs to the last bucket starting at or before it.
  let i = 0;
  while (i + 1 < timeline.length && timeline[i + 1]!.tMs <= m.tMs) i++;
  return i;
}

function markerText(m: FaultMarker): string {
  return `${m.kind} ${m.label} @${m.tMs}ms`;
}

/**
 * The run command's table: overall and one row per consumer zone, then a `failures` line (every
 * outcome other than `ok`, with rejected causes), the noProvider causes, the registry's pushes
 * when it pushed, and the confidence half-widths of a multi-seed run. Latency columns marked `ok`
 * cover successful requests only; `p99 all ms` and `error %` make sure that a run in which every
 * request failed never reads as fast or as 0%.
 */
export function formatRunTable(summary: Summary): string {
  const seeds = summary.seeds ?? [summary.seed];
  const head =
    seeds.length > 1
      ? `${summary.scenario}: mean of ${seeds.length} seeds (${seeds.join(', ')})`
      : `${summary.scenario}: seed ${summary.seed}`;
  const lines = [
    head,
    `simulated ${fmtSeconds(summary.simulatedMs)}, measured from ${fmtSeconds(summary.measuredFromMs)}`,
    '',
  ];
  const rows: string[][] = [
    ['scope', 'requests', ...LATENCY_HEADERS, 'timeout %', 'no-provider %', 'error %', 'duplicates', 'cross-zone %'],
  ];
  const row = (name: string, s: ScopeSummary): string[] => [
    name,
    fmtCount(s.requests),
    ...latencyCells(s),
    fmtRate(s, s.timeoutRate),
    fmtRate(s, s.noProviderRate),
    fmtRate(s, s.errorRate),
    fmtCount(s.duplicateExecutions),
    fmtPercent(s.crossZoneRatio),
  ];
  rows.push(row('overall', summary));
  for (const [zone, s] of Object.entries(summary.byConsumerZone)) rows.push(row(zone, s));
  lines.push(...renderTable(rows));
  const notes: string[] = [];
  const failures = failuresText(summary);
  if (failures !== undefined) notes.push(`failures ${failures}`);
  const causes = Object.entries(summary.noProviderCauses ?? {});
  if (causes.length > 0) notes.push(`noProvider causes: ${causes.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')}`);
  const registry = registryText(summary);
  if (registry !== undefined) notes.push(`registry: ${registry}`);
  if (notes.length > 0) lines.push('', ...notes);
  const ci = summary.ci95;
  if (ci !== undefined) {
    lines.push(
      '',
      `95% CI (±): requests ${fmtCount(ci.requests ?? 0)}, p99 ok ${fmtMs(ci['latencyMs.p99'] ?? 0)} ms, ` +
        `timeout ${fmtPercent(ci.timeoutRate ?? 0)} %, no-provider ${fmtPercent(ci.noProviderRate ?? 0)} %, ` +
        `error ${fmtPercent(ci.errorRate ?? 0)} %`,
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * Strategies side by side: one row per strategy with the headline figures, then per strategy a
 * `failures` line and a `registry` line (when it pushed), then one row per strategy and method
 * when there are several methods.
 */
export function formatCompareTable(byStrategy: Record<string, Summary>): string {
  const rows: string[][] = [
    [
      'strategy',
      'requests',
      ...LATENCY_HEADERS,
      'timeout %',
      'no-provider %',
      'error %',
      'attempts/req',
      'duplicates',
      'cross-zone %',
    ],
  ];
  for (const [name, s] of Object.entries(byStrategy)) {
    rows.push([
      name,
      fmtCount(s.requests),
      ...latencyCells(s),
      fmtRate(s, s.timeoutRate),
      fmtRate(s, s.noProviderRate),
      fmtRate(s, s.errorRate),
      s.retryAmplification.toFixed(3),
      fmtCount(s.duplicateExecutions),
      fmtPercent(s.crossZoneRatio),
    ]);
  }
  let out = renderTable(rows).join('\n') + '\n';
  const notes: string[] = [];
  for (const [name, s] of Object.entries(byStrategy)) {
    const failures = failuresText(s);
    if (failures !== undefined) notes.push(`${name} failures ${failures}`);
  }
  for (const [name, s] of Object.entries(byStrategy)) {
    const registry = registryText(s);
    if (registry !== undefined) notes.push(`${name} registry: ${registry}`);
  }
  if (notes.length > 0) out += '\n' + notes.join('\n') + '\n';
  // Several methods (e.g. an application's healthy and slow services): each one per strategy too,
  // since one method's failures can hide in the totals of another's traffic.
  const methods = [...new Set(Object.values(byStrategy).flatMap((s) => Object.keys(s.byService)))].sort();
  if (methods.length > 1) {
    const per: string[][] = [['strategy', 'method', 'requests', 'p99 ok ms', 'p99 all ms', 'timeout %', 'rejected %', 'error %']];
    for (const [name, s] of Object.entries(byStrategy)) {
      for (const m of methods) {
        const x = s.byService[m];
        if (x === undefined) continue;
        per.push([
          name,
          m,
          fmtCount(x.requests),
          x.ok > 0 ? fmtMs(x.latencyMs.p99) : NO_FIGURE,
          x.requests > 0 ? fmtMs(x.latencyAllMs.p99) : NO_FIGURE,
          fmtRate(x, x.timeoutRate),
          fmtRate(x, x.requests === 0 ? 0 : x.outcomes.rejected / x.requests),
          fmtRate(x, x.errorRate),
        ]);
      }
    }
    out += '\nby method\n' + renderTable(per, 2).join('\n') + '\n';
  }
  return out;
}

/** What a cell shows when its figure has nothing to measure (no request, or no successful one for an ok latency). */
const NO_FIGURE = '-';

/** Latency columns: percentiles of successful requests (`latencyMs`), then p99 of all requests (`latencyAllMs`). */
const LATENCY_HEADERS = ['p50 ok ms', 'p99 ok ms', 'p999 ok ms', 'p99 all ms'];

function latencyCells(s: ScopeSummary): string[] {
  // A scope without a successful request has no ok latency: a dash, never a fast-looking 0.
  const ok = s.ok > 0;
  return [
    ok ? fmtMs(s.latencyMs.p50) : NO_FIGURE,
    ok ? fmtMs(s.latencyMs.p99) : NO_FIGURE,
    ok ? fmtMs(s.latencyMs.p999) : NO_FIGURE,
    s.requests > 0 ? fmtMs(s.latencyAllMs.p99) : NO_FIGURE,
  ];
}

/** A rate of a scope's requests as a percentage, or a dash when the scope had no request. */
function fmtRate(s: ScopeSummary, rate: number): string {
  return s.requests > 0 ? fmtPercent(rate) : NO_FIGURE;
}

/**
 * `(F of N requests): 3 timeout, 1200 rejected (entry 1000, provider:threadpool 200), 56 forbidden`:
 * every outcome other than `ok` that happened, in SPEC order, with the rejected causes; undefined
 * when no request failed.
 */
function failuresText(s: ScopeSummary): string | undefined {
  const failed = FAILED_OUTCOMES.filter((o) => s.outcomes[o] > 0);
  if (failed.length === 0) return undefined;
  const total = failed.reduce((sum, o) => sum + s.outcomes[o], 0);
  const parts = failed.map((o) => {
    const text = `${fmtCount(s.outcomes[o])} ${o}`;
    const causes = o === 'rejected' ? Object.entries(s.rejectedCauses ?? {}) : [];
    return causes.length === 0 ? text : `${text} (${causes.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')})`;
  });
  return `(${fmtCount(total)} of ${fmtCount(s.requests)} requests): ${parts.join(', ')}`;
}

const FAILED_OUTCOMES = OUTCOMES.filter((o): o is Exclude<Outcome, 'ok'> => o !== 'ok');

/** `1234 pushes, 1.2 MB, 56 stale calls` when the registry pushed (or a call went to a provider it knew gone). */
function registryText(s: Summary): string | undefined {
  const r = s.registry;
  if (r === undefined || !(r.pushes > 0 || r.staleCalls > 0)) return undefined;
  return `${plural(r.pushes, 'push', 'pushes')}, ${fmtBytes(r.pushBytes)}, ${plural(r.staleCalls, 'stale call', 'stale calls')}`;
}

function plural(n: number, one: string, many: string): string {
  const count = fmtCount(n);
  return `${count} ${count === '1' ? one : many}`;
}

/** Left-aligns the first `leftColumns` columns (the names), right-aligns the figures, two spaces apart. */
function renderTable(rows: string[][], leftColumns = 1): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r.map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd(),
  );
}

function fmtCount(n: number): string {
  // Means over seeds are sums of rounded ratios: 3.0000000001 is 3.
  const whole = Math.round(n);
  return Math.abs(n - whole) < 1e-6 ? String(whole) : n.toFixed(1);
}

/** Decimal units, as `1.2 MB` (1 MB = 10^6 bytes); whole bytes below 1 kB. */
export function fmtBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let i = 0;
  // Move up while the rounded figure would read 1000 or more.
  while (i < units.length - 1 && value >= (i === 0 ? 999.5 : 999.95)) {
    value /= 1000;
    i++;
  }
  return i === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[i]}`;
}

function fmtMs(ms: number): string {
  return ms < 1 ? ms.toFixed(3) : ms.toFixed(2);
}

function fmtPercent(r: number): string {
  return (r * 100).toFixed(3);
}

function fmtSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
