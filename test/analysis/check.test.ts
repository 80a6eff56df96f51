import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkScenario, p99, type CheckReport } from '../../src/analysis/check.js';
import { runCheck } from '../../src/cli/check.js';
import type { Io } from '../../src/scenario/io.js';
import { parseScenario } from '../../src/scenario/load.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const USERS = 'com.example.UserService';

/** A two-zone scenario: users-a (4 in zoneA), users-b (2 in zoneB), web consumers in both zones. */
function yaml(opts: { routers?: string; faults?: string; reference?: string; attachments?: string; extra?: string } = {}): string {
  return `
name: check-test
duration: 90s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
network:
  rtt:
    zoneA<->zoneB: 3ms
registry: { type: static }
services:
  ${USERS}:
    methods:
      getUserById: { serviceTime: { dist: lognormal, p50: 5ms, p99: 50ms } }
      updateUser: { serviceTime: 10ms }
providers:
  - { name: users-a, service: ${USERS}, zone: zoneA, count: 4 }
  - { name: users-b, service: ${USERS}, zone: zoneB, count: 2 }
${opts.extra ?? ''}
consumers:
  - application: web
    zone: zoneA
    rate: 100/s
    calls: { ${USERS}.getUserById: 0.9, ${USERS}.updateUser: 0.1 }
    reference:
      ${USERS}: ${opts.reference ?? '{ timeout: 1s }'}
    attachments: ${opts.attachments ?? '{}'}
  - application: web
    zone: zoneB
    rate: 100/s
    calls: { ${USERS}.getUserById: 1 }
    reference:
      ${USERS}: ${opts.reference ?? '{ timeout: 1s }'}
    attachments: ${opts.attachments ?? '{}'}
routers: ${opts.routers ?? '[]'}
faults: ${opts.faults ?? '[]'}
`;
}

const check = (text: string): CheckReport => checkScenario(parseScenario(text, 'check.yaml'));

