/**
 * Renderings of summary JSON for people and spreadsheets: the run table printed by the CLI, the
 * figure columns, cells and zone-pair table it shares with the compare table (compare-table.ts),
 * `summary.csv` and `timeline.csv`. Everything here is derived from a `Summary`; no figure is
 * computed that the JSON does not already hold. The tables never hide a failure: they always
 * carry `error %` and `p99 all ms`, mark ok-only latencies as such, and list the failed outcomes
 * and the registry's pushes under the table.
 *
 * CSV layouts (documented in docs/outputs.md, "CSV files"):
 * - `summary.csv`: one row per scope: `overall`, then each `consumerZone`, then each `service`
 *   (`service.method`), with the scope figures flattened (`latencyMs.p99`, ...).
 * - `timeline.csv`: one row per bucket; the `marker` column lists the fault markers that fall in
 *   the bucket as `start <label> @<tMs>ms`, joined by ` | ` (markers before the first bucket go to
 *   the first row, after the last bucket to the last row).
 */
import { stringify } from 'csv-stringify/sync';
import { BLOCKED_ANSWERED_SUFFIX } from '../metrics/observer.js';
import { FAILED_OUTCOMES, type FaultMarker, type LatencyStats, type ScopeSummary, type Summary, type TimelineRow } from '../metrics/summary.js';
import { REGISTRY_TIMELINE_COLUMNS, registryOf, type RegistryTimelineRow } from './registry-servers.js';

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
  'mock',
  'blocked',
  'lost',
  'timeoutRate',
  'noProviderRate',
  'errorRate',
  'mockRate',
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
    o.mock ?? 0,
    o.blocked ?? 0,
    o.lost ?? 0,
    s.timeoutRate,
    s.noProviderRate,
    s.errorRate,
    s.mockRate ?? 0,
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
  'mock',
  'blocked',
  'lost',
  'p99Ms',
  'p99OkMs',
  'crossZoneRatio',
  'pushes',
] as const satisfies ReadonlyArray<keyof TimelineRow>;

/** Rows of `timeline.csv` stringified at a time. */
const CSV_BATCH_ROWS = 1024;

