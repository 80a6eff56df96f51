import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { fmtBytes, formatRunTable, summaryCsv, timelineCsv } from '../../src/report/format.js';
import { formatCompareTable } from '../../src/report/compare-table.js';
import { main } from '../../src/cli/main.js';
import { aggregateSummaries } from '../../src/metrics/aggregate.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { consumerGroupKey } from '../../src/metrics/observer.js';
import type { Outcome, Summary } from '../../src/metrics/summary.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

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

/** The zone a cross-zone call of `zone` went to (the sample has two). */
const otherZone = (zone: string) => (zone === 'zoneA' ? 'zoneB' : 'zoneA');

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
      r.attempt(req, { crossZone: c.cross ?? false, stale: false, providerGroup: 'users-a', providerZone: c.cross ? otherZone(c.zone) : c.zone });
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
  return percentileMs(calls.filter((c) => c.outcome === 'ok'), percentile);
}

/** A latency percentile of the given calls, as HdrHistogram reports it. */
function percentileMs(calls: Call[], percentile: number): number {
  const values = calls.map((c) => c.latencyMs).sort((a, b) => a - b);
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
    p99All: percentileMs(calls, 99),
  };
}

// The tables print milliseconds with 2 decimals (3 below 1 ms) and percentages with 3.
const ms = (x: number) => x.toFixed(x < 1 ? 3 : 2);
const pct = (ratio: number) => (ratio * 100).toFixed(3);
// Counts are whole numbers, or means over seeds with one decimal.
const count = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

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
    expect(rows[0]).toEqual(['tMs', 'requests', 'ok', 'timeout', 'noProvider', 'rejected', 'network', 'forbidden', 'biz', 'mock', 'blocked', 'lost', 'p99Ms', 'p99OkMs', 'crossZoneRatio', 'pushes', 'marker']);
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

  it('is the same text for a long timeline (written in batches of rows) as one CSV of every row', () => {
    const base = sampleSummary();
    const row = base.timeline[0]!;
    // 2,500 buckets of 1 s (more than two batches), quoted markers in the second and third batch.
    const timeline = Array.from({ length: 2500 }, (_, i) => ({ ...row, tMs: i * 1000, requests: i, ok: i, p99Ms: i / 7 }));
    const faults = [
      { tMs: 1_500_000, kind: 'start' as const, label: 'zoneDown "a, b"' },
      { tMs: 2_048_500, kind: 'end' as const, label: 'slowdown' },
      { tMs: 2_048_900, kind: 'start' as const, label: 'slowdown' },
    ];
    const text = timelineCsv({ ...base, timeline, faults });
    const marker = (i: number) => (i === 1500 ? 'start zoneDown "a, b" @1500000ms' : i === 2048 ? 'end slowdown @2048500ms | start slowdown @2048900ms' : '');
    const header = Object.keys(row);
    expect(text).toBe(stringify([[...header, 'marker'], ...timeline.map((r, i) => [...header.map((k) => r[k as keyof typeof r]), marker(i)])]));
    expect(text.split('\n')[1501]).toContain('"start zoneDown ""a, b"" @1500000ms"');
  });
});

/** One zone, one method: `n` requests of each listed outcome, each `latencyMs` long, with optional causes. */
function outcomeSummary(
  groups: Array<{ outcome: Outcome; n: number; latencyMs: number; cause?: string }>,
  opts: { pushes?: Array<[string, number] | [string, number, 'interface' | 'application']>; staleCalls?: number } = {},
): Summary {
  const r = new Recorder({ warmupMs: 0, durationMs: 10_000, bucketMs: 10_000, providerGroups: [{ name: 'users-a', instances: 1, threads: 10 }] });
  let t = 1;
  let stale = opts.staleCalls ?? 0;
  for (const g of groups) {
    for (let i = 0; i < g.n; i++, t++) {
      const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: SERVICE, method: 'getUserById', idempotent: true, startMs: t });
      if (g.outcome === 'ok' || g.outcome === 'timeout') {
        r.attempt(req, { crossZone: false, stale: stale-- > 0, providerGroup: 'users-a', providerZone: 'zoneA' });
        r.execution(req, 'users-a');
      }
      r.endRequest(req, g.outcome, t + g.latencyMs, g.cause);
    }
  }
  for (const [consumer, bytes, level] of opts.pushes ?? []) r.push(consumer, consumerGroupKey(consumer), bytes, level);
  r.finish({ simulatedMs: 10_000, providerGroups: [{ name: 'users-a', busyMs: 0, peakActiveThreads: 1 }], inFlight: 0 });
  return r.summary({ scenario: 'outcomes', seed: 1, seeds: [1], version: '0.1.0' });
}

