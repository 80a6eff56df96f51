/**
 * A room that goes dark (SPEC 2.8 `roomDown` / `roomUp` with `shift`), through whole runs: the
 * room's requests in flight end `lost` at the fault's instant, its consumers start nothing while it
 * is dark and send nothing more for the lost requests, `shift` moves their rate to the other rooms
 * by share, and the room comes back with `for:` or `roomUp`.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';
import { parseScenario } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';

const SERVICE = 'com.example.UserService';

/**
 * Three rooms, a 4 ms round trip between rooms (2 ms each way), 0 within one; providers in zoneB
 * whose method takes `serviceMs`; `consumers` and `faults` are YAML list entries.
 */
const scenario = (o: { consumers: string[]; faults: string[]; serviceMs?: number; providers?: string[]; duration?: string }) =>
  parseScenario(
    `name: room
seed: 3
duration: ${o.duration ?? '30s'}
warmup: 0s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
  zoneC: { cidr: 10.30.0.0/16 }
network:
  rtt: { same-zone: 0ms, default: 4ms }
registry: { type: static }
services:
  ${SERVICE}:
    methods:
      getUserById: { serviceTime: ${o.serviceMs ?? 50}ms }
providers:
${(o.providers ?? [`{ service: ${SERVICE}, zone: zoneB, count: 4 }`]).map((p) => `  - ${p}`).join('\n')}
consumers:
${o.consumers.map((c) => `  - ${c}`).join('\n')}
faults: [${o.faults.join(', ')}]
`,
    'room.yaml',
  );

const calls = `calls: { ${SERVICE}.getUserById: 1 }`;
const constantWeb = (zone: string, rate = 100) => `{ application: web, zone: ${zone}, rate: ${rate}/s, arrival: constant, ${calls} }`;
const poissonWeb = (zone: string, rate: number) => `{ application: web, zone: ${zone}, rate: ${rate}/s, ${calls} }`;

const run = (s: ReturnType<typeof scenario>) => runScenario(s, { version: 'test' }).summary;

/** Requests of `zone` started in [fromS, toS) seconds, from the 1 s buckets of `timelineByZone`. */
const requestsIn = (s: Summary, zone: string, fromS: number, toS: number) =>
  s.timelineByZone![zone]!.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000).reduce((n, r) => n + r.requests, 0);

/** A Poisson count lies within 4 sd of its mean but for a chance of 6e-5 (deterministic with the fixed seed). */
const expectPoisson = (count: number, mean: number) => expect(Math.abs(count - mean)).toBeLessThan(4 * Math.sqrt(mean));

/** The arrival times (ms) of a constant-rate group from 0 up to and including `untilMs`. */
const arrivals = (gapMs: number, untilMs: number) => Array.from({ length: Math.floor(untilMs / gapMs) + 1 }, (_, k) => k * gapMs);

