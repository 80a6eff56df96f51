/**
 * scenarios/three-zone-nearest-fallback.yaml: zoneA and zoneB in one city (1.5 ms), zoneC remote
 * (30 ms); zoneA's providers die at 30 s. A zone router falling back to all providers sends a third
 * of zoneA's traffic (zoneC holds 5 of the 15 providers left) to the remote zone; `fallback:
 * nearest` (zonesim extension, SPEC 2.6) sends it to zoneB only.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { checkScenario, type CheckPhase } from '../../src/analysis/check.js';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const file = fileURLToPath(new URL('../../scenarios/three-zone-nearest-fallback.yaml', import.meta.url));
const load = (sets: string[] = []) => loadScenarioWithRaw(file, sets).scenario;
const run = (strategy: string, sets: string[] = []): Summary => {
  const scenario = load(sets);
  return runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
};
/** `attempts × ratio` back to a count (ratios are rounded to 6 decimals). */
const crossAttempts = (scope: { attempts: number; crossZoneRatio: number }) => Math.round(scope.attempts * scope.crossZoneRatio);
/** Executions in zoneC that zoneC's own consumers did not ask for (they stay local under every strategy here). */
const remoteFromOthers = (s: Summary) => s.byProviderGroup['users-c']!.executions - s.byConsumerZone.zoneC!.attempts;

describe('three-zone-nearest-fallback', () => {
  // Provider executions count the whole run, consumer attempts only after the warmup: measure from 0.
  const measured = (strategy: string) => run(strategy, ['warmup=0']);
  const all = measured('fallback-all');
  const nearest = measured('fallback-nearest');

  it('fallback all: about a third of zoneA’s cross-zone attempts land in the remote zone', () => {
    const crossA = crossAttempts(all.byConsumerZone.zoneA!);
    const share = remoteFromOthers(all) / crossA;
    // zoneC holds 5 of the 15 providers left: 1/3, binomial sd ~ sqrt(2/9 / n) < 0.003 here.
    expect(crossA).toBeGreaterThan(30_000);
    expect(Math.abs(share - 1 / 3)).toBeLessThan(4 * Math.sqrt(2 / 9 / crossA));
  });

  it('fallback nearest: none of zoneA’s traffic reaches the remote zone, all of it goes to same-city zoneB', () => {
    expect(remoteFromOthers(nearest)).toBe(0);
    // Same outage, same detection: the same attempts cross zones, only where they go differs.
    expect(crossAttempts(nearest.byConsumerZone.zoneA!)).toBe(crossAttempts(all.byConsumerZone.zoneA!));
    expect(nearest.byProviderGroup['users-b']!.executions - all.byProviderGroup['users-b']!.executions).toBe(remoteFromOthers(all));
  });

  it('fallback nearest: zoneA’s calls after the outage pay 1.5 ms, not 30 ms: median and P90 drop', () => {
    const [a, n] = [all.byConsumerZone.zoneA!.latencyMs, nearest.byConsumerZone.zoneA!.latencyMs];
    expect(a.p50 - n.p50).toBeGreaterThan(4);
    expect(a.p90 - n.p90).toBeGreaterThan(10);
    expect(nearest.errorRate).toBe(all.errorRate);
  });

  it('an explicit fallback order [zoneB, zoneC] gives the same run here as nearest', () => {
    expect(measured('fallback-order')).toEqual(nearest);
  });

  it('zoneAwareFailover with zone.fallback=nearest and zoneAware with zone.cross.weights keep most of zoneA’s traffic in zoneB', () => {
    expect(remoteFromOthers(measured('failover-nearest'))).toBe(0);
    const rank = measured('lb-rank');
    // Weights 10 (zoneB) to 1 (zoneC) once zoneA is gone: about 1/11 to the remote zone.
    expect(remoteFromOthers(rank) / crossAttempts(rank.byConsumerZone.zoneA!)).toBeLessThan(0.1);
  });
});

describe('check on three-zone-nearest-fallback', () => {
  const zoneARoute = (phase: CheckPhase) => phase.routes.find((r) => r.zone === 'zoneA')!;
  const zoneStep = (phase: CheckPhase) => zoneARoute(phase).trace.find((s) => s.router === 'zone')!;

  it('probes the outage phase: zoneA’s consumers keep the 10 zoneB providers, and the trace says why', () => {
    const { phases, problems } = checkScenario(load());
    expect(problems).toEqual([]);
    expect(phases).toHaveLength(2);
    expect(zoneStep(phases[0]!)).toMatchObject({ before: 25, after: 10 });
    expect(zoneStep(phases[1]!)).toMatchObject({ before: 15, after: 10 });
    expect(zoneStep(phases[1]!).note).toMatch(/^no provider in zone zoneA, fell back to the nearest zone zoneB \(median RTT 1\.5ms from zoneA\)/);
  });

  it('takes the next nearest zone when the nearest has no provider either', () => {
    const { phases, problems } = checkScenario(load(['faults=[{at: 30s, zoneDown: zoneA}, {at: 30s, zoneDown: zoneB}]']));
    expect(problems).toEqual([]);
    expect(zoneStep(phases[1]!)).toMatchObject({ before: 5, after: 5 });
    expect(zoneStep(phases[1]!).note).toContain('nearest zone zoneC (median RTT 30ms');
  });

  it('flags an explicit order whose zones are all empty', () => {
    const { problems } = checkScenario(
      load(['faults=[{at: 30s, zoneDown: zoneA}, {at: 30s, zoneDown: zoneB}]', 'routers=[{type: zone, fallback: [zoneB]}]']),
    );
    expect(problems.filter((p) => p.zone === 'zoneA')).toMatchObject([
      { router: 'zone', providersBefore: 5, providersAfter: 0, phase: { fromMs: 30_000 } },
    ]);
    expect(problems[0]!.message).toContain('nor in the fallback zones zoneB');
  });
});
