import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { applyOverrides, parseScenario, parseScenarioWithRaw, parseSetExpression, ScenarioError } from '../../src/scenario/load.js';

const BASE = `zones: { zoneA: {}, zoneB: {} }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 20ms }
providers:
  - { service: com.example.UserService, zone: zoneA, count: 2 }
  - { service: com.example.UserService, zone: zoneB }
consumers:
  - zone: zoneA
    rate: 100
    calls: { com.example.UserService.getUserById: 1 }
    reference:
      com.example.UserService: { retries: 2 }
`;

function errorText(text: string, overrides: string[]): string {
  try {
    parseScenario(text, 'x.yaml', overrides);
  } catch (e) {
    if (e instanceof ScenarioError) return e.format();
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

describe('parseSetExpression', () => {
  it('reads dotted names, indexes and quoted keys', () => {
    expect(parseSetExpression('consumers[0].reference["com.example.UserService"].retries=0')).toEqual({
      expr: 'consumers[0].reference["com.example.UserService"].retries=0',
      path: ['consumers', 0, 'reference', 'com.example.UserService', 'retries'],
      value: 0,
    });
  });

  it("reads single-quoted keys and numeric dotted segments as indexes", () => {
    expect(parseSetExpression("providers.1.params['a.b']=x").path).toEqual(['providers', 1, 'params', 'a.b']);
  });

  it('reads the value as YAML: strings with units, numbers, flow maps', () => {
    expect(parseSetExpression('duration=10m').value).toBe('10m');
    expect(parseSetExpression('seed=42').value).toBe(42);
    expect(parseSetExpression('zones.zoneC={cidr: 10.30.0.0/16}').value).toEqual({ cidr: '10.30.0.0/16' });
  });

  it('keeps "=" inside the value', () => {
    expect(parseSetExpression('routers[0].rule=host = 10.20.* => host = 10.30.*').value).toBe('host = 10.20.* => host = 10.30.*');
  });

  it.each([
    ['duration', 'x.yaml: --set duration: expected path=value, found no "="'],
    ['consumers[0.retries=1', 'x.yaml: --set consumers[0.retries=1: expected "]" at character 12'],
    ['consumers["a.b].x=1', 'x.yaml: --set consumers["a.b].x=1: unclosed " at character 11'],
    ['=1', 'x.yaml: --set =1: expected a field name at character 1 (write keys with dots as ["a.b"])'],
    ['a..b=1', 'x.yaml: --set a..b=1: expected a field name at character 3 (write keys with dots as ["a.b"])'],
  ])('rejects %j with a --set error', (expr, message) => {
    let text = '';
    try {
      parseSetExpression(expr, 'x.yaml');
    } catch (e) {
      text = (e as ScenarioError).format();
    }
    expect(text).toBe(message);
  });
});

describe('--set overrides on a scenario', () => {
  it('overrides a nested reference attribute under a quoted service key', () => {
    const s = parseScenario(BASE, 'x.yaml', ['consumers[0].reference["com.example.UserService"].retries=0']);
    expect(s.consumers[0]!.reference['com.example.UserService']!.retries).toBe(0);
  });

  it('overrides a top-level duration', () => {
    expect(parseScenario(BASE, 'x.yaml', ['duration=10m']).durationMs).toBe(600_000);
  });

  it('creates missing maps along the path', () => {
    const s = parseScenario(BASE, 'x.yaml', ['consumers[0].reference["com.example.UserService"].methods.getUserById.timeout=50ms']);
    expect(s.consumers[0]!.reference['com.example.UserService']!.methods.getUserById).toEqual({ timeoutMs: 50, parameters: {} });
  });

  it('applies overrides in order, the last one winning', () => {
    expect(parseScenario(BASE, 'x.yaml', ['providers[1].count=4', 'providers.1.count=6']).providers[1]!.count).toBe(6);
  });

  it('can append to a list at its end', () => {
    const s = parseScenario(BASE, 'x.yaml', ['routers[0]={type: zone}']);
    expect(s.routers).toEqual([{ type: 'zone', fallback: true, zoneFrom: 'local' }]);
  });

  it('reports a bad overridden value at the document start, naming the --set', () => {
    expect(errorText(BASE, ['duration=abc'])).toBe(
      'x.yaml:1:1: duration: expected a duration such as 450ms, 1.5s, 2m or a number of milliseconds, found "abc" (from --set duration=abc)',
    );
  });

  it('reports an unknown zone set by --set', () => {
    expect(errorText(BASE, ['providers[0].zone=zoneQ'])).toBe(
      'x.yaml:1:1: providers[0].zone: expected a zone declared under zones (zoneA, zoneB), found "zoneQ"; did you mean "zoneA"? (from --set providers[0].zone=zoneQ)',
    );
  });

  it('rejects a path through a single value', () => {
    expect(errorText(BASE, ['providers[0].zone.x=1'])).toBe('x.yaml: --set providers[0].zone.x=1: providers[0].zone is a single value, not a map or list');
  });

  it('rejects an index past the end of a list', () => {
    expect(errorText(BASE, ['consumers[3].rate=1'])).toBe('x.yaml: --set consumers[3].rate=1: consumers[3] is past the end of a list of 1');
  });

  it('rejects a name where a list needs an index', () => {
    expect(errorText(BASE, ['consumers.first.rate=1'])).toBe('x.yaml: --set consumers.first.rate=1: consumers is a list; index it with [n]');
  });

  it('leaves errors in the untouched part of the file at their own position', () => {
    expect(errorText(BASE.replace('count: 2', 'count: -2'), ['duration=10m'])).toBe(
      'x.yaml:7:61: providers[0].count: expected an integer >= 0, found -2',
    );
  });
});

describe('applyOverrides', () => {
  it('writes into a YAML document and returns the parsed overrides', () => {
    const doc = parseDocument('a: { b: 1 }\n');
    const applied = applyOverrides(doc, ['a.b=2', 'a["c.d"]=[1, 2]']);
    expect(doc.toJS()).toEqual({ a: { b: 2, 'c.d': [1, 2] } });
    expect(applied.map((o) => o.path)).toEqual([['a', 'b'], ['a', 'c.d']]);
  });
});

// Issue 10: a node shared through a YAML anchor is written as if it were a copy, so --set changes
// the one path it names and never the aliases or merges of the same anchor.
describe('--set on anchored, aliased and merged nodes changes only the path given', () => {
  const ANCHORED = `zones: { zoneA: {}, zoneB: {} }
services:
  S:
    methods:
      m: { serviceTime: 20ms }
providers:
  - &pa { name: a, service: S, zone: zoneA, count: 2, params: { tier: gold, rack: r1 } }
  - { <<: *pa, name: b, zone: zoneB }
  - *pa
  - { <<: [ *pa ], name: d }
consumers:
  - { zone: zoneA, rate: 100, calls: { S.m: 1 } }
`;
  const counts = (sets: string[]) => parseScenario(ANCHORED.replace('  - *pa\n', '  - { <<: *pa, name: c }\n'), 'x.yaml', sets).providers.map((p) => p.count);
  const providers = (sets: string[]) => {
    // providers[2] is a plain alias of providers[0]: same name, so rename it through the alias first.
    return parseScenario(ANCHORED, 'x.yaml', ['providers[2].name=c', ...sets]).providers;
  };

  it('the file as written shares the anchor', () => {
    expect(providers([]).map((p) => [p.name, p.zone, p.count, p.params.tier])).toEqual([
      ['a', 'zoneA', 2, 'gold'],
      ['b', 'zoneB', 2, 'gold'],
      ['c', 'zoneA', 2, 'gold'],
      ['d', 'zoneA', 2, 'gold'],
    ]);
  });

  it('writing into the anchored node leaves its merges and aliases alone (they used to change too)', () => {
    expect(providers(['providers[0].count=7']).map((p) => p.count)).toEqual([7, 2, 2, 2]);
    expect(counts(['providers[0].count=7'])).toEqual([7, 2, 2, 2]);
  });

  it('writing through an alias changes that entry only (it used to change the anchor and every alias)', () => {
    expect(providers(['providers[2].count=9']).map((p) => p.count)).toEqual([2, 2, 9, 2]);
  });

  it('writing a nested field that comes from a merge keeps its merged siblings', () => {
    const ps = providers(['providers[1].params.tier=silver']);
    expect(ps.map((p) => p.params)).toEqual([
      { tier: 'gold', rack: 'r1' },
      { tier: 'silver', rack: 'r1' },
      { tier: 'gold', rack: 'r1' },
      { tier: 'gold', rack: 'r1' },
    ]);
  });

  it('a nested field of the anchored node changes only there', () => {
    expect(providers(['providers[0].params.tier=silver']).map((p) => p.params.tier)).toEqual(['silver', 'gold', 'gold', 'gold']);
    expect(providers(['providers[3].params.rack=r9']).map((p) => p.params.rack)).toEqual(['r1', 'r1', 'r1', 'r9']);
  });

  it('replacing the anchored node as a whole keeps the aliases on the old value', () => {
    const ps = providers(['providers[0]={name: z, service: S, zone: zoneB, count: 5}']);
    expect(ps.map((p) => [p.name, p.count])).toEqual([['z', 5], ['b', 2], ['c', 2], ['d', 2]]);
  });

  it('the scenario as run reads back to the same scenario', () => {
    const sets = ['providers[2].name=c', 'providers[0].count=7', 'providers[1].params.tier=silver'];
    const { scenario, rawText } = parseScenarioWithRaw(ANCHORED, 'x.yaml', sets);
    expect(parseScenario(rawText, 'x.yaml')).toEqual(scenario);
  });
});
