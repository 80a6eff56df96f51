/**
 * The timeline additions on a whole simulation (scenarios/zone-a-down.yaml, shortened): pushes per
 * bucket against `registry.pushes` and the measured window, consumer-zone rows against the run's,
 * and the provider side of a black-holed zone.
 */
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { unlistedWindowMs } from '../helpers/nacos-window.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const file = join(root, 'scenarios/zone-a-down.yaml');
// zoneA is black-holed from 60 s to 90 s; Nacos pushes it out 20-28 s later (nacos-client 2.x: idle connections
// ejected, test/helpers/nacos-window.ts) and back at 90 s.
const SHORT = ['duration=100s', 'faults[0].for=30s', 'consumers[0].rate=400/s', 'consumers[1].rate=100/s'];
const run = (warmup: string) => runScenario(loadScenarioFile(file, [...SHORT, `warmup=${warmup}`]), { version: 'test' }).summary;

describe('timeline of a simulation (zone-a-down)', () => {
  const fromZero = run('0s');
  const fromTen = run('10s');

  it('puts every registry push of the run in a bucket when the measured window starts at 0', () => {
    expect(fromZero.registry.pushes).toBeGreaterThan(0);
    expect(fromZero.timeline.reduce((n, row) => n + row.pushes, 0)).toBe(fromZero.registry.pushes);
  });

  it('counts only the pushes of the measured window after a warm-up: the same buckets as without one', () => {
    // The warm-up changes what is measured, not what is simulated: same pushes, same times.
    expect(fromTen.registry.pushes).toBe(fromZero.registry.pushes);
    expect(fromTen.timeline.map((row) => [row.tMs, row.pushes])).toEqual(fromZero.timeline.slice(10).map((row) => [row.tMs, row.pushes]));
    const before = fromZero.timeline.slice(0, 10).reduce((n, row) => n + row.pushes, 0);
    expect(before).toBeGreaterThan(0);
    expect(fromTen.timeline.reduce((n, row) => n + row.pushes, 0)).toBe(fromTen.registry.pushes - before);
  });

  it('shows the pushes that take zoneA out and bring it back', () => {
    const pushTimes = fromZero.timeline.filter((row) => row.pushes > 0).map((row) => row.tMs);
    const scenario = loadScenarioFile(file, SHORT);
    const out = unlistedWindowMs(scenario, 'users-a', scenario.faults[0]!.atMs);
    expect(out.toMs).toBeLessThan(90_000);
    expect(pushTimes.some((t) => t >= Math.floor(out.fromMs / 1000) * 1000 && t <= out.toMs)).toBe(true);
    expect(pushTimes.some((t) => t >= 90_000)).toBe(true);
  });

  it("splits every bucket by consumer zone: the zones' requests and outcomes add up to the run's", () => {
    const zones = Object.values(fromTen.timelineByZone!);
    expect(zones).toHaveLength(2);
    fromTen.timeline.forEach((row, i) => {
      expect(zones.reduce((n, z) => n + z[i]!.requests, 0)).toBe(row.requests);
      expect(zones.reduce((n, z) => n + z[i]!.timeout, 0)).toBe(row.timeout);
      expect(zones.every((z) => z[i]!.tMs === row.tMs)).toBe(true);
    });
  });

  it('keeps p99OkMs below p99Ms while timeouts dominate the tail', () => {
    const down = fromTen.timeline.filter((row) => row.tMs >= 61_000 && row.tMs < 70_000);
    expect(down.length).toBeGreaterThan(0);
    for (const row of down) {
      expect(row.timeout).toBeGreaterThan(0);
      expect(row.p99OkMs).toBeLessThan(row.p99Ms);
    }
  });

  it('shows the black-holed group executing nothing while the other one carries the load', () => {
    const a = fromTen.timelineByProviderGroup!['users-a']!;
    const b = fromTen.timelineByProviderGroup!['users-b']!;
    const during = (rows: typeof a) => rows.filter((row) => row.tMs >= 61_000 && row.tMs < 90_000);
    expect(during(a).every((row) => row.executions === 0)).toBe(true);
    expect(during(b).every((row) => row.executions > 0 && row.utilization > 0 && row.peakActiveThreads > 0)).toBe(true);
    const before = a.filter((row) => row.tMs < 60_000);
    expect(before.every((row) => row.executions > 0)).toBe(true);
  });

  it('gives provider executions per bucket that add up to the run total, less what ran during the drain', () => {
    for (const [name, rows] of Object.entries(fromZero.timelineByProviderGroup!)) {
      const inBuckets = rows.reduce((n, row) => n + row.executions, 0);
      const total = fromZero.byProviderGroup[name]!.executions;
      expect(inBuckets).toBeLessThanOrEqual(total);
      expect(total - inBuckets).toBeLessThanOrEqual(rows.at(-1)!.executions);
    }
  });
});