/**
 * Calls of consumers in three zones (zoneA, zoneB, zoneC, declared in that order), each
 * `[consumer zone, provider zones of its attempts]`, all ok; `S.write` is not idempotent and its
 * calls execute once per attempt (so each retry is a duplicate write).
 */
function zonesSummary(calls: Array<[string, string[], 'S.read' | 'S.write']>): Summary {
  const r = new Recorder({
    warmupMs: 0,
    durationMs: 10_000,
    bucketMs: 10_000,
    providerGroups: [{ name: 'g', instances: 1, threads: 10 }],
    zoneNames: ['zoneA', 'zoneB', 'zoneC'],
    nonIdempotentMethods: ['S.write'],
  });
  calls.forEach(([zone, providers, method], t) => {
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: zone, service: 'S', method: method.slice(2), idempotent: method !== 'S.write', startMs: t });
    for (const provider of providers) {
      r.attempt(req, { crossZone: provider !== zone, stale: false, providerGroup: 'g', providerZone: provider });
      r.execution(req, 'g');
    }
    r.endRequest(req, 'ok', t + 5);
  });
  r.finish({ simulatedMs: 10_000, providerGroups: [{ name: 'g', busyMs: 0, peakActiveThreads: 1 }], inFlight: 0 });
  return r.summary({ scenario: 'zones', seed: 1, seeds: [1], version: '0.1.0' });
}

/** The cell under `header` in `row`, located by the column's right edge (figures are right-aligned). */
function cellUnder(headerLine: string, row: string, header: string): string {
  const at = headerLine.indexOf(`  ${header}`);
  expect(at, `column ${header}`).toBeGreaterThan(0);
  const end = at + 2 + header.length;
  // A cell over several seeds reads `mean ± half-width`; any other has no space.
  return /(\S+ ± \S+|\S+)$/.exec(row.slice(0, end).trimStart())![1]!;
}