describe('roomDown', () => {
  // zoneA's web calls zoneB every 10 ms; each request takes 2 + 50 + 2 = 54 ms. The room goes dark at
  // 10 005 ms, between two arrivals: the requests started in (10 005 - 54, 10 005] are in flight.
  const T = 10_005;
  const LATENCY = 54;
  const inFlight = arrivals(10, T).filter((s) => s > T - LATENCY);

  it('ends the requests in flight as lost at exactly the fault time, their executions orphaned, counted', () => {
    expect(inFlight).toEqual([9960, 9970, 9980, 9990, 10_000]);
    const s = run(scenario({ consumers: [constantWeb('zoneA'), constantWeb('zoneB')], faults: [`{ at: ${T}ms, roomDown: zoneA }`] }));
    const a = s.byConsumerZone.zoneA!;
    expect(a.outcomes.lost).toBe(inFlight.length);
    // Every other zoneA request started before the fault and ended ok; none started after it.
    expect(a.requests).toBe(arrivals(10, T).length);
    expect(a.ok).toBe(a.requests - inFlight.length);
    expect(a.latencyMs.max).toBe(LATENCY);
    // Each lost request was executing at a provider: its response reached no one.
    expect(a.orphanedExecutions).toBe(inFlight.length);
    expect(s.byConsumerZone.zoneB!.outcomes.lost).toBe(0);
    expect(s.errorRate).toBeCloseTo(inFlight.length / s.requests, 6);
    // Timeline rows count them in the bucket where they started.
    const lostByBucket = s.timelineByZone!.zoneA!.map((r) => r.lost);
    expect(lostByBucket[9]).toBe(inFlight.filter((t) => t < 10_000).length);
    expect(lostByBucket[10]).toBe(inFlight.filter((t) => t >= 10_000).length);
    expect(s.events['room.lostRequests']).toBe(inFlight.length);
    expect(s.faults).toEqual([{ tMs: T, kind: 'start', label: `roomDown zoneA: ${inFlight.length} requests lost` }]);
  });

  it('sends nothing more for a lost request: its failover retries are never made', () => {
    // Attempts time out after 1 s (the provider takes 2 s) and failover makes 3 in all, at s, s + 1 s and
    // s + 2 s. A request started at s has made those with s + k·1000 <= T when the room goes dark; a
    // retry after T would be a dead process's.
    const s = run(scenario({ consumers: [constantWeb('zoneA')], faults: [`{ at: ${T}ms, roomDown: zoneA }`], serviceMs: 2000 }));
    const started = arrivals(10, T);
    const attemptsBy = (t: number) => started.reduce((n, s0) => n + [0, 1000, 2000].filter((k) => s0 + k <= t).length, 0);
    expect(s.attempts).toBe(attemptsBy(T));
    expect(s.outcomes.timeout).toBe(started.filter((s0) => s0 + 3000 < T).length);
    expect(s.outcomes.lost).toBe(started.filter((s0) => s0 + 3000 > T).length);
  });

  it('starts no request of the room while it is dark; arrivals resume when for: ends', () => {
    const s = run(scenario({ consumers: [constantWeb('zoneA'), constantWeb('zoneB')], faults: [`{ at: ${T}ms, roomDown: zoneA, for: 10s }`] }));
    // Dark from 10.005 s to 20.005 s: the 10 s arrival is the last before, the first after comes one gap after 20.005 s.
    expect(requestsIn(s, 'zoneA', 11, 20)).toBe(0);
    expect(requestsIn(s, 'zoneA', 10, 11)).toBe(1);
    expect(requestsIn(s, 'zoneA', 20, 21)).toBe(arrivals(10, 1000).filter((t) => 20_005 + 10 + t < 21_000).length);
    expect(requestsIn(s, 'zoneA', 21, 30)).toBe(900);
    // The other room runs on untouched.
    expect(requestsIn(s, 'zoneB', 0, 30)).toBe(3000);
    expect(s.faults.map((m) => [m.tMs, m.kind])).toEqual([
      [T, 'start'],
      [T + 10_000, 'end'],
    ]);
  });

  it('roomUp brings the room back like for: does: providers answer again, consumers resume', () => {
    const providers = [`{ service: ${SERVICE}, zone: zoneA, count: 2 }`, `{ service: ${SERVICE}, zone: zoneB, count: 2 }`];
    const consumers = [constantWeb('zoneA'), constantWeb('zoneB')];
    const viaFor = run(scenario({ consumers, providers, faults: [`{ at: ${T}ms, roomDown: zoneA, for: 10s }`] }));
    const viaUp = run(scenario({ consumers, providers, faults: [`{ at: ${T}ms, roomDown: zoneA }`, `{ at: ${T + 10_000}ms, roomUp: zoneA }`] }));
    expect(viaUp.timelineByZone).toEqual(viaFor.timelineByZone);
    expect(viaUp.outcomes).toEqual(viaFor.outcomes);
    // The room's providers were black-holed: zoneB's attempts on them timed out (1 s) before failover
    // found a zoneB provider, meanwhile, not after.
    const p99 = viaUp.timelineByZone!.zoneB!.map((r) => r.p99Ms);
    expect(p99.slice(11, 20).every((ms) => ms > 1000)).toBe(true);
    expect(p99.slice(22).every((ms) => ms < 100)).toBe(true);

    const world = buildWorld(scenario({ consumers, providers, faults: [`{ at: ${T}ms, roomDown: zoneA }`, `{ at: 20s, roomUp: zoneA }`] }), 3, recorder());
    const states = () => world.providerGroups.flatMap((g) => g.instances.map((p) => `${p.zone}:${p.state}`));
    const dark = () => world.consumerGroups.map((g) => g.dark);
    world.sim.run({ until: 15_000 });
    expect([states(), dark()]).toEqual([['zoneA:blackhole', 'zoneA:blackhole', 'zoneB:up', 'zoneB:up'], [true, false]]);
    world.sim.run({ until: 20_000 });
    expect([states(), dark()]).toEqual([['zoneA:up', 'zoneA:up', 'zoneB:up', 'zoneB:up'], [false, false]]);
  });
});

