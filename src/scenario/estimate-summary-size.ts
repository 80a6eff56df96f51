/**
 * The size of one simulation's summary for the cost estimate (estimate.ts), from the shape of the run
 * alone: the characters of its JSON, which a command keeps until its last simulation ends, and the
 * per-zone and per-group timeline rows, which also weigh on the run's memory.
 */
import type { Scenario } from '../model/types.js';
import { MAX_SCOPE_TIMELINE_ROWS } from '../metrics/recorder.js';

/** Rows of `timelineByZone` and `timelineByProviderGroup` together: 0 beyond the recorder's cap, which leaves both out. */
export function scopeTimelineRows(scenario: Scenario, buckets: number): number {
  const rows = (Object.keys(scenario.zones).length + scenario.providers.length) * buckets;
  return rows <= MAX_SCOPE_TIMELINE_ROWS ? rows : 0;
}

/**
 * The characters of one summary's JSON, from the shape of the run (fitted on every shipped scenario:
 * within ±5%; the 9 characters of `"lost":0` and the 12 of `"blocked":0,` added since to each scope and timeline row): its fixed fields, a scope per consumer zone and per `service.method`, a figure per
 * provider group and zone pair, and a timeline row per bucket, with the per-zone and per-group rows
 * while they fit `MAX_SCOPE_TIMELINE_ROWS`.
 */
const SUMMARY_CHARS = { base: 600, perScope: 622, perProviderGroup: 105, perZonePair: 35, perBucket: 201, perZoneRow: 191, perGroupRow: 90 } as const;

/** The characters of one summary's JSON for `buckets` timeline rows, `callerZones` consumer zones and `methods` methods called. */
export function summaryChars(scenario: Scenario, buckets: number, callerZones: number, methods: number): number {
  const c = SUMMARY_CHARS;
  const zones = Object.keys(scenario.zones).length;
  const groups = scenario.providers.length;
  const scoped = scopeTimelineRows(scenario, buckets) > 0;
  return (
    c.base +
    c.perScope * (callerZones + methods) +
    c.perProviderGroup * groups +
    c.perZonePair * zones * zones +
    buckets * (c.perBucket + (scoped ? c.perZoneRow * callerZones + c.perGroupRow * groups : 0))
  );
}
