/**
 * Details of the summary the recorder builds that the broader recorder tests leave open: scopes that
 * share a method name, the causes of blocked and mocked requests, what a warm-up request's orphans
 * and duplicates count for, and the order of keys (declared order is not output order).
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';
import type { RequestRecord } from '../../src/metrics/request-record.js';
import type { Summary } from '../../src/metrics/summary.js';

const META = { scenario: 's', seed: 1, seeds: [1], version: 'test' };
const ATTEMPT = { crossZone: false, stale: false, providerGroup: 'users', providerZone: 'zoneA' };

function makeRecorder(over: Partial<ConstructorParameters<typeof Recorder>[0]> = {}): Recorder {
  return new Recorder({ warmupMs: 1000, durationMs: 3000, bucketMs: 1000, providerGroups: [{ name: 'users', instances: 1, threads: 1 }], ...over });
}

function start(r: Recorder, startMs: number, service = 'S', method = 'm'): RequestRecord {
  return r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service, method, idempotent: true, startMs });
}

function finish(r: Recorder): Summary {
  r.finish({ simulatedMs: 3000, providerGroups: [], inFlight: 0 });
  return r.summary(META);
}

describe('the summary`s scopes', () => {
  it('keep apart two services whose methods have the same name, in the same zone', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1500, 'com.example.Orders', 'get'), 'timeout', 2500);
    r.endRequest(start(r, 1500, 'com.example.Users', 'get'), 'noProvider', 1500, 'x');
    r.endRequest(start(r, 1600, 'com.example.Users', 'get'), 'noProvider', 1600, 'x');
    const s = finish(r);
    expect(Object.entries(s.byService).map(([k, v]) => [k, v.requests, v.outcomes.timeout, v.outcomes.noProvider])).toEqual([
      ['com.example.Orders.get', 1, 1, 0],
      ['com.example.Users.get', 2, 0, 2],
    ]);
  });

  it('count blocked and mocked requests by cause, "unspecified" when none is given', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1500), 'blocked', 1500, 'consumer:flow');
    r.endRequest(start(r, 1500), 'blocked', 1500);
    r.endRequest(start(r, 1500), 'mock', 1500);
    r.endRequest(start(r, 1500), 'mock', 1500, 'fail:return');
    const s = finish(r);
    expect(s.byConsumerZone.zoneA!.blockedCauses).toEqual({ 'consumer:flow': 1, unspecified: 1 });
    expect(s.mockCauses).toEqual({ 'fail:return': 1, unspecified: 1 });
    expect([s.outcomes.blocked, s.outcomes.mock, s.noProviderCauses, s.rejectedCauses]).toEqual([2, 2, {}, {}]);
  });

  it('have no blocked causes when no request was blocked', () => {
    const r = makeRecorder();
    r.endRequest(start(r, 1500), 'timeout', 2500, 'consumer:flow');
    expect('blockedCauses' in finish(r).byConsumerZone.zoneA!).toBe(false);
  });
});

describe('a request outside the measured window', () => {
  it('leaves its orphans out of the figures, though they count for the invariants', () => {
    const r = makeRecorder();
    const warm = start(r, 500);
    r.attempt(warm, ATTEMPT);
    r.execution(warm, 'users');
    r.orphaned(warm);
    r.endRequest(warm, 'timeout', 1500);
    const s = finish(r);
    expect([s.requests, s.orphanedExecutions, s.byProviderGroup.users!.executions]).toEqual([0, 0, 1]);
    expect(r.checkInvariants()).toEqual([]);
  });
});

describe('a request that reached a provider', () => {
  it('counts once against the attempts however many executions it had', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.attempt(req, ATTEMPT);
    r.execution(req, 'users');
    r.execution(req, 'users');
    r.endRequest(req, 'ok', 1600);
    const s = finish(r);
    expect([s.providerExecutions, s.duplicateExecutions, s.attempts]).toEqual([2, 1, 1]);
    expect(r.checkInvariants()).toEqual([]);
  });
});

describe('the order of the summary`s keys', () => {
  it('sorts provider groups by name, whatever order they were declared in', () => {
    const groups = ['zeta', 'alpha', 'mid'].map((name) => ({ name, instances: 1, threads: 1 }));
    const r = makeRecorder({ providerGroups: groups });
    for (let k = 0; r.sampleTimeMs(k) !== undefined; k++) r.sample(groups.map((g) => ({ name: g.name, busyMs: 0, peakActiveThreads: 0 })));
    const s = finish(r);
    expect(Object.keys(s.byProviderGroup)).toEqual(['alpha', 'mid', 'zeta']);
    expect(Object.keys(s.timelineByProviderGroup!)).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('sorts the services of a group that exports several by name, whatever order they were declared or seen in', () => {
    const declared = Array.from({ length: 40 }, (_, i) => `com.example.S${String((i * 23) % 40).padStart(2, '0')}`);
    const r = makeRecorder({ providerGroups: [{ name: 'app', instances: 1, threads: 1, services: declared.slice(0, 30) }] });
    const req = start(r, 1500);
    r.attempt(req, ATTEMPT);
    // The last ten show up only as they are executed, in their scrambled order.
    for (const svc of [...declared].reverse()) r.execution(req, 'app', svc);
    r.endRequest(req, 'ok', 1600);
    expect(Object.keys(finish(r).byProviderGroup.app!.byService!)).toEqual([...declared].sort());
  });

  it('lists the non-idempotent methods as none when it was given none', () => {
    expect(finish(makeRecorder()).nonIdempotentMethods).toEqual([]);
  });
});

describe('a sample past the last bucket', () => {
  it('changes no group`s rows', () => {
    const groups = ['a', 'b'].map((name) => ({ name, instances: 1, threads: 1 }));
    const r = makeRecorder({ providerGroups: groups });
    const sample = (n: number): void => r.sample(groups.map((g) => ({ name: g.name, busyMs: n * 100, peakActiveThreads: n })));
    sample(0);
    sample(1);
    sample(2);
    sample(9); // past the last bucket: ignored
    const rows = finish(r).timelineByProviderGroup!;
    expect([rows.a!.map((x) => x.peakActiveThreads), rows.b!.map((x) => x.peakActiveThreads)]).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });
});
