import { describe, expect, it } from 'vitest';
import { dumpScenarioYaml } from '../../src/scenario/dump.js';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

/** A valid file whose faults list is completed by each test (line 16 is the first fault). */
const BASE = `zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 20ms }
providers:
  - { service: com.example.UserService, zone: zoneA, count: 2 }
consumers:
  - application: web
    zone: zoneA
    rate: 100/s
    calls: { com.example.UserService.getUserById: 1 }
faults:
`;

const withFault = (line: string) => `${BASE}${line}\n`;

function formatted(text: string): string {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.format();
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

describe('consumer threads (entry pool)', () => {
  it('is absent (unbounded) by default', () => {
    const s = parseScenario(`${BASE}  []\n`, 'ok.yaml');
    expect(s.consumers[0]).not.toHaveProperty('threads');
  });

  it('is read as the entry pool size of each instance', () => {
    const s = parseScenario(BASE.replace('    rate: 100/s', '    rate: 100/s\n    threads: 200') + '  []\n', 'ok.yaml');
    expect(s.consumers[0]!.threads).toBe(200);
  });

  it('must be an integer >= 1', () => {
    expect(formatted(BASE.replace('    rate: 100/s', '    rate: 100/s\n    threads: 0') + '  []\n')).toBe(
      'bad.yaml:14:14: consumers[0].threads: expected an integer >= 1, found 0',
    );
  });
});

describe('traffic fault: normalized form', () => {
  it('reads rate as ratePerSec, with the optional zone', () => {
    const s = parseScenario(withFault('  - { at: 10s, for: 5s, traffic: { consumer: web, zone: zoneA, rate: 5000/s } }'), 'ok.yaml');
    expect(s.faults).toEqual([
      { atMs: 10_000, forMs: 5_000, action: { kind: 'traffic', consumer: 'web', zone: 'zoneA', ratePerSec: 5000 }, label: 'faults[0]' },
    ]);
  });

  it('reads factor as is (0 allowed: it stops the arrivals)', () => {
    const s = parseScenario(withFault('  - { at: 1m, traffic: { consumer: web, factor: 0 } }'), 'ok.yaml');
    expect(s.faults[0]!.action).toEqual({ kind: 'traffic', consumer: 'web', factor: 0 });
  });

  it('goes through a dump and load unchanged, with consumer threads', () => {
    const text = withFault('  - { at: 10s, for: 5s, traffic: { consumer: web, rate: 120/m } }\n  - { at: 20s, traffic: { consumer: web, factor: 3 } }');
    const s = parseScenario(text.replace('    rate: 100/s', '    rate: 100/s\n    threads: 50'), 'ok.yaml');
    expect(parseScenario(dumpScenarioYaml(s), 'dumped.yaml')).toEqual(s);
  });
});

describe('traffic fault: errors name the file, line and field', () => {
  it('names the consumer applications when the consumer is unknown', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: wbe, rate: 10/s } }'))).toBe(
      'bad.yaml:16:37: faults[0].traffic.consumer: expected a consumer application declared under consumers (application) (web), found "wbe"; did you mean "web"?',
    );
  });

  it('knows the default application names consumer-<index>', () => {
    const text = withFault('  - { at: 10s, traffic: { consumer: consumer-0, rate: 10/s } }').replace('  - application: web\n    zone', '  - zone');
    expect(parseScenario(text, 'ok.yaml').faults[0]!.action).toMatchObject({ consumer: 'consumer-0' });
  });

  it('refuses a zone where the consumer has no group', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web, zone: zoneB, rate: 10/s } }'))).toBe(
      'bad.yaml:16:48: faults[0].traffic.zone: expected a zone where consumer "web" has a group (zoneA), found "zoneB"',
    );
  });

  it('refuses an unknown zone', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web, zone: zoneX, rate: 10/s } }'))).toBe(
      'bad.yaml:16:48: faults[0].traffic.zone: expected a zone declared under zones (zoneA, zoneB), found "zoneX"; did you mean "zoneA"?',
    );
  });

  it('wants exactly one of rate and factor', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web, rate: 10/s, factor: 2 } }'))).toBe(
      'bad.yaml:16:62: faults[0].traffic.factor: give either rate or factor, not both',
    );
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web } }'))).toBe(
      'bad.yaml:16:25: faults[0].traffic: expected rate or factor, found neither',
    );
  });

  it('refuses a negative factor and a malformed rate', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web, factor: -1 } }'))).toBe(
      'bad.yaml:16:50: faults[0].traffic.factor: expected a factor >= 0, found -1',
    );
    expect(formatted(withFault('  - { at: 10s, traffic: { consumer: web, rate: fast } }'))).toBe(
      'bad.yaml:16:48: faults[0].traffic.rate: expected a rate such as 2000/s or 120/m, or a number per second, found "fast"',
    );
  });

  it('refuses a bare name in place of the map', () => {
    expect(formatted(withFault('  - { at: 10s, traffic: web }'))).toBe(
      'bad.yaml:16:25: faults[0].traffic: expected { consumer, zone?, rate | factor }, found "web"',
    );
  });
});
