import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { RequestRecord } from '../../src/metrics/request-record.js';
import { EMPTY_RESULT_CAUSE } from '../../src/metrics/observer.js';
import { roundRatio } from '../../src/metrics/summary.js';

const GROUPS = [
  { name: 'users-a', instances: 2, threads: 10 },
  { name: 'users-b', instances: 1, threads: 5 },
];

function makeRecorder(over: Partial<ConstructorParameters<typeof Recorder>[0]> = {}): Recorder {
  return new Recorder({ warmupMs: 1000, durationMs: 5000, bucketMs: 1000, providerGroups: GROUPS, ...over });
}

function start(
  r: Recorder,
  startMs: number,
  over: Partial<Parameters<Recorder['startRequest']>[0]> = {},
): RequestRecord {
  return r.startRequest({
    consumerGroup: 'web',
    consumerZone: 'zoneA',
    service: 'com.example.UserService',
    method: 'getUserById',
    idempotent: true,
    startMs,
    ...over,
  });
}

const SAME = { crossZone: false, stale: false, providerGroup: 'users-a', providerZone: 'zoneA' };
const CROSS = { crossZone: true, stale: false, providerGroup: 'users-b', providerZone: 'zoneB' };

/** One attempt that executes at users-a and answers ok after `latencyMs`. */
function okCall(r: Recorder, startMs: number, latencyMs: number, over: Parameters<typeof start>[2] = {}): RequestRecord {
  const req = start(r, startMs, over);
  r.attempt(req, SAME);
  r.execution(req, 'users-a');
  r.endRequest(req, 'ok', startMs + latencyMs);
  return req;
}

function finish(r: Recorder, simulatedMs = 5000, inFlight = 0): void {
  r.finish({
    simulatedMs,
    providerGroups: [
      { name: 'users-a', busyMs: 20_000, peakActiveThreads: 7 },
      { name: 'users-b', busyMs: 0, peakActiveThreads: 0 },
    ],
    inFlight,
  });
}

/** Histogram percentiles are the highest value equivalent to the exact one: at most 0.1% above it. */
function expectHdr(got: number, exact: number): void {
  expect(got).toBeGreaterThanOrEqual(exact);
  expect(got).toBeLessThanOrEqual(exact * 1.001);
}

const META = { scenario: 'test', seed: 1, seeds: [1], version: '0.0.0' };