/** `timeline.csv`: a header and one row per bucket, with fault markers in a `marker` column. */
export function timelineCsv(summary: Summary): string {
  const timeline = summary.timeline;
  const markers = new Map<number, string[]>();
  if (timeline.length > 0) {
    for (const m of summary.faults ?? []) {
      const i = rowOfMarker(timeline, m);
      markers.set(i, [...(markers.get(i) ?? []), markerText(m)]);
    }
  }
  // The registry-server columns (registry-servers.ts) only when the run has them: other files keep their layout.
  const extra = REGISTRY_TIMELINE_COLUMNS.filter((k) => timeline.some((r) => (r as RegistryTimelineRow)[k] !== undefined));
  // PERF: in batches of rows (each CSV record stands alone, so the text is the same): a cell array per
  // bucket for the whole timeline at once took more memory than the run (62,500 buckets: 117 MB).
  const parts = [stringify([[...TIMELINE_COLUMNS, ...extra, 'marker']])];
  for (let from = 0; from < timeline.length; from += CSV_BATCH_ROWS) {
    const rows = timeline.slice(from, from + CSV_BATCH_ROWS).map((row, k) => [
      ...TIMELINE_COLUMNS.map((c) => row[c] ?? 0),
      ...extra.map((c) => (row as RegistryTimelineRow)[c] ?? 0),
      (markers.get(from + k) ?? []).join(' | '),
    ]);
    parts.push(stringify(rows));
  }
  return parts.join('');
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
 * outcome other than `ok` and `mock`, with rejected causes), a `mocked` line, the noProvider causes, the registry's pushes
 * when it pushed, the registry servers' push lag and per-node block (registry-servers.ts) when the
 * registry is a server, the confidence half-widths of a multi-seed run, and with three or more zones the
 * zone-pair table. Latency columns marked `ok` cover successful requests only; `p99 all ms` and
 * `error %` make sure that a run in which every request failed never reads as fast or as 0%. A
 * `dup writes` column shows when a method is not idempotent.
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
  const columns = figureColumns([summary], { attemptsPerRequest: false });
  const rows: string[][] = [['scope', ...columns.map((c) => c.header)]];
  // The run table keeps the means in its cells and gives the half-widths on a line of their own.
  rows.push(['overall', ...columns.map((c) => figureCell(c, summary, false))]);
  for (const [zone, s] of Object.entries(summary.byConsumerZone)) rows.push([zone, ...columns.map((c) => figureCell(c, s, false))]);
  lines.push(...renderTable(rows));
  const notes: string[] = [];
  const failures = failuresText(summary);
  if (failures !== undefined) notes.push(`failures ${failures}`);
  const mocked = mockedText(summary);
  if (mocked !== undefined) notes.push(`mocked ${mocked}`);
  const fallback = fallbackText(summary);
  if (fallback !== undefined) notes.push(`answered by Sentinel fallbacks ${fallback}`);
  const causes = Object.entries(summary.noProviderCauses ?? {});
  if (causes.length > 0) notes.push(`noProvider causes: ${causes.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')}`);
  const registry = registryText(summary);
  if (registry !== undefined) notes.push(`registry: ${registry}`);
  const jute = juteText(summary);
  if (jute !== undefined) notes.push(jute);
  if (notes.length > 0) lines.push('', ...notes);
  const servers = registryServerLines(summary);
  if (servers.length > 0) lines.push('', ...servers);
  const ci = summary.ci95;
  if (ci !== undefined) {
    lines.push(
      '',
      `95% CI (±): requests ${fmtCount(ci.requests ?? 0)}, p99 ok ${fmtMs(ci['latencyMs.p99'] ?? 0)} ms, ` +
        `timeout ${fmtPercent(ci.timeoutRate ?? 0)} %, no-provider ${fmtPercent(ci.noProviderRate ?? 0)} %, ` +
        `error ${fmtPercent(ci.errorRate ?? 0)} %`,
    );
  }
  const pairs = zonePairTable([{ lead: [], summary }], []);
  if (pairs !== undefined) lines.push('', ...pairs);
  return lines.join('\n') + '\n';
}

/** A figure column of the run and compare tables: its header, the figure in a scope, its text and its 95% half-width. */
export interface FigureColumn {
  header: string;
  /** The figure, or undefined when the scope has nothing to measure (the cell shows a dash). */
  value: (s: ScopeSummary) => number | undefined;
  text: (x: number) => string;
  /** The half-width of the figure's 95% interval in a summary over several seeds (`ci95`), else undefined. */
  halfWidth: (s: ScopeSummary) => number | undefined;
}

function column(header: string, path: string, value: FigureColumn['value'], text: FigureColumn['text']): FigureColumn {
  return { header, value, text, halfWidth: (s) => s.ci95?.[path] };
}

// A scope without a successful request has no ok latency: a dash, never a fast-looking 0.
const okLatency = (key: 'p50' | 'p99' | 'p999') => (s: ScopeSummary) => (s.ok > 0 ? s.latencyMs[key] : undefined);
/** A rate of a scope's requests, or nothing when the scope had no request. */
const rateOf = (rate: (s: ScopeSummary) => number) => (s: ScopeSummary) => (s.requests > 0 ? rate(s) : undefined);

