/**
 * The built-in strategies (SPEC 2.9): each is Dubbo's default routing (no router rules, random,
 * failover) plus one zone-aware mechanism, whatever routers and balancers the scenario itself
 * writes; everything else stays as written.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy, builtInStrategies, strategiesFor } from '../../src/scenario/strategies.js';
import type { Scenario } from '../../src/model/types.js';

const scenarioFile = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url));
const load = (name: string, sets: string[] = []): Scenario => loadScenarioWithRaw(scenarioFile(name), sets).scenario;
const SERVICE = 'com.example.UserService';

/** The routing a strategy leaves: routers, and every reference's balancer and cluster. */
const routing = (s: Scenario) => ({
  routers: s.routers,
  references: s.consumers.map((c) => ({ loadbalance: c.reference[SERVICE]?.loadbalance, cluster: c.reference[SERVICE]?.cluster })),
});

describe('built-in strategies', () => {
  // A zone router with the nearest fallback, a zoneAware balancer and a zoneAwareFailover cluster as written.
  const zoned = load('three-zone-nearest-fallback.yaml', [
    `consumers[0].reference["${SERVICE}"]={ loadbalance: zoneAware, cluster: zoneAwareFailover, timeout: 700ms, retries: 1 }`,
  ]);

  it('dubbo-default drops the scenario’s routers and sets random and failover, keeping timeout and retries', () => {
    const applied = applyStrategy(zoned, builtInStrategies['dubbo-default']!);
    expect(zoned.routers).toHaveLength(1);
    expect(applied.routers).toEqual([]);
    expect(applied.consumers[0]!.reference[SERVICE]).toMatchObject({ loadbalance: 'random', cluster: 'failover', timeoutMs: 700, retries: 1 });
    expect(applied.consumers[1]!.reference[SERVICE]).toMatchObject({ loadbalance: 'random', cluster: 'failover' });
  });

  it.each(Object.keys(builtInStrategies))('%s routes the same whatever routers, balancer and cluster the scenario writes', (name) => {
    const plain = load('three-zone-nearest-fallback.yaml', ['routers=[]']);
    const [a, b] = [applyStrategy(zoned, builtInStrategies[name]!), applyStrategy(plain, builtInStrategies[name]!)];
    expect(routing(a)).toEqual(routing(b));
    // And it is its own: no two built-ins leave the same routing.
    const others = Object.keys(builtInStrategies).filter((n) => n !== name).map((n) => routing(applyStrategy(plain, builtInStrategies[n]!)));
    for (const o of others) expect(o).not.toEqual(routing(b));
  });

  it('on three-zone-nearest-fallback, dubbo-default no longer runs the scenario’s nearest-zone router', () => {
    const scenario = load('three-zone-nearest-fallback.yaml', ['duration=50s']);
    const run = (name: string) => runScenario(applyStrategy(scenario, strategiesFor(scenario, [name])[name]!), { version: 'test' }).summary;
    const [dubbo, lb, written] = [run('dubbo-default'), run('zone-aware-lb'), runScenario(scenario, { version: 'test' }).summary];
    // No zone router: random spreads zoneA's, zoneB's and zoneC's calls over every zone (2/3 of them cross zones
    // before the outage); as written, only the outage moves zoneA's calls out of their zone.
    expect(dubbo.crossZoneRatio).toBeGreaterThan(0.5);
    expect(written.crossZoneRatio).toBeLessThan(0.5);
    expect(lb.crossZoneRatio).not.toBe(dubbo.crossZoneRatio);
    expect(lb.errorRate).not.toBe(dubbo.errorRate);
  });
});
