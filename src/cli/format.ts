/**
 * Renderings of summary JSON for people and spreadsheets: the run and compare tables printed by
 * the CLI, `summary.csv` and `timeline.csv`. Everything here is derived from a `Summary`; no
 * figure is computed that the JSON does not already hold.
 *
 * CSV layouts (documented in the README):
 * - `summary.csv`: one row per scope: `overall`, then each `consumerZone`, then each `service`
 *   (`service.method`), with the scope figures flattened (`latencyMs.p99`, ...).
 * - `timeline.csv`: one row per bucket; the `marker` column lists the fault markers that fall in
 *   the bucket as `start <label> @<tMs>ms`, joined by ` | ` (markers before the first bucket go to
 *   the first row, after the last bucket to the last row).
 */
import { stringify } from 'csv-stringify/sync';
import type { FaultMarker, LatencyStats, ScopeSummary, Summary, TimelineRow } from '../metrics/summary.js';

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
  'crossZoneRatio',
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

/** The run command's table: overall and one row per consumer zone, then noProvider causes and CIs. */
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
    ['scope', 'requests', 'p50 ms', 'p99 ms', 'p999 ms', 'timeout %', 'no-provider %', 'duplicates', 'cross-zone %'],
  ];
  const row = (name: string, s: ScopeSummary): string[] => [
    name,
    fmtCount(s.requests),
    fmtMs(s.latencyMs.p50),
    fmtMs(s.latencyMs.p99),
    fmtMs(s.latencyMs.p999),
    fmtPercent(s.timeoutRate),
    fmtPercent(s.noProviderRate),
    fmtCount(s.duplicateExecutions),
    fmtPercent(s.crossZoneRatio),
  ];
  rows.push(row('overall', summary));
  for (const [zone, s] of Object.entries(summary.byConsumerZone)) rows.push(row(zone, s));
  lines.push(...renderTable(rows));
  const causes = Object.entries(summary.noProviderCauses ?? {});
  if (causes.length > 0) {
    lines.push('', `noProvider causes: ${causes.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')}`);
  }
  const rejected = Object.entries(summary.rejectedCauses ?? {});
  if (rejected.length > 0) {
    if (causes.length === 0) lines.push('');
    lines.push(`rejected causes: ${rejected.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')}`);
  }
  const ci = summary.ci95;
  if (ci !== undefined) {
    lines.push(
      '',
      `95% CI (±): requests ${fmtCount(ci.requests ?? 0)}, p99 ${fmtMs(ci['latencyMs.p99'] ?? 0)} ms, ` +
        `timeout ${fmtPercent(ci.timeoutRate ?? 0)} %, no-provider ${fmtPercent(ci.noProviderRate ?? 0)} %`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Strategies side by side: one row per strategy with the headline figures. */
export function formatCompareTable(byStrategy: Record<string, Summary>): string {
  const rows: string[][] = [
    [
      'strategy',
      'requests',
      'p50 ms',
      'p99 ms',
      'p999 ms',
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
      fmtMs(s.latencyMs.p50),
      fmtMs(s.latencyMs.p99),
      fmtMs(s.latencyMs.p999),
      fmtPercent(s.timeoutRate),
      fmtPercent(s.noProviderRate),
      fmtPercent(s.errorRate),
      s.retryAmplification.toFixed(3),
      fmtCount(s.duplicateExecutions),
      fmtPercent(s.crossZoneRatio),
    ]);
  }
  let out = renderTable(rows).join('\n') + '\n';
  // Several methods (e.g. an application's healthy and slow services): each one per strategy too,
  // since one method's failures can hide in the totals of another's traffic.
  const methods = [...new Set(Object.values(byStrategy).flatMap((s) => Object.keys(s.byService)))].sort();
  if (methods.length > 1) {
    const per: string[][] = [['strategy', 'method', 'requests', 'p99 ms', 'timeout %', 'rejected %', 'error %']];
    for (const [name, s] of Object.entries(byStrategy)) {
      for (const m of methods) {
        const x = s.byService[m];
        if (x === undefined) continue;
        per.push([
          name,
          m,
          fmtCount(x.requests),
          fmtMs(x.latencyMs.p99),
          fmtPercent(x.timeoutRate),
          fmtPercent(x.requests === 0 ? 0 : x.outcomes.rejected / x.requests),
          fmtPercent(x.errorRate),
        ]);
      }
    }
    out += '\nby method\n' + renderTable(per).join('\n') + '\n';
  }
  return out;
}

/** Left-aligns the first column, right-aligns the others, two spaces apart. */
function renderTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd(),
  );
}

function fmtCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
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
