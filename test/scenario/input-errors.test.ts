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
  describe('a mixture component that is itself a mixture says so, in every syntax', () => {
    const NESTED = 'a mixture component cannot itself be a mixture: list the inner components in the outer mixture (multiply their weights)';
    const inner = {
      long: '{ weight: 1, dist: mixture, components: [ { weight: 1, dist: constant, value: 1ms } ] }',
      'long without weight': '{ dist: mixture, components: [ { weight: 1, dist: constant, value: 1ms } ] }',
      short: '{ weight: 1, mixture: [ { weight: 1, dist: constant, value: 1ms } ] }',
      'short without weight': '{ mixture: [ { weight: 1, dist: constant, value: 1ms } ] }',
    };
    const outer = {
      long: (c: string) => ({ text: `{ dist: mixture, components: [ ${c} ] }`, path: 'components[0]' }),
      short: (c: string) => ({ text: `{ mixture: [ ${c} ] }`, path: 'mixture[0]' }),
    };
    for (const [o, wrap] of Object.entries(outer)) {
      for (const [i, c] of Object.entries(inner)) {
        it(`${i} inside ${o}`, () => {
          const { text, path } = wrap(c);
          const lines = formatted(serviceTime(text)).split('\n');
          expect(lines).toHaveLength(1);
          expect(lines[0]).toMatch(new RegExp(`^bad\\.yaml:7:\\d+: services\\.S\\.methods\\.m\\.serviceTime\\.${path.replace(/[[\]]/g, '\\$&')}(\\.dist|\\.mixture)?: ${NESTED.replace(/[()]/g, '\\$&')}$`));
        });
      }
    }
    it('points at the inner dist: mixture in the long form', () => {
      expect(formatted(serviceTime(outer.long(inner.long).text))).toBe(`bad.yaml:7:75: services.S.methods.m.serviceTime.components[0].dist: ${NESTED}`);
    });
  });
  it('the duplicate-group hint does not end in a bare colon', () => {
    const text = BASE.replace('zone: zoneA, count: 2 }', 'zone: zoneA, count: 2, name: g }').replace('zone: zoneB, count: 1 }', 'zone: zoneB, count: 1, name: g }');
    const f = formatted(text);
    expect(f).toContain('provider group name "g" is already used by providers[0]');
    expect(f).toContain('hint: give each provider group a distinct name: e.g. name: g-1 on providers[1]');
    expect(f).not.toMatch(/:\s*$/);
  });
});

