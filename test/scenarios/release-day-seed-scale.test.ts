/**
 * scenarios/release-day-seed-scale.yaml with one backend application and its one consumer application (1,000
 * consumer instances in two cohorts, 200 providers) instead of five hundred of each: the release of 0.1% of the
 * article's providers at once (N = 100 instances of b000 restarted at 30 s) is the same storm, since only b000's
 * consumers subscribe to its lists. The headline: 2·N·M pushes exactly, through five registry nodes whose out
 * NICs they saturate; at the file's 1 Gbps the queue outlasts ZooKeeper's read timeout and providers lose their
 * connections, at 2.5 Gbps it drains in the time its bytes take on the busiest card.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/release-day-seed-scale.yaml', import.meta.url));
const ONE_APPLICATION = [
  'providers[0].repeat=1',
  'providers[1].repeat=1',
  'consumers[0].repeat=1',
  'consumers[1].repeat=1',
  'duration=120s',
  'faults=[{at: 30s, restart: {group: b000-A, count: 100}}]',
];

const run = (sets: string[] = []): Summary => {
  const { scenario } = loadScenarioWithRaw(file, [...ONE_APPLICATION, ...sets]);
  return runScenario(scenario, { version: 'test' }).summary;
};

describe('release-day-seed-scale (one application of five hundred)', () => {
  const quiet = run(['faults=[]']);
  const asWritten = run();
  const bigCards = run(['registry.capacity.bandwidth=2.5Gbps']);

  // M: the consumer instances subscribed to each list a b000 provider is on (its two called services, 1,000 each).
  const M = 2 * 1000;
  const N = 100;

  it('reads each of the two lists once per consumer instance at subscribe, and pushes nothing more without a change', () => {
    expect(quiet.registry.pushes).toBe(M);
  });

  it('pushes 2·N·M for the batch exactly: every deregistration and registration to every subscribed instance', () => {
    expect(bigCards.registry.pushes - quiet.registry.pushes).toBe(2 * N * M);
    expect(asWritten.registry.pushes - quiet.registry.pushes).toBe(2 * N * M);
  });

  it('counts each push with the bytes of the list it carries: between a 100- and a 200-provider list', () => {
    const full = quiet.registry.pushBytes / quiet.registry.pushes;
    const perPush = (bigCards.registry.pushBytes - quiet.registry.pushBytes) / (2 * N * M);
    // Every b000 list holds 200 providers; during the batch between 100 (all deregistered) and 200.
    expect(perPush).toBeGreaterThan(full / 2);
    expect(perPush).toBeLessThan(full);
  });

  it('drains at 2.5 Gbps in the time the busiest card takes for its bytes, and no provider loses its connection', () => {
    const bytesPerMs = 2.5e9 / 8 / 1000;
    const busiest = Math.max(...Object.values(bigCards.registry.servers!).map((n) => n.bytesOut));
    const lastLagMs = bigCards.registry.pushLagMs!.max;
    // The last push queued behind nearly all of that card's bytes (what it sent before the batch is < 1%).
    expect(Math.abs(lastLagMs - busiest / bytesPerMs) / (busiest / bytesPerMs)).toBeLessThan(0.03);
    expect(bigCards.events['registry.connectionLoss'] ?? 0).toBe(0);
  });

  it('at 1 Gbps keeps pings queued past the read timeout: connections are lost while the storm drains', () => {
    expect(asWritten.registry.pushLagMs!.max).toBeGreaterThan((2 / 3) * 40_000);
    expect(asWritten.events['registry.connectionLoss']).toBeGreaterThan(0);
  });
});