describe('formatRunTable', () => {
  /** The cells the run table shows for a scope: figures derived from its calls. */
  const runRow = (name: string, calls: Call[]) => {
    const f = figures(calls);
    return [
      name,
      String(f.requests),
      ms(f.p50),
      ms(f.p99),
      ms(f.p999),
      ms(f.p99All),
      pct(f.timeoutRate),
      pct(f.noProviderRate),
      pct(f.errorRate),
      '0',
      pct(f.crossZoneRatio),
    ];
  };

  it('prints overall and one row per consumer zone, then the failed outcomes and the noProvider causes', () => {
    const lines = formatRunTable(sampleSummary()).split('\n');
    expect(lines.slice(0, 3)).toEqual(['sample: seed 1', `simulated ${DURATION_MS / 1000} s, measured from ${WARMUP_MS / 1000} s`, '']);
    expect(lines[3]).toBe(
      'scope    requests  p50 ok ms  p99 ok ms  p999 ok ms  p99 all ms  timeout %  no-provider %  error %  duplicates  cross-zone %',
    );
    expect(lines.slice(4, 7).map(cells)).toEqual([
      runRow('overall', CALLS),
      runRow('zoneA', CALLS.filter((c) => c.zone === 'zoneA')),
      runRow('zoneB', CALLS.filter((c) => c.zone === 'zoneB')),
    ]);
    const count = (o: Call['outcome']) => CALLS.filter((c) => c.outcome === o).length;
    expect(lines.slice(7)).toEqual([
      '',
      `failures (${CALLS.length - count('ok')} of ${CALLS.length} requests): ${count('timeout')} timeout, ${count('noProvider')} noProvider`,
      `noProvider causes: router:condition ${count('noProvider')}`,
      '',
    ]);
  });

  it('right-aligns every figure under the end of its column header, two spaces apart', () => {
    const lines = formatRunTable(sampleSummary()).split('\n');
    const header = lines[3]!;
    // Headers are words joined by single spaces; columns are two or more spaces apart.
    const ends = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index! + m[0].length);
    expect(ends).toHaveLength(11);
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
      `95% CI (±): requests ${half(one.requests, two.requests).toFixed(1)}, p99 ok ${half(one.p99, two.p99).toFixed(3)} ms, ` +
        `timeout ${pct(half(one.timeoutRate, two.timeoutRate))} %, no-provider ${pct(half(one.noProviderRate, two.noProviderRate))} %, ` +
        `error ${pct(half(one.errorRate, two.errorRate))} %`,
    );
  });

  it('adds a dup writes column when a method is not idempotent, with each scope\'s duplicate writes', () => {
    // zoneA: one write retried twice (2 duplicate writes); zoneB: a read retried once (a duplicate, no write).
    const text = formatRunTable(zonesSummary([['zoneA', ['zoneA', 'zoneA', 'zoneB'], 'S.write'], ['zoneB', ['zoneB', 'zoneB'], 'S.read']]));
    const lines = text.split('\n');
    const header = lines[3]!;
    expect(header).toMatch(/  duplicates  dup writes  cross-zone %$/);
    const row = (scope: string) => lines.find((l) => l.startsWith(`${scope} `))!;
    expect(['overall', 'zoneA', 'zoneB'].map((z) => [cellUnder(header, row(z), 'duplicates'), cellUnder(header, row(z), 'dup writes')])).toEqual([
      ['3', '2'],
      ['2', '2'],
      ['1', '0'],
    ]);
    // Every method idempotent: no such column (the sample's header has none either).
    const reads = zonesSummary([['zoneA', ['zoneA'], 'S.read']]);
    reads.nonIdempotentMethods = [];
    expect(formatRunTable(reads)).not.toContain('dup writes');
  });

  it('ends with the zone-pair table when there are three zones: each consumer zone\'s attempts and the share each provider zone got', () => {
    const text = formatRunTable(
      zonesSummary([
        ['zoneA', ['zoneA', 'zoneB'], 'S.read'],
        ['zoneA', ['zoneC'], 'S.read'],
        ['zoneA', ['zoneA'], 'S.read'],
        ['zoneC', ['zoneC'], 'S.read'],
      ]),
    );
    const lines = text.trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('attempts by zone pair'));
    expect(lines[at - 1]).toBe('');
    expect(lines.slice(at + 1).map(cells)).toEqual([
      ['consumer', 'zone', 'attempts', 'to', 'zoneA', 'to', 'zoneB', 'to', 'zoneC'],
      // zoneA: 4 attempts, 2 to zoneA, 1 to zoneB, 1 to zoneC; zoneB sent none (no row); zoneC: 1, to itself.
      ['zoneA', '4', pct(2 / 4), pct(1 / 4), pct(1 / 4)],
      ['zoneC', '1', pct(0), pct(0), pct(1)],
    ]);
  });

  it('names the list replies ZooKeeper clients refused for jute.maxbuffer beside the directory:empty they cause', () => {
    const n = 30;
    const s = outcomeSummary([{ outcome: 'noProvider', n, latencyMs: 0, cause: 'directory:empty' }]);
    expect(formatRunTable(s)).not.toContain('jute.maxbuffer');
    s.events['registry.juteMaxBufferExceeded'] = 500_000;
    const lines = formatRunTable(s).split('\n');
    const causes = lines.indexOf(`noProvider causes: directory:empty ${n}`);
    expect(causes).toBeGreaterThan(0);
    expect(lines[causes + 1]).toBe(
      "jute.maxbuffer: 500000 list replies refused by consumers' ZooKeeper clients (each keeps its last list; registry.juteMaxBuffer sets the limit)",
    );
    s.events['registry.juteMaxBufferExceeded'] = 1;
    expect(formatRunTable(s)).toContain('jute.maxbuffer: 1 list reply refused');
  });

  it('leaves out the causes line when every request found a provider', () => {
    const s = sampleSummary();
    s.noProviderCauses = {};
    expect(formatRunTable(s)).not.toContain('noProvider causes');
  });

  it('shows 100.000 error % and a failures line when every request was forbidden, and no ok latency', () => {
    const n = 40;
    const lines = formatRunTable(outcomeSummary([{ outcome: 'forbidden', n, latencyMs: 0, cause: 'registry:forbidden' }])).split('\n');
    const header = lines[3]!;
    for (const scope of ['overall', 'zoneA']) {
      const row = lines.find((l) => l.startsWith(`${scope} `))!;
      expect(cellUnder(header, row, 'error %'), scope).toBe('100.000');
      // No successful request: the ok latencies are a dash, never a fast-looking 0.
      for (const col of ['p50 ok ms', 'p99 ok ms', 'p999 ok ms']) expect(cellUnder(header, row, col), `${scope} ${col}`).toBe('-');
    }
    expect(lines).toContain(`failures (${n} of ${n} requests): ${n} forbidden`);
    expect(lines).toContain(`noProvider causes: registry:forbidden ${n}`);
  });

  it('counts blocked calls with their causes; one a fallback answered is no failure, on a line of its own', () => {
    const s = outcomeSummary([
      { outcome: 'ok', n: 6, latencyMs: 10 },
      { outcome: 'blocked', n: 3, latencyMs: 0, cause: 'consumer:degrade' },
      { outcome: 'blocked', n: 1, latencyMs: 0, cause: 'provider:flow:fallback' },
    ]);
    const text = formatRunTable(s);
    expect(text).toContain('\nfailures (3 of 10 requests): 3 blocked (consumer:degrade 3)\n');
    expect(text).toContain('\nanswered by Sentinel fallbacks (1 of 10 requests): 1 provider:flow:fallback');
    expect(s.errorRate).toBe(0.3);
  });

  it('counts every failed outcome in SPEC order, with the rejected causes', () => {
    const s = outcomeSummary([
      { outcome: 'ok', n: 5, latencyMs: 10 },
      { outcome: 'forbidden', n: 2, latencyMs: 0, cause: 'registry:forbidden' },
      { outcome: 'rejected', n: 3, latencyMs: 0, cause: 'entry' },
      { outcome: 'rejected', n: 1, latencyMs: 1, cause: 'provider:threadpool' },
      { outcome: 'network', n: 1, latencyMs: 2 },
      { outcome: 'biz', n: 1, latencyMs: 3 },
    ]);
    const text = formatRunTable(s);
    expect(text).toContain('\nfailures (8 of 13 requests): 4 rejected (entry 3, provider:threadpool 1), 1 network, 2 forbidden, 1 biz\n');
    expect(cellUnder(text.split('\n')[3]!, text.split('\n')[4]!, 'error %')).toBe(pct(8 / 13));
    // The rejected causes now live in the failures line only.
    expect(text).not.toContain('rejected causes');
  });

  it('counts mocked requests apart: a mock % column and a mocked line by cause, neither ok nor under error % (issue 39)', () => {
    const s = outcomeSummary([
      { outcome: 'ok', n: 6, latencyMs: 10 },
      { outcome: 'mock', n: 3, latencyMs: 3000, cause: 'fail:return' },
      { outcome: 'mock', n: 1, latencyMs: 0, cause: 'force:throw' },
      { outcome: 'timeout', n: 2, latencyMs: 1000 },
    ]);
    const text = formatRunTable(s);
    const [header, overall] = [text.split('\n')[3]!, text.split('\n')[4]!];
    expect(cellUnder(header, overall, 'error %')).toBe(pct(2 / 12));
    expect(cellUnder(header, overall, 'mock %')).toBe(pct(4 / 12));
    expect(text).toContain('\nfailures (2 of 12 requests): 2 timeout\n');
    expect(text).toContain('\nmocked (4 of 12 requests): 3 fail:return, 1 force:throw\n');
    // Without a mock the column is left out.
    expect(formatRunTable(outcomeSummary([{ outcome: 'ok', n: 3, latencyMs: 10 }]))).not.toContain('mock');
    const [csvHeader, csvOverall] = summaryCsv(s).split('\n').map((l) => l.split(','));
    expect(csvOverall![csvHeader!.indexOf('mock')]).toBe('4');
    expect(csvOverall![csvHeader!.indexOf('mockRate')]).toBe(String(s.mockRate));
  });

  it('counts lost requests (a dark room) as failures: in the failures line, under error %, and as a csv column (issue 40)', () => {
    const s = outcomeSummary([
      { outcome: 'ok', n: 6, latencyMs: 10 },
      { outcome: 'timeout', n: 1, latencyMs: 1000 },
      { outcome: 'lost', n: 3, latencyMs: 40 },
    ]);
    const text = formatRunTable(s);
    expect(text).toContain('\nfailures (4 of 10 requests): 1 timeout, 3 lost\n');
    expect(cellUnder(text.split('\n')[3]!, text.split('\n')[4]!, 'error %')).toBe(pct(4 / 10));
    const [csvHeader, csvOverall] = summaryCsv(s).split('\n').map((l) => l.split(','));
    expect(csvOverall![csvHeader!.indexOf('lost')]).toBe('3');
  });

  it('prints no failures line when every request succeeded', () => {
    const text = formatRunTable(outcomeSummary([{ outcome: 'ok', n: 10, latencyMs: 10 }]));
    expect(text).not.toContain('failures');
    expect(cellUnder(text.split('\n')[3]!, text.split('\n')[4]!, 'error %')).toBe('0.000');
  });

  it('prints the registry line when the registry pushed, and none when it did not', () => {
    const pushed = outcomeSummary([{ outcome: 'ok', n: 4, latencyMs: 10 }], {
      pushes: [['web#0', 1_000_000], ['web#1', 234_567]],
      staleCalls: 3,
    });
    expect(formatRunTable(pushed).split('\n')).toContain('registry: 2 pushes, 1.2 MB, 3 stale calls');
    // Both discovery levels pushed: the split by level follows the bytes.
    const both = outcomeSummary([{ outcome: 'ok', n: 4, latencyMs: 10 }], {
      pushes: [['web#0', 1_000_000, 'interface'], ['web#0', 200_000, 'application'], ['web#1', 34_567, 'interface']],
    });
    expect(formatRunTable(both).split('\n')).toContain('registry: 3 pushes, 1.2 MB (interface 2, application 1), 0 stale calls');
    const quiet = outcomeSummary([{ outcome: 'ok', n: 4, latencyMs: 10 }]);
    expect(quiet.registry.pushes).toBe(0);
    expect(formatRunTable(quiet)).not.toContain('registry:');
  });
});

