/**
 * sentinelHubOf: the hub is made once per world, and a world without Sentinel is answered from a note, not by
 * reading every consumer and provider group again (it is asked once per consumer instance while the world is built).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { World } from '../../src/world/world.js';
import { sentinelHubOf } from '../../src/stack/sentinel-hub.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const BASE = `zones: { zoneA: {} }
registry: { type: static }
services:
  com.example.A: { methods: { a1: { serviceTime: 10ms } } }
providers:
  - { name: app-a, service: com.example.A, zone: zoneA, count: 2 }
consumers: []
duration: 10s
`;

function world(extra: string): { w: World; reads: () => number } {
  const scenario = parseScenario(BASE + extra, 'hub.yaml');
  let reads = 0;
  const consumers = scenario.consumers;
  Object.defineProperty(scenario, 'consumers', { get: () => (reads++, consumers), configurable: true });
  const w = new World(scenario, { seed: 1, observer: quietObserver(), consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }) });
  reads = 0;
  return { w, reads: () => reads };
}

describe('sentinelHubOf', () => {
  it('reads the groups once for a world without Sentinel, however often it is asked', () => {
    const { w, reads } = world('');
    for (let i = 0; i < 1000; i++) expect(sentinelHubOf(w)).toBeUndefined();
    expect(reads()).toBe(1);
  });

  it('gives one hub per world with Sentinel rules', () => {
    const { w } = world(`sentinel: { flowRules: [{ resource: com.example.A, count: 20 }] }\n`);
    const hub = sentinelHubOf(w);
    expect(hub).toBeDefined();
    for (let i = 0; i < 10; i++) expect(sentinelHubOf(w)).toBe(hub);
  });
});
