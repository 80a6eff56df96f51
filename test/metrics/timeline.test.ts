/**
 * The timeline's additions: per-consumer-zone rows, the ok-only p99, registry pushes per bucket and
 * the provider side per group (`Recorder.sample`), and their aggregation over seeds.
 */
import { describe, expect, it } from 'vitest';
import { aggregateSummaries } from '../../src/metrics/aggregate.js';
import { MAX_SCOPE_TIMELINE_ROWS, Recorder } from '../../src/metrics/recorder.js';
import type { RequestRecord } from '../../src/metrics/request-record.js';
import type { Summary } from '../../src/metrics/summary.js';
import { RandomStreams } from '../../src/engine/random.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { OUTCOMES, ratio, roundMs, roundRatio, type ScopeTimelineRow } from '../../src/metrics/summary.js';
import { countOf, Timeline } from '../../src/metrics/timeline.js';

const META = { scenario: 's', seed: 1, seeds: [1], version: 'test' };
const GROUPS = [
  { name: 'users-a', instances: 2, threads: 10 },
  { name: 'users-b', instances: 1, threads: 5 },
];

function makeRecorder(over: Partial<ConstructorParameters<typeof Recorder>[0]> = {}): Recorder {
  return new Recorder({ warmupMs: 1000, durationMs: 4500, bucketMs: 1000, providerGroups: GROUPS, ...over });
}

function start(r: Recorder, startMs: number, zone = 'zoneA'): RequestRecord {
  return r.startRequest({ consumerGroup: 'web', consumerZone: zone, service: 'S', method: 'm', idempotent: true, startMs });
}

function call(r: Recorder, startMs: number, latencyMs: number, outcome: 'ok' | 'timeout' = 'ok', zone = 'zoneA', crossZone = false): void {
  const req = start(r, startMs, zone);
  r.attempt(req, { crossZone, stale: false, providerGroup: 'users-a', providerZone: crossZone ? 'elsewhere' : zone });
  r.endRequest(req, outcome, startMs + latencyMs);
}

function finish(r: Recorder): Summary {
  r.finish({ simulatedMs: r.durationMs, providerGroups: [], inFlight: 0 });
  return r.summary(META);
}

/** Within HdrHistogram's 0.1% (percentiles report the top of their bin). */
const near = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);

describe('Timeline p99 per bucket', () => {
  it("is the one busy zone's p99 when one zone has every latency, and the merged one when several do", () => {
    const r = makeRecorder();
    // Bucket 1000: zoneA only (a timeout among oks). Bucket 2000: both zones. Bucket 3000: zoneB only.
    for (let i = 0; i < 50; i++) call(r, 1100 + i, 5 + i);
    call(r, 1200, 1000, 'timeout');
    for (let i = 0; i < 40; i++) call(r, 2100 + i, 100 + i, 'ok', 'zoneB');
    for (let i = 0; i < 60; i++) call(r, 2200 + i, 1 + i, 'ok', 'zoneA');
    for (let i = 0; i < 30; i++) call(r, 3100 + i, 7 * i, 'ok', 'zoneB');
    const s = finish(r);
    const run = s.timeline!;
    const a = s.timelineByZone!.zoneA!;
    const b = s.timelineByZone!.zoneB!;
    expect(run.slice(0, 3).map((row) => row.p99Ms)).toEqual([a[0]!.p99Ms, run[1]!.p99Ms, b[2]!.p99Ms]);
    expect(run.slice(0, 3).map((row) => row.p99OkMs)).toEqual([a[0]!.p99OkMs, run[1]!.p99OkMs, b[2]!.p99OkMs]);
    near(run[0]!.p99Ms, 1000);
    near(run[0]!.p99OkMs, 54);
    // Bucket 2000 merges both zones: 100 latencies, the 99th is zoneB's 138 ms (above zoneA's p99 of 60).
    near(run[1]!.p99Ms, 138);
    near(a[1]!.p99Ms, 60);
    near(b[1]!.p99Ms, 139);
    near(run[2]!.p99Ms, 203);
  });
});

