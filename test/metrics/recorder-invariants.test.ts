/**
 * The recorder's own checks (SPEC 5) beyond those of recorder.test.ts, each provoked by the one
 * wrong sequence of events it exists to catch, and the calls it refuses outright.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';
import type { RequestRecord } from '../../src/metrics/request-record.js';

const GROUPS = [{ name: 'g', instances: 1, threads: 4 }];
const ATTEMPT = { crossZone: false, stale: false, providerGroup: 'g', providerZone: 'zoneA' };

function makeRecorder(): Recorder {
  return new Recorder({ warmupMs: 1000, durationMs: 5000, bucketMs: 1000, providerGroups: GROUPS });
}

function start(r: Recorder, startMs: number): RequestRecord {
  return r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: 'S', method: 'm', idempotent: true, startMs });
}

function finish(r: Recorder): void {
  r.finish({ simulatedMs: 5000, providerGroups: [{ name: 'g', busyMs: 0, peakActiveThreads: 0 }], inFlight: 0 });
}

describe('Recorder.checkInvariants, more', () => {
  it('detects more orphaned executions than executions', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.attempt(req, ATTEMPT);
    r.orphaned(req);
    r.endRequest(req, 'timeout', 2500);
    finish(r);
    expect(r.checkInvariants()).toEqual(['orphaned executions (1) > executions (0)']);
  });

  it('accepts as many orphans as executions', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.attempt(req, ATTEMPT);
    r.execution(req, 'g');
    r.orphaned(req);
    r.endRequest(req, 'timeout', 2500);
    finish(r);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('detects a request that ended before it started, and counts its latency as 0', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.attempt(req, ATTEMPT);
    r.execution(req, 'g');
    r.endRequest(req, 'ok', 1400);
    finish(r);
    expect(r.checkInvariants()).toEqual(['1 requests ended before they started']);
    expect(r.summary({ scenario: 's', seed: 1, seeds: [1], version: 't' }).latencyMs.max).toBe(0);
  });

  it('accepts a request that ended the instant it started', () => {
    const r = makeRecorder();
    const req = start(r, 1500);
    r.endRequest(req, 'noProvider', 1500, 'directory:empty');
    finish(r);
    expect(r.checkInvariants()).toEqual([]);
  });

  it('detects a request started in a timeline bucket already closed (start times went backwards)', () => {
    const r = makeRecorder();
    const a = start(r, 1500);
    r.endRequest(a, 'noProvider', 1500, 'x');
    // A start in a later bucket closes the earlier one, which no request holds open any more.
    const b = start(r, 3500);
    r.endRequest(b, 'noProvider', 3500, 'x');
    const late = start(r, 1600);
    r.endRequest(late, 'noProvider', 1600, 'x');
    finish(r);
    expect(r.checkInvariants()).toEqual(['1 requests started in a timeline bucket already closed (start times went backwards)']);
  });

  it('lists several violations in the order of SPEC 5', () => {
    const r = makeRecorder();
    start(r, 1500);
    const req = start(r, 1500);
    r.execution(req, 'g');
    r.endRequest(req, 'ok', 1400);
    r.endRequest(req, 'ok', 1400);
    r.finish({ simulatedMs: 5000, providerGroups: [], inFlight: 1 });
    expect(r.checkInvariants()).toEqual([
      '1 requests still in flight at the end (the world must drain before finishing)',
      '1 of 2 started requests never ended',
      '1 requests ended more than once',
      '1 executions of requests that had no attempt',
      'attempts (0) < requests that reached a provider (1)',
      '1 requests ended before they started',
      "1 requests ended ok without any attempt (an ok outcome needs a provider's answer, or a cluster's empty result)",
    ]);
  });
});

describe('the calls the recorder refuses', () => {
  it('refuses an outcome it does not know', () => {
    const r = makeRecorder();
    expect(() => r.endRequest(start(r, 1500), 'nonsense' as never, 1600)).toThrow(new TypeError('unknown outcome: nonsense'));
  });

  it('refuses a second finish', () => {
    const r = makeRecorder();
    finish(r);
    expect(() => finish(r)).toThrow('Recorder.finish() called twice');
  });
});

describe('the recorder`s running counters', () => {
  it('count every request started and every attempt sent, warm-up and drain included', () => {
    const r = makeRecorder();
    const early = start(r, 100);
    const late = start(r, 6000);
    r.attempt(early, ATTEMPT);
    r.attempt(early, ATTEMPT);
    r.attempt(late, ATTEMPT);
    expect([r.requestsStarted, r.attemptsSent]).toEqual([2, 3]);
    expect([early.attempts, late.attempts]).toEqual([2, 1]);
  });
});
