/**
 * scenarios/release-day-registry-meltdown.yaml, scaled down by a factor of five in providers and consumers (and
 * the nodes' cards by twenty, so that the storm still outruns them): a three-node ZooKeeper ensemble whose out
 * NICs saturate when a rolling release changes ten interfaces' provider lists, each read in full by every
 * consumer. The headline: push lag grows from milliseconds to tens of seconds, consumers call providers that are
 * gone, and each cure of the seed article shows its effect.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const file = fileURLToPath(new URL('../../scenarios/release-day-registry-meltdown.yaml', import.meta.url));
const SCALED = [
  'providers[0].count=60',
  'consumers[0].instances=600',
  'consumers[0].rate=1200/s',
  'registry.capacity.bandwidth=50Mbps',
  'faults[0].rollingRestart.batch=6',
];

const run = (strategy: string, sets: string[] = []): Summary => {
  const { scenario } = loadScenarioWithRaw(file, [...SCALED, ...sets]);
  return runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
};
const lagP99 = (s: Summary): number => s.registry.pushLagMs!.p99;
const nodes = (s: Summary, key: 'sessionsExpired' | 'registrationsRetried'): number =>
  Object.values(s.registry.servers!).reduce((n, x) => n + x[key], 0);
const peakOut = (s: Summary): number => Math.max(...Object.values(s.registry.servers!).map((n) => n.nicOut.peakUtilization));

describe('release-day-registry-meltdown (scaled)', () => {
  const asIs = run('as-is');
  const bigCards = run('as-is', ['registry.capacity.bandwidth=10Gbps']);
  const tight = run('tight-sessions');
  const simplified = run('simplified');
  const pushRate = run('push-rate-30s');
  const appLevel = run('application-level');

  it('the release outruns the nodes\' cards: push lag grows to tens of seconds, where 10 Gbit/s cards deliver in well under a second', () => {
    expect(peakOut(asIs)).toBe(1);
    expect(lagP99(asIs)).toBeGreaterThan(10_000);
    expect(lagP99(bigCards)).toBeLessThan(1_000);
    // The same release, the same registry figures otherwise: the consumers read no fewer lists on the big cards.
    expect(bigCards.registry.pushes).toBeGreaterThanOrEqual(asIs.registry.pushes);
  });

  it('the lag grows during the release and falls back after it: the timeline\'s push lag p99 and NIC utilization', () => {
    const during = asIs.timeline.filter((r) => r.tMs >= 40_000 && r.tMs < 75_000);
    const after = asIs.timeline.filter((r) => r.tMs >= 110_000);
    expect(Math.max(...during.map((r) => r.pushLagP99Ms ?? 0))).toBeGreaterThan(10_000);
    for (const r of during) expect(r.registryUtilization).toBeGreaterThan(0.9);
    for (const r of after) expect(r.registryUtilization).toBeLessThan(0.01);
  });

  it('consumers call providers the registry already dropped (stale calls): failover hides them from the users', () => {
    expect(asIs.registry.staleCalls).toBeGreaterThan(0);
    expect(asIs.errorRate).toBe(0);
  });

  it('with 6 s sessions no connection is lost: one read in flight per consumer keeps each out queue under the 4 s read timeout', () => {
    expect(nodes(asIs, 'sessionsExpired')).toBe(0);
    // Each consumer's ZooKeeper event thread reads one list at a time, so a node's out NIC holds at most one
    // read per consumer connected to it: here under 2 s of its 50 Mbit/s, where the ping replies wait.
    const bytesPerMs = 50e6 / 8 / 1000;
    for (const n of Object.values(tight.registry.servers!)) expect(n.peakQueueBytes / bytesPerMs).toBeLessThan(4_000);
    expect(peakOut(tight)).toBe(1);
    expect(tight.events['registry.connectionLoss'] ?? 0).toBe(0);
    expect(nodes(tight, 'sessionsExpired')).toBe(0);
    expect(tight.outcomes.forbidden).toBe(0);
  });

  it('simplified URLs shrink every read and with it the lag, below the read timeout: no session is lost', () => {
    expect(simplified.registry.pushBytes / simplified.registry.pushes).toBeLessThan((0.6 * asIs.registry.pushBytes) / asIs.registry.pushes);
    expect(lagP99(simplified)).toBeLessThan(lagP99(asIs) / 2);
    expect(nodes(simplified, 'sessionsExpired')).toBe(0);
    expect(simplified.errorRate).toBe(0);
  });

  it('push rate control: a window\'s deregistrations and registrations arrive as one push, fewer pushes, no list ever empty', () => {
    expect(Object.values(pushRate.registry.servers!).reduce((n, x) => n + x.pushesMerged, 0)).toBeGreaterThan(0);
    expect(pushRate.registry.pushes).toBeLessThan(asIs.registry.pushes);
    expect(nodes(pushRate, 'sessionsExpired')).toBe(0);
    expect(pushRate.outcomes.forbidden).toBe(0);
  });

  it('application level under ZooKeeper (3.3): a full instance-list read per change, so no fewer bytes and a longer lag', () => {
    expect(appLevel.registry.pushBytes).toBeGreaterThan(0.9 * asIs.registry.pushBytes);
    expect(lagP99(appLevel)).toBeGreaterThan(lagP99(asIs));
    expect(appLevel.errorRate).toBe(0);
  });
});
