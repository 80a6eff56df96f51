/**
 * Scenario settings Dubbo fails on, refused when the file loads (src/scenario/dubbo-checks.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';

const base = `zones: { dc: { cidr: 10.0.0.0/24 } }
services: { S: { methods: { m: { serviceTime: 1ms } } } }
providers: [{ service: S, zone: dc, count: 2 }]
consumers:
  - application: a
    zone: dc
    rate: 10/s
    calls: { S.m: 1 }
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 'x.yaml');
  } catch (error) {
    return (error as { format(): string }).format();
  }
  throw new Error('expected a ScenarioError');
}

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
