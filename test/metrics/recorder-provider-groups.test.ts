/**
 * The provider side of the summary (`byProviderGroup`): executions and rejections per group over the
 * whole run, per exported service for a group that exports several, and groups the recorder was not
 * told of (an invariant violation, still counted).
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';

const META = { scenario: 's', seed: 1, seeds: [1], version: 'test' };

function makeRecorder(): Recorder {
  return new Recorder({
    warmupMs: 0,
    durationMs: 1000,
    bucketMs: 1000,
    providerGroups: [
      { name: 'shop', instances: 2, threads: 10, services: ['com.example.Orders', 'com.example.Payments'] },
      { name: 'users', instances: 1, threads: 4, services: ['com.example.Users'] },
    ],
  });
}

describe('byProviderGroup', () => {
  it('splits a group of several services by service, sorted, with services it was not told of added', () => {
    const r = makeRecorder();
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: 'com.example.Payments', method: 'pay', idempotent: true, startMs: 10 });
    r.attempt(req, { crossZone: false, stale: false, providerGroup: 'shop', providerZone: 'zoneA' });
    r.execution(req, 'shop', 'com.example.Payments');
    r.execution(req, 'shop', 'com.example.Payments');
    r.execution(req, 'shop', 'com.example.Audit');
    r.execution(req, 'shop'); // no service named: the group's figure only
    r.rejected('shop', 'com.example.Orders');
    r.rejected('shop', 'com.example.Audit');
    r.rejected('shop');
    r.execution(req, 'users', 'com.example.Users');
    r.rejected('users', 'com.example.Users');
    r.endRequest(req, 'ok', 20);
    r.finish({ simulatedMs: 1000, providerGroups: [{ name: 'shop', busyMs: 5000, peakActiveThreads: 6 }], inFlight: 0 });
    const g = r.summary(META).byProviderGroup;
    expect(g.shop).toEqual({
      instances: 2,
      executions: 4,
      rejected: 3,
      utilization: 0.25,
      peakActiveThreads: 6,
      byService: {
        'com.example.Audit': { executions: 1, rejected: 1 },
        'com.example.Orders': { executions: 0, rejected: 1 },
        'com.example.Payments': { executions: 2, rejected: 0 },
      },
    });
    // A one-service group has no split.
    expect(g.users).toEqual({ instances: 1, executions: 1, rejected: 1, utilization: 0, peakActiveThreads: 0 });
  });

  it('counts the executions and rejections of a group it was not told of, under its name, with no capacity', () => {
    const r = makeRecorder();
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: 'S', method: 'm', idempotent: true, startMs: 10 });
    r.attempt(req, { crossZone: false, stale: false, providerGroup: 'ghost', providerZone: 'zoneA' });
    r.execution(req, 'ghost', 'S');
    r.rejected('ghost', 'S');
    r.rejected('ghost');
    r.endRequest(req, 'ok', 20);
    r.finish({ simulatedMs: 1000, providerGroups: [{ name: 'ghost', busyMs: 10, peakActiveThreads: 1 }], inFlight: 0 });
    const s = r.summary(META);
    expect(s.byProviderGroup.ghost).toEqual({ instances: 0, executions: 1, rejected: 2, utilization: 0, peakActiveThreads: 1 });
    // Not in the per-group timeline: it has no row there.
    expect(Object.keys(s.timelineByProviderGroup!)).toEqual(['shop', 'users']);
    expect(r.checkInvariants()).toEqual(['provider group "ghost" was not declared to the recorder']);
  });
});