/** Every figure column the run and compare tables may show, in their order. */
export const FIGURE_COLUMNS = {
  requests: column('requests', 'requests', (s) => s.requests, fmtCount),
  p50: column('p50 ok ms', 'latencyMs.p50', okLatency('p50'), fmtMs),
  p99: column('p99 ok ms', 'latencyMs.p99', okLatency('p99'), fmtMs),
  p999: column('p999 ok ms', 'latencyMs.p999', okLatency('p999'), fmtMs),
  p99All: column('p99 all ms', 'latencyAllMs.p99', (s) => (s.requests > 0 ? s.latencyAllMs.p99 : undefined), fmtMs),
  timeout: column('timeout %', 'timeoutRate', rateOf((s) => s.timeoutRate), fmtPercent),
  noProvider: column('no-provider %', 'noProviderRate', rateOf((s) => s.noProviderRate), fmtPercent),
  // The summary has no rejected rate, only the count: its half-width over the mean requests (seeds
  // of one scenario start about as many requests each).
  rejected: {
    header: 'rejected %',
    value: rateOf((s) => s.outcomes.rejected / s.requests),
    text: fmtPercent,
    halfWidth: (s) => (s.ci95?.['outcomes.rejected'] === undefined || !(s.requests > 0) ? undefined : s.ci95['outcomes.rejected'] / s.requests),
  },
  error: column('error %', 'errorRate', rateOf((s) => s.errorRate), fmtPercent),
  mock: column('mock %', 'mockRate', rateOf((s) => s.mockRate ?? 0), fmtPercent),
  attemptsPerRequest: column('attempts/req', 'retryAmplification', (s) => s.retryAmplification, (x) => x.toFixed(3)),
  duplicates: column('duplicates', 'duplicateExecutions', (s) => s.duplicateExecutions, fmtCount),
  dupWrites: column('dup writes', 'duplicateWrites', (s) => s.duplicateWrites, fmtCount),
  crossZone: column('cross-zone %', 'crossZoneRatio', (s) => s.crossZoneRatio, fmtPercent),
} satisfies Record<string, FigureColumn>;

/**
 * The headline columns for these summaries: `attempts/req` unless left out, `mock %` when a mock
 * answered a request, and `dup writes` when a method is not idempotent (or a file from an older
 * version counted a duplicate write).
 */
export function figureColumns(summaries: Summary[], opts: { attemptsPerRequest: boolean }): FigureColumn[] {
  const c = FIGURE_COLUMNS;
  const writes = summaries.some((s) => (s.nonIdempotentMethods?.length ?? 0) > 0 || s.duplicateWrites > 0);
  const mocked = summaries.some((s) => (s.outcomes.mock ?? 0) > 0);
  return [
    c.requests,
    c.p50,
    c.p99,
    c.p999,
    c.p99All,
    c.timeout,
    c.noProvider,
    c.error,
    ...(mocked ? [c.mock] : []),
    ...(opts.attemptsPerRequest ? [c.attemptsPerRequest] : []),
    c.duplicates,
    ...(writes ? [c.dupWrites] : []),
    c.crossZone,
  ];
}

/** A scope's cell of a column: the figure, `mean ± half-width` over several seeds (when `withCi`), or a dash. */
export function figureCell(c: FigureColumn, s: ScopeSummary, withCi = true): string {
  const value = c.value(s);
  if (value === undefined) return NO_FIGURE;
  const half = withCi ? c.halfWidth(s) : undefined;
  return half === undefined ? c.text(value) : `${c.text(value)} ± ${c.text(half)}`;
}

/**
 * The zone-pair table when the summaries have three or more zones (else undefined): a title, then
 * per summary (its `lead` cells first) one row per consumer zone that sent attempts, with their
 * count and the share of them each provider zone received.
 */
export function zonePairTable(entries: Array<{ lead: string[]; summary: Summary }>, leadHeaders: string[]): string[] | undefined {
  const zones: string[] = [];
  for (const { summary } of entries) {
    for (const [consumer, row] of Object.entries(summary.crossZoneByPair ?? {})) {
      for (const zone of [consumer, ...Object.keys(row)]) if (!zones.includes(zone)) zones.push(zone);
    }
  }
  if (zones.length < 3) return undefined;
  const rows: string[][] = [[...leadHeaders, 'consumer zone', 'attempts', ...zones.map((z) => `to ${z}`)]];
  for (const { lead, summary } of entries) {
    for (const [consumer, row] of Object.entries(summary.crossZoneByPair ?? {})) {
      const attempts = Object.values(row).reduce((a, b) => a + b, 0);
      if (!(attempts > 0)) continue;
      rows.push([...lead, consumer, fmtCount(attempts), ...zones.map((z) => fmtPercent((row[z] ?? 0) / attempts))]);
    }
  }
  return ["attempts by zone pair: % of each consumer zone's attempts that went to each provider zone", ...renderTable(rows, leadHeaders.length + 1)];
}