describe('fmtBytes', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.0 kB'],
    [1_234_567, '1.2 MB'],
    [999_960, '1.0 MB'],
    [5_500_000_000, '5.5 GB'],
  ])('writes %d bytes as %s (decimal units)', (bytes, text) => {
    expect(fmtBytes(bytes)).toBe(text);
  });
});

describe('formatCompareTable', () => {
  it('prints a header and one row per strategy, in the given order, then each strategy\'s failures', () => {
    const extra = 4;
    const lines = formatCompareTable({ zoneAware: sampleSummary(1, extra), failover: sampleSummary() }).trimEnd().split('\n');
    expect(lines[0]).toBe(
      'strategy   requests  p50 ok ms  p99 ok ms  p999 ok ms  p99 all ms  timeout %  no-provider %  error %  attempts/req  duplicates  cross-zone %',
    );
    expect(cells(lines[1]).slice(0, 2)).toEqual(['zoneAware', String(CALLS.length + extra)]);
    const f = figures(CALLS);
    expect(cells(lines[2])).toEqual([
      'failover',
      String(f.requests),
      ms(f.p50),
      ms(f.p99),
      ms(f.p999),
      ms(f.p99All),
      pct(f.timeoutRate),
      pct(f.noProviderRate),
      pct(f.errorRate),
      f.attemptsPerRequest.toFixed(3),
      '0',
      pct(f.crossZoneRatio),
    ]);
    // Then a blank line, one failures line per strategy, and (two methods) "by method" with 2 x 2 rows.
    expect(lines.slice(3, 6)).toEqual([
      '',
      `zoneAware failures (2 of ${CALLS.length + extra} requests): 1 timeout, 1 noProvider`,
      `failover failures (2 of ${CALLS.length} requests): 1 timeout, 1 noProvider`,
    ]);
    expect(lines.slice(6, 8)).toEqual(['', 'by method']);
    expect(lines).toHaveLength(13);
  });

  it('shows the higher p99 over all requests of a failing strategy whose successful calls are faster', () => {
    const healthy = outcomeSummary([{ outcome: 'ok', n: 100, latencyMs: 50 }]);
    const failing = outcomeSummary([
      { outcome: 'ok', n: 10, latencyMs: 5 },
      { outcome: 'timeout', n: 90, latencyMs: 1000 },
    ]);
    const lines = formatCompareTable({ healthy, failing }).split('\n');
    const header = lines[0]!;
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    expect(['healthy', 'failing'].map((n) => [cellUnder(header, row(n), 'p99 ok ms'), cellUnder(header, row(n), 'p99 all ms')])).toEqual([
      ['50.00', '50.00'],
      ['5.00', '1000.00'],
    ]);
    expect(cellUnder(header, row('failing'), 'error %')).toBe('90.000');
    expect(lines).toContain('failing failures (90 of 100 requests): 90 timeout');
    expect(lines.some((l) => l.startsWith('healthy failures'))).toBe(false);
  });

  it('prints a registry line for each strategy whose registry pushed, and none for the others', () => {
    const pushed = outcomeSummary([{ outcome: 'ok', n: 4, latencyMs: 10 }], { pushes: [['web#0', 2048]] });
    const quiet = outcomeSummary([{ outcome: 'ok', n: 4, latencyMs: 10 }]);
    const lines = formatCompareTable({ interface: pushed, static: quiet }).split('\n');
    expect(lines).toContain('interface registry: 1 push, 2.0 kB, 0 stale calls');
    expect(lines.some((l) => l.startsWith('static registry'))).toBe(false);
    expect(formatCompareTable({ static: quiet })).not.toContain('registry');
  });

  it('adds one row per strategy and method when there are several methods: requests, p99 ok and all, timeout, rejected and error rates', () => {
    const lines = formatCompareTable({ failover: sampleSummary() }).trimEnd().split('\n');
    const at = lines.indexOf('by method');
    expect(lines[at + 1]).toMatch(/^strategy\s+method\s+requests\s+p99 ok ms\s+p99 all ms\s+timeout %\s+rejected %\s+error %$/);
    const rows = lines.slice(at + 2).map(cells);
    const get = CALLS.filter((c) => c.startMs >= WARMUP_MS && c.method === 'getUserById');
    const upd = CALLS.filter((c) => c.startMs >= WARMUP_MS && c.method === 'updateUser');
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['failover', `${SERVICE}.getUserById`, String(get.length)],
      ['failover', `${SERVICE}.updateUser`, String(upd.length)],
    ]);
    expect(rows.map((r) => [r[3], r[4]])).toEqual([
      [ms(figures(get).p99), ms(figures(get).p99All)],
      [ms(figures(upd).p99), ms(figures(upd).p99All)],
    ]);
    // getUserById: 1 timeout of 3; updateUser: 1 noProvider of 2.
    expect(rows.map((r) => [r[5], r[6], r[7]])).toEqual([
      [pct(1 / 3), pct(0), pct(1 / 3)],
      [pct(0), pct(0), pct(1 / 2)],
    ]);
    // One method only: no second table (the header, the row, a blank line and the failures line).
    const one = sampleSummary();
    one.byService = { [`${SERVICE}.getUserById`]: one.byService[`${SERVICE}.getUserById`]! };
    const oneLines = formatCompareTable({ failover: one }).trimEnd().split('\n');
    expect(oneLines).toHaveLength(4);
    expect(oneLines).not.toContain('by method');
  });
});

