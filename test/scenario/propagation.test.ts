/** The scenario format of SPEC 2.7 `propagation` (top level and per provider group): parsing, errors, dump. */
import { describe, expect, it } from 'vitest';
import { dumpScenarioYaml } from '../../src/scenario/dump.js';
import { parseScenario } from '../../src/scenario/load.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';

const BASE = `zones:
  dc: { cidr: 10.0.0.0/16 }
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
  - { name: order, service: com.example.OrderService, zone: dc }
  - { name: inventory, service: com.example.InventoryService, zone: dc }
consumers:
  - { application: web, zone: dc, rate: 10/s, calls: { com.example.OrderService.place: 1 } }
`;

const parse = (extra: string[]) => parseScenario(BASE, 'p.yaml', extra);

const errorOf = (extra: string[]) => scenarioErrorOf(BASE, 'p.yaml', extra);

describe('propagation in scenario files', () => {
  it('is absent unless written (Dubbo\'s rule: the tag stops at the provider)', () => {
    const s = parse([]);
    expect(s.propagation).toBeUndefined();
    expect(s.providers[0]!.propagation).toBeUndefined();
  });

  it('takes true, false or an attachment key, at the top level and per provider group', () => {
    const s = parse(['propagation={tag: true}', 'providers[0].propagation={tag: lane}', 'providers[1].propagation={tag: false}']);
    expect(s.propagation).toEqual({ tag: true });
    expect(s.providers[0]!.propagation).toEqual({ tag: 'lane' });
    expect(s.providers[1]!.propagation).toEqual({ tag: false });
  });

  it('rejects other values and unknown keys with the path', () => {
    const bad = errorOf(['propagation={tag: 3}']);
    expect(bad.path).toBe('propagation.tag');
    expect(bad.message).toContain('expected true, false or an attachment key');
    expect(errorOf(['providers[0].propagation={tags: true}']).path).toBe('providers[0].propagation.tags');
  });

  it('survives the dump round trip', () => {
    const s = parse(['propagation={tag: true}', 'providers[0].propagation={tag: lane}']);
    expect(parseScenario(dumpScenarioYaml(s), 'dumped.yaml')).toEqual(s);
  });
});
