import { describe, expect, it } from 'vitest';
import { formatCompareTable, formatRunTable, summaryCsv, timelineCsv } from '../../src/cli/format.js';
import { aggregateSummaries } from '../../src/metrics/aggregate.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';

interface Call {
  startMs: number;
  zone: string;
  method: string;
  outcome: 'ok' | 'timeout' | 'noProvider';
  latencyMs: number;
  cross?: boolean;
}

const SERVICE = 'com.example.UserService';

/** A small run: two zones, two methods, one timeout, one noProvider, one fault window. */
const CALLS: Call[] = [
  { startMs: 1100, zone: 'zoneA', method: 'getUserById', outcome: 'ok', latencyMs: 20 },
  { startMs: 1200, zone: 'zoneA', method: 'getUserById', outcome: 'ok', latencyMs: 40 },
  { startMs: 1300, zone: 'zoneB', method: 'updateUser', outcome: 'ok', latencyMs: 250, cross: true },
  { startMs: 2100, zone: 'zoneB', method: 'getUserById', outcome: 'timeout', latencyMs: 1000 },
  { startMs: 2200, zone: 'zoneA', method: 'updateUser', outcome: 'noProvider', latencyMs: 0 },
];

/** `extraOk` fast successes in zoneA from 3.1 s on, to vary the figures between seeds. */
const extraCalls = (extraOk: number): Call[] =>
  Array.from({ length: extraOk }, (_, i) => ({ startMs: 3100 + i, zone: 'zoneA', method: 'getUserById', outcome: 'ok', latencyMs: 10 }));

const WARMUP_MS = 1000;
const DURATION_MS = 4000;
const BUCKET_MS = 1000;

function sampleSummary(seed = 1, extraOk = 0): Summary {
  const r = new Recorder({
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    bucketMs: BUCKET_MS,
    providerGroups: [{ name: 'users-a', instances: 2, threads: 10 }],
  });
  for (const c of [...CALLS, ...extraCalls(extraOk)]) {
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: c.zone, service: SERVICE, method: c.method, idempotent: true, startMs: c.startMs });
    if (c.outcome !== 'noProvider') {
      r.attempt(req, { crossZone: c.cross ?? false, stale: false, providerGroup: 'users-a' });
      r.execution(req, 'users-a');
    }
    r.endRequest(req, c.outcome, c.startMs + c.latencyMs, c.outcome === 'noProvider' ? 'router:condition' : undefined);
  }
  r.marker({ tMs: 2000, kind: 'start', label: 'zoneDown zoneA' });
  r.marker({ tMs: 2500, kind: 'end', label: 'zoneDown zoneA' });
  r.marker({ tMs: 500, kind: 'start', label: 'slowdown zoneB' });
  r.finish({ simulatedMs: DURATION_MS, providerGroups: [{ name: 'users-a', busyMs: 100, peakActiveThreads: 2 }], inFlight: 0 });
  return r.summary({ scenario: 'sample', seed, seeds: [seed], version: '0.1.0' });
}

/**
 * The value HdrHistogram (3 significant digits, unit 1 µs) reports for a recorded latency: values
 * below 2048 µs are exact; above, a power-of-two range [2^k, 2^(k+1)) is split into 1024 bins of
 * width 2^(k-10), and a percentile reads the highest value of its bin.
 */
function hdrReportedMs(ms: number): number {
  const us = Math.round(ms * 1000);
  if (us < 2048) return us / 1000;
  const width = 2 ** (Math.floor(Math.log2(us)) - 10);
  return (Math.floor(us / width) * width + width - 1) / 1000;
}

/** A latency percentile of successful calls: HdrHistogram's rank ceil(p·n), capped at the exact maximum. */
function okPercentileMs(calls: Call[], percentile: number): number {
  const values = calls.filter((c) => c.outcome === 'ok').map((c) => c.latencyMs).sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((percentile / 100) * values.length));
  return Math.min(hdrReportedMs(values[rank - 1]!), values.at(-1)!);
}