/** What a cell shows when its figure has nothing to measure (no request, or no successful one for an ok latency). */
export const NO_FIGURE = '-';

/**
 * `(F of N requests): 3 timeout, 1200 rejected (entry 1000, provider:threadpool 200), 56 forbidden`:
 * every outcome other than `ok` and `mock` that happened, in SPEC order, with the rejected and blocked causes; undefined
 * when no request failed.
 */
export function failuresText(s: ScopeSummary): string | undefined {
  // A blocked call a Sentinel fallback answered is no failure (errorRate leaves it out): see `fallbackText`.
  const answered = fallbackCauses(s);
  const failedOf = (o: (typeof FAILED_OUTCOMES)[number]) => (s.outcomes[o] ?? 0) - (o === 'blocked' ? answered.reduce((n, [, k]) => n + k, 0) : 0);
  const failed = FAILED_OUTCOMES.filter((o) => failedOf(o) > 0);
  if (failed.length === 0) return undefined;
  const total = failed.reduce((sum, o) => sum + failedOf(o), 0);
  const parts = failed.map((o) => {
    const text = `${fmtCount(failedOf(o))} ${o}`;
    const causes =
      o === 'rejected'
        ? Object.entries(s.rejectedCauses ?? {})
        : o === 'blocked'
          ? Object.entries(s.blockedCauses ?? {}).filter(([cause]) => !cause.endsWith(BLOCKED_ANSWERED_SUFFIX))
          : [];
    return causes.length === 0 ? text : `${text} (${causes.map(([cause, n]) => `${cause} ${fmtCount(n)}`).join(', ')})`;
  });
  return `(${fmtCount(total)} of ${fmtCount(s.requests)} requests): ${parts.join(', ')}`;
}


/** The `blockedCauses` a Sentinel fallback answered with a value. */
function fallbackCauses(s: ScopeSummary): [string, number][] {
  return Object.entries(s.blockedCauses ?? {}).filter(([cause]) => cause.endsWith(BLOCKED_ANSWERED_SUFFIX));
}

/**
 * `(M of N requests): 3 consumer:flow:fallback`: the blocked calls a Sentinel fallback answered with a value,
 * by cause; undefined when none was. Like mocked ones, they are neither ok nor failures.
 */
export function fallbackText(s: ScopeSummary): string | undefined {
  const causes = fallbackCauses(s);
  const n = causes.reduce((sum, [, k]) => sum + k, 0);
  if (!(n > 0)) return undefined;
  return `(${fmtCount(n)} of ${fmtCount(s.requests)} requests): ${causes.map(([cause, k]) => `${fmtCount(k)} ${cause}`).join(', ')}`;
}

/**
 * `(M of N requests): 40 fail:return, 2 force:throw`: the requests MockClusterInvoker answered, by
 * `mockCauses`; undefined when none was. They are neither ok nor failures.
 */
export function mockedText(s: ScopeSummary): string | undefined {
  const n = s.outcomes.mock ?? 0;
  if (!(n > 0)) return undefined;
  const causes = Object.entries(s.mockCauses ?? {}).map(([cause, k]) => `${fmtCount(k)} ${cause}`);
  return `(${fmtCount(n)} of ${fmtCount(s.requests)} requests)${causes.length > 0 ? `: ${causes.join(', ')}` : ''}`;
}

/**
 * `1234 pushes, 1.2 MB, 56 stale calls` when the registry pushed (or a call went to a provider it knew
 * gone); with pushes at both discovery levels, the split follows the bytes: `(interface 800, application 434)`.
 */
