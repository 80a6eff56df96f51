/**
 * `registry.byConsumerGroup` from a whole run: two consumer groups and a provider group that calls downstream,
 * each subscriber pushed to a known number of times (its subscribe read, then the current list when the push
 * switch comes back on).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

// Interface level only: one list per subscribed service. Inventory registers before Order's instances (their
// downstream sides) subscribe, and every provider before the consumer groups do: each subscribe read finds
// its list whole. The push switch off at 10 s, on at 15 s: every subscription reads its current list once more.
const SCENARIO = `name: push-groups
duration: 30s
warmup: 0s
zones:
  dc: { cidr: 10.0.0.0/16 }
registry: { type: nacos, registration: interface, pushLag: 100ms }
services:
  com.example.OrderService:
    methods:
      place:
        serviceTime: 2ms
        calls: [{ service: com.example.InventoryService, method: reserve }]
  com.example.InventoryService:
    methods:
      reserve: { serviceTime: 1ms }
providers:
  - { name: inventory, service: com.example.InventoryService, zone: dc, count: 3 }
  - { name: order, service: com.example.OrderService, zone: dc, count: 2 }
consumers:
  - { application: web, zone: dc, instances: 4, rate: 20/s, calls: { com.example.OrderService.place: 1 } }
  - { application: admin, zone: dc, instances: 2, rate: 10/s, calls: { com.example.OrderService.place: 1 } }
faults:
  - { at: 10s, pushSwitch: off, for: 5s }
`;

const PUSHES_EACH = 2;

function run(perInstance?: boolean) {
  return runScenario(parseScenario(SCENARIO, 'push-groups.yaml'), { version: 'test', perInstance }).summary.registry;
}

describe('registry.byConsumerGroup in a run', () => {
  const registry = run();
  const groups = registry.byConsumerGroup!;

  it('keys consumer groups by <application>@<zone> and a provider\'s downstream side by its provider group', () => {
    expect(Object.keys(groups)).toEqual(['admin@dc', 'order', 'web@dc']);
  });

  it('counts every instance and each of its pushes: instances x pushes each', () => {
    for (const [group, instances] of [['web@dc', 4], ['admin@dc', 2], ['order', 2]] as const) {
      const g = groups[group]!;
      expect([g.instances, g.pushes], group).toEqual([instances, instances * PUSHES_EACH]);
      expect(g.perInstance.pushes, group).toEqual({ min: PUSHES_EACH, median: PUSHES_EACH, max: PUSHES_EACH });
    }
    expect(registry.pushes).toBe((4 + 2 + 2) * PUSHES_EACH);
  });

  it('gives every instance of a group the same bytes, the group their sum, the run the sum of its groups', () => {
    let total = 0;
    for (const [name, g] of Object.entries(groups)) {
      const each = g.perInstance.pushBytes;
      expect(each.min, name).toBe(each.max);
      expect(g.pushBytes, name).toBe(g.instances * each.min);
      total += g.pushBytes;
    }
    expect(total).toBe(registry.pushBytes);
    // web and admin read the same list (Order's two providers), Order's downstream sides Inventory's three.
    expect(groups['web@dc']!.perInstance.pushBytes).toEqual(groups['admin@dc']!.perInstance.pushBytes);
    expect(groups['order']!.perInstance.pushBytes.min).toBeGreaterThan(groups['web@dc']!.perInstance.pushBytes.min);
  });

  it('names the 3 instances with the most bytes, ties by id', () => {
    expect(groups['web@dc']!.worst!.map((w) => w.id)).toEqual(['web@dc#0', 'web@dc#1', 'web@dc#2']);
    expect(groups['admin@dc']!.worst!.map((w) => w.id)).toEqual(['admin@dc#0', 'admin@dc#1']);
    expect(groups['order']!.worst!.every((w) => /^order\/10\.0\.\d+\.\d+:20880$/.test(w.id))).toBe(true);
  });

  it('lists every instance under byConsumer only with perInstance, the group figures unchanged', () => {
    expect(registry.byConsumer).toBeUndefined();
    const asked = run(true);
    expect(Object.keys(asked.byConsumer!)).toHaveLength(8);
    expect(asked.byConsumer!['web@dc#3']).toEqual({ pushes: PUSHES_EACH, pushBytes: groups['web@dc']!.perInstance.pushBytes.min });
    expect(asked.byConsumerGroup).toEqual(groups);
  });
});