/** The figures of a scope, counted from its calls (each call that found a provider made one attempt). */
function figures(calls: Call[]) {
  const n = calls.length;
  const count = (outcome: Call['outcome']) => calls.filter((c) => c.outcome === outcome).length;
  const attempts = calls.filter((c) => c.outcome !== 'noProvider');
  return {
    requests: n,
    ok: count('ok'),
    timeout: count('timeout'),
    noProvider: count('noProvider'),
    timeoutRate: count('timeout') / n,
    noProviderRate: count('noProvider') / n,
    errorRate: (n - count('ok')) / n,
    attemptsPerRequest: attempts.length / n,
    crossZoneRatio: attempts.filter((c) => c.cross).length / attempts.length,
    p50: okPercentileMs(calls, 50),
    p99: okPercentileMs(calls, 99),
    p999: okPercentileMs(calls, 99.9),
  };
}

// The tables print milliseconds with 2 decimals and percentages with 3.
const ms = (x: number) => x.toFixed(2);
const pct = (ratio: number) => (ratio * 100).toFixed(3);

/** A table row split into its cells (no cell of these tables contains a space). */
const cells = (line: string | undefined) => line!.trim().split(/\s+/);

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
    const f = figures(CALLS);
    expect([overall.requests, overall.ok, overall.timeout, overall.noProvider, overall.errorRate, overall.crossZoneRatio]).toEqual(
      [f.requests, f.ok, f.timeout, f.noProvider, f.errorRate, f.crossZoneRatio].map(String),
    );
  });
});

describe('timelineCsv', () => {
  it('has one row per bucket and puts fault markers in the bucket where they happen', () => {
    const rows = csvRows(timelineCsv(sampleSummary()));
    expect(rows[0]).toEqual(['tMs', 'requests', 'ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz', 'p99Ms', 'crossZoneRatio', 'marker']);
    // Buckets start at the warmup's end; a marker before the first bucket goes to the first row.
    const starts = Array.from({ length: (DURATION_MS - WARMUP_MS) / BUCKET_MS }, (_, i) => WARMUP_MS + i * BUCKET_MS);
    const inBucket = (t: number) => CALLS.filter((c) => c.startMs >= t && c.startMs < t + BUCKET_MS).length;
    const markers: Record<number, string> = {
      1000: 'start slowdown zoneB @500ms',
      2000: 'start zoneDown zoneA @2000ms | end zoneDown zoneA @2500ms',
    };
    expect(rows.slice(1).map((r) => [r[0], r[1], r.at(-1)])).toEqual(
      starts.map((t) => [String(t), String(inBucket(t)), markers[t] ?? '']),
    );
  });
});

describe('formatRunTable', () => {
  /** The cells the run table shows for a scope: figures derived from its calls. */
  const runRow = (name: string, calls: Call[]) => {
    const f = figures(calls);
    return [name, String(f.requests), ms(f.p50), ms(f.p99), ms(f.p999), pct(f.timeoutRate), pct(f.noProviderRate), '0', pct(f.crossZoneRatio)];
  };

  it('prints overall and one row per consumer zone, then the noProvider causes', () => {
    const lines = formatRunTable(sampleSummary()).split('\n');
    expect(lines.slice(0, 3)).toEqual(['sample: seed 1', `simulated ${DURATION_MS / 1000} s, measured from ${WARMUP_MS / 1000} s`, '']);
    expect(lines[3]).toBe('scope    requests  p50 ms  p99 ms  p999 ms  timeout %  no-provider %  duplicates  cross-zone %');
    expect(lines.slice(4, 7).map(cells)).toEqual([
      runRow('overall', CALLS),
      runRow('zoneA', CALLS.filter((c) => c.zone === 'zoneA')),
      runRow('zoneB', CALLS.filter((c) => c.zone === 'zoneB')),
    ]);
    const noProvider = CALLS.filter((c) => c.outcome === 'noProvider').length;
    expect(lines.slice(7)).toEqual(['', `noProvider causes: router:condition ${noProvider}`, '']);
  });

  it('right-aligns every figure under the end of its column header, two spaces apart', () => {
    const lines = formatRunTable(sampleSummary()).split('\n');
    const header = lines[3]!;
    const ends = [...header.matchAll(/\S+(?: \S+)?(?: %)?/g)].map((m) => m.index! + m[0].length);
    expect(ends).toHaveLength(9);
    for (const line of lines.slice(4, 7)) {
      const cellEnds = [...line.matchAll(/\S+/g)].map((m) => m.index! + m[0].length);
      expect(cellEnds.slice(1), line).toEqual(ends.slice(1));
    }
  });

  it('names the seeds and adds the 95% confidence half-widths of a multi-seed run', () => {
    const extra = 5;
    const text = formatRunTable(aggregateSummaries([sampleSummary(1), sampleSummary(2, extra)]));
    const lines = text.split('\n');
    expect(lines[0]).toBe('sample: mean of 2 seeds (1, 2)');
    const one = figures(CALLS);
    const two = figures([...CALLS, ...extraCalls(extra)]);
    expect(cells(lines.find((l) => l.startsWith('overall')))[1]).toBe(((one.requests + two.requests) / 2).toFixed(1));
    // Two seeds: half-width = t(0.975, 1) · s / √2, and s / √2 = |a - b| / 2 for two values.
    // t(0.975, 1) = tan(0.475π) (the Cauchy quantile); the table's 4-decimal t is far from
    // changing these roundings.
    const half = (a: number, b: number) => (Math.tan(0.475 * Math.PI) * Math.abs(a - b)) / 2;
    expect(lines.at(-2)).toBe(
      `95% CI (±): requests ${half(one.requests, two.requests).toFixed(1)}, p99 ${half(one.p99, two.p99).toFixed(3)} ms, ` +
        `timeout ${pct(half(one.timeoutRate, two.timeoutRate))} %, no-provider ${pct(half(one.noProviderRate, two.noProviderRate))} %`,
    );
  });

  it('leaves out the causes line when every request found a provider', () => {
    const s = sampleSummary();
    s.noProviderCauses = {};
    expect(formatRunTable(s)).not.toContain('noProvider causes');
  });
});

