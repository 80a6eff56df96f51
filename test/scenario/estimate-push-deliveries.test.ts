import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pushDeliveries, type ConsumerSide, type PushDeliveries } from '../../src/scenario/estimate-push-deliveries.js';
import { providerChurn, type ProviderChurn } from '../../src/scenario/estimate-provider-churn.js';
import { loadScenarioWithRaw, parseScenario } from '../../src/scenario/load.js';
import { consumerMigrationStep, registerLevels, subscribedLevels } from '../../src/world/discovery-levels.js';
import type { RegistrySpec, Scenario } from '../../src/model/types.js';
import { repoRoot } from '../helpers/cli.js';

/**
 * The plain form of `pushDeliveries`: every changed provider group asks every consumer side whether it watches
 * one of its services (interface level) or its application (application level). Cubic in groups (an estate of
 * 2,000 groups took 11 s to estimate, 10,000 hours); kept here as the reference the fast form must equal.
 */
function referencePushDeliveries(scenario: Scenario, discovery: readonly RegistrySpec[], sides: readonly ConsumerSide[], churn: ProviderChurn): PushDeliveries {
  const out: PushDeliveries = { interface: 0, application: 0 };
  for (const r of discovery) {
    const watches = sides.map((side) => {
      const byService = new Map<string, readonly string[]>();
      for (const s of side.services) {
        const urlStep = side.reference[s]?.parameters?.['migration.step'] ?? side.defaults?.['migration.step'];
        byService.set(s, subscribedLevels(consumerMigrationStep(r, side.dubbo, urlStep)));
      }
      return byService;
    });
    const subscriptions: PushDeliveries = { interface: 0, application: 0 };
    for (const [i, side] of sides.entries()) {
      const apps = new Set<string>();
      let own = 0;
      for (const [s, levels] of watches[i]!) {
        if (levels.includes('interface')) own += side.instances;
        if (levels.includes('application')) for (const g of scenario.providers) if (g.services.includes(s)) apps.add(g.application);
      }
      subscriptions.interface += own;
      subscriptions.application += apps.size * side.instances;
      // A dark room coming back: its consumers' subscriptions read their lists again.
      const room = side.zone === undefined ? 0 : (churn.roomResyncs.get(side.zone) ?? 0);
      out.interface += room * own;
      out.application += room * apps.size * side.instances;
    }
    for (const g of scenario.providers) {
      const changed = churn.changes.get(g.name) ?? 0;
      if (changed === 0) continue;
      const levels = registerLevels(r, g.dubbo);
      for (const [i, side] of sides.entries()) {
        const watched = watches[i]!;
        if (levels.interface) for (const s of g.services) if (watched.get(s)?.includes('interface')) out.interface += changed * side.instances;
        if (levels.application) {
          const exported = new Set(scenario.providers.filter((p) => p.application === g.application).flatMap((p) => p.services));
          if ([...watched].some(([s, l]) => exported.has(s) && l.includes('application'))) out.application += changed * side.instances;
        }
      }
    }
    out.interface += churn.resyncs * subscriptions.interface;
    out.application += churn.resyncs * subscriptions.application;
  }
  return out;
}

/** The inputs `estimateCost` gives it: each consumer group as a side (its instances as written), every discovery registry. */
function inputs(scenario: Scenario) {
  const sides: ConsumerSide[] = scenario.consumers.map((c) => ({
    instances: c.instances,
    services: new Set(Object.keys(c.calls).map((k) => k.slice(0, k.lastIndexOf('.')))),
    dubbo: c.dubbo,
    reference: c.reference,
    defaults: c.consumerDefaults.parameters,
    zone: c.zone,
  }));
  const registries = Object.keys(scenario.registries).length > 0 ? Object.values(scenario.registries) : [scenario.registry];
  return { discovery: registries.filter((r) => r.type !== 'static'), sides, churn: providerChurn(scenario, 0) };
}

/** Mixed levels: registerMode interface / instance / all, 2.7 and 3.3 consumers, a reference's `migration.step`, two applications sharing a service. */
const MIXED = `
name: mixed
duration: 60s
zones: { zoneA: { cidr: 10.0.0.0/16 }, zoneB: { cidr: 10.1.0.0/16 } }
registry: { type: nacos }
services:
  com.example.A: { methods: { get: { serviceTime: 10ms } } }
  com.example.B: { methods: { get: { serviceTime: 10ms } } }
  com.example.C: { methods: { get: { serviceTime: 10ms } } }
  com.example.D: { methods: { get: { serviceTime: 10ms } } }
providers:
  - { name: p1, application: shop, services: [com.example.A, com.example.B], zone: zoneA, count: 10, dubbo: { version: '3.3', registerMode: all } }
  - { name: p2, application: shop, services: [com.example.C], zone: zoneB, count: 4, dubbo: { version: '3.3', registerMode: instance } }
  - { name: p3, application: pay, services: [com.example.C, com.example.D], zone: zoneB, count: 6, dubbo: { version: '3.3', registerMode: interface } }
  - { name: p4, application: legacy, services: [com.example.D], zone: zoneA, count: 3, dubbo: '2.7' }
consumers:
  - { application: web, zone: zoneA, instances: 100, rate: 100/s, calls: { com.example.A.get: 1, com.example.C.get: 1 }, dubbo: { version: '3.3', migrationStep: APPLICATION_FIRST } }
  - { application: admin, zone: zoneB, instances: 7, rate: 10/s, calls: { com.example.D.get: 1, com.example.B.get: 1 }, dubbo: '2.7' }
  - application: api
    zone: zoneB
    instances: 13
    rate: 10/s
    calls: { com.example.C.get: 1, com.example.D.get: 1 }
    dubbo: { version: '3.3', migrationStep: FORCE_APPLICATION }
    reference: { com.example.D: { parameters: { migration.step: FORCE_INTERFACE } } }
faults:
  - { at: 10s, restart: { group: p1, count: 4 } }
  - { at: 20s, for: 10s, zoneDown: zoneB }
  - { at: 30s, scale: { group: p4, count: 9 } }
  - { at: 40s, for: 5s, registryDown: true }
  - { at: 50s, for: 5s, roomDown: zoneA }
`;

