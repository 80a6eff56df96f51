/**
 * The load phases of `check`'s pool-load model and the cost estimate with a dark room (`roomDown` with
 * `shift`, ended by `for:` or `roomUp`): each phase's consumer rates are those the world runs at.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';
import { parseScenario } from '../../src/scenario/load.js';
import { loadPhaseSpans } from '../../src/scenario/load-phases.js';
import { buildWorld } from '../../src/scenario/run.js';

const CALLS = 'calls: { com.example.UserService.getUserById: 1 }';

// web: 600/s in zoneA, 300/s in zoneB, 100/s and 300/s in zoneC; api: 50/s in zoneA, 70/s in zoneB, 30/s in zoneC.
const scenario = (faults: string[]) =>
  parseScenario(
    `name: phases
duration: 60s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
  zoneC: { cidr: 10.30.0.0/16 }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 5ms }
providers:
  - { service: com.example.UserService, zone: zoneB, count: 2 }
consumers:
  - { application: web, zone: zoneA, rate: 600/s, ${CALLS} }
  - { application: web, zone: zoneB, rate: 300/s, ${CALLS} }
  - { application: web, zone: zoneC, rate: 100/s, ${CALLS} }
  - { application: web, zone: zoneC, rate: 300/s, ${CALLS} }
  - { application: api, zone: zoneA, rate: 50/s, ${CALLS} }
  - { application: api, zone: zoneB, rate: 70/s, ${CALLS} }
  - { application: api, zone: zoneC, rate: 30/s, ${CALLS} }
faults: [${faults.join(', ')}]
`,
    'phases.yaml',
  );

/** The world's arrival rates in the middle of each span of the timeline. */
function worldRates(s: ReturnType<typeof scenario>, spans: Array<{ fromMs: number; toMs: number }>): number[][] {
  const world = buildWorld(s, 1, new Recorder({ warmupMs: 0, durationMs: s.durationMs, bucketMs: 1000, providerGroups: [] }));
  return spans.map((span) => {
    world.sim.run({ until: (span.fromMs + span.toMs) / 2 });
    return world.consumerGroups.map((g) => g.arrivalRatePerSec);
  });
}

describe('load phases with a dark room', () => {
  it.each([
    ['for:', ['{ at: 10s, roomDown: zoneA, shift: { zoneB: 3, zoneC: 2 }, for: 20s }', '{ at: 20s, traffic: { consumer: web, zone: zoneB, factor: 2 } }']],
    ['roomUp', ['{ at: 10s, roomDown: zoneA, shift: { zoneB: 3, zoneC: 2 } }', '{ at: 20s, traffic: { consumer: web, zone: zoneB, factor: 2 } }', '{ at: 30s, roomUp: zoneA }']],
  ])('gives each phase the rates the world runs at (room back with %s)', (_label, faults) => {
    const s = scenario(faults);
    const spans = loadPhaseSpans(s);
    expect(spans.map((p) => [p.fromMs, p.toMs])).toEqual([
      [0, 10_000],
      [10_000, 20_000],
      [20_000, 30_000],
      [30_000, 60_000],
    ]);
    const rates = spans.map((p) => p.phase.ratePerSec);
    expect(rates).toEqual(worldRates(s, spans));
    // Dark: web's 600/s goes 360 to zoneB and 240 to zoneC (60 + 180 by their own 100 and 300); api's 50 goes 30 and 20.
    expect(rates[1]).toEqual([0, 660, 160, 480, 0, 100, 50]);
    // A traffic fault on a receiving group doubles its own rate only.
    expect(rates[2]).toEqual([0, 960, 160, 480, 0, 100, 50]);
    expect(rates[3]).toEqual([600, 600, 100, 300, 50, 70, 30]);
  });
});