describe('formatCompareTable', () => {
  it('prints a header and one row per strategy, in the given order', () => {
    const extra = 4;
    const lines = formatCompareTable({ zoneAware: sampleSummary(1, extra), failover: sampleSummary() }).trimEnd().split('\n');
    // The totals, then (two methods) a blank line, "by method", its header and 2 x 2 rows.
    expect(lines).toHaveLength(10);
    expect(lines.slice(3, 5)).toEqual(['', 'by method']);
    expect(lines[0]).toMatch(/^strategy\s+requests\s+p50 ms\s+p99 ms\s+p999 ms\s+timeout %\s+no-provider %\s+error %\s+attempts\/req\s+duplicates\s+cross-zone %$/);
    expect(cells(lines[1]).slice(0, 2)).toEqual(['zoneAware', String(CALLS.length + extra)]);
    const f = figures(CALLS);
    expect(cells(lines[2])).toEqual([
      'failover',
      String(f.requests),
      ms(f.p50),
      ms(f.p99),
      ms(f.p999),
      pct(f.timeoutRate),
      pct(f.noProviderRate),
      pct(f.errorRate),
      f.attemptsPerRequest.toFixed(3),
      '0',
      pct(f.crossZoneRatio),
    ]);
  });

  it('adds one row per strategy and method when there are several methods: requests, p99, timeout, rejected and error rates', () => {
    const lines = formatCompareTable({ failover: sampleSummary() }).trimEnd().split('\n');
    expect(lines[4]).toMatch(/^strategy\s+method\s+requests\s+p99 ms\s+timeout %\s+rejected %\s+error %$/);
    const rows = lines.slice(5).map(cells);
    const get = CALLS.filter((c) => c.startMs >= WARMUP_MS && c.method === 'getUserById');
    const upd = CALLS.filter((c) => c.startMs >= WARMUP_MS && c.method === 'updateUser');
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['failover', `${SERVICE}.getUserById`, String(get.length)],
      ['failover', `${SERVICE}.updateUser`, String(upd.length)],
    ]);
    // getUserById: 1 timeout of 3; updateUser: 1 noProvider of 2.
    expect(rows.map((r) => [r[4], r[5], r[6]])).toEqual([
      [pct(1 / 3), pct(0), pct(1 / 3)],
      [pct(0), pct(0), pct(1 / 2)],
    ]);
    // One method only: no second table.
    const one = sampleSummary();
    one.byService = { [`${SERVICE}.getUserById`]: one.byService[`${SERVICE}.getUserById`]! };
    expect(formatCompareTable({ failover: one }).trimEnd().split('\n')).toHaveLength(2);
  });
});
