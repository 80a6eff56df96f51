/**
 * The wall-time estimate of `--dry-run`: constants over the cost estimate, so it is deterministic
 * and grows with what a run simulates. How close it comes to measured times is calibrated by
 * bench/wall-calibration.js (docs/cli.md), never asserted here.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/scenario/estimate.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { coldAttemptSeconds, commandWallSeconds, simulationSeconds, WALL_MODEL } from '../../src/scenario/wall-estimate.js';

const file = (name: string) => fileURLToPath(new URL(`../../${name}`, import.meta.url));
const estimate = (name: string, sets: string[] = []) => estimateCost(loadScenarioWithRaw(file(name), sets).scenario);

describe('the wall-time estimate', () => {
  const base = estimate('scenarios/dual-zone-baseline.yaml');

  it('grows with the traffic: rate, duration, consumer instances, providers, registry pushes', () => {
    const grows = (sets: string[], name = 'scenarios/dual-zone-baseline.yaml') =>
      expect(simulationSeconds(estimate(name, sets)), sets.join(' ')).toBeGreaterThan(simulationSeconds(estimate(name)));
    grows(['consumers[0].rate=5000/s']);
    grows(['duration=10m']);
    grows(['consumers[0].instances=500']);
    grows(['providers[0].count=500']);
    grows(['consumers[0].instances=2000', 'consumers[0].cohorts=off'], 'bench/large-deployment.yaml');
    // Its groups of 1,000 are cohorts: simulating every instance costs more.
    grows(['consumers[0].cohorts=off', 'consumers[1].cohorts=off', 'consumers[2].cohorts=off'], 'bench/large-deployment.yaml');
    // The rolling restart of bench/large-deployment pushes every restart to every consumer instance.
    expect(simulationSeconds(estimate('bench/large-deployment.yaml'))).toBeGreaterThan(simulationSeconds(estimate('bench/large-deployment.yaml', ['faults=[]'])));
  });

  it('prices each export beyond a provider process\'s first, at start and in processes a fault starts', () => {
    // The seed scale at a tenth: 10,000 processes of eight exports; its rolling release day restarts 2,100 more.
    const seed = (sets: string[]) =>
      estimate('scenarios/release-day-seed-scale.yaml', ['providers[0].repeat=50', 'providers[1].repeat=50', 'consumers[0].repeat=50', 'consumers[1].repeat=50', ...sets]);
    const eight = seed(['faults=[]']);
    expect(eight.extraExports).toBe(10_000 * 7);
    expect(seed([]).extraExports).toBe((10_000 + seed([]).providersAddedByFaults) * 7);
    // One export each (the consumers call S0 and S1 of their backend: S2-S7 go): the same but for those exports' cost.
    const two = seed(['faults=[]', 'providers[0].services=["com.seed.b{i:03}.S0", "com.seed.b{i:03}.S1"]', 'providers[1].services=["com.seed.b{i:03}.S0", "com.seed.b{i:03}.S1"]']);
    expect(two.extraExports).toBe(10_000);
    const rest = (e: typeof two) => simulationSeconds(e) - e.extraExports * WALL_MODEL.perExtraExportS - e.heartbeatRecords * WALL_MODEL.perHeartbeatRecordS;
    expect(rest(eight)).toBeCloseTo(rest(two), 9);
    expect(simulationSeconds(eight) - simulationSeconds(two)).toBeGreaterThan(60_000 * WALL_MODEL.perExtraExportS);
  });

  it('counts attempts to providers that refuse connections (crash mode), which cost more, and not a black hole', () => {
    const down = (mode: string) => estimate('bench/large-deployment.yaml', ['duration=6s', `faults=[{at: 2s, zoneDown: zoneC, mode: ${mode}}]`]);
    const [crash, blackhole] = [down('crash'), down('blackhole')];
    // Every consumer group calls UserService, which has providers in zoneC: all its attempts count.
    expect(crash.refusedServiceAttempts).toBe(crash.attempts);
    expect(blackhole.refusedServiceAttempts).toBe(0);
    expect(simulationSeconds(crash)).toBeGreaterThan(simulationSeconds(blackhole));
  });

  it('is proportional in each input, so ten times the requests of a large run takes about ten times as long', () => {
    const long = estimate('scenarios/dual-zone-baseline.yaml', ['duration=600s', 'warmup=50s']);
    const perAttempt = (simulationSeconds(long) - simulationSeconds(base)) / (long.attempts - base.attempts);
    expect(perAttempt).toBeCloseTo(WALL_MODEL.perAttemptS, 12);
  });

  it('adds the start once, and spreads simulations over the threads as they take them, never below the longest one', () => {
    const one = simulationSeconds(base);
    expect(commandWallSeconds([{ estimate: base, count: 1 }], 1).seconds).toBeCloseTo(WALL_MODEL.startS + one, 12);
    expect(commandWallSeconds([{ estimate: base, count: 4 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + 2 * one, 12);
    expect(commandWallSeconds([{ estimate: base, count: 1 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + one, 12);
    // Equal simulations go in rounds: three on two threads take two, five take three (compare's five strategies).
    expect(commandWallSeconds([{ estimate: base, count: 3 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + 2 * one, 12);
    expect(commandWallSeconds([{ estimate: base, count: 5 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + 3 * one, 12);
    // A long one first and two short ones: the short ones share the other thread.
    const long = estimate('scenarios/dual-zone-baseline.yaml', ['duration=600s', 'warmup=50s']);
    const l = simulationSeconds(long);
    expect(l).toBeGreaterThan(2 * one);
    expect(commandWallSeconds([{ estimate: long, count: 1 }, { estimate: base, count: 2 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + l, 12);
    const w = commandWallSeconds([{ estimate: base, count: 3 }], 1);
    expect([w.low, w.high]).toEqual([w.seconds * WALL_MODEL.low, w.seconds * WALL_MODEL.high]);
  });

  it('counts the invokers and lists attempts pick from per consumer group, whatever its instances or cohort', () => {
    // bench/large-deployment: three groups (one per zone) call UserService, 100 providers in each of three zones.
    for (const sets of [[], ['consumers[0].instances=5000'], ['consumers[0].cohorts=off', 'consumers[0].instances=1500']]) {
      const e = estimate('bench/large-deployment.yaml', sets);
      expect([e.invokers, e.lists], sets.join(' ')).toEqual([900, 3]);
    }
    // The seed scale: 1,000 groups (500 applications in two zones) each call two services of 200 providers.
    const seed = estimate('scenarios/release-day-seed-scale.yaml');
    expect([seed.invokers, seed.lists]).toEqual([400_000, 2000]);
    // A provider group that calls downstream is a consumer side of its own (call-graph-amplification: `web` calls
    // OrderService's 4 providers, and the `order` group InventoryService's 4).
    const graph = estimate('scenarios/call-graph-amplification.yaml');
    expect([graph.invokers, graph.lists]).toEqual([8, 2]);
    expect(estimate('scenarios/call-graph-amplification.yaml', ['providers[1].count=10']).invokers).toBe(14);
  });

  it('prices an attempt higher per e-fold of invokers and of lists above their thresholds (wide estates), not below', () => {
    expect(coldAttemptSeconds(WALL_MODEL.coldFromInvokers, WALL_MODEL.coldFromLists)).toBe(0);
    expect(coldAttemptSeconds(900, 3)).toBe(0);
    expect(coldAttemptSeconds(WALL_MODEL.coldFromInvokers * Math.E, 1)).toBeCloseTo(WALL_MODEL.perAttemptColdInvokersS, 15);
    expect(coldAttemptSeconds(1, WALL_MODEL.coldFromLists * Math.E ** 2)).toBeCloseTo(2 * WALL_MODEL.perAttemptColdListsS, 15);
    // The seed scale's 6,000,000 attempts over 400,000 invokers in 2,000 lists: the term is in its estimate.
    const seed = estimate('scenarios/release-day-seed-scale.yaml');
    const cold = seed.attempts * (WALL_MODEL.perAttemptColdInvokersS * Math.log(20) + WALL_MODEL.perAttemptColdListsS * Math.log(25));
    expect(simulationSeconds(seed) - simulationSeconds({ ...seed, invokers: 0, lists: 0 })).toBeCloseTo(cold, 9);
    // Below both thresholds the term is nothing (dual-zone-baseline: 50 invokers in 2 lists).
    expect(simulationSeconds(base)).toBe(simulationSeconds({ ...base, invokers: 0, lists: 0 }));
  });
});
