// Issue 10, "Inputs that should be errors": each is refused at load (exit 2) with file:line:col.
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

const BASE = `zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
services:
  S:
    methods:
      m: { serviceTime: 20ms }
providers:
  - { service: S, zone: zoneA, count: 2 }
  - { service: S, zone: zoneB, count: 1 }
consumers:
  - application: web
    zone: zoneA
    rate: 100/s
    calls: { S.m: 1 }
`;

function formatted(text: string): string {
  try {
    parseScenario(text, 'bad.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.format();
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

const serviceTime = (dist: string) => BASE.replace('m: { serviceTime: 20ms }', `m: { serviceTime: ${dist} }`);

describe('top-level durations are bounded', () => {
  it('bucket: 0ms', () => {
    expect(formatted(BASE + 'bucket: 0ms\n')).toBe('bad.yaml:16:9: bucket: expected a bucket width > 0 such as 1s or 500ms, found "0ms"');
  });
  it('bucket: 0 (a number)', () => {
    expect(formatted(BASE + 'bucket: 0\n')).toMatch(/^bad\.yaml:16:9: bucket: expected a bucket width > 0/);
  });
  it('duration: 1000000h and 1e300', () => {
    expect(formatted(BASE + 'duration: 1000000h\n')).toBe('bad.yaml:16:11: duration: expected at most 8760h (365 days of simulated time), found "1000000h"');
    expect(formatted(BASE + 'duration: 1e300\n')).toMatch(/^bad\.yaml:16:11: duration: expected at most 8760h/);
  });
  it('8760h itself is allowed', () => {
    expect(() => parseScenario(BASE + 'duration: 8760h\n', 'ok.yaml')).not.toThrow();
  });
  it('--set bucket=0ms names the field', () => {
    let f = '';
    try {
      parseScenario(BASE, 'bad.yaml', ['bucket=0ms']);
    } catch (e) {
      f = (e as ScenarioError).format();
    }
    expect(f).toMatch(/^bad\.yaml:\d+:\d+: bucket: expected a bucket width > 0 such as 1s or 500ms, found "0ms" \(from --set bucket=0ms\)$/);
  });
});

describe('cross-checks at load', () => {
  it('two zones with overlapping CIDRs', () => {
    expect(formatted(BASE.replace('zoneB: { cidr: 10.20.0.0/16 }', 'zoneB: { cidr: 10.10.128.0/17 }'))).toBe(
      'bad.yaml:3:18: zones.zoneB.cidr: 10.10.128.0/17 overlaps 10.10.0.0/16 of zone zoneA: the same addresses would be in two zones',
    );
  });
  it('adjacent CIDRs are fine', () => {
    expect(() => parseScenario(BASE.replace('10.20.0.0/16', '10.11.0.0/16'), 'ok.yaml')).not.toThrow();
  });
  it('when: "userId % 0 < 5"', () => {
    expect(formatted(BASE + '    attachments: { beta: { value: x, when: "userId % 0 < 5" } }\n')).toBe(
      'bad.yaml:16:44: consumers[0].attachments.beta.when: userId % 0 divides by zero: expected userId % N with N >= 1, found "userId % 0 < 5"',
    );
  });
  it('a rule fault with index past the routers', () => {
    expect(formatted(BASE + 'faults:\n  - { at: 10s, rule: { remove: { type: zone }, index: 99 } }\n')).toBe(
      'bad.yaml:17:55: faults[0].rule.index: there is no routers[99]: the scenario has no routers',
    );
    expect(formatted(BASE + 'routers:\n  - { type: zone }\nfaults:\n  - { at: 10s, rule: { remove: { type: zone }, index: 1 } }\n')).toBe(
      'bad.yaml:19:55: faults[0].rule.index: expected an index of routers (0 to 0), found 1',
    );
  });
  it('a lognormal whose mean overflows', () => {
    expect(formatted(serviceTime('{ dist: lognormal, mu: 800, sigma: 1 }'))).toBe(
      'bad.yaml:7:48: services.S.methods.m.serviceTime.mu: mu 800 and sigma 1 give a mean exp(mu + sigma²/2) of infinity, above 8760h (365 days); mu is the log of milliseconds (mu 3 ≈ 20ms)',
    );
    expect(formatted(serviceTime('{ dist: lognormal, mu: 3, sigma: 10 }'))).toMatch(/serviceTime\.sigma: mu 3 and sigma 10 give a mean .* of 1\.04e\+23 ms/);
    expect(() => parseScenario(serviceTime('{ dist: lognormal, mu: 3, sigma: 1 }'), 'ok.yaml')).not.toThrow();
  });
});

describe('messages', () => {
  it('a nested mixture says nesting is not allowed', () => {
    expect(formatted(serviceTime('{ dist: mixture, components: [ { weight: 1, dist: mixture, components: [ { weight: 1, dist: constant, value: 1ms } ] } ] }'))).toMatch(
      /serviceTime\.components\[0\]\.dist: a mixture cannot contain a mixture: list the inner components in the outer mixture \(multiply their weights\)$/,
    );
  });
  it('the duplicate-group hint does not end in a bare colon', () => {
    const text = BASE.replace('zone: zoneA, count: 2 }', 'zone: zoneA, count: 2, name: g }').replace('zone: zoneB, count: 1 }', 'zone: zoneB, count: 1, name: g }');
    const f = formatted(text);
    expect(f).toContain('provider group name "g" is already used by providers[0]');
    expect(f).toContain('hint: give each provider group a distinct name: e.g. name: g-1 on providers[1]');
    expect(f).not.toMatch(/:\s*$/);
  });
});
