/**
 * The release profile reaches the routers of a simulated consumer: `zonesim check` routes each group
 * with its own runtime, so a 2.7 group answers a condition on a missing key as 2.7.23's
 * ConditionRouter does (ConditionRouter.java:269-275) and a 3.3 group as AbstractConditionMatcher
 * (:69-75), in one scenario (a migration estate).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { checkScenario } from '../../src/analysis/check.js';

const SCENARIO = `zones: { dc: { cidr: 10.0.0.0/24 } }
services: { S: { methods: { m: { serviceTime: 1ms } } } }
providers:
  - { name: gray, service: S, zone: dc, count: 2, params: { env: gray } }
  - { name: plain, service: S, zone: dc, count: 3 }
consumers:
  - { application: new-web, zone: dc, rate: 10/s, calls: { S.m: 1 } }
  - { application: old-web, zone: dc, rate: 10/s, calls: { S.m: 1 }, dubbo: '2.7' }
routers:
  - { type: condition, rule: "=> env != gray", force: true }
`;

describe("the condition rule's missing-key semantics follow each consumer group's release", () => {
  it("keeps the providers without env for the 2.7 group, none for the 3.3 group (force: true)", () => {
    const report = checkScenario(parseScenario(SCENARIO, 'x.yaml'));
    const after = Object.fromEntries(report.phases[0]!.routes.map((r) => [r.consumer, [r.providers, r.providersAfter]]));
    expect(after).toEqual({ 'new-web': [5, 0], 'old-web': [5, 3] });
  });
});
