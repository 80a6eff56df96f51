/**
 * The kernel's shortcuts (`Simulation.scheduleLast` running a zero-delay send or response at once)
 * must not change any figure: a run with every `scheduleLast` made a plain `schedule` (the reference)
 * gives the same summary. The world is made of ties: zero RTT, constant service times equal to the
 * timeout, constant arrivals, full pools, a crash, and every cluster; the drain after the run must not
 * depend on how many agenda entries an instant takes either.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clusters } from '../../src/dubbo/extensions.js';
import { NORMAL, Simulation } from '../../src/engine/simulation.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const TIES = `
name: ties
seed: 3
duration: 20s
warmup: 1s
zones: { dc: { cidr: 10.0.0.0/24 }, dc2: { cidr: 10.1.0.0/24 } }
network: { rtt: { same-zone: 0ms, default: 0ms } }
registry: { type: nacos, pushLag: { dist: constant, value: 10ms } }
services:
  com.example.S:
    methods:
      a: { serviceTime: { dist: constant, value: 10ms } }
      b: { serviceTime: { dist: constant, value: 4ms }, idempotent: false }
providers:
  - { name: p1, service: com.example.S, zone: dc, count: 3, threads: 2, queues: 2 }
  - { name: p2, service: com.example.S, zone: dc2, count: 2, threads: 3, queues: 0 }
consumers:
  - application: c1
    zone: dc
    instances: 4
    rate: 900/s
    arrival: constant
    calls: { com.example.S.a: 0.7, com.example.S.b: 0.3 }
    reference: { com.example.S: { timeout: 10ms, retries: 2 } }
  - application: c2
    zone: dc2
    instances: 2
    rate: 300/s
    calls: { com.example.S.a: 1 }
    reference: { com.example.S: { timeout: 14ms } }
faults:
  - { at: 8s, crash: { group: p1, count: 1 }, for: 5s }
  - { at: 14s, slowdown: { group: p2, factor: 2.5 }, for: 3s }
`;

const scheduleLast = Simulation.prototype.scheduleLast;

function run(cluster: string, plain: boolean): string {
  Simulation.prototype.scheduleLast = plain
    ? function (this: Simulation, delayMs: number, fire: (arg: unknown) => void, arg?: unknown) {
        return this.schedule(delayMs, fire, NORMAL, arg);
      }
    : scheduleLast;
  const scenario = parseScenario(TIES, 'ties.yaml', [
    `consumers[0].reference["com.example.S"].cluster=${cluster}`,
    `consumers[1].reference["com.example.S"].cluster=${cluster}`,
  ]);
  const { summary, stats } = runScenario(scenario, { version: 'test' });
  return JSON.stringify({ summary, events: stats.eventsProcessed });
}

describe('kernel shortcuts', () => {
  afterEach(() => {
    Simulation.prototype.scheduleLast = scheduleLast;
  });

  it.each(Object.keys(clusters))(
    'leave every figure of a run full of ties unchanged, events included (cluster %s)',
    (cluster) => {
      const fast = run(cluster, false);
      const plain = run(cluster, true);
      expect(JSON.parse(fast).summary.requests).toBeGreaterThan(20_000);
      expect(fast).toBe(plain);
    },
  );
});