function recorder(): Recorder {
  return new Recorder({ warmupMs: 0, durationMs: 30_000, bucketMs: 1000, providerGroups: [] });
}

describe('roomDown with shift', () => {
  // web: 600/s in zoneA, 300/s in zoneB, and two groups in zoneC (100/s and 300/s). zoneA goes dark
  // with shift { zoneB: 3, zoneC: 2 } (normalized: 0.6 and 0.4).
  const consumers = [poissonWeb('zoneA', 600), poissonWeb('zoneB', 300), poissonWeb('zoneC', 100), poissonWeb('zoneC', 300)];
  const faults = ['{ at: 10s, roomDown: zoneA, shift: { zoneB: 3, zoneC: 2 }, for: 10s }'];

  it('moves the dark groups\' rate to the other rooms by share, split in one room by the groups\' own rates, and back', () => {
    const world = buildWorld(scenario({ consumers, faults }), 3, recorder());
    const rates = () => world.consumerGroups.map((g) => g.arrivalRatePerSec);
    world.sim.run({ until: 9_999 });
    expect(rates()).toEqual([600, 300, 100, 300]);
    world.sim.run({ until: 10_000 });
    // zoneB gets 0.6 × 600 = 360; zoneC 0.4 × 600 = 240, split 1:3 between its groups (60 and 180).
    expect(rates()).toEqual([0, 300 + 360, 100 + 60, 300 + 180]);
    // The dark group keeps its own rate (for when it comes back); `traffic` faults read that one.
    expect(world.consumerGroups.map((g) => g.ratePerSec)).toEqual([600, 300, 100, 300]);
    world.sim.run({ until: 20_000 });
    expect(rates()).toEqual([600, 300, 100, 300]);
  });

  it('shows in the requests per zone, within sampling error', () => {
    const s = run(scenario({ consumers, faults }));
    expectPoisson(requestsIn(s, 'zoneA', 0, 10), 6000);
    expectPoisson(requestsIn(s, 'zoneB', 0, 10), 3000);
    expectPoisson(requestsIn(s, 'zoneC', 0, 10), 4000);
    expect(requestsIn(s, 'zoneA', 10, 20)).toBe(0);
    expectPoisson(requestsIn(s, 'zoneB', 10, 20), 6600);
    expectPoisson(requestsIn(s, 'zoneC', 10, 20), 6400);
    expectPoisson(requestsIn(s, 'zoneA', 20, 30), 6000);
    expectPoisson(requestsIn(s, 'zoneB', 20, 30), 3000);
    expectPoisson(requestsIn(s, 'zoneC', 20, 30), 4000);
    // The total is kept while the room is dark: the estate serves the same users from two rooms.
    expectPoisson(requestsIn(s, 'zoneB', 10, 20) + requestsIn(s, 'zoneC', 10, 20), 13_000);
  });
});
