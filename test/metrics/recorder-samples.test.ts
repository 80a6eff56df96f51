/**
 * What the recorder reads at each sample besides pushes and provider groups: the open Sentinel
 * breakers per consumer zone (timeline `openBreakers`), and when samples are due or ignored.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';

const META = { scenario: 's', seed: 1, seeds: [1], version: 'test' };

function makeRecorder(over: Partial<ConstructorParameters<typeof Recorder>[0]> = {}): Recorder {
  return new Recorder({ warmupMs: 1000, durationMs: 4000, bucketMs: 1000, providerGroups: [{ name: 'g', instances: 1, threads: 1 }], ...over });
}

/** One ok request in `zone` at `startMs`, so that the zone has timeline rows. */
function request(r: Recorder, zone: string, startMs: number): void {
  const req = r.startRequest({ consumerGroup: 'web', consumerZone: zone, service: 'S', method: 'm', idempotent: true, startMs });
  r.attempt(req, { crossZone: false, stale: false, providerGroup: 'g', providerZone: zone });
  r.endRequest(req, 'ok', startMs + 1);
}

function finish(r: Recorder): Summary {
  r.finish({ simulatedMs: r.durationMs, providerGroups: [], inFlight: 0 });
  return r.summary(META);
}

describe('open Sentinel breakers on the timeline', () => {
  it('give each bucket the breakers open at its end, summed over zones, and each zone its own', () => {
    const r = makeRecorder();
    request(r, 'zoneA', 1500);
    request(r, 'zoneB', 1500);
    const breakers = new Map([
      ['zoneA', 2],
      ['zoneB', 3],
    ]);
    r.sample([], new Map([['zoneA', 9]])); // the window's start: no bucket ends there
    r.sample([], breakers);
    // The recorder keeps what was open then, whatever the map becomes afterwards.
    breakers.set('zoneA', 100);
    r.sample([], new Map([['zoneB', 1]]));
    r.sample([]); // a sample without Sentinel's figures: 0 for that bucket
    r.sample([], new Map([['zoneA', 5]])); // past the last bucket: ignored
    const s = finish(r);
    expect(s.timeline.map((row) => row.openBreakers)).toEqual([5, 1, 0]);
    expect(s.timelineByZone!.zoneA!.map((row) => row.openBreakers)).toEqual([2, 0, 0]);
    expect(s.timelineByZone!.zoneB!.map((row) => row.openBreakers)).toEqual([3, 1, 0]);
  });

  it('are 0 in the buckets before the first sample that carried them', () => {
    const r = makeRecorder();
    request(r, 'zoneA', 1500);
    r.sample([]);
    r.sample([]);
    r.sample([], new Map([['zoneA', 2]]));
    r.sample([]);
    const s = finish(r);
    expect(s.timeline.map((row) => row.openBreakers)).toEqual([0, 2, 0]);
    expect(s.timelineByZone!.zoneA!.map((row) => row.openBreakers)).toEqual([0, 2, 0]);
  });

  it('are no column at all when no sample carried them (a run without Sentinel)', () => {
    const r = makeRecorder();
    request(r, 'zoneA', 1500);
    for (let k = 0; r.sampleTimeMs(k) !== undefined; k++) r.sample([]);
    const s = finish(r);
    expect(s.timeline.some((row) => 'openBreakers' in row)).toBe(false);
    expect(s.timelineByZone!.zoneA!.some((row) => 'openBreakers' in row)).toBe(false);
  });
});

describe('sample times', () => {
  it('are none for a window with no bucket, and none before the first or after the last', () => {
    const empty = makeRecorder({ warmupMs: 2000, durationMs: 2000 });
    expect(empty.sampleTimeMs(0)).toBeUndefined();
    const r = makeRecorder({ durationMs: 3500 });
    expect([r.sampleTimeMs(-1), r.sampleTimeMs(0), r.sampleTimeMs(2), r.sampleTimeMs(3), r.sampleTimeMs(4)]).toEqual([undefined, 1000, 3000, 3500, undefined]);
  });
});

describe('the memory bound of the per-zone and per-group timelines', () => {
  const summaryOf = (opts: Partial<ConstructorParameters<typeof Recorder>[0]>): Summary => finish(new Recorder({ warmupMs: 1000, durationMs: 3000, bucketMs: 1, providerGroups: [], ...opts }));

  it('counts the buckets of the measured window only, and each zone of the scenario', () => {
    // 125 zones x 2000 buckets (1000 to 3000 ms) is the bound exactly; one bucket more passes it.
    const zoneNames = Array.from({ length: 125 }, (_, i) => `z${i}`);
    expect('timelineByZone' in summaryOf({ zoneNames })).toBe(true);
    expect('timelineByZone' in summaryOf({ zoneNames, durationMs: 3001 })).toBe(false);
  });

  it('counts one zone when the scenario names none', () => {
    // (1 + 249 groups) x 1001 buckets passes the bound.
    const providerGroups = Array.from({ length: 249 }, (_, i) => ({ name: `g${i}`, instances: 1, threads: 1 }));
    for (const zoneNames of [undefined, []]) {
      const s = summaryOf({ providerGroups, zoneNames, durationMs: 2001 });
      expect('timelineByZone' in s || 'timelineByProviderGroup' in s, JSON.stringify(zoneNames)).toBe(false);
    }
  });
});
