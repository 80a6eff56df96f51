/**
 * The push-load estimate behind check's `registry-push-overload` warning, validated against runs of
 * the shipped rolling-restart scenario (release-day-push-storm): the pushes, their bytes and the
 * busiest second, then push rate control and the per-node split.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import { PushSizer } from '../../src/world/registry-push-size.js';
import { registryPushLoads } from '../../src/analysis/registry-push-load.js';
import type { Scenario } from '../../src/model/types.js';

const file = fileURLToPath(new URL('../../scenarios/release-day-push-storm.yaml', import.meta.url));
/** The scenario under one of its strategies, with `--set` overrides. */
const load = (strategy: string, overrides: string[] = []): Scenario => {
  const s = loadScenarioWithRaw(file, overrides).scenario;
  return applyStrategy(s, s.strategies[strategy]!);
};
const groupsOf = (scenario: Scenario) =>
  buildWorld(scenario, scenario.seed, new Recorder({ warmupMs: 0, durationMs: 1, bucketMs: 1, providerGroups: [] })).providerGroups;
const run = (scenario: Scenario) => runScenario(scenario, { version: 'test' }).summary;

describe.each(['interface', 'application'])('release-day-push-storm, %s level: estimate against the run', (level) => {
  const scenario = load(level);
  const groups = groupsOf(scenario);
  const [estimate, ...others] = registryPushLoads(scenario, groups);
  const storm = run(scenario);
  // The same run with the restart after the end: only the subscription reads.
  const quiet = run(load(level, ['faults[0].at=100s']));
  const pushes = storm.registry.pushes - quiet.registry.pushes;
  const bytes = storm.registry.pushBytes - quiet.registry.pushBytes;

  it('estimates the one fault, and exactly the pushes the run sends for it (2·N·M)', () => {
    expect(others).toEqual([]);
    expect(estimate!.fault.label).toBe('faults[0]');
    expect(estimate!.pushes).toBe(pushes);
    expect(pushes).toBe(2 * 20 * 50);
  });

  it('estimates the bytes within the spread of one provider\'s size in a push, which it takes as the group\'s mean', () => {
    // The estimate weighs every provider in a list at the mean size of the group's instances at the
    // start; the run's lists hold the real ones (addresses of other lengths, and the replacements'
    // new addresses). Each push's error is then at most (max - min) / min of one provider's bytes.
    const sizer = new PushSizer(level as 'interface' | 'application', 'nacos');
    const sizes = groups[0]!.instances.map((p) => (level === 'interface' ? sizer.instanceBytes(p.exports[0]!) : sizer.processBytes(p)));
    const tolerance = (Math.max(...sizes) - Math.min(...sizes)) / Math.min(...sizes);
    const error = (estimate!.bytes - bytes) / bytes;
    expect(tolerance).toBeGreaterThan(0);
    expect(Math.abs(error)).toBeLessThanOrEqual(tolerance);
    // Measured when written: -0.11% (interface, tolerance 0.32%), -0.09% (application, tolerance 0.26%).
  });

  it('puts the busiest second where the run delivers the most pushes: one batch, 2 × 2 changes × 50 watchers', () => {
    // Pushes arrive 20-300 ms after a batch starts on a whole second, so each batch lands in one 1 s bucket.
    const busiest = Math.max(...storm.timeline.map((r) => r.pushes));
    expect(busiest).toBe(2 * 2 * 50);
    const perPush = estimate!.bytes / estimate!.pushes;
    expect(Math.abs(estimate!.peakBytesPerSec / perPush - busiest)).toBeLessThan(0.01 * busiest);
    expect(estimate!.fromMs).toBe(20_000);
    expect(estimate!.toMs).toBe(66_000);
  });
});

describe('push rate control and registry nodes', () => {
  it('merges a list\'s changes per pushRate interval: one push per subscriber per interval with a change', () => {
    const scenario = load('interface', ['registry.pushRate.interval=10s']);
    const [estimate] = registryPushLoads(scenario, groupsOf(scenario));
    // Batches start at 20, 25, ..., 65 s: the 10 s intervals with a change are 20-30, ..., 60-70 s.
    const batches = Array.from({ length: 10 }, (_, b) => 20_000 + b * 5000);
    const intervals = new Set(batches.map((t) => Math.floor(t / 10_000))).size;
    expect(estimate!.pushes).toBe(intervals * 50);
    expect(estimate!.toMs).toBe(71_000);
  });

  it('holds one node against its NIC: the clients spread evenly over registry.servers', () => {
    const one = load('interface', ['consumers[0].instances=3000']);
    const three = load('interface', ['consumers[0].instances=3000', 'registry.servers.dc=3', 'registry.capacity.bandwidth=100Mbps']);
    const [a] = registryPushLoads(one, groupsOf(one));
    const [b] = registryPushLoads(three, groupsOf(three));
    expect(a!.nodes).toBe(1);
    expect(b!.nodes).toBe(3);
    expect(b!.peakBytesPerSec).toBe(a!.peakBytesPerSec);
    expect([a!.nicBytesPerSec, a!.nicSet]).toEqual([125_000_000, false]);
    expect([b!.nicBytesPerSec, b!.nicSet]).toEqual([12_500_000, true]);
    // A batch offers 3000 watchers 4 pushes of ~6.3 kB each in its second (about 76 MB): one node of the
    // three gets a third, twice what 100 Mbit/s sends, so it runs behind in each of the ten batches' seconds.
    expect(b!.secondsOverNic).toBe(10);
    expect(a!.secondsOverNic).toBe(0);
    // The backlog of one batch (offered - sent in its second) drains before the next, 5 s later.
    const perNode = b!.peakBytesPerSec / 3;
    expect(b!.backlogSec).toBeCloseTo((perNode - 12_500_000) / 12_500_000, 6);
  });
});