describe('formatCompareTable by method for an estate of many methods', () => {
  /** 25 methods m00..m24, ten calls each at 10 + 5·i ms; `timeouts` of a method's calls time out instead. */
  function manyMethods(timeouts: Record<string, number>): Summary {
    const r = new Recorder({ warmupMs: 0, durationMs: 10_000, bucketMs: 10_000, providerGroups: [{ name: 'users-a', instances: 1, threads: 10 }] });
    let t = 1;
    for (let i = 0; i < 25; i++) {
      const method = `m${String(i).padStart(2, '0')}`;
      for (let k = 0; k < 10; k++, t++) {
        const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: SERVICE, method, idempotent: true, startMs: t });
        r.attempt(req, { crossZone: false, stale: false, providerGroup: 'users-a', providerZone: 'zoneA' });
        r.execution(req, 'users-a');
        const timedOut = k < (timeouts[method] ?? 0);
        r.endRequest(req, timedOut ? 'timeout' : 'ok', t + (timedOut ? 1000 : 10 + 5 * i));
      }
    }
    r.finish({ simulatedMs: 10_000, providerGroups: [{ name: 'users-a', busyMs: 0, peakActiveThreads: 1 }], inFlight: 0 });
    return r.summary({ scenario: 'many-methods', seed: 1, seeds: [1], version: '0.1.0' });
  }

  it('lists the 20 with the highest error % in any strategy, then the highest p99 all, by name, and says how many there are', () => {
    const lines = formatCompareTable({ a: manyMethods({ m03: 2 }), b: manyMethods({ m07: 1 }) }).trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('by method'));
    expect(lines[at]).toBe('by method: the 20 of 25 with the highest error %, then p99 all ms, in any strategy (every method in compare.csv)');
    const rows = lines.slice(at + 2).map((l) => l.trim().split(/\s+/));
    // m03 and m07 failed in one strategy each; then the 18 slowest of the others (m24 down to m06, m07 aside).
    const expected = ['m03', 'm06', 'm07', ...Array.from({ length: 17 }, (_, i) => `m${String(i + 8).padStart(2, '0')}`)].map((m) => `${SERVICE}.${m}`);
    expect(rows.filter((r) => r[0] === 'a').map((r) => r[1])).toEqual(expected);
    expect(rows.filter((r) => r[0] === 'b').map((r) => r[1])).toEqual(expected);
    expect(rows).toHaveLength(40);
  });

  it('lists every method, under the plain title, when there are no more than 20', () => {
    const few = manyMethods({});
    for (const name of Object.keys(few.byService).slice(20)) delete few.byService[name];
    const lines = formatCompareTable({ a: few }).trimEnd().split('\n');
    const at = lines.indexOf('by method');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 2)).toHaveLength(20);
  });
});

