/**
 * The registry-as-a-server outputs (SPEC 4, present only when `registry.servers` or `capacity` is
 * set) as the tables show them: the per-node block and the push-lag line of the run table, the
 * push-lag and stale-call columns of the compare table, the timeline columns of `timeline.csv`. Reads them from a summary through the
 * shapes below, so that a summary without them (every scenario without servers) renders exactly
 * as before. Rendering only: the figures are the recorder's.
 */
import type { LatencyStats, ScopeSummary, Summary, TimelineRow } from '../metrics/summary.js';
import { fmtBytes, fmtCount, fmtMs, renderTable, type FigureColumn } from './format.js';

/** One registry node's figures (SPEC 4 `registry.servers.<node>`); utilizations are 0..1. */
export interface RegistryServerFigures {
  zone: string;
  nicOut: { peakUtilization: number; meanUtilization: number };
  nicIn: { peakUtilization: number; meanUtilization: number };
  peakQueueBytes: number;
  requestsServed: number;
  requestsRefused: number;
  sessionsExpired: number;
  registrationsFailed: number;
  registrationsRetried: number;
  pushesLost: number;
  pushesMerged: number;
  bytesOut: number;
  bytesIn: number;
}

/** The registry block of a summary with the server outputs it may carry. */
export type RegistryWithServers = Summary['registry'] & { servers?: Record<string, RegistryServerFigures>; pushLagMs?: LatencyStats };

/** A timeline row with the registry-server columns it may carry (SPEC 4.1). */
export type RegistryTimelineRow = TimelineRow & { registryBytes?: number; registryUtilization?: number; pushLagP99Ms?: number; sessionsExpired?: number };

/** The registry-server timeline columns, in SPEC 4.1 order (`timeline.csv` adds them after `pushes` when present). */
export const REGISTRY_TIMELINE_COLUMNS = ['registryBytes', 'registryUtilization', 'pushLagP99Ms', 'sessionsExpired'] as const;

/** The registry block of `s`, read with its optional server outputs. */
export const registryOf = (s: Summary): RegistryWithServers | undefined => s.registry as RegistryWithServers | undefined;

const pct = (x: number): string => `${(x * 100).toFixed(1)}`;

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
        n.zone,
        pct(n.nicOut.peakUtilization),
        pct(n.nicOut.meanUtilization),
        pct(n.nicIn.peakUtilization),
        pct(n.nicIn.meanUtilization),
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

/**
 * The compare table's registry columns, when a strategy's summary has the push lag (the registry is
 * a server): its p99 and the stale calls, with their 95% half-widths over several seeds.
 */
export function registryCompareColumns(summaries: readonly Summary[]): FigureColumn[] {
  if (!summaries.some((s) => registryOf(s)?.pushLagMs !== undefined)) return [];
  // Zone and method rows are scopes without a registry block: their cells show a dash.
  const registry = (s: ScopeSummary) => (s as Partial<Summary>).registry as RegistryWithServers | undefined;
  return [
    { header: 'push lag p99 ms', value: (s) => registry(s)?.pushLagMs?.p99, text: fmtMs, halfWidth: (s) => s.ci95?.['registry.pushLagMs.p99'] },
    { header: 'stale calls', value: (s) => registry(s)?.staleCalls, text: fmtCount, halfWidth: (s) => s.ci95?.['registry.staleCalls'] },
  ];
}