describe('Recorder', () => {
  it('counts only requests that start inside [warmupMs, durationMs)', () => {
    const r = makeRecorder();
    okCall(r, 999.9, 1);
    okCall(r, 1000, 1);
    okCall(r, 4999.9, 1);
    okCall(r, 5000, 1);
    finish(r);
    const s = r.summary(META);
    expect([s.requests, s.ok, s.attempts, s.providerExecutions, s.measuredFromMs]).toEqual([2, 2, 2, 2, 1000]);
  });

  it('keeps executions of warm-up requests in the provider-group load but not in the request figures', () => {
    const r = makeRecorder();
    okCall(r, 10, 1);
    okCall(r, 2000, 1);
    finish(r);
    const s = r.summary(META);
    expect(s.providerExecutions).toBe(1);
    expect(s.byProviderGroup['users-a']!.executions).toBe(2);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('counts duplicate executions and duplicate writes as executions arrive', () => {
    const r = makeRecorder();
    const read = start(r, 1500);
    const write = start(r, 1500, { method: 'updateUser', idempotent: false });
    for (const req of [read, write]) {
      for (let i = 0; i < 3; i++) {
        r.attempt(req, SAME);
        r.execution(req, 'users-a');
      }
      r.endRequest(req, 'ok', 1600);
    }
    finish(r);
    const s = r.summary(META);
    expect([s.providerExecutions, s.duplicateExecutions, s.duplicateWrites]).toEqual([6, 4, 2]);
  });

  it('counts an execution that starts after the request ended as a duplicate', () => {
    const r = makeRecorder();
    const req = start(r, 1500, { idempotent: false });
    r.attempt(req, SAME);
    r.attempt(req, CROSS);
    r.execution(req, 'users-b');
    r.endRequest(req, 'ok', 1600);
    r.execution(req, 'users-a');
    r.orphaned(req);
    finish(r);
    const s = r.summary(META);
    expect([s.providerExecutions, s.duplicateExecutions, s.duplicateWrites, s.orphanedExecutions]).toEqual([2, 1, 1, 1]);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('computes crossZoneRatio, retryAmplification and staleCalls over attempts', () => {
    const r = makeRecorder();
    const req = start(r, 2000);
    r.attempt(req, SAME);
    r.attempt(req, CROSS);
    r.attempt(req, { ...CROSS, stale: true });
    r.endRequest(req, 'timeout', 5000);
    const other = start(r, 2000);
    r.endRequest(other, 'noProvider', 2000, 'router:condition');
    finish(r);
    const s = r.summary(META);
    expect([s.attempts, s.retryAmplification, s.crossZoneRatio, s.registry.staleCalls]).toEqual([3, 1.5, 0.666667, 1]);
  });

  it('counts the attempts of measured requests per (consumer zone, provider zone), declared zones first in their order', () => {
    const r = makeRecorder({ zoneNames: ['zoneC', 'zoneA', 'zoneB'] });
    const a = start(r, 1500);
    r.attempt(a, SAME);
    r.attempt(a, CROSS);
    r.attempt(a, { ...CROSS, providerZone: 'zoneD' });
    r.endRequest(a, 'timeout', 2500);
    const b = start(r, 1600, { consumerZone: 'zoneB' });
    r.attempt(b, { ...CROSS, providerZone: 'zoneA' });
    r.attempt(b, { ...SAME, providerZone: 'zoneB' });
    r.attempt(b, { ...SAME, providerZone: 'zoneB' });
    r.endRequest(b, 'ok', 1700);
    // Warm-up: not measured, so not in the matrix either.
    const warm = start(r, 10);
    r.attempt(warm, CROSS);
    r.endRequest(warm, 'ok', 20);
    finish(r);
    const s = r.summary(META);
    expect(s.crossZoneByPair).toEqual({
      zoneC: { zoneC: 0, zoneA: 0, zoneB: 0, zoneD: 0 },
      zoneA: { zoneC: 0, zoneA: 1, zoneB: 1, zoneD: 1 },
      zoneB: { zoneC: 0, zoneA: 1, zoneB: 2, zoneD: 0 },
      zoneD: { zoneC: 0, zoneA: 0, zoneB: 0, zoneD: 0 },
    });
    // Rows and columns in the declared order, the undeclared zoneD last.
    expect(Object.keys(s.crossZoneByPair!)).toEqual(['zoneC', 'zoneA', 'zoneB', 'zoneD']);
    expect(Object.keys(s.crossZoneByPair!.zoneA!)).toEqual(['zoneC', 'zoneA', 'zoneB', 'zoneD']);
    // Each row sums to its zone's attempts; what is off the diagonal is crossZoneRatio's numerator.
    for (const [zone, row] of Object.entries(s.crossZoneByPair!)) {
      expect(Object.values(row).reduce((x, y) => x + y, 0)).toBe(s.byConsumerZone[zone]?.attempts ?? 0);
    }
    expect(s.crossZoneRatio).toBe(Math.round((3 / 6) * 1e6) / 1e6);
  });

  it('lists the non-idempotent methods it was given, sorted and once each', () => {
    const r = makeRecorder({ nonIdempotentMethods: ['S.write', 'A.put', 'S.write'] });
    finish(r);
    expect(r.summary(META).nonIdempotentMethods).toEqual(['A.put', 'S.write']);
  });

  it('computes the rates as fractions of requests', () => {
    const r = makeRecorder();
    const outcomes = ['ok', 'ok', 'ok', 'ok', 'timeout', 'noProvider', 'rejected', 'biz'] as const;
    for (const o of outcomes) r.endRequest(start(r, 1200), o, 1300);
    finish(r);
    const s = r.summary(META);
    expect(s.outcomes).toEqual({ ok: 4, timeout: 1, noProvider: 1, rejected: 1, network: 0, forbidden: 0, biz: 1, mock: 0, blocked: 0, lost: 0 });
    expect([s.timeoutRate, s.noProviderRate, s.errorRate]).toEqual([0.125, 0.125, 0.5]);
  });

  it('counts a mocked request as outcome mock with its cause: neither ok (latencyMs) nor an error (errorRate) (SPEC 4, issue 39)', () => {
    const r = makeRecorder();
    okCall(r, 1200, 10);
    okCall(r, 1200, 20);
    r.endRequest(start(r, 1200), 'mock', 4200, 'fail:return');
    r.endRequest(start(r, 2200), 'mock', 2200, 'force:return');
    r.endRequest(start(r, 2200), 'mock', 2200, 'fail:return');
    r.endRequest(start(r, 2300), 'timeout', 3300);
    finish(r);
    const s = r.summary(META);
    expect(s.outcomes).toMatchObject({ ok: 2, mock: 3, timeout: 1 });
    expect(s.mockCauses).toEqual({ 'fail:return': 2, 'force:return': 1 });
    expect([s.errorRate, s.mockRate]).toEqual([roundRatio(1 / 6), 0.5]);
    expect(s.latencyMs.max).toBe(20);
    expect(s.latencyAllMs.max).toBe(3000);
    expect(s.byConsumerZone.zoneA!.mockCauses).toEqual(s.mockCauses);
    expect(s.timeline.map((row) => [row.tMs, row.requests, row.ok, row.mock, row.timeout])).toEqual([
      [1000, 3, 2, 1, 0],
      [2000, 3, 0, 2, 1],
      [3000, 0, 0, 0, 0],
      [4000, 0, 0, 0, 0],
    ]);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('counts a request of a dark room as outcome lost: a failure (errorRate), in its start bucket of the timeline (SPEC 4, issue 40)', () => {
    const r = makeRecorder();
    okCall(r, 1200, 10);
    r.endRequest(start(r, 1200), 'lost', 2500);
    r.endRequest(start(r, 2100), 'lost', 2500);
    r.endRequest(start(r, 2200), 'timeout', 3200);
    finish(r);
    const s = r.summary(META);
    expect(s.outcomes).toMatchObject({ ok: 1, lost: 2, timeout: 1 });
    expect(s.errorRate).toBe(0.75);
    expect(s.byConsumerZone.zoneA!.outcomes.lost).toBe(2);
    expect(s.timeline.map((row) => [row.tMs, row.requests, row.ok, row.lost, row.timeout])).toEqual([
      [1000, 2, 1, 1, 0],
      [2000, 2, 0, 1, 1],
      [3000, 0, 0, 0, 0],
      [4000, 0, 0, 0, 0],
    ]);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('reports zeros, never NaN, when nothing was measured', () => {
    const r = makeRecorder();
    finish(r);
    const s = r.summary(META);
    expect(JSON.stringify(s)).not.toMatch(/NaN|null/);
    expect([s.requests, s.timeoutRate, s.retryAmplification, s.crossZoneRatio, s.latencyMs.p99]).toEqual([0, 0, 0, 0, 0]);
  });

  it('splits figures by consumer zone and by service method', () => {
    const r = makeRecorder();
    okCall(r, 1100, 10, { consumerZone: 'zoneB' });
    okCall(r, 1100, 20);
    okCall(r, 1100, 30, { method: 'updateUser' });
    r.endRequest(start(r, 1100, { consumerZone: 'zoneB', method: 'updateUser' }), 'timeout', 2100);
    finish(r);
    const s = r.summary(META);
    expect(Object.keys(s.byConsumerZone)).toEqual(['zoneA', 'zoneB']);
    expect(Object.keys(s.byService)).toEqual(['com.example.UserService.getUserById', 'com.example.UserService.updateUser']);
    expect([s.byConsumerZone.zoneA!.requests, s.byConsumerZone.zoneB!.requests]).toEqual([2, 2]);
    expect(s.byConsumerZone.zoneB!.timeoutRate).toBe(0.5);
    expect(s.byService['com.example.UserService.updateUser']!.latencyAllMs.max).toBe(1000);
    expect(s.byService['com.example.UserService.getUserById']!.latencyMs.mean).toBe(15);
  });

  it('counts each request in its own zone and method, with few scopes and with many', () => {
    // Requests in random order over 3 zones x 5 methods: the scopes are looked up by name both below
    // and above the few-cells quick path; names are fresh strings, as a parsed scenario gives them.
    const r = makeRecorder();
    const rng = new RandomStreams(7).stream('cells');
    const want = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const zones = i < 300 ? 2 : 3;
      const methods = i < 300 ? 2 : 5;
      const zone = ['zone', String.fromCharCode(65 + rng.nextInt(zones))].join('');
      const method = ['m', String(rng.nextInt(methods))].join('');
      okCall(r, 1100, 5, { consumerZone: zone, method });
      want.set(`${zone} ${method}`, (want.get(`${zone} ${method}`) ?? 0) + 1);
    }
    finish(r);
    const s = r.summary(META);
    const byZone = new Map<string, number>();
    const byMethod = new Map<string, number>();
    for (const [k, n] of want) {
      const [zone, method] = k.split(' ') as [string, string];
      byZone.set(zone, (byZone.get(zone) ?? 0) + n);
      byMethod.set(method, (byMethod.get(method) ?? 0) + n);
    }
    expect(want.size).toBe(15);
    for (const [zone, n] of byZone) expect(s.byConsumerZone[zone]!.requests).toBe(n);
    for (const [method, n] of byMethod) expect(s.byService[`com.example.UserService.${method}`]!.requests).toBe(n);
  });

  it('gives scopes the top-level request figures without run-level fields', () => {
    const r = makeRecorder();
    okCall(r, 1100, 10);
    finish(r);
    const s = r.summary(META);
    expect(Object.keys(s.byConsumerZone.zoneA!)).toEqual([
      'requests', 'ok', 'outcomes', 'timeoutRate', 'noProviderRate', 'errorRate', 'latencyMs', 'latencyAllMs',
      'attempts', 'retryAmplification', 'providerExecutions', 'duplicateExecutions', 'duplicateWrites',
      'orphanedExecutions', 'crossZoneRatio', 'noProviderCauses', 'rejectedCauses', 'mockRate', 'mockCauses',
    ]);
  });

  it('orders the summary keys as SPEC 4.1, additions last', () => {
    const r = makeRecorder();
    finish(r);
    expect(Object.keys(r.summary(META))).toEqual([
      'scenario', 'seed', 'seeds', 'version', 'simulatedMs', 'measuredFromMs', 'requests', 'ok', 'outcomes',
      'timeoutRate', 'noProviderRate', 'errorRate', 'latencyMs', 'latencyAllMs', 'attempts', 'retryAmplification',
      'providerExecutions', 'duplicateExecutions', 'duplicateWrites', 'orphanedExecutions', 'crossZoneRatio',
      'noProviderCauses', 'rejectedCauses', 'mockRate', 'mockCauses', 'crossZoneByPair', 'registry', 'byConsumerZone', 'byService', 'byProviderGroup', 'timeline',
      'events', 'faults', 'nonIdempotentMethods', 'timelineByZone', 'timelineByProviderGroup',
    ]);
  });

  it('uses ok requests for latencyMs and every request for latencyAllMs', () => {
    const r = makeRecorder();
    okCall(r, 1000, 10);
    okCall(r, 1000, 30);
    r.endRequest(start(r, 1000), 'timeout', 2000);
    finish(r);
    const s = r.summary(META);
    expect([s.latencyMs.mean, s.latencyMs.max]).toEqual([20, 30]);
    expect([s.latencyAllMs.mean, s.latencyAllMs.max]).toEqual([346.667, 1000]);
    expectHdr(s.latencyAllMs.p50, 30);
  });

  it('puts each request in the timeline bucket where it started', () => {
    const r = makeRecorder();
    const a = start(r, 1500);
    r.attempt(a, CROSS);
    r.attempt(a, SAME);
    okCall(r, 2500, 40);
    r.endRequest(a, 'timeout', 3900);
    finish(r);
    const s = r.summary(META);
    expect(s.timeline.map((row) => [row.tMs, row.requests, row.ok, row.timeout, row.crossZoneRatio])).toEqual([
      [1000, 1, 0, 1, 0.5],
      [2000, 1, 1, 0, 0],
      [3000, 0, 0, 0, 0],
      [4000, 0, 0, 0, 0],
    ]);
    expectHdr(s.timeline[0]!.p99Ms, 2400);
    expect(s.timeline.slice(1).map((row) => row.p99Ms)).toEqual([40, 0, 0]);
  });

  it('computes each bucket p99 over all its requests, failed ones included', () => {
    const r = makeRecorder();
    for (let i = 1; i <= 98; i++) okCall(r, 1000 + i, 10);
    r.endRequest(start(r, 1500), 'timeout', 2500);
    r.endRequest(start(r, 1600), 'timeout', 2600);
    finish(r);
    expectHdr(r.summary(META).timeline[0]!.p99Ms, 1000);
  });

  it('computes each bucket p99 over its own requests', () => {
    const r = makeRecorder();
    for (let i = 1; i <= 100; i++) okCall(r, 1000 + i, i);
    for (let i = 1; i <= 100; i++) okCall(r, 2000 + i, 1000 + i);
    finish(r);
    const s = r.summary(META);
    expectHdr(s.timeline[0]!.p99Ms, 99);
    expectHdr(s.timeline[1]!.p99Ms, 1099);
  });

  it('keeps only the timeline histograms of buckets with requests in flight', () => {
    const r = makeRecorder({ warmupMs: 0, durationMs: 180_000, bucketMs: 1000 });
    for (let t = 0; t < 180_000; t += 10) okCall(r, t, 5 + (t % 7));
    finish(r, 180_000);
    const s = r.summary(META);
    expect(s.timeline).toHaveLength(180);
    expect(s.timeline.every((row) => row.p99Ms === 11)).toBe(true);
    expect(r.peakLiveBucketHistograms).toBeLessThanOrEqual(2);
  });

  it('counts noProvider and forbidden outcomes by cause', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1100), 'noProvider', 1100, 'router:condition');
    r.endRequest(start(r, 1100), 'noProvider', 1100, 'router:condition');
    r.endRequest(start(r, 1100, { consumerZone: 'zoneB' }), 'forbidden', 1100, 'registry:forbidden');
    r.endRequest(start(r, 1100), 'noProvider', 1100);
    r.endRequest(start(r, 1100), 'timeout', 2100, 'ignored');
    finish(r);
    const s = r.summary(META);
    expect(s.noProviderCauses).toEqual({ 'registry:forbidden': 1, 'router:condition': 2, unspecified: 1 });
    expect(Object.keys(s.noProviderCauses)).toEqual(['registry:forbidden', 'router:condition', 'unspecified']);
    expect(s.byConsumerZone.zoneB!.noProviderCauses).toEqual({ 'registry:forbidden': 1 });
  });

  it('counts rejected outcomes by cause (pool, filters, consumer actives, entry pool), apart from noProvider causes', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1100), 'rejected', 1100, 'entry');
    r.endRequest(start(r, 1100), 'rejected', 1100, 'provider:threadpool');
    r.endRequest(start(r, 1100, { consumerZone: 'zoneB' }), 'rejected', 1100, 'entry');
    r.endRequest(start(r, 1100), 'rejected', 1100);
    r.endRequest(start(r, 1100), 'noProvider', 1100, 'router:condition');
    finish(r);
    const s = r.summary(META);
    expect(s.rejectedCauses).toEqual({ entry: 2, 'provider:threadpool': 1, unspecified: 1 });
    expect(Object.keys(s.rejectedCauses)).toEqual(['entry', 'provider:threadpool', 'unspecified']);
    expect(s.byConsumerZone.zoneB!.rejectedCauses).toEqual({ entry: 1 });
    expect(s.noProviderCauses).toEqual({ 'router:condition': 1 });
  });

  it('reports counters sorted by name and fault markers in time order', () => {
    const r = makeRecorder();
    r.count('router.forceEmpty');
    r.count('envoy.panic', 3);
    r.count('router.forceEmpty', 2);
    r.marker({ tMs: 3000, kind: 'end', label: 'zoneDown zoneA' });
    r.marker({ tMs: 2000, kind: 'start', label: 'zoneDown zoneA' });
    r.marker({ tMs: 2000, kind: 'start', label: 'partition zoneA zoneB' });
    finish(r);
    const s = r.summary(META);
    expect(Object.entries(s.events)).toEqual([
      ['envoy.panic', 3],
      ['router.forceEmpty', 3],
    ]);
    expect(s.faults.map((f) => `${f.tMs} ${f.kind} ${f.label}`)).toEqual([
      '2000 start zoneDown zoneA',
      '2000 start partition zoneA zoneB',
      '3000 end zoneDown zoneA',
    ]);
  });

  it('reports registry pushes and their bytes, in total, per consumer group and per discovery level', () => {
    const r = makeRecorder();
    r.push('web#1', 'web', 80);
    r.push('web#0', 'web', 120, 'application');
    r.push('web#1', 'web', 30, 'interface');
    finish(r);
    expect(r.summary(META).registry).toEqual({
      pushes: 3,
      pushBytes: 230,
      staleCalls: 0,
      byConsumerGroup: {
        web: {
          instances: 2,
          pushes: 3,
          pushBytes: 230,
          perInstance: { pushes: { min: 1, median: 1.5, max: 2 }, pushBytes: { min: 110, median: 115, max: 120 } },
          worst: [
            { id: 'web#0', pushes: 1, pushBytes: 120 },
            { id: 'web#1', pushes: 2, pushBytes: 110 },
          ],
        },
      },
      byLevel: { interface: { pushes: 2, pushBytes: 110 }, application: { pushes: 1, pushBytes: 120 } },
    });
  });

  it('reports provider-group executions, rejections, utilization and peak threads', () => {
    const r = makeRecorder();
    okCall(r, 1500, 1);
    r.rejected('users-b');
    finish(r);
    expect(r.summary(META).byProviderGroup).toEqual({
      'users-a': { instances: 2, executions: 1, rejected: 0, utilization: 0.2, peakActiveThreads: 7 },
      'users-b': { instances: 1, executions: 0, rejected: 1, utilization: 0, peakActiveThreads: 0 },
    });
  });

  it('gives p50, p90, p99 and p999 within 0.1% of the exact sample quantiles', () => {
    const rng = new RandomStreams(7).stream('latency');
    const r = makeRecorder();
    const values: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const ms = 1 + Math.exp(3 + 1.2 * Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next()));
      values.push(ms);
      okCall(r, 1000, ms);
    }
    finish(r);
    const s = r.summary(META);
    values.sort((a, b) => a - b);
    const exact = (q: number): number => values[Math.ceil(q * values.length) - 1]!;
    // 0.0005 ms of slack for the 3-decimal rounding of the output.
    expectHdr(s.latencyMs.p50 + 0.0005, exact(0.5));
    expectHdr(s.latencyMs.p90 + 0.0005, exact(0.9));
    expectHdr(s.latencyMs.p99 + 0.0005, exact(0.99));
    expectHdr(s.latencyMs.p999 + 0.0005, exact(0.999));
    expect(s.latencyMs.max).toBe(Math.round(values.at(-1)! * 1000) / 1000);
    expect(s.latencyMs.mean).toBe(Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1000) / 1000);
  });

  it('produces byte-identical JSON for the same sequence of events', () => {
    const run = (): string => {
      const r = makeRecorder();
      for (let i = 0; i < 50; i++) okCall(r, 1000 + i * 37, (i * 13) % 17, { consumerZone: i % 2 ? 'zoneB' : 'zoneA' });
      finish(r);
      return JSON.stringify(r.summary(META));
    };
    expect(run()).toBe(run());
  });
});

