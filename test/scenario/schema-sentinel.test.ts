/**
 * The `sentinel:` blocks as the loader reads them: Sentinel's JSON field names accepted as pasted
 * (dashboard fields included), defaults left to the port, and each rule Sentinel's managers would drop
 * (or that zonesim does not model) refused with the file, line and field.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

const BASE = `zones: { dc: {} }
services:
  com.example.UserService: { methods: { getUserById: { serviceTime: 5ms } } }
providers:
  - { name: users, service: com.example.UserService, zone: dc, count: 2 }
consumers:
  - { application: web, zone: dc, rate: 10/s, calls: { com.example.UserService.getUserById: 1 } }
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.format();
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

describe('sentinel: blocks', () => {
  it('reads rules as Sentinel JSON (as a Nacos datasource holds them), at top level, per group, per strategy and in a fault', () => {
    const s = parseScenario(
      `${BASE}sentinel:
  flowRules: [{"resource":"com.example.UserService:getUserById(java.lang.Long)","limitApp":"default","grade":1,"count":20,"strategy":0,"controlBehavior":2,"maxQueueingTimeMs":300,"clusterMode":false,"id":7,"app":"users","gmtCreate":1700000000000}]
  fallback: return null
faults:
  - { at: 5s, sentinel: { application: web, degradeRules: [{ resource: com.example.UserService, grade: 2, count: 3, timeWindow: 10 }] } }
strategies:
  off: { sentinel: {} }
`,
      'ok.yaml',
    );
    expect(s.sentinel).toEqual({
      flowRules: [{ resource: 'com.example.UserService:getUserById(java.lang.Long)', limitApp: 'default', grade: 1, count: 20, strategy: 0, controlBehavior: 2, maxQueueingTimeMs: 300 }],
      fallback: 'return null',
    });
    expect(s.faults[0]!.action).toEqual({ kind: 'sentinel', application: 'web', rules: { degradeRules: [{ resource: 'com.example.UserService', grade: 2, count: 3, timeWindow: 10 }] } });
    expect(s.strategies['off']!.sentinel).toEqual({});
  });

  it('refuses a grade Sentinel does not have, naming the field', () => {
    expect(errorOf(`${BASE}sentinel:\n  flowRules:\n    - { resource: r, count: 1, grade: 3 }\n`)).toBe('bad.yaml:10:39: sentinel.flowRules[0].grade: expected 0 (thread count) or 1 (QPS), found 3');
  });

  it('refuses cluster mode and the relate strategy as not modelled', () => {
    expect(errorOf(`${BASE}sentinel:\n  flowRules:\n    - { resource: r, count: 1, clusterMode: true }\n`)).toMatch(/sentinel\.flowRules\[0\]\.clusterMode: cluster flow control is not modelled/);
    expect(errorOf(`${BASE}sentinel:\n  flowRules:\n    - { resource: r, count: 1, strategy: 1 }\n`)).toMatch(/sentinel\.flowRules\[0\]\.strategy: expected 0 \(direct\)/);
  });

  it('refuses a degrade rule Sentinel would drop: an error ratio above 1, a missing time window', () => {
    expect(errorOf(`${BASE}sentinel:\n  degradeRules:\n    - { resource: r, grade: 1, count: 1.5, timeWindow: 5 }\n`)).toMatch(/sentinel\.degradeRules\[0\]\.count: count of an error-ratio rule must be <= 1/);
    expect(errorOf(`${BASE}sentinel:\n  degradeRules:\n    - { resource: r, grade: 0, count: 100 }\n`)).toMatch(/sentinel\.degradeRules\[0\]\.timeWindow/);
  });

  it('refuses an unknown field and a bad fallback, per group too', () => {
    expect(errorOf(`${BASE}sentinel:\n  flowRules:\n    - { resource: r, count: 1, qps: 3 }\n`)).toMatch(/sentinel\.flowRules\[0\]/);
    const group = BASE.replace('calls: { com.example.UserService.getUserById: 1 } }', 'calls: { com.example.UserService.getUserById: 1 }, sentinel: { fallback: mock } }');
    expect(errorOf(group)).toMatch(/^bad\.yaml:7:\d+: consumers\[0\]\.sentinel\.fallback: expected default, throw, return null or return <value>/);
  });
});

describe('a sentinel fault', () => {
  it('names an application that has JVMs, a consumer`s or a provider`s', () => {
    expect(errorOf(`${BASE}faults:\n  - { at: 5s, sentinel: { application: webb, flowRules: [] } }\n`)).toMatch(
      /^bad\.yaml:9:\d+: faults\[0\]\.sentinel\.application: expected a consumer or provider application declared under consumers or providers \(application\) \(web, UserService-provider\), found "webb"; did you mean "web"\?$/,
    );
    expect(() => parseScenario(`${BASE}faults:\n  - { at: 5s, sentinel: { application: UserService-provider, flowRules: [] } }\n`, 'ok.yaml')).not.toThrow();
  });
});
