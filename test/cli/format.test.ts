import { describe, expect, it } from 'vitest';
import { formatCompareTable, formatRunTable, summaryCsv, timelineCsv } from '../../src/cli/format.js';
import { aggregateSummaries } from '../../src/metrics/aggregate.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';

/** A small run: two zones, two methods, one timeout, one noProvider, one fault window. */
function sampleSummary(seed = 1, extraOk = 0): Summary {
  const r = new Recorder({
    warmupMs: 1000,
    durationMs: 4000,
    bucketMs: 1000,
    providerGroups: [{ name: 'users-a', instances: 2, threads: 10 }],
  });
  const call = (startMs: number, zone: string, method: string, outcome: 'ok' | 'timeout' | 'noProvider', latencyMs: number, cross = false): void => {
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: zone, service: 'com.example.UserService', method, idempotent: true, startMs });
    if (outcome !== 'noProvider') {
      r.attempt(req, { crossZone: cross, stale: false, providerGroup: 'users-a' });
      r.execution(req, 'users-a');
    }
    r.endRequest(req, outcome, startMs + latencyMs, outcome === 'noProvider' ? 'router:condition' : undefined);
  };
  call(1100, 'zoneA', 'getUserById', 'ok', 20);
  call(1200, 'zoneA', 'getUserById', 'ok', 40);
  call(1300, 'zoneB', 'updateUser', 'ok', 250, true);
  call(2100, 'zoneB', 'getUserById', 'timeout', 1000);
  call(2200, 'zoneA', 'updateUser', 'noProvider', 0);
  for (let i = 0; i < extraOk; i++) call(3100 + i, 'zoneA', 'getUserById', 'ok', 10);
  r.marker({ tMs: 2000, kind: 'start', label: 'zoneDown zoneA' });
  r.marker({ tMs: 2500, kind: 'end', label: 'zoneDown zoneA' });
  r.marker({ tMs: 500, kind: 'start', label: 'slowdown zoneB' });
  r.finish({ simulatedMs: 4000, providerGroups: [{ name: 'users-a', busyMs: 100, peakActiveThreads: 2 }], inFlight: 0 });
  return r.summary({ scenario: 'sample', seed, seeds: [seed], version: '0.1.0' });
}

function csvRows(text: string): string[][] {
  return text.trimEnd().split('\n').map((line) => line.split(','));
}

describe('summaryCsv', () => {
  it('has one row per scope: overall, each consumer zone, each service method', () => {
    const rows = csvRows(summaryCsv(sampleSummary()));
    expect(rows.map((r) => `${r[0]}/${r[1]}`)).toEqual([
      'scope/name',
      'overall/',
      'consumerZone/zoneA',
      'consumerZone/zoneB',
      'service/com.example.UserService.getUserById',
      'service/com.example.UserService.updateUser',
    ]);
  });

  it('names its columns after the summary fields', () => {
    const [header] = csvRows(summaryCsv(sampleSummary()));
    expect(header!.slice(0, 8)).toEqual(['scope', 'name', 'requests', 'ok', 'timeout', 'noProvider', 'rejected', 'network']);
    expect(header).toContain('latencyMs.p99');
    expect(header).toContain('latencyAllMs.p999');
    expect(header!.at(-1)).toBe('crossZoneRatio');
  });

  it('writes the figures of each scope', () => {
    const rows = csvRows(summaryCsv(sampleSummary()));
    const header = rows[0]!;
    const overall = Object.fromEntries(header.map((h, i) => [h, rows[1]![i]]));
    expect([overall.requests, overall.ok, overall.timeout, overall.noProvider, overall.errorRate, overall.crossZoneRatio]).toEqual(
      ['5', '3', '1', '1', '0.4', '0.25'],
    );
  });
});

describe('timelineCsv', () => {
  it('has one row per bucket and puts fault markers in the bucket where they happen', () => {
    const rows = csvRows(timelineCsv(sampleSummary()));
    expect(rows[0]).toEqual(['tMs', 'requests', 'ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz', 'p99Ms', 'crossZoneRatio', 'marker']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r.at(-1)])).toEqual([
      ['1000', '3', 'start slowdown zoneB @500ms'],
      ['2000', '2', 'start zoneDown zoneA @2000ms | end zoneDown zoneA @2500ms'],
      ['3000', '0', ''],
    ]);
  });
});

describe('formatRunTable', () => {
  it('prints overall and one row per consumer zone, then the noProvider causes', () => {
    expect(formatRunTable(sampleSummary())).toBe(
      [
        'sample: seed 1',
        'simulated 4 s, measured from 1 s',
        '',
        'scope    requests  p50 ms  p99 ms  p999 ms  timeout %  no-provider %  duplicates  cross-zone %',
        'overall         5   40.03  250.00   250.00     20.000         20.000           0        25.000',
        'zoneA           3   20.02   40.00    40.00      0.000         33.333           0         0.000',
        'zoneB           2  250.00  250.00   250.00     50.000          0.000           0        50.000',
        '',
        'noProvider causes: router:condition 1',
        '',
      ].join('\n'),
    );
  });

  it('names the seeds and adds the 95% confidence half-widths of a multi-seed run', () => {
    const text = formatRunTable(aggregateSummaries([sampleSummary(1), sampleSummary(2, 5)]));
    const lines = text.split('\n');
    expect(lines[0]).toBe('sample: mean of 2 seeds (1, 2)');
    expect(lines.find((l) => l.startsWith('overall'))).toMatch(/^overall\s+7\.5\s/);
    expect(lines.at(-2)).toMatch(/^95% CI \(±\): requests 31\.8, p99 0\.000 ms, timeout 63\.531 %, no-provider 63\.531 %$/);
  });

  it('leaves out the causes line when every request found a provider', () => {
    const s = sampleSummary();
    s.noProviderCauses = {};
    expect(formatRunTable(s)).not.toContain('noProvider causes');
  });
});

describe('formatCompareTable', () => {
  it('prints a header and one row per strategy, in the given order', () => {
    const lines = formatCompareTable({ zoneAware: sampleSummary(1, 4), failover: sampleSummary() }).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^strategy\s+requests\s+p50 ms\s+p99 ms\s+p999 ms\s+timeout %\s+no-provider %\s+error %/);
    expect(lines[1]).toMatch(/^zoneAware\s+9\s/);
    expect(lines[2]).toMatch(/^failover\s+5\s+40\.03\s+250\.00\s+250\.00\s+20\.000\s+20\.000\s+40\.000\s+0\.800\s+0\s+25\.000$/);
  });
});
