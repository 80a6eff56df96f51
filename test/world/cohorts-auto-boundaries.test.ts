// Where `cohorts: auto` draws its lines: what counts as per-process state and which rules single out a
// consumer's host (docs/cohorts.md). Each case sits right next to the line, on the side the plan keeps.
import { describe, expect, it } from 'vitest';
import { cohortPlan, perInstanceReason } from '../../src/world/cohorts.js';
import type { ConsumerGroupSpec, RouterSpec, Scenario } from '../../src/model/types.js';
import { consumerGroup } from './registry-fixtures.js';

const NO_RULES: Pick<Scenario, 'routers' | 'faults' | 'consumers'> = { routers: [], faults: [], consumers: [] };

function large(over: Partial<ConsumerGroupSpec> = {}): ConsumerGroupSpec {
  return consumerGroup({ instances: 3000, ...over });
}

function withRouter(router: RouterSpec): Pick<Scenario, 'routers' | 'faults' | 'consumers'> {
  return { routers: [router], faults: [], consumers: [] };
}

describe('cohorts: auto and per-process state', () => {
  it('keeps a group in cohorts when actives is 0 (no ActiveLimitFilter limit, nothing counted per process)', () => {
    const group = large({ consumerDefaults: { parameters: {}, actives: 0 } });
    expect(perInstanceReason(group, NO_RULES)).toBeUndefined();
    expect(cohortPlan(group, NO_RULES)?.members).toHaveLength(32);
  });

  it('keeps a group in cohorts when sticky is set to false', () => {
    expect(cohortPlan(large({ consumerDefaults: { parameters: {}, sticky: false } }), NO_RULES)).not.toBeNull();
  });

  it('names the first reason found: the balancer of a reference before the entry pool', () => {
    const group = large({ threads: 100, reference: { 'com.example.UserService': { parameters: {}, methods: {}, loadbalance: 'shortestresponse' } } });
    expect(perInstanceReason(group, NO_RULES)).toBe('loadbalance shortestresponse keeps state per process');
  });
});

describe("cohorts: auto and rules that match the consumer's host", () => {
  it.each([
    ['host=10.10.0.7 => zone = zoneB', 'written without spaces'],
    ['host != 10.10.0.7 => zone = zoneB', 'a negative match'],
    ['method = get & host = 10.10.0.7 => zone = zoneB', 'after another condition'],
  ])('keeps every group per instance for the condition rule "%s" (%s)', (rule) => {
    const rules = withRouter({ type: 'condition', rule });
    expect(perInstanceReason(large(), rules)).toBe("a condition rule matches the consumer's host");
    expect(cohortPlan(large(), rules)).toBeNull();
  });

  it('reads a condition rule given as YAML text too', () => {
    const rule = 'scope: service\nkey: com.example.UserService\nconditions:\n  - "host = 10.10.0.7 => zone = zoneB"\n';
    expect(cohortPlan(large(), withRouter({ type: 'condition', rule }))).toBeNull();
  });

  it.each([
    ['ghost = 1 => zone = zoneB', 'a parameter whose name ends in host'],
    ['attachments.host = x => zone = zoneB', 'a key whose last part is host'],
    ['method = hosts => zone = zoneB', 'host only inside a value'],
  ])('keeps groups in cohorts for the condition rule "%s" (%s)', (rule) => {
    expect(cohortPlan(large(), withRouter({ type: 'condition', rule }))).not.toBeNull();
  });

  it('keeps groups in cohorts when only a plugin router mentions host = (it is not a condition rule)', () => {
    const plugin: RouterSpec = { type: 'plugin', module: './my-router.js', options: { expression: 'host = 10.10.0.7' } };
    expect(perInstanceReason(large(), withRouter(plugin))).toBeUndefined();
  });
});