function captureIo(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { cwd, stdout: (t) => out.push(t), stderr: (t) => err.push(t) };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

function writeScenario(text: string): string {
  const dir = tempDir('zonesim-check-');
  writeFileSync(join(dir, 'scenario.yaml'), text);
  return dir;
}

const forceRule = (force: boolean) => `[{ type: condition, rule: "method = getUserById => zone = zoneC", force: ${force} }]`;
const strictZoneScaledAway = (fallback: boolean) =>
  yaml({
    routers: `[{ type: zone, fallback: ${fallback}, zoneFrom: local }]`,
    faults: '[{ at: 30s, for: 30s, scale: { group: users-b, count: 0 } }]',
  });

describe('condition rules', () => {
  it('flags a force: true rule whose then-part matches no provider, naming the router and the rule', () => {
    const { problems } = check(yaml({ routers: forceRule(true) }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({
      consumer: 'web',
      zone: 'zoneA',
      service: USERS,
      phase: { fromMs: 0, toMs: 90_000 },
      router: 'condition',
      providersBefore: 6,
      providersAfter: 0,
    });
    expect(problems[0]!.message).toContain('method = getUserById => zone = zoneC');
    expect(problems[0]!.message).toContain('force: true and the then-part matched none of 6 providers');
  });

  it('names only the methods the rule empties', () => {
    const { problems } = check(yaml({ routers: forceRule(true) }));
    expect(problems[0]!.message.startsWith('getUserById (no attachments)')).toBe(true);
    expect(problems[0]!.message).not.toContain('updateUser');
  });

  it('passes the same rule with force: false (Dubbo ignores an empty then-part)', () => {
    expect(check(yaml({ routers: forceRule(false) })).problems).toEqual([]);
  });
});

describe('zone router across the fault timeline', () => {
  it('flags a strict zone router only in the phase where its zone has no provider', () => {
    const report = check(strictZoneScaledAway(false));
    expect(report.phases.map((p) => [p.fromMs, p.toMs])).toEqual([
      [0, 30_000],
      [30_000, 60_000],
      [60_000, 90_000],
    ]);
    expect(report.problems.map((p) => [p.zone, p.phase.fromMs, p.router, p.providersBefore])).toEqual([['zoneB', 30_000, 'zone', 4]]);
    expect(report.problems[0]!.message).toContain('no provider in zone zoneB (strict: no fallback)');
  });

  it('passes the fallback variant, which routes to every zone when its own is empty', () => {
    expect(check(strictZoneScaledAway(true)).problems).toEqual([]);
  });

  it('reports each phase with the fault that starts or ends at its beginning', () => {
    const report = check(strictZoneScaledAway(true));
    expect(report.phases.map((p) => p.events)).toEqual([
      [],
      ['start: scale group users-b to 0'],
      ['end: scale group users-b to 0'],
    ]);
    const zoneB = report.phases[1]!.routes.find((r) => r.zone === 'zoneB')!;
    expect([zoneB.providers, zoneB.providersAfter]).toEqual([4, 4]);
  });

  it('sees a router added by a rule fault only while the rule is in force', () => {
    const report = check(
      yaml({
        faults: '[{ at: 20s, for: 10s, rule: { add: { type: condition, rule: "=> zone = zoneC", force: true } } }]',
      }),
    );
    expect(report.problems.map((p) => [p.zone, p.phase.fromMs, p.router])).toEqual([
      ['zoneA', 20_000, 'condition'],
      ['zoneB', 20_000, 'condition'],
    ]);
  });
});

describe('registry-level emptiness', () => {
  it('flags a forbidden directory when the registry pushes an empty list', () => {
    const { problems } = check(yaml({ faults: '[{ at: 10s, scale: { service: com.example.UserService, count: 0 } }]' }));
    expect(problems.map((p) => [p.zone, p.phase.fromMs, p.router, p.providersBefore])).toEqual([
      ['zoneA', 10_000, 'registry', 0],
      ['zoneB', 10_000, 'registry', 0],
    ]);
    expect(problems[0]!.message).toContain('the registry pushed an empty list');
  });
});

describe('attachment variants', () => {
  it('routes a tagged variant separately and flags a forced tag with no provider', () => {
    const { problems, phases } = check(
      yaml({ attachments: '{ dubbo.tag: { value: canary, fraction: 0.01 }, dubbo.force.tag: "true" }' }),
    );
    expect(phases[0]!.routes.filter((r) => r.zone === 'zoneA').map((r) => [r.variant, r.providersAfter])).toEqual([
      ['dubbo.force.tag=true', 6],
      ['dubbo.force.tag=true, dubbo.tag=canary', 0],
    ]);
    expect(problems.map((p) => [p.zone, p.router])).toEqual([
      ['zoneA', 'tag'],
      ['zoneB', 'tag'],
    ]);
    expect(problems[0]!.message).toContain('dubbo.tag=canary');
  });
});

describe('warnings', () => {
  it('warns about leastactive without actives', () => {
    const { warnings, problems } = check(yaml({ reference: '{ timeout: 1s, loadbalance: leastactive }' }));
    expect(problems).toEqual([]);
    const w = warnings.filter((x) => x.kind === 'loadbalance-without-actives');
    expect(w.map((x) => [x.zone, x.method])).toEqual([
      ['zoneA', 'getUserById'],
      ['zoneA', 'updateUser'],
      ['zoneB', 'getUserById'],
    ]);
    expect(w[0]!.message).toContain('weighted random');
  });

  it('does not warn about leastactive when actives is set', () => {
    const { warnings } = check(yaml({ reference: '{ timeout: 1s, loadbalance: leastactive, actives: 10 }' }));
    expect(warnings.filter((x) => x.kind === 'loadbalance-without-actives')).toEqual([]);
  });

  describe('reads loadbalance and actives from the invoker URLs, as ActiveLimitFilter is activated', () => {
    const withoutActives = (text: string) =>
      check(text)
        .warnings.filter((x) => x.kind === 'loadbalance-without-actives')
        .map((x) => [x.zone, x.method, x.message.includes(' of 6 providers') || x.message.includes(' of 4 providers') || x.message.includes(' of 2 providers') ? 'some' : 'all']);

    it('counts actives on the providers URLs (the consumer names none)', () => {
      const text = yaml({ reference: '{ timeout: 1s, loadbalance: leastactive }' })
        .replace('count: 4 }', 'count: 4, params: { actives: "5" } }')
        .replace('count: 2 }', 'count: 2, params: { actives: "5" } }');
      expect(withoutActives(text)).toEqual([]);
    });

    it('names how many providers leave the filter out when only some URLs have actives', () => {
      const text = yaml({ reference: '{ timeout: 1s, loadbalance: leastactive }' }).replace('count: 4 }', 'count: 4, params: { actives: "5" } }');
      const w = check(text).warnings.filter((x) => x.kind === 'loadbalance-without-actives');
      expect(w.map((x) => x.method)).toEqual(['getUserById', 'updateUser', 'getUserById']);
      expect(w[0]!.message).toContain('without actives on 2 of 6 providers');
      expect(w[0]!.message).toContain('always look idle');
    });

    it('leaves the filter out on an interface-level actives=0 even with a method-level actives', () => {
      // ExtensionLoader.isActive reads the interface level first; "0" is set, so the method level is not consulted.
      const text = yaml({ reference: '{ timeout: 1s, loadbalance: leastactive, actives: 0, methods: { getUserById: { actives: 5 } } }' });
      expect(withoutActives(text)).toEqual([
        ['zoneA', 'getUserById', 'all'],
        ['zoneA', 'updateUser', 'all'],
        ['zoneB', 'getUserById', 'all'],
      ]);
    });

    it('activates the filter for every method when one method sets actives (getAnyMethodParameter)', () => {
      const text = yaml({ reference: '{ timeout: 1s, loadbalance: leastactive, methods: { updateUser: { actives: 5 } } }' });
      expect(withoutActives(text)).toEqual([]);
    });

    it('warns for a balancer named only on the providers URLs', () => {
      const text = yaml().replace('count: 4 }', 'count: 4, params: { loadbalance: shortestresponse } }').replace('count: 2 }', 'count: 2, params: { loadbalance: shortestresponse } }');
      const w = check(text).warnings.filter((x) => x.kind === 'loadbalance-without-actives');
      expect(w.map((x) => [x.zone, x.method])).toEqual([
        ['zoneA', 'getUserById'],
        ['zoneA', 'updateUser'],
        ['zoneB', 'getUserById'],
      ]);
      expect(w[0]!.message).toContain('loadbalance shortestresponse without actives:');
    });
  });

  it('warns when the timeout is below the P99 service time plus the P99 RTT', () => {
    const { warnings } = check(yaml({ reference: '{ timeout: 52ms }' }));
    const w = warnings.filter((x) => x.kind === 'timeout-below-p99');
    expect(w.map((x) => [x.zone, x.method])).toEqual([
      ['zoneA', 'getUserById'],
      ['zoneB', 'getUserById'],
    ]);
    // 52ms covers 50ms + 0.2ms in the same zone but not 50ms + 3ms across.
    expect(w[0]!.message).toContain('to zoneB (P99 service 50ms + P99 RTT 3ms = 53ms)');
    expect(w[0]!.message).not.toContain('zoneA (P99');
  });

  it('warns when a provider group registers another group or version than the reference asks for', () => {
    const { warnings } = check(
      yaml({
        reference: '{ timeout: 1s, parameters: { version: "1.0.0" } }',
        extra: `  - { name: users-v2, service: ${USERS}, zone: zoneA, count: 1, params: { version: "2.0.0" } }`,
      }),
    );
    const w = warnings.filter((x) => x.kind === 'group-version-mismatch');
    expect(w.map((x) => x.message.split(' registers')[0])).toEqual([
      'provider group users-a',
      'provider group users-b',
      'provider group users-v2',
      'provider group users-a',
      'provider group users-b',
      'provider group users-v2',
    ]);
  });

  it('has no warnings for a plain healthy scenario', () => {
    expect(check(yaml()).warnings).toEqual([]);
  });
});

describe('p99', () => {
  it('uses the closed forms and the empirical p99', () => {
    expect(p99({ dist: 'lognormal', p50: 20, p99: 450 })).toBe(450);
    expect(p99({ dist: 'constant', value: 7 })).toBe(7);
    expect(p99({ dist: 'exponential', mean: 10 })).toBeCloseTo(46.05, 2);
  });

  it('estimates a mixture from seeded draws', () => {
    const v = p99({ dist: 'mixture', components: [{ weight: 98, dist: 'constant', value: 10 }, { weight: 2, dist: 'constant', value: 300 }] });
    expect(v).toBe(300);
  });
});

describe('runCheck', () => {
  it('prints exactly one SPEC 4.2 JSON document with --json', async () => {
    const cwd = writeScenario(yaml({ routers: forceRule(true) }));
    const c = captureIo(cwd);
    const code = await runCheck({ scenario: 'scenario.yaml', set: [], json: true, strict: false }, c.io);
    expect(code).toBe(0);
    const doc = JSON.parse(c.out());
    expect(Object.keys(doc)).toEqual(['problems', 'phases', 'warnings', 'strategies']);
    expect(Object.keys(doc.problems[0])).toEqual([
      'consumer',
      'zone',
      'service',
      'phase',
      'router',
      'providersBefore',
      'providersAfter',
      'message',
    ]);
  });

  it('exits 1 with --strict when there is a problem', async () => {
    const c = captureIo(writeScenario(yaml({ routers: forceRule(true) })));
    expect(await runCheck({ scenario: 'scenario.yaml', set: [], json: true, strict: true }, c.io)).toBe(1);
  });

  it('exits 0 with --strict when there is none', async () => {
    const c = captureIo(writeScenario(yaml({ routers: forceRule(false) })));
    expect(await runCheck({ scenario: 'scenario.yaml', set: [], json: false, strict: true }, c.io)).toBe(0);
    expect(c.out()).toContain('problems: none');
  });

  it('applies --set overrides before checking', async () => {
    const c = captureIo(writeScenario(yaml({ routers: forceRule(false) })));
    const code = await runCheck({ scenario: 'scenario.yaml', set: ['routers[0].force=true'], json: true, strict: true }, c.io);
    expect(code).toBe(1);
  });

  it('prints providers after each router per phase, then the problems', async () => {
    const c = captureIo(writeScenario(strictZoneScaledAway(false)));
    await runCheck({ scenario: 'scenario.yaml', set: [], json: false, strict: false }, c.io);
    const text = c.out();
    expect(text).toContain('phase 2: 30s - 60s (probed at 59.999s)  [start: scale group users-b to 0]');
    expect(text).toContain('  web (zoneB) -> com.example.UserService: 4 providers');
    expect(text).toMatch(/getUserById \[no attachments\]: .*zone 0 {2}<-- NO PROVIDER/);
    expect(text).toContain('problems (1):');
  });
});
