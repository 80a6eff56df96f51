/**
 * Scenario settings Dubbo fails on, refused when the file loads (src/scenario/dubbo-checks.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';

const base = `zones: { dc: { cidr: 10.0.0.0/24 } }
services: { S: { methods: { m: { serviceTime: 1ms } } } }
providers: [{ service: S, zone: dc, count: 2 }]
consumers:
  - application: a
    zone: dc
    rate: 10/s
    calls: { S.m: 1 }
`;

const errorOf = (text: string): string => scenarioErrorOf(text).format();

describe('hash.nodes below 4 (3.3 ConsistentHashLoadBalance.java:88 builds hash.nodes/4 digests per provider; :116-118 then throws a NullPointerException)', () => {
  it('is refused on a reference, at the parameter, naming the value and the failure', () => {
    const text = base.replace('calls: { S.m: 1 }', 'calls: { S.m: 1 }\n    reference: { S: { loadbalance: consistenthash, parameters: { hash.nodes: 3 } } }');
    const error = errorOf(text);
    expect(error).toMatch(/^x\.yaml:9:\d+: consumers\[0\]\.reference\.S\.parameters\["hash\.nodes"\]: hash\.nodes 3 is below 4: /);
    expect(error).toContain('NullPointerException (ConsistentHashLoadBalance.selectForKey)');
  });

  it('is refused at method level and on a provider group\'s registered URL too', () => {
    const method = base.replace('calls: { S.m: 1 }', "calls: { S.m: 1 }\n    reference: { S: { methods: { m: { parameters: { m.hash.nodes: '0' } } } } }");
    expect(errorOf(method)).toMatch(/consumers\[0\]\.reference\.S\.methods\.m\.parameters\["m\.hash\.nodes"\]: m\.hash\.nodes 0 is below 4/);
    const provider = base.replace('count: 2 }', 'count: 2, params: { hash.nodes: 1 } }');
    expect(errorOf(provider)).toMatch(/providers\[0\]\.params\["hash\.nodes"\]: hash\.nodes 1 is below 4/);
  });

  it('accepts 4, which gives one digest (four points) per provider', () => {
    const text = base.replace('calls: { S.m: 1 }', 'calls: { S.m: 1 }\n    reference: { S: { loadbalance: consistenthash, parameters: { hash.nodes: 4 } } }');
    expect(parseScenario(text, 'x.yaml').consumers[0]!.reference.S!.parameters['hash.nodes']).toBe('4');
  });
});

describe("3.x-only features under dubbo: '2.7' are a load error naming the feature, its field and the group (SPEC 2.11; plan39 3.x-only table)", () => {
  const v27 = (text: string) => text.replace('  - application: a\n', "  - application: a\n    dubbo: '2.7'\n");
  const withRouter = (text: string, router: string) => `${text}routers:\n  - ${router}\n`;

  it('refuses a condition range for a 2.7 consumer (RangeValuePattern, 3.2.0), not for a 3.3 one', () => {
    const router = '{ type: condition, rule: "=> port = 20880~20890" }';
    expect(errorOf(withRouter(v27(base), router))).toMatch(
      /^x\.yaml:\d+:\d+: routers\[0\]\.rule: a condition range \("20880~20890", RangeValuePattern\) is first in Dubbo 3\.2\.0; consumers\[0\] \(a\) runs dubbo '2\.7' \(2\.7\.23\)/,
    );
    expect(parseScenario(withRouter(base, router), 'x.yaml').routers).toHaveLength(1);
  });

  it('refuses attachments[...] conditions and v3.1 rules for a 2.7 consumer', () => {
    expect(errorOf(withRouter(v27(base), '{ type: condition, rule: "attachments[lane] = blue => zone = dc" }'))).toContain(
      'an attachments[...] condition ("attachments[lane]", AttachmentConditionMatcher) is first in Dubbo 3.2.0',
    );
    const v31 = '{ type: condition, rule: { configVersion: v3.1, conditions: [{ from: { match: "" }, to: [{ match: "zone = dc" }] }] } }';
    expect(errorOf(withRouter(v27(base), v31))).toContain('a v3.1 multi-destination condition rule (MultiDestConditionRouter) is first in Dubbo 3.3');
  });

  it("refuses a rule keyed by the providers' application (ProviderAppStateRouter, 3.2.0), not one keyed by the consumer's", () => {
    const keyed = (key: string) => `{ type: condition, rule: { scope: application, key: ${key}, conditions: ["=> zone = dc"] } }`;
    expect(errorOf(withRouter(v27(base), keyed('S-provider')))).toContain(
      "a condition rule keyed by the providers' application S-provider (ProviderAppStateRouter) is first in Dubbo 3.2.0",
    );
    expect(parseScenario(withRouter(v27(base), keyed('a')), 'x.yaml').routers).toHaveLength(1);
  });

  it('refuses a tag rule match, the adaptive balancer, executor isolation and application-level discovery', () => {
    const tag = '{ type: tag, rule: { configVersion: v3.0, tags: [{ name: gray, match: [{ key: zone, value: { exact: dc } }] }] } }';
    expect(errorOf(withRouter(v27(base), tag))).toContain('a tag rule `match` (configVersion v3.0 TagRouterRule) is first in Dubbo 3.0');
    const adaptive = v27(base).replace('calls: { S.m: 1 }', 'calls: { S.m: 1 }\n    reference: { S: { loadbalance: adaptive } }');
    expect(errorOf(adaptive)).toMatch(/consumers\[0\]\.reference\.S\.loadbalance: the adaptive load balancer \(AdaptiveLoadBalance\) is first in Dubbo 3\.2\.0/);
    const executor = base.replace('count: 2 }', "count: 2, dubbo: '2.7', exports: { S: { executor: { threads: 10 } } } }");
    expect(errorOf(executor)).toMatch(/providers\[0\]\.exports\.S\.executor: executor isolation .* is first in Dubbo 3\.2\.0; providers\[0\] \(S\) runs dubbo '2\.7'/);
    const registration = `${v27(base)}registry: { type: nacos, registration: application }\n`;
    expect(errorOf(registration)).toMatch(/registry\.registration: application-level discovery \(registration: application\) is first in Dubbo 3\.0/);
    const switched = base.replace('  - application: a\n', "  - application: a\n    dubbo: { version: '2.7', migrationStep: APPLICATION_FIRST }\n");
    expect(errorOf(switched)).toMatch(/consumers\[0\]\.dubbo\.migrationStep: application-level discovery \(migrationStep: APPLICATION_FIRST\) is first in Dubbo 3\.0/);
  });

  it("does not hold a top-level switch against a 2.7 group that sets the same switch itself (the group's own wins)", () => {
    const top = `dubbo: { migrationStep: APPLICATION_FIRST }\n${base}`;
    const inherits = top.replace('  - application: a\n', "  - application: a\n    dubbo: '2.7'\n");
    expect(errorOf(inherits)).toMatch(/^.*dubbo\.migrationStep: application-level discovery \(migrationStep: APPLICATION_FIRST\) is first in Dubbo 3\.0; consumers\[0\] \(a\) runs dubbo '2\.7'/m);
    const overrides = top.replace('  - application: a\n', "  - application: a\n    dubbo: { version: '2.7', migrationStep: FORCE_INTERFACE }\n");
    expect(parseScenario(overrides, 'x.yaml').consumers[0]!.dubbo.migrationStep).toBe('FORCE_INTERFACE');
  });

  it('follows the top level and strategies: a top-level 2.7 reaches every group, a 2.7 strategy checks what it applies to', () => {
    const router = '{ type: condition, rule: "=> port = 20880~20890" }';
    expect(errorOf(`dubbo: '2.7'\n${withRouter(base, router)}`)).toContain("consumers[0] (a) runs dubbo '2.7'");
    const strategy = `${withRouter(base, router)}strategies:\n  old: { dubbo: '2.7' }\n`;
    expect(errorOf(strategy)).toContain("consumers[0] (a) runs dubbo '2.7' (2.7.23) under strategy old");
    // A group that says 3.3 under a 2.7 top level keeps 3.3.
    const own33 = `dubbo: '2.7'\n${withRouter(base, router)}`.replace('  - application: a\n', "  - application: a\n    dubbo: '3.3'\n");
    expect(parseScenario(own33, 'x.yaml').routers).toHaveLength(1);
  });
});

describe("a null condition item where a group runs dubbo: '2.7'", () => {
  it('is refused at load (2.7 drops the whole rule), where 3.3 reads "null"', () => {
    const router = "{ type: condition, rule: { force: true, conditions: ['=> zone = dc', null] } }";
    const text = `${base}routers:\n  - ${router}\n`;
    expect(errorOf(text.replace('  - application: a\n', "  - application: a\n    dubbo: '2.7'\n"))).toContain(
      "routers[0].rule: a null condition item (conditions[1]) makes Dubbo 2.7 drop the whole rule (ConditionRouter: \"Illegal route rule!\"); 3.x reads it as the text \"null\"; consumers[0] (a) runs dubbo '2.7'",
    );
    expect(parseScenario(text, 'x.yaml').routers).toHaveLength(1);
  });
});
