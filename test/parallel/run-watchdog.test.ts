import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBudget, runWatch, RunBudgetError, WATCH_EVERY_EVENTS, WATCHDOG_FACTOR, WATCHDOG_FLOOR } from '../../src/parallel/run-watchdog.js';
import { runSimTask } from '../../src/parallel/sim-task.js';
import { estimateCost } from '../../src/scenario/estimate.js';
import { loadScenarioWithRaw, parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { cli, repoRoot } from '../helpers/cli.js';
import { minYaml } from '../helpers/cost-scenarios.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/**
 * Retries the estimate cannot foresee: 0.1 ms of service against a 1 ms timeout never times out, until
 * the only zone is black-holed at 1 s; from then on every call takes all its 100 retries.
 */
const BLACK_HOLE = `${minYaml({ name: 'black-hole', serviceTime: '0.1ms', timeout: '1ms', retries: 100 })
  .replace(/ {2}zoneB: .*\n/, '')
  .replace(/ {2}- \{ name: pb.*\n/, '')}faults:\n  - { at: 1s, zoneDown: zoneA }\n`;

describe('the run watchdog', () => {
  it('allows each figure its factor times the estimate, never below the floors (or --max-requests when lower)', () => {
    const e = estimateCost(parseScenario(minYaml(), 'min.yaml'));
    const b = runBudget(e);
    expect(b.events).toBe(WATCHDOG_FACTOR * WATCHDOG_FLOOR.events);
    expect(b.requests).toBe(WATCHDOG_FACTOR * WATCHDOG_FLOOR.requests);
    expect(b.heapGrowthMb).toBe(WATCHDOG_FACTOR * e.memoryMb.total);
    const big = estimateCost(parseScenario(minYaml({ rate: '1000000/s' }), 'min.yaml'));
    expect(runBudget(big).requests).toBe(WATCHDOG_FACTOR * big.requests);
    expect(runBudget(e, 1000).requests).toBe(WATCHDOG_FACTOR * 2000);
    expect(runBudget(e, 1000).attempts).toBe(WATCHDOG_FACTOR * e.attempts);
    expect(runBudget(e, 1000).events).toBe(WATCHDOG_FACTOR * 10_000);
  });

  it('stops a run over its budget with the figures: events, requests, attempts or heap growth', () => {
    const s = parseScenario(minYaml(), 'min.yaml');
    const b = runBudget(estimateCost(s));
    const at = { simMs: 2500, events: 1, requests: 1, attempts: 1 };
    let heap = 100;
    const watch = runWatch(s, 7, undefined, () => heap);
    expect(watch.everyEvents).toBe(WATCH_EVERY_EVENTS);
    expect(() => watch.check(at)).not.toThrow();
    expect(() => watch.check({ ...at, events: b.events + 1 })).toThrow(RunBudgetError);
    expect(() => watch.check({ ...at, events: b.events + 1 })).toThrow(
      /^stopped min seed 7 at 2\.50 s simulated: 40,000,001 kernel events against 9,000 estimated, over 4x its estimate \(1 requests and 1 attempts started\); --force runs it without this check$/,
    );
    expect(() => watch.check({ ...at, requests: b.requests + 1 })).toThrow(/: 4,000,001 requests against 2,000 estimated/);
    expect(() => watch.check({ ...at, attempts: b.attempts + 1 })).toThrow(/: 4,000,001 attempts against 2,000 estimated/);
    heap = 100 + b.heapGrowthMb + 1;
    expect(() => watch.check(at)).toThrow(/: the heap grew by [\d,]+ MB against a peak of 135 MB estimated/);
  });

  it('changes nothing in a run it does not stop: the same summary, byte for byte', () => {
    const { scenario } = loadScenarioWithRaw(join(repoRoot, 'scenarios/zone-a-down.yaml'), ['duration=20s']);
    let checks = 0;
    const watched = runScenario(scenario, {
      version: 'test',
      watch: {
        everyEvents: 1000,
        check: () => {
          checks++;
        },
      },
    });
    const plain = runScenario(scenario, { version: 'test' });
    expect(checks).toBeGreaterThan(10);
    expect(checks).toBeLessThanOrEqual(watched.stats.eventsProcessed / 1000);
    expect(JSON.stringify(watched.summary)).toBe(JSON.stringify(plain.summary));
    expect(watched.stats).toEqual(plain.stats);
  });

  it('is on for every simulation task unless the command has --force', async () => {
    const s = parseScenario(BLACK_HOLE, 'black-hole.yaml');
    const task = { scenario: s, scenarioPath: join(repoRoot, 'black-hole.yaml'), seed: 1, maxRequests: 5000 };
    // Estimated 2,000 attempts; with --max-requests 5000 the floor is 5000, so 20,000 attempts stop it.
    await expect(runSimTask(task)).rejects.toThrow(/^stopped black-hole seed 1 at [\d.]+ s simulated: [\d,]+ attempts against 2,000 estimated/);
    // The same with --force runs to the end: every call after 1 s takes its 101 attempts.
    const summary = await runSimTask({ ...task, force: true });
    expect(summary.attempts).toBeGreaterThan(50 * summary.requests);
  });

  it('ends the command with exit 1 and one line with the figures (run, compare and sweep alike)', async () => {
    const dir = tempDir('zs-watchdog-');
    writeFileSync(join(dir, 'black-hole.yaml'), BLACK_HOLE);
    const file = join(dir, 'black-hole.yaml');
    // The estimate lets it run: no timeout is expected, and 100 retries are left to the watchdog.
    const dry = await cli(['run', file, '--dry-run', '--max-requests', '5000']);
    expect(dry.out).toContain('within the limits: it would run');
    for (const args of [
      ['run', file, '--max-requests', '5000', '--out', dir],
      ['compare', file, '--max-requests', '5000', '--out', dir],
      ['sweep', file, '--grid', 'seed=1,2', '--jobs', '1', '--max-requests', '5000', '--out', dir],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^zonesim: stopped black-hole seed \d+ at [\d.]+ s simulated: [\d,]+ attempts against 2,000 estimated, over 4x its estimate \([\d,]+ requests and [\d,]+ attempts started\); --force runs it without this check\n$/);
    }
  });
});
