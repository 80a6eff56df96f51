import { describe, expect, it } from 'vitest';
import { AUTO_COHORT_ESTATE_INSTANCES, AUTO_COHORT_INSTANCES, cohortPlan, perInstanceReason, representativeOf, splitMembers } from '../../src/world/cohorts.js';
import type { ConsumerGroupSpec, ReferenceSpec, RouterSpec, Scenario } from '../../src/model/types.js';
import { consumerGroup } from './registry-fixtures.js';

const NO_RULES: Pick<Scenario, 'routers' | 'faults' | 'consumers'> = { routers: [], faults: [], consumers: [] };

function group(over: Partial<ConsumerGroupSpec> = {}): ConsumerGroupSpec {
  return consumerGroup({ instances: 3000, ...over });
}

function reference(over: Partial<ReferenceSpec>): ReferenceSpec {
  return { parameters: {}, methods: {}, ...over };
}

describe('splitting a cohort over its representatives', () => {
  it('gives every member to exactly one representative, shares differing by at most one', () => {
    for (const [total, k] of [
      [1000, 32],
      [3000, 32],
      [33, 32],
      [999_999, 7],
      [64, 64],
    ] as const) {
      const members = splitMembers(total, k);
      expect(members).toHaveLength(k);
      expect(members.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...members) - Math.min(...members)).toBeLessThanOrEqual(1);
    }
  });

  it('maps member r to the representative whose share holds it, for every member', () => {
    for (const [total, k] of [
      [1000, 32],
      [3001, 32],
      [50, 7],
    ] as const) {
      const members = splitMembers(total, k);
      let r = 0;
      members.forEach((n, j) => {
        for (let i = 0; i < n; i++, r++) expect(representativeOf(r, total, k)).toBe(j);
      });
    }
  });
});

describe('cohorts: auto | on | off', () => {
  it('auto: a group of 1,000 instances or more with nothing per process becomes 32 representatives', () => {
    expect(cohortPlan(group({ instances: AUTO_COHORT_INSTANCES }), NO_RULES)?.members).toHaveLength(32);
    expect(cohortPlan(group({ instances: AUTO_COHORT_INSTANCES - 1 }), NO_RULES)).toBeNull();
  });

  it('auto: in an estate of 100,000 consumer instances or more, every group larger than its representatives, per-process features aside', () => {
    // 200 groups of 500: no group reaches 1,000, the estate reaches AUTO_COHORT_ESTATE_INSTANCES.
    const estate = (n: number): Pick<Scenario, 'routers' | 'faults' | 'consumers'> => ({
      routers: [],
      faults: [],
      consumers: Array.from({ length: n }, () => group({ instances: 500 })),
    });
    expect(200 * 500).toBe(AUTO_COHORT_ESTATE_INSTANCES);
    expect(cohortPlan(group({ instances: 500 }), estate(200))?.members).toEqual(splitMembers(500, 32));
    expect(cohortPlan(group({ instances: 500 }), estate(199))).toBeNull();
    // Still per instance: a group no larger than its representatives, one with per-process state, `off`.
    expect(cohortPlan(group({ instances: 32 }), estate(200))).toBeNull();
    const sticky = group({ instances: 500, consumerDefaults: { parameters: {}, sticky: true } });
    expect(cohortPlan(sticky, estate(200))).toBeNull();
    expect(cohortPlan(group({ instances: 500, cohorts: 'off' }), estate(200))).toBeNull();
  });

  it('on: any group larger than its representatives; off: never', () => {
    expect(cohortPlan(group({ instances: 100, cohorts: 'on', representatives: 8 }), NO_RULES)?.members).toEqual(splitMembers(100, 8));
    expect(cohortPlan(group({ instances: 8, cohorts: 'on', representatives: 8 }), NO_RULES)).toBeNull();
    expect(cohortPlan(group({ cohorts: 'off' }), NO_RULES)).toBeNull();
  });

  it.each([
    ['a stateful load balancer', { reference: { 'com.example.UserService': reference({ loadbalance: 'leastactive' }) } }, 'loadbalance leastactive'],
    ['a method-level round robin', { reference: { 'com.example.UserService': reference({ methods: { get: { parameters: {}, loadbalance: 'roundrobin' } } }) } }, 'loadbalance roundrobin'],
    ['sticky', { consumerDefaults: { parameters: {}, sticky: true } }, 'sticky'],
    ['actives', { consumerDefaults: { parameters: {}, actives: 5 } }, 'actives'],
    ['an entry pool', { threads: 200 }, 'threads'],
    ['Sentinel rules', { sentinel: { flowRules: [] } }, 'Sentinel'],
  ] as Array<[string, Partial<ConsumerGroupSpec>, string]>)('auto keeps a group with %s per instance; on does not', (_name, over, reason) => {
    expect(perInstanceReason(group(over), NO_RULES)).toContain(reason);
    expect(cohortPlan(group(over), NO_RULES)).toBeNull();
    expect(cohortPlan(group({ ...over, cohorts: 'on' }), NO_RULES)).not.toBeNull();
  });

  it('auto keeps random, consistent hash and the zone-aware balancers in cohorts', () => {
    for (const lb of ['random', 'consistenthash', 'zoneAware', 'envoyZoneAware']) {
      expect(cohortPlan(group({ consumerDefaults: { parameters: {}, loadbalance: lb } }), NO_RULES)).not.toBeNull();
    }
  });

  it("auto keeps every group per instance while a condition rule, in the routers or a fault, matches the consumer's host", () => {
    const hostRule: RouterSpec = { type: 'condition', rule: 'host = 10.10.0.7 => zone = zoneB' };
    const zoneRule: RouterSpec = { type: 'condition', rule: '=> zone = zoneB' };
    expect(cohortPlan(group(), { routers: [zoneRule], faults: [], consumers: [] })).not.toBeNull();
    expect(perInstanceReason(group(), { routers: [hostRule], faults: [] })).toContain('host');
    const fault = { atMs: 1000, label: 'faults[0]', action: { kind: 'routers', routers: [hostRule] } } as unknown as Scenario['faults'][number];
    expect(cohortPlan(group(), { routers: [], faults: [fault], consumers: [] })).toBeNull();
  });
});