describe('Timeline by consumer zone', () => {
  it("splits each bucket by consumer zone, and the zones' rows add up to the run's row", () => {
    const r = makeRecorder();
    call(r, 1100, 10, 'ok', 'zoneA', true);
    call(r, 1200, 1000, 'timeout', 'zoneA');
    call(r, 1300, 20, 'ok', 'zoneB');
    call(r, 2500, 30, 'ok', 'zoneB', true);
    const s = finish(r);
    expect(Object.keys(s.timelineByZone!)).toEqual(['zoneA', 'zoneB']);
    const a = s.timelineByZone!.zoneA!;
    const b = s.timelineByZone!.zoneB!;
    expect(a.map((row) => [row.tMs, row.requests, row.ok, row.timeout, row.crossZoneRatio])).toEqual([
      [1000, 2, 1, 1, 0.5],
      [2000, 0, 0, 0, 0],
      [3000, 0, 0, 0, 0],
      [4000, 0, 0, 0, 0],
    ]);
    expect(b.map((row) => [row.requests, row.ok, row.crossZoneRatio])).toEqual([
      [1, 1, 0],
      [1, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    s.timeline.forEach((row, i) => {
      expect(a[i]!.requests + b[i]!.requests).toBe(row.requests);
      expect(a[i]!.ok + b[i]!.ok).toBe(row.ok);
      expect(a[i]!.timeout + b[i]!.timeout).toBe(row.timeout);
    });
  });

  it("computes each zone's p99 over its own requests and the run's over all zones together", () => {
    const r = makeRecorder();
    for (let i = 1; i <= 100; i++) call(r, 1000 + i, i, 'ok', 'zoneA');
    for (let i = 1; i <= 100; i++) call(r, 1000 + i, 1000 + i, 'ok', 'zoneB');
    const s = finish(r);
    near(s.timelineByZone!.zoneA![0]!.p99Ms, 99);
    near(s.timelineByZone!.zoneB![0]!.p99Ms, 1099);
    // 200 requests: the 198th is zoneB's 98th.
    near(s.timeline[0]!.p99Ms, 1098);
  });

  it('keeps histograms only for buckets with requests in flight, whatever the number of zones', () => {
    const r = makeRecorder({ warmupMs: 0, durationMs: 120_000 });
    for (let t = 0; t < 120_000; t += 10) call(r, t, 5 + (t % 7), 'ok', t % 20 === 0 ? 'zoneA' : 'zoneB');
    const s = finish(r);
    expect(s.timelineByZone!.zoneA!.every((row) => row.requests === 50)).toBe(true);
    expect(r.peakLiveBucketHistograms).toBeLessThanOrEqual(2);
  });
});

describe('p99OkMs', () => {
  it('is the p99 of the ok requests only, while p99Ms counts every request', () => {
    const r = makeRecorder();
    for (let i = 1; i <= 90; i++) call(r, 1000 + i, 10, 'ok');
    for (let i = 1; i <= 10; i++) call(r, 1000 + i, 1000, 'timeout');
    call(r, 2100, 1000, 'timeout');
    const s = finish(r);
    near(s.timeline[0]!.p99OkMs, 10);
    near(s.timeline[0]!.p99Ms, 1000);
    expect(s.timeline[1]!.p99OkMs).toBe(0);
    near(s.timeline[1]!.p99Ms, 1000);
    near(s.timelineByZone!.zoneA![0]!.p99OkMs, 10);
  });

  it('is rounded and averaged over seeds as milliseconds', () => {
    const one = makeRecorder();
    call(one, 1100, 10.0004);
    const two = makeRecorder();
    call(two, 1100, 20.0004);
    const agg = aggregateSummaries([finish(one), finish(two)]);
    near(agg.timeline[0]!.p99OkMs, 15);
    expect(String(agg.timeline[0]!.p99OkMs).split('.')[1]?.length ?? 0).toBeLessThanOrEqual(3);
  });
});

describe('Recorder.sample: pushes and the provider side per bucket', () => {
  it('is due at the window start, then at each bucket end, the last at the duration', () => {
    const r = makeRecorder();
    const times: number[] = [];
    for (let k = 0; r.sampleTimeMs(k) !== undefined; k++) times.push(r.sampleTimeMs(k)!);
    expect(times).toEqual([1000, 2000, 3000, 4000, 4500]);
  });

  it('puts each push in the bucket it was delivered in, and none from before the window', () => {
    const r = makeRecorder();
    r.push('c1', 'web@zoneA', 100); // warm-up: counted in registry.pushes only
    r.sample([]);
    r.push('c1', 'web@zoneA', 100);
    r.push('c2', 'web@zoneA', 100);
    r.sample([]);
    r.sample([]);
    r.push('c1', 'web@zoneA', 100);
    r.sample([]);
    r.sample([]);
    r.push('c1', 'web@zoneA', 100); // after the duration (drain)
    const s = finish(r);
    expect(s.timeline.map((row) => row.pushes)).toEqual([2, 0, 1, 0]);
    expect(s.registry.pushes).toBe(5);
  });

  it('counts what the world did while being built when the window starts at 0', () => {
    const r = makeRecorder({ warmupMs: 0 });
    r.push('c1', 'web@zoneA', 100);
    r.sample([]);
    r.push('c1', 'web@zoneA', 100);
    r.sample([]);
    expect(finish(r).timeline[0]!.pushes).toBe(2);
  });

  it('gives each provider group its executions, rejections, utilization and peak threads per bucket', () => {
    const r = makeRecorder();
    const req = start(r, 1100);
    const sample = (busyA: number, peakA: number, busyB: number, peakB: number) =>
      r.sample([
        { name: 'users-a', busyMs: busyA, peakActiveThreads: peakA },
        { name: 'users-b', busyMs: busyB, peakActiveThreads: peakB },
        { name: 'unknown', busyMs: 1e9, peakActiveThreads: 99 },
      ]);
    r.execution(req, 'users-a'); // during warm-up: not in any bucket
    sample(500, 9, 0, 0);
    r.execution(req, 'users-a');
    r.execution(req, 'users-a');
    r.rejected('users-b');
    sample(500 + 2000, 3, 100, 1);
    sample(2500, 1, 100, 0);
    r.rejected('users-a');
    sample(2500 + 20_000, 10, 100 + 5000, 5);
    sample(22_500 + 5000, 4, 5100, 0); // the last bucket is 500 ms wide
    r.attempt(req, { crossZone: false, stale: false, providerGroup: 'users-a', providerZone: 'zoneA' });
    r.endRequest(req, 'ok', 1200);
    const s = finish(r);
    expect(Object.keys(s.timelineByProviderGroup!)).toEqual(['users-a', 'users-b']);
    expect(s.timelineByProviderGroup!['users-a']).toEqual([
      { tMs: 1000, executions: 2, rejected: 0, utilization: 0.1, peakActiveThreads: 3 },
      { tMs: 2000, executions: 0, rejected: 0, utilization: 0, peakActiveThreads: 1 },
      { tMs: 3000, executions: 0, rejected: 1, utilization: 1, peakActiveThreads: 10 },
      { tMs: 4000, executions: 0, rejected: 0, utilization: 0.5, peakActiveThreads: 4 },
    ]);
    expect(s.timelineByProviderGroup!['users-b']!.map((row) => [row.rejected, row.utilization, row.peakActiveThreads])).toEqual([
      [1, 0.02, 1],
      [0, 0, 0],
      [0, 1, 5],
      [0, 0, 0],
    ]);
    expect(s.byProviderGroup['users-a']!.executions).toBe(3);
  });

  it('leaves the provider rows at 0 when nobody samples (a recorder used without a world)', () => {
    const r = makeRecorder();
    r.push('c1', 'web@zoneA', 1);
    const s = finish(r);
    expect(s.timeline.every((row) => row.pushes === 0)).toBe(true);
    expect(s.timelineByProviderGroup!['users-a']!.every((row) => row.executions === 0 && row.utilization === 0)).toBe(true);
  });
});

describe('memory bound of the per-zone and per-group timelines', () => {
  it('leaves both out when (zones + groups) x buckets would pass MAX_SCOPE_TIMELINE_ROWS, and keeps the run timeline whole', () => {
    // 2 zones + 2 groups: 62,500 buckets is the most that fits.
    const opts = { warmupMs: 0, bucketMs: 1, zones: 2 };
    const fits = makeRecorder({ ...opts, durationMs: MAX_SCOPE_TIMELINE_ROWS / 4 });
    const over = makeRecorder({ ...opts, durationMs: MAX_SCOPE_TIMELINE_ROWS / 4 + 1 });
    for (const r of [fits, over]) {
      r.sample([]);
      r.push('c1', 'web@zoneA', 1);
      call(r, 0.5, 10, 'ok', 'zoneA');
      call(r, 0.5, 30, 'timeout', 'zoneB');
      r.sample([]);
    }
    const [a, b] = [finish(fits), finish(over)];
    expect(Object.keys(a.timelineByZone!)).toEqual(['zoneA', 'zoneB']);
    expect(a.timelineByProviderGroup!['users-a']).toHaveLength(MAX_SCOPE_TIMELINE_ROWS / 4);
    expect('timelineByZone' in b || 'timelineByProviderGroup' in b).toBe(false);
    expect(b.timeline[0]).toMatchObject({ requests: 2, ok: 1, timeout: 1, pushes: 1 });
    near(b.timeline[0]!.p99Ms, 30);
    near(b.timeline[0]!.p99OkMs, 10);
  });
});

describe('Timeline', () => {
  it('has no rows and no zones for an empty measured window', () => {
    const t = new Timeline(1000, 1000, 1000);
    t.finish();
    expect(t.rows(new Float64Array(0))).toEqual([]);
    expect(t.scopeRows()).toEqual({});
  });
});

describe('aggregateSummaries on the timeline additions', () => {
  it('averages zone and provider-group rows bucket by bucket and keeps the first strategy block', () => {
    const runs = [1, 3].map((n) => {
      const r = makeRecorder();
      for (let i = 0; i < n; i++) call(r, 1100 + i, 10, 'ok', 'zoneB');
      const req = start(r, 1200, 'zoneB');
      r.sample([{ name: 'users-a', busyMs: 0, peakActiveThreads: 0 }]);
      for (let i = 0; i < n; i++) r.execution(req, 'users-a');
      r.sample([{ name: 'users-a', busyMs: n * 1000, peakActiveThreads: n }]);
      r.endRequest(req, 'timeout', 2200);
      return { ...finish(r), strategy: { name: `s${n}`, description: 'd', settings: [`x = ${n}`] } };
    });
    const agg = aggregateSummaries(runs);
    expect(agg.timelineByZone!.zoneB![0]!.requests).toBe(3);
    expect(agg.timelineByZone!.zoneB![0]!.timeout).toBe(1);
    expect(agg.timelineByProviderGroup!['users-a']![0]).toEqual({ tMs: 1000, executions: 2, rejected: 0, utilization: 0.1, peakActiveThreads: 2 });
    expect(agg.timeline[0]!.pushes).toBe(0);
    expect(agg.strategy).toEqual({ name: 's1', description: 'd', settings: ['x = 1'] });
    expect(Object.keys(agg).slice(-3)).toEqual(['timelineByZone', 'timelineByProviderGroup', 'strategy']);
  });
});

describe('Timeline bucket reduction', () => {
  // Requests of three zones over 200 buckets of 100 ms, up to 480 ms long (in flight across up to six
  // buckets), ending out of start order, fed to the timeline in time order as a simulation would.
  const BUCKET_MS = 100;
  const BUCKETS = 200;
  const ZONES = ['zoneA', 'zoneB', 'zoneC'];
  interface Req { startMs: number; endMs: number; zone: number; outcome: number; cross: boolean }
  function requests(): Req[] {
    const rng = new RandomStreams(41).stream('timeline-reduction');
    const out: Req[] = [];
    for (let t = 0; t < BUCKETS * BUCKET_MS; t += 1 + rng.nextInt(6)) {
      const long = rng.next() < 0.05;
      const latencyMs = long ? 100 + rng.next() * 380 : rng.next() * 40;
      // Timeouts are the long ones; a few fast failures too.
      const outcome = long ? 1 : rng.next() < 0.03 ? 2 + rng.nextInt(OUTCOMES.length - 2) : 0;
      out.push({ startMs: t, endMs: t + Math.round(latencyMs * 1000) / 1000, zone: rng.nextInt(ZONES.length), outcome, cross: rng.next() < 0.2 });
    }
    return out;
  }

  /** The rows computed the plain way: every bucket's histograms kept to the end, the run's p99 recorded directly. */
  function referenceRows(reqs: Req[], zone: number | null): ScopeTimelineRow[] {
    const rows: ScopeTimelineRow[] = [];
    for (let b = 0; b < BUCKETS; b++) {
      const mine = reqs.filter((r) => Math.floor(r.startMs / BUCKET_MS) === b && (zone === null || r.zone === zone));
      const all = new LatencyHistogram();
      const ok = new LatencyHistogram();
      for (const r of mine) {
        all.record(r.endMs - r.startMs);
        if (r.outcome === 0) ok.record(r.endMs - r.startMs);
      }
      const n = (k: number) => mine.filter((r) => r.outcome === k).length;
      const cross = mine.filter((r) => r.cross).length;
      rows.push({
        tMs: b * BUCKET_MS,
        requests: mine.length,
        ok: n(0),
        timeout: n(1),
        noProvider: n(2),
        rejected: n(3),
        network: n(4),
        forbidden: n(5),
        biz: n(6),
        mock: n(7),
        blocked: n(8),
        lost: n(9),
        p99Ms: roundMs(all.percentilesMs([99])[0]!),
        p99OkMs: roundMs(ok.percentilesMs([99])[0]!),
        crossZoneRatio: roundRatio(ratio(cross, mine.length)),
      });
    }
    return rows;
  }

  function feed(reqs: Req[]): Timeline {
    const t = new Timeline(0, BUCKETS * BUCKET_MS, BUCKET_MS);
    const events = reqs.flatMap((r) => [{ atMs: r.startMs, r, end: false }, { atMs: r.endMs, r, end: true }]);
    events.sort((a, b) => a.atMs - b.atMs || Number(a.end) - Number(b.end));
    for (const e of events) {
      const b = t.bucketOf(e.r.startMs);
      const s = t.scopeOf(ZONES[e.r.zone]!);
      if (e.end) t.end(b, s, e.r.outcome, e.r.endMs - e.r.startMs);
      else {
        t.start(b, s);
        t.attempt(b, s, e.r.cross);
      }
    }
    t.finish();
    return t;
  }

  it('gives each closed bucket the row its histograms kept open to the end would give, for the run and each zone', () => {
    const reqs = requests();
    const t = feed(reqs);
    const pushes = Float64Array.from({ length: BUCKETS }, (_, b) => b % 3);
    // JSON text, so the columns' order counts too (summary.json is compared byte for byte).
    expect(JSON.stringify(t.rows(pushes))).toBe(JSON.stringify(referenceRows(reqs, null).map((row, b) => ({ ...row, pushes: b % 3 }))));
    const byZone = t.scopeRows();
    expect(Object.keys(byZone)).toEqual(ZONES);
    for (const [z, name] of ZONES.entries()) expect(JSON.stringify(byZone[name])).toBe(JSON.stringify(referenceRows(reqs, z)));
    // Not vacuous: timeouts, failures and ok p99s below the run's show up.
    expect(reqs.filter((r) => r.outcome === 1).length).toBeGreaterThan(100);
    expect(t.rows(pushes).filter((row) => row.p99OkMs < row.p99Ms).length).toBeGreaterThan(BUCKETS / 2);
  });

  it('holds histograms only for the buckets whose requests are still in flight, not for every bucket', () => {
    const t = feed(requests());
    // A request lasts under 500 ms: at most the five buckets before the current one still wait for one.
    expect(t.peakLiveHistograms).toBeGreaterThan(1);
    expect(t.peakLiveHistograms).toBeLessThanOrEqual(6);
  });

  it('keeps every count exact, below and above the small integers V8 holds unboxed', () => {
    for (const n of [0, 1, 7, 2 ** 30 - 1, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1]) expect(countOf(n)).toBe(n);
  });
});