describe('formatCompareTable over several seeds, by zone and by zone pair', () => {
  /** Three seeds of a strategy: the sample with 0, `extra` and 2 x `extra` more fast calls. */
  const threeSeeds = (extra: number) => aggregateSummaries([sampleSummary(1), sampleSummary(2, extra), sampleSummary(3, 2 * extra)]);

  it('prints every figure as mean ± the half-width of its 95% interval, and says so above the table', () => {
    const byStrategy = { a: threeSeeds(3), b: threeSeeds(7) };
    const lines = formatCompareTable(byStrategy).split('\n');
    expect(lines[0]).toBe('mean ± half-width of the 95% confidence interval (Student t) over 3 seeds (1, 2, 3)');
    const header = lines[2]!;
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    for (const [name, s] of Object.entries(byStrategy)) {
      const ci = s.ci95!;
      expect(cellUnder(header, row(name), 'error %')).toBe(`${pct(s.errorRate)} ± ${pct(ci.errorRate!)}`);
      expect(cellUnder(header, row(name), 'p99 all ms')).toBe(`${ms(s.latencyAllMs.p99)} ± ${ms(ci['latencyAllMs.p99']!)}`);
      expect(cellUnder(header, row(name), 'attempts/req')).toBe(`${s.retryAmplification.toFixed(3)} ± ${ci.retryAmplification!.toFixed(3)}`);
      // The request counts differ between seeds: a half-width that is not 0.
      expect(ci.requests).toBeGreaterThan(0);
      expect(cellUnder(header, row(name), 'requests')).toBe(`${count(s.requests)} ± ${count(ci.requests!)}`);
    }
  });

  it('adds one row per strategy and consumer zone with --by zone, with the zone\'s own half-widths', () => {
    const byStrategy = { a: threeSeeds(3), b: sampleSummary() };
    const lines = formatCompareTable(byStrategy, { by: 'zone' }).trimEnd().split('\n');
    const at = lines.indexOf('by consumer zone');
    expect(at).toBeGreaterThan(0);
    const header = lines[at + 1]!;
    expect(header).toMatch(/^strategy\s+zone\s+requests\s+p50 ok ms/);
    const zoneRows = lines.slice(at + 2, at + 6);
    expect(zoneRows.map((l) => cells(l).slice(0, 2))).toEqual([
      ['a', 'zoneA'],
      ['a', 'zoneB'],
      ['b', 'zoneA'],
      ['b', 'zoneB'],
    ]);
    const zoneA = byStrategy.a.byConsumerZone.zoneA!;
    expect(cellUnder(header, zoneRows[0]!, 'error %')).toBe(`${pct(zoneA.errorRate)} ± ${pct(zoneA.ci95!.errorRate!)}`);
    // One seed: the plain figure.
    expect(cellUnder(header, zoneRows[2]!, 'error %')).toBe(pct(figures(CALLS.filter((c) => c.zone === 'zoneA')).errorRate));
    expect(formatCompareTable(byStrategy)).not.toContain('by consumer zone');
  });

  it('shows the zone-pair rows of every strategy with three zones, and the dup writes column when a method is a write', () => {
    const near = zonesSummary([['zoneA', ['zoneB'], 'S.write']]);
    const far = zonesSummary([['zoneA', ['zoneC', 'zoneB'], 'S.write']]);
    const lines = formatCompareTable({ near, far }).trimEnd().split('\n');
    expect(lines[0]).toMatch(/  duplicates  dup writes  cross-zone %$/);
    expect(cellUnder(lines[0]!, lines[2]!, 'dup writes')).toBe('1');
    const at = lines.findIndex((l) => l.startsWith('attempts by zone pair'));
    expect(lines.slice(at + 2).map(cells)).toEqual([
      ['near', 'zoneA', '1', pct(0), pct(1), pct(0)],
      ['far', 'zoneA', '2', pct(0), pct(1 / 2), pct(1 / 2)],
    ]);
  });
});

