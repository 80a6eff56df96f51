/**
 * The registry-as-a-server outputs (SPEC 4, present only when `registry.servers` or `capacity` is
 * set) as the renderings read them from a summary: the shapes of the per-node figures and the
 * timeline columns, optional, so that a summary without them (every scenario without servers)
 * renders exactly as before. The run table's block and `timeline.csv` are format.ts's, the compare
 * columns compare-table.ts's, the charts report.ts's. The figures are the recorder's.
 */
import type { LatencyStats, RegistryServerSummary, Summary, TimelineRow } from '../metrics/summary.js';

/** One registry node's figures (SPEC 4 `registry.servers.<node>`); utilizations are 0..1. */
export type RegistryServerFigures = RegistryServerSummary;

/** The registry block of a summary with the server outputs it may carry. */
export type RegistryWithServers = Summary['registry'] & { servers?: Record<string, RegistryServerFigures>; pushLagMs?: LatencyStats };

/** A timeline row with the registry-server columns it may carry (SPEC 4.1). */
export type RegistryTimelineRow = TimelineRow & { registryBytes?: number; registryUtilization?: number; pushLagP99Ms?: number; sessionsExpired?: number };

/** The registry-server timeline columns, in SPEC 4.1 order (`timeline.csv` adds them after `pushes` when present). */
export const REGISTRY_TIMELINE_COLUMNS = ['registryBytes', 'registryUtilization', 'pushLagP99Ms', 'sessionsExpired'] as const;

/** The registry block of `s`, read with its optional server outputs. */
export const registryOf = (s: Summary): RegistryWithServers | undefined => s.registry as RegistryWithServers | undefined;