describe('the estimate of registry pushes (linear form against the plain one)', () => {
  it('counts the same pushes as asking every consumer side about every changed group, on mixed discovery levels', () => {
    const scenario = parseScenario(MIXED, 'mixed.yaml');
    const { discovery, sides, churn } = inputs(scenario);
    const fast = pushDeliveries(scenario, discovery, sides, churn);
    expect(fast).toEqual(referencePushDeliveries(scenario, discovery, sides, churn));
    // Both levels are pushed here, and the faults change something at each.
    expect(fast.interface).toBeGreaterThan(0);
    expect(fast.application).toBeGreaterThan(0);
  });

  it('counts a dark room: its providers dropped and back as zoneDown, and its consumers reading their lists again when it is back', () => {
    const base = `
name: room
duration: 60s
zones: { zoneA: { cidr: 10.0.0.0/16 }, zoneB: { cidr: 10.1.0.0/16 } }
registry: { type: nacos, servers: { zoneA: 1, zoneB: 1 } }
services:
  com.example.A: { methods: { get: { serviceTime: 10ms } } }
  com.example.B: { methods: { get: { serviceTime: 10ms } } }
providers:
  - { name: a-a, application: shop, services: [com.example.A, com.example.B], zone: zoneA, count: 10, dubbo: { version: '3.3', registerMode: interface } }
  - { name: a-b, application: shop, services: [com.example.A, com.example.B], zone: zoneB, count: 6, dubbo: { version: '3.3', registerMode: interface } }
consumers:
  - { application: web, zone: zoneA, instances: 5, rate: 10/s, calls: { com.example.A.get: 1, com.example.B.get: 1 }, dubbo: { version: '3.3', migrationStep: FORCE_INTERFACE } }
  - { application: web, zone: zoneB, instances: 3, rate: 10/s, calls: { com.example.A.get: 1 }, dubbo: { version: '3.3', migrationStep: FORCE_INTERFACE } }
faults:
`;
    const count = (fault: string) => {
      const scenario = parseScenario(base + fault, 'room.yaml');
      const { discovery, sides, churn } = inputs(scenario);
      return { churn, pushes: pushDeliveries(scenario, discovery, sides, churn) };
    };
    const zone = count('  - { at: 10s, for: 20s, zoneDown: zoneA }\n');
    const room = count('  - { at: 10s, for: 20s, roomDown: zoneA }\n');
    // The providers as zoneDown: one change down, ten back at once at 30 s (a burst of the room's group).
    expect(room.churn.changes).toEqual(zone.churn.changes);
    expect(room.churn.bursts).toEqual([{ atMs: 30_000, group: 'a-a', changes: 10, listSize: 0 }]);
    // Back, zoneA's five consumers read their two lists again (zoneB's do not): ten pushes more.
    expect(room.churn.roomResyncs).toEqual(new Map([['zoneA', 1]]));
    expect(room.pushes.interface - zone.pushes.interface).toBe(5 * 2);
    // `roomUp` brings it back the same way.
    const up = count('  - { at: 10s, roomDown: zoneA }\n  - { at: 30s, roomUp: zoneA }\n');
    expect(up.pushes).toEqual(room.pushes);
    expect(up.churn.bursts).toEqual(room.churn.bursts);
    // A registry without servers in the dark room: every subscription reads again when it is back.
    const inRoom = parseScenario(base.replace('servers: { zoneA: 1, zoneB: 1 }', 'zone: zoneA') + '  - { at: 10s, for: 20s, roomDown: zoneA }\n', 'room.yaml');
    const all = inputs(inRoom);
    expect([all.churn.resyncs, all.churn.roomResyncs.size]).toEqual([1, 0]);
    expect(pushDeliveries(inRoom, all.discovery, all.sides, all.churn)).toEqual(referencePushDeliveries(inRoom, all.discovery, all.sides, all.churn));
  });

  it('counts the same on every shipped scenario and benchmark estate', () => {
    const files = ['scenarios', 'bench'].flatMap((dir) =>
      readdirSync(join(repoRoot, dir))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(repoRoot, dir, f)),
    );
    expect(files.length).toBeGreaterThan(20);
    let compared = 0;
    for (const file of files) {
      const { scenario } = loadScenarioWithRaw(file);
      const { discovery, sides, churn } = inputs(scenario);
      expect(pushDeliveries(scenario, discovery, sides, churn), file).toEqual(referencePushDeliveries(scenario, discovery, sides, churn));
      compared++;
    }
    expect(compared).toBe(files.length);
  });
});