describe('zonesim run table (through the CLI)', () => {
  /** Nacos registry whose providers register only after the run: every call is refused with the forbidden error. */
  const ALL_FORBIDDEN = `name: all-forbidden
seed: 1
duration: 3s
warmup: 0s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
registry:
  type: nacos
  registerDelay: 100s
services:
  com.example.S:
    methods:
      m: { serviceTime: 5ms }
providers:
  - { service: com.example.S, zone: zoneA, count: 2 }
consumers:
  - application: web
    zone: zoneA
    instances: 2
    rate: 100/s
    calls: { com.example.S.m: 1 }
`;

  async function runTable(yaml: string): Promise<{ table: string; summary: Summary }> {
    const dir = tempDir('zs-table-');
    writeFileSync(join(dir, 'scenario.yaml'), yaml);
    const out: string[] = [];
    const io = { stdout: (s: string) => out.push(s), stderr: () => {}, cwd: dir };
    expect(await main(['run', 'scenario.yaml', '--out', join(dir, 'results'), '--jobs', '1'], io)).toBe(0);
    const name = readdirSync(join(dir, 'results'))[0]!;
    const run = readdirSync(join(dir, 'results', name))[0]!;
    const summary = JSON.parse(readFileSync(join(dir, 'results', name, run, 'summary.json'), 'utf8')) as Summary;
    return { table: out.join(''), summary };
  }

  it('reads 100.000 error % with a failures line and the registry pushes when every request is forbidden', async () => {
    const { table, summary } = await runTable(ALL_FORBIDDEN);
    expect(summary.errorRate).toBe(1);
    expect(summary.outcomes.forbidden).toBe(summary.requests);
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.registry.pushes).toBeGreaterThan(0);
    const lines = table.split('\n');
    const header = lines.find((l) => l.startsWith('scope '))!;
    const overall = lines.find((l) => l.startsWith('overall '))!;
    expect(cellUnder(header, overall, 'error %')).toBe('100.000');
    expect(cellUnder(header, overall, 'p99 ok ms')).toBe('-');
    expect(lines).toContain(`failures (${summary.requests} of ${summary.requests} requests): ${summary.requests} forbidden`);
    // 3.3's defaults: providers register at both levels, consumers watch both; the line splits the pushes by level.
    const { interface: i, application: a } = summary.registry.byLevel!;
    expect(i!.pushes + a!.pushes).toBe(summary.registry.pushes);
    expect(lines).toContain(
      `registry: ${summary.registry.pushes} pushes, ${fmtBytes(summary.registry.pushBytes)} (interface ${i!.pushes}, application ${a!.pushes}), ${summary.registry.staleCalls} stale calls`,
    );
  });

  it('prints no registry line for a static registry, which never pushes', async () => {
    const { table, summary } = await runTable(ALL_FORBIDDEN.replace(/registry:\n  type: nacos\n  registerDelay: 100s\n/, 'registry:\n  type: static\n'));
    expect(summary.registry.pushes).toBe(0);
    expect(summary.errorRate).toBe(0);
    expect(table).not.toContain('registry:');
    expect(table).not.toContain('failures');
  });
});