describe('Recorder.checkInvariants', () => {
  it('finds nothing wrong in a clean run', () => {
    const r = makeRecorder();
    okCall(r, 500, 3);
    okCall(r, 1500, 3);
    r.endRequest(start(r, 1600), 'noProvider', 1600, 'directory:empty');
    finish(r);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('marks a record ended once its outcome is known', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    expect([req.ended, req.outcome]).toEqual([false, null]);
    r.endRequest(req, 'network', 1501);
    expect([req.ended, req.outcome]).toEqual([true, 'network']);
  });

  it('detects a request ended twice', () => {
    const r = makeRecorder();
    const req = okCall(r, 1500, 3);
    r.endRequest(req, 'timeout', 2500);
    finish(r);
    expect(r.checkInvariants()).toEqual(['1 requests ended more than once']);
    expect(r.summary(META).outcomes.timeout).toBe(0);
  });

  it('detects a request that never ended', () => {
    const r = makeRecorder();
    start(r, 1500);
    finish(r);
    expect(r.checkInvariants()).toEqual(['1 of 1 started requests never ended']);
  });

  it('detects requests the world reports in flight at the end', () => {
    const r = makeRecorder();
    finish(r, 5000, 3);
    expect(r.checkInvariants()).toEqual(['3 requests still in flight at the end (the world must drain before finishing)']);
  });

  it('detects an execution without an attempt', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.execution(req, 'users-a');
    r.endRequest(req, 'timeout', 1600);
    finish(r);
    expect(r.checkInvariants()).toEqual([
      '1 executions of requests that had no attempt',
      'attempts (0) < requests that reached a provider (1)',
    ]);
  });

  it('detects an ok request without any attempt, measured or not', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1500), 'ok', 1600);
    r.endRequest(start(r, 10), 'ok', 20);
    finish(r);
    expect(r.checkInvariants()).toEqual([
      "2 requests ended ok without any attempt (an ok outcome needs a provider's answer, or a cluster's empty result)",
    ]);
  });

  it("accepts an ok request without attempt when it is a cluster's empty result (failsafe swallowed a refusal)", () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1500), 'ok', 1600, EMPTY_RESULT_CAUSE);
    finish(r);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('detects an execution at a provider group that was not declared', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.attempt(req, SAME);
    r.execution(req, 'ghosts');
    r.endRequest(req, 'ok', 1600);
    finish(r);
    expect(r.checkInvariants()).toEqual(['provider group "ghosts" was not declared to the recorder']);
  });

  it('refuses to summarize before finish', () => {
    const r = makeRecorder();
    expect(r.checkInvariants()).toEqual(['Recorder.finish() was not called']);
    expect(() => r.summary(META)).toThrow(/finish/);
  });
});
