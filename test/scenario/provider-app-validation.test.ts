/** Validation of provider applications (SPEC 2.3): services/service, exports, isolation, strategy provider overrides. */
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';

const head = `zones: { zoneA: {} }
services:
  com.example.A: { methods: { a: { serviceTime: 20ms } } }
  com.example.B: { methods: { b: { serviceTime: 20ms } } }
consumers: []
providers:
`;

function messages(providers: string, tail = ''): string[] {
  try {
    parseScenario(head + providers + tail, 'app.yaml');
  } catch (e) {
    if (e instanceof ScenarioError) return e.issues.map((i) => `${i.line}:${i.col}: ${i.path}: ${i.message}`);
    throw e;
  }
  return [];
}

describe('provider application validation', () => {
  it('accepts services with exports and isolation, and normalizes service to the first one', () => {
    const s = parseScenario(
      head +
        `  - name: app
    services: [com.example.A, com.example.B]
    zone: zoneA
    exports:
      com.example.B: { executor: { threads: 5 }, executes: 3, tps: 10, tps.interval: 2s, params: { timeout: 3000 }, methods: { b: { executes: 1 } } }
    isolation: { dynamic: { concurrency: 8, rt: 300ms, threads: 50 } }
`,
      'app.yaml',
    );
    const p = s.providers[0]!;
    expect([p.service, p.services]).toEqual(['com.example.A', ['com.example.A', 'com.example.B']]);
    expect(p.exports['com.example.B']).toEqual({
      executor: { threads: 5, queues: 0 },
      executes: 3,
      tps: 10,
      tpsIntervalMs: 2000,
      params: { timeout: '3000' },
      methods: { b: { executes: 1 } },
    });
    expect(p.isolation).toEqual({ dynamic: { concurrency: 8, rtMs: 300, threads: 50, windowMs: 10_000, restoreAfterMs: 30_000 } });
  });

  it('needs exactly one of service and services', () => {
    expect(messages('  - { zone: zoneA }\n')).toEqual(['7:5: providers[0]: give service: NAME or services: [NAME, ...]']);
    expect(messages('  - { service: com.example.A, services: [com.example.B], zone: zoneA }\n')).toEqual([
      '7:41: providers[0].services: give either service or services, not both',
    ]);
  });

  it('names unknown and repeated services, exports of services the group does not export, and unknown methods', () => {
    expect(messages('  - { services: [com.example.A, com.example.C, com.example.A], zone: zoneA }\n')).toEqual([
      '7:33: providers[0].services[1]: expected a service declared under services (com.example.A, com.example.B), found "com.example.C"; did you mean "com.example.A"?',
      '7:48: providers[0].services[2]: service "com.example.A" is listed twice',
    ]);
    expect(
      messages('  - { service: com.example.A, zone: zoneA, exports: { com.example.B: { executes: 1 }, com.example.A: { methods: { x: {} } } } }\n'),
    ).toEqual([
      '7:55: providers[0].exports["com.example.B"]: expected a service this group exports declared under providers[0].service(s) (com.example.A), found "com.example.B"; did you mean "com.example.A"?',
      '7:115: providers[0].exports["com.example.A"].methods.x: expected a method of com.example.A (a), found "x"; did you mean "a"?',
    ]);
  });

  it('checks strategy provider overrides against the groups and their services', () => {
    const tail = `strategies:
  s1:
    providers:
      nope: { threads: 1 }
      app: { exports: { com.example.B: { executor: { threads: 2 } } } }
`;
    expect(messages('  - { name: app, service: com.example.A, zone: zoneA }\n', tail)).toEqual([
      expect.stringMatching(/^11:7: strategies\.s1\.providers\.nope: expected a provider group declared under providers \(name\) \(app\), found "nope"/),
      expect.stringMatching(/^12:25: strategies\.s1\.providers\.app\.exports\["com\.example\.B"\]: expected a service this group exports/),
    ]);
  });
});
