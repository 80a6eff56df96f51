/**
 * The wall-time estimate of `--dry-run`: constants over the cost estimate, so it is deterministic
 * and grows with what a run simulates. How close it comes to measured times is calibrated by
 * bench/wall-calibration.js (docs/cli.md), never asserted here.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/scenario/estimate.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { commandWallSeconds, simulationSeconds, WALL_MODEL } from '../../src/scenario/wall-estimate.js';

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

  it('adds the start once, and spreads simulations over the threads, never below the longest one', () => {
    const one = simulationSeconds(base);
    expect(commandWallSeconds([{ estimate: base, count: 1 }], 1).seconds).toBeCloseTo(WALL_MODEL.startS + one, 12);
    expect(commandWallSeconds([{ estimate: base, count: 4 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + 2 * one, 12);
    expect(commandWallSeconds([{ estimate: base, count: 1 }], 2).seconds).toBeCloseTo(WALL_MODEL.startS + one, 12);
    const w = commandWallSeconds([{ estimate: base, count: 3 }], 1);
    expect([w.low, w.high]).toEqual([w.seconds * WALL_MODEL.low, w.seconds * WALL_MODEL.high]);
  });
});