// Every instance a fault starts takes a new address from its zone's CIDR (a replaced instance
// never gets its old one back), so the load-time check counts them over the whole timeline.
describe('a zone CIDR must hold every instance the fault timeline starts', () => {
  // zoneA: 10.10.0.0/28 gives 14 addresses; 4 providers + 1 consumer at start.
  const SMALL = `duration: 60s
zones:
  zoneA: { cidr: 10.10.0.0/28 }
  zoneB: { cidr: 10.20.0.0/16 }
services:
  S:
    methods:
      m: { serviceTime: 20ms }
providers:
  - { name: pa, service: S, zone: zoneA, count: 4 }
  - { name: pb, service: S, zone: zoneB, count: 2 }
consumers:
  - { application: web, zone: zoneA, rate: 20/s, calls: { S.m: 1 } }
faults:
`;
  it('a scale-out past the CIDR is refused at the fault count (was "CIDR exhausted" mid-run, exit 1)', () => {
    expect(formatted(SMALL + '  - { at: 10s, scale: { group: pa, count: 20 } }\n')).toBe(
      'bad.yaml:15:43: faults[0].scale.count: this fault starts 16 provider instances in zoneA: 21 addresses over the run ' +
        '(5 at start, 16 started by faults), more than the 14 of its cidr 10.10.0.0/28; each instance a fault starts takes a new address' +
        '\n  hint: give zoneA a larger cidr, such as 10.10.0.0/27 (30 addresses)',
    );
  });
  it('scaling up to exactly what the CIDR gives is fine', () => {
    expect(() => parseScenario(SMALL + '  - { at: 10s, scale: { group: pa, count: 13 } }\n', 'ok.yaml')).not.toThrow();
  });
  it('a scale-in undone by for: starts new instances when it ends', () => {
    // Down to 1 for 10s, then back to 4 (3 new), then up to 11 (7 new): 5 + 3 + 7 = 15 > 14.
    expect(formatted(SMALL + '  - { at: 10s, for: 10s, scale: { group: pa, count: 1 } }\n  - { at: 30s, scale: { group: pa, count: 11 } }\n')).toMatch(
      /^bad\.yaml:16:43: faults\[1\]\.scale\.count: this fault starts 7 provider instances in zoneA: 15 addresses over the run \(5 at start, 10 started by faults\)/,
    );
    expect(() => parseScenario(SMALL + '  - { at: 10s, for: 10s, scale: { group: pa, count: 1 } }\n  - { at: 30s, scale: { group: pa, count: 10 } }\n', 'ok.yaml')).not.toThrow();
  });
  it('a rolling restart replaces every instance with a new one', () => {
    const text = SMALL.replace('count: 4 }', 'count: 8 }') + '  - { at: 10s, rollingRestart: { group: pa, batch: 2, interval: 5s } }\n';
    expect(formatted(text)).toMatch(/^bad\.yaml:15:32: faults\[0\]\.rollingRestart: this fault starts 8 provider instances in zoneA: 17 addresses over the run/);
    // Batches after the end of the run never start: 8 instances, 2 per 30 s from 10 s → 2 batches (10 s, 40 s).
    expect(() => parseScenario(text.replace('interval: 5s', 'interval: 30s'), 'ok.yaml')).not.toThrow();
  });
  it('crashed instances brought back by for: are replacements', () => {
    const text = SMALL.replace('count: 4 }', 'count: 8 }') + '  - { at: 10s, for: 10s, crash: { group: pa, count: 6 } }\n';
    expect(formatted(text)).toMatch(/^bad\.yaml:15:21: faults\[0\]\.for: when this fault ends it starts 6 provider instances in zoneA: 15 addresses over the run/);
    // A black hole resumes the same instances; a crash without for: or zoneUp is never replaced.
    expect(() => parseScenario(text.replace('count: 6 }', 'count: 6, mode: blackhole }'), 'ok.yaml')).not.toThrow();
    expect(() => parseScenario(text.replace('for: 10s, ', ''), 'ok.yaml')).not.toThrow();
  });
  it('zoneUp replaces what a crash-mode zoneDown took', () => {
    const text = SMALL.replace('count: 4 }', 'count: 8 }') + '  - { at: 10s, zoneDown: zoneA, mode: crash }\n  - { at: 20s, zoneUp: zoneA }\n';
    expect(formatted(text)).toMatch(/^bad\.yaml:16:24: faults\[1\]\.zoneUp: this fault starts 8 provider instances in zoneA: 17 addresses over the run/);
  });
  it('restart counts its amount: all, count, fraction or one instance', () => {
    const faults = [
      '{ at: 10s, restart: { group: pa } }', // +4: 9
      '{ at: 20s, restart: { zone: zoneA, count: 3 } }', // +3: 12
      '{ at: 30s, restart: { instance: "pa#0" } }', // +1: 13
      '{ at: 40s, restart: { group: pa, fraction: 0.25 } }', // +1: 14, the last address
    ];
    const text = SMALL + faults.map((f) => `  - ${f}\n`).join('');
    expect(() => parseScenario(text, 'ok.yaml')).not.toThrow();
    expect(formatted(text + '  - { at: 50s, restart: { group: pa, fraction: 0.25 } }\n')).toMatch(
      /^bad\.yaml:19:25: faults\[4\]\.restart: this fault starts 1 provider instance in zoneA: 15 addresses over the run \(5 at start, 10 started by faults\)/,
    );
  });
  it('the run itself starts that many: scaling to the last address runs', async () => {
    const { runScenario } = await import('../../src/scenario/run.js');
    const s = parseScenario(SMALL.replace('duration: 60s', 'duration: 15s') + '  - { at: 10s, scale: { group: pa, count: 13 } }\n', 'ok.yaml');
    // 5 at start + 9 new = 14, every address of the /28: the pool hands out exactly what the check counts.
    expect(runScenario(s, { version: 'test' }).summary.requests).toBeGreaterThan(0);
  });
  it('faults after the end of the run start nothing', () => {
    expect(() => parseScenario(SMALL + '  - { at: 70s, scale: { group: pa, count: 100 } }\n', 'ok.yaml')).not.toThrow();
  });
  it('a --set that makes the scale too large names the --set', () => {
    let f = '';
    try {
      parseScenario(SMALL + '  - { at: 10s, scale: { group: pa, count: 5 } }\n', 'bad.yaml', ['faults[0].scale.count=100']);
    } catch (e) {
      f = (e as ScenarioError).format();
    }
    expect(f).toMatch(/^bad\.yaml:1:1: faults\[0\]\.scale\.count: this fault starts 96 provider instances in zoneA.* \(from --set faults\[0\]\.scale\.count=100\)/);
  });
});

describe('scenario seed is a non-negative safe integer, like --seed', () => {
  for (const [bad, found] of [['-1', '-1'], ['1.5', '1.5'], ['1e300', '1e+300'], ['9007199254740992', '9007199254740992'], ['abc', '"abc"']] as const) {
    it(`seed: ${bad}`, () => {
      expect(formatted(BASE + `seed: ${bad}\n`)).toBe(`bad.yaml:16:7: seed: expected a non-negative safe integer (0 to 9007199254740991), found ${found}`);
    });
  }
  it('0 and the largest safe integer are fine', () => {
    expect(parseScenario(BASE + 'seed: 0\n', 'ok.yaml').seed).toBe(0);
    expect(parseScenario(BASE + 'seed: 9007199254740991\n', 'ok.yaml').seed).toBe(9007199254740991);
  });
});