export function registryText(s: Summary): string | undefined {
  const r = s.registry;
  if (r === undefined || !(r.pushes > 0 || r.staleCalls > 0)) return undefined;
  const i = r.byLevel?.interface;
  const a = r.byLevel?.application;
  const split = i !== undefined && a !== undefined ? ` (interface ${fmtCount(i.pushes)}, application ${fmtCount(a.pushes)})` : '';
  return `${plural(r.pushes, 'push', 'pushes')}, ${fmtBytes(r.pushBytes)}${split}, ${plural(r.staleCalls, 'stale call', 'stale calls')}`;
}

/**
 * The line naming the lists that ZooKeeper clients refused for `jute.maxbuffer` (events
 * `registry.juteMaxBufferExceeded`, counted per consumer instance): such a consumer keeps its last list, so an
 * estate whose lists outgrow the limit shows only `directory:empty` or stale calls without it.
 */
export function juteText(s: Summary): string | undefined {
  const n = s.events?.['registry.juteMaxBufferExceeded'] ?? 0;
  if (!(n > 0)) return undefined;
  return `jute.maxbuffer: ${plural(n, 'list reply', 'list replies')} refused by consumers' ZooKeeper clients (each keeps its last list; registry.juteMaxBuffer sets the limit)`;
}

const pct1 = (x: number): string => `${(x * 100).toFixed(1)}`;

/**
 * The run table's registry-server lines: `push lag ms: p50 …, p99 …` when pushes were delivered, then
 * one row per node (NIC out and in, peak and mean %, peak queue, requests, sessions, registrations,
 * pushes lost and merged); empty when the summary has neither.
 */
export function registryServerLines(s: Summary): string[] {
  const r = registryOf(s);
  const lines: string[] = [];
  const lag = r?.pushLagMs;
  if (lag !== undefined) {
    lines.push(`registry push lag ms: p50 ${fmtMs(lag.p50)}, p90 ${fmtMs(lag.p90)}, p99 ${fmtMs(lag.p99)}, max ${fmtMs(lag.max)} (queueing + sending + network pushLag)`);
  }
  const nodes = Object.entries(r?.servers ?? {});
  if (nodes.length > 0) {
    const rows: string[][] = [
      ['node', 'zone', 'out peak %', 'out mean %', 'in peak %', 'in mean %', 'peak queue', 'served', 'refused', 'sessions expired', 'reg failed', 'reg retried', 'pushes lost', 'pushes merged'],
    ];
    for (const [name, n] of nodes) {
      rows.push([
        name,
        n.zone ?? '',
        pct1(n.nicOut.peakUtilization),
        pct1(n.nicOut.meanUtilization),
        pct1(n.nicIn.peakUtilization),
        pct1(n.nicIn.meanUtilization),
        fmtBytes(n.peakQueueBytes),
        fmtCount(n.requestsServed),
        fmtCount(n.requestsRefused),
        fmtCount(n.sessionsExpired),
        fmtCount(n.registrationsFailed),
        fmtCount(n.registrationsRetried),
        fmtCount(n.pushesLost),
        fmtCount(n.pushesMerged),
      ]);
    }
    lines.push('registry servers (NIC utilization over the measured window; requests, sessions and pushes counted per node):', ...renderTable(rows, 2));
  }
  return lines;
}

function plural(n: number, one: string, many: string): string {
  const count = fmtCount(n);
  return `${count} ${count === '1' ? one : many}`;
}

/** Left-aligns the first `leftColumns` columns (the names), right-aligns the figures, two spaces apart. */
export function renderTable(rows: string[][], leftColumns = 1): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r.map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd(),
  );
}

export function fmtCount(n: number): string {
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

export function fmtMs(ms: number): string {
  return ms < 1 ? ms.toFixed(3) : ms.toFixed(2);
}

export function fmtPercent(r: number): string {
  return (r * 100).toFixed(3);
}

function fmtSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
