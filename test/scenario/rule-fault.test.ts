import { describe, expect, it } from 'vitest';
import { DubboConsumerStack } from '../../src/stack/consumer-stack.js';
import { RouterChain } from '../../src/dubbo/router/chain.js';
import type { StateRouter } from '../../src/dubbo/router/router.js';
import { TagStateRouter } from '../../src/dubbo/router/tag/tag-state-router.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { parseScenario } from '../../src/scenario/load.js';
import { buildWorld } from '../../src/scenario/run.js';

const USERS = 'com.example.UserService';
const ORDERS = 'com.example.OrderService';

function scenarioText(routers: string, faults: string): string {
  return `
name: rule-fault
duration: 60s
zones: { zoneA: { cidr: 10.10.0.0/16 }, zoneB: { cidr: 10.20.0.0/16 } }
registry: { type: static }
services:
  ${USERS}: { methods: { get: { serviceTime: 5ms } } }
  ${ORDERS}: { methods: { list: { serviceTime: 5ms } } }
providers:
  - { name: users-a, service: ${USERS}, zone: zoneA, count: 2 }
  - { name: orders-a, service: ${ORDERS}, zone: zoneA, count: 2 }
consumers:
  - { application: web, zone: zoneA, instances: 2, rate: 0, calls: { ${USERS}.get: 1, ${ORDERS}.list: 1 } }
routers: ${routers}
faults: ${faults}
`;
}

/** A world (no traffic) and a view of every instance's chain for a service, as rule descriptions. */
function world(routers: string, faults: string) {
  const scenario = parseScenario(scenarioText(routers, faults), 'rule-fault.yaml');
  const recorder = new Recorder({ warmupMs: 0, durationMs: scenario.durationMs, bucketMs: 1000, providerGroups: [] });
  const w = buildWorld(scenario, 1, recorder);
  const describe = (r: StateRouter): string => {
    const x = r as unknown as { label?: string; rule?: unknown; fallback?: boolean };
    if (r instanceof TagStateRouter) return r.getRule() === null ? 'tag' : 'tag+rule';
    if (r.name === 'zone') return x.fallback ? 'zone' : 'zone!';
    if (r.name === 'condition') return `condition ${x.label ?? String(x.rule)}`;
    return r.name;
  };
  const chains = (service: string) =>
    w.consumerGroups[0]!.instances.map((inst) => {
      const chain = (inst.stack as DubboConsumerStack).references.get(service)!.directory.getRouterChain() as RouterChain;
      return chain.getRouters().map(describe).filter((d) => d !== 'mock');
    });
  return { chains, runTo: (t: number) => w.sim.run({ until: t }) };
}

describe('rule faults on every consumer instance', () => {
  it('adds a router at its order and removes it when undone', () => {
    const t = world('[]', '[{ at: 10s, for: 5s, rule: { add: { type: zone, fallback: false } } }]');
    t.runTo(10_000);
    expect(t.chains(USERS)).toEqual([
      ['tag', 'zone!'],
      ['tag', 'zone!'],
    ]);
    t.runTo(15_000);
    expect(t.chains(USERS)).toEqual([['tag'], ['tag']]);
  });

  it('limits an added router to the service it names', () => {
    const t = world('[]', `[{ at: 10s, rule: { add: { type: zone, service: ${ORDERS} } } }]`);
    t.runTo(10_000);
    expect([t.chains(USERS)[0], t.chains(ORDERS)[0]]).toEqual([['tag'], ['tag', 'zone']]);
  });

  it('removes the router written at routers[index], and puts it back when undone', () => {
    const t = world(
      '[{ type: zone }, { type: zone, fallback: false }]',
      '[{ at: 10s, for: 5s, rule: { remove: { type: zone }, index: 1 } }]',
    );
    expect(t.chains(USERS)[0]).toEqual(['tag', 'zone', 'zone!']);
    t.runTo(10_000);
    expect(t.chains(USERS)[0]).toEqual(['tag', 'zone']);
    t.runTo(15_000);
    expect(t.chains(USERS)[0]).toEqual(['tag', 'zone', 'zone!']);
  });

  it('removes without index the routers equal to the spec', () => {
    const t = world('[{ type: zone }, { type: zone, fallback: false }]', '[{ at: 10s, rule: { remove: { type: zone, fallback: false } } }]');
    t.runTo(10_000);
    expect(t.chains(USERS)[1]).toEqual(['tag', 'zone']);
  });

  it('replaces the condition rule of the same scope', () => {
    const t = world(
      '[{ type: condition, rule: "=> zone = zoneA" }]',
      '[{ at: 10s, for: 5s, rule: { replace: { type: condition, rule: "=> zone = zoneB" } } }]',
    );
    t.runTo(10_000);
    expect(t.chains(USERS)[0]).toEqual(['tag', 'condition => zone = zoneB']);
    t.runTo(15_000);
    expect(t.chains(USERS)[0]).toEqual(['tag', 'condition => zone = zoneA']);
  });

  it('sets and restores the tag rule of the chain', () => {
    const rule = '{ type: tag, rule: { force: true, tags: [{ name: gray, addresses: ["10.10.0.1:20880"] }] } }';
    const t = world('[]', `[{ at: 10s, for: 5s, rule: { add: ${rule} } }]`);
    t.runTo(10_000);
    expect(t.chains(USERS)[0]).toEqual(['tag+rule']);
    t.runTo(15_000);
    expect(t.chains(USERS)[0]).toEqual(['tag']);
  });
});
