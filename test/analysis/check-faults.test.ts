/**
 * `zonesim check` on what the timeline will really run (issue 36, item 3): pool overload per
 * instance for `instance:` slowdowns, `traffic` surges in the offered load, and a warning when the
 * zone that holds the registry goes down or is cut off.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkScenario } from '../../src/analysis/check.js';
import { loadScenarioFile, parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const TRIAL = fileURLToPath(new URL('../cli/fixtures/check/instance-slowdown.yaml', import.meta.url));
const poolWarnings = (sets: string[] = []) => checkScenario(loadScenarioFile(TRIAL, sets)).warnings.filter((w) => w.kind === 'pool-overload');

describe('an instance-targeted slowdown (the user trial: s-a#3 x100, s-a and s-b serve one service)', () => {
  it('flags the pool of s-a#3 only, in the slowdown phase; neither the rest of s-a nor s-b', () => {
    const warnings = poolWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ providerGroup: 's-a', instance: 's-a#3', pool: 'shared', phase: { fromMs: 10_000, toMs: 30_000 } });
    expect(warnings[0]!.message).toMatch(/^provider group s-a: the shared pool of instance s-a#3 \(slowed on its own\) is offered 4\d\d threads of its 200 during the slowdown at 10 s \(faults\[0\]\)/);
  });

  it('agrees with the simulation: s-a (its saturated instance) rejects calls, the untouched s-b rejects none', () => {
    const { summary } = runScenario(loadScenarioFile(TRIAL), { version: 'test' });
    const a = summary.byProviderGroup['s-a']!;
    const b = summary.byProviderGroup['s-b']!;
    expect(a.rejected).toBeGreaterThan(0);
    // One instance's pool full: the peak is that instance's 200 threads.
    expect(a.peakActiveThreads).toBe(200);
    expect(b.rejected).toBe(0);
    expect(b.peakActiveThreads).toBeLessThan(200);
  });

  it('flags the whole group for a group: slowdown, and still not s-b', () => {
    const warnings = poolWarnings(['faults[0].slowdown={ group: s-a, factor: 100 }']);
    expect(warnings.map((w) => [w.providerGroup, w.instance])).toEqual([['s-a', undefined]]);
    expect(warnings[0]!.message).toMatch(/^provider group s-a: its shared pool is offered \d+ threads of its 2000 during the slowdown/);
  });
});

/** users-a and users-b (4 x 20 threads each), web in both zones at 400/s; a registry in zoneA. */
function surge(opts: { faults: string; registry?: string; extra?: string }): string {
  return `
name: surge
duration: 60s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
  zoneC: { cidr: 10.30.0.0/16 }
network:
  rtt:
    zoneA<->zoneB: 3ms
registry: ${opts.registry ?? '{ type: nacos, zone: zoneA }'}
${opts.extra ?? ''}
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 10ms }
providers:
  - { name: users-a, service: com.example.UserService, zone: zoneA, count: 4, threads: 20 }
  - { name: users-b, service: com.example.UserService, zone: zoneB, count: 4, threads: 20 }
consumers:
  - { application: web, zone: zoneA, rate: 400/s, calls: { com.example.UserService.getUserById: 1 } }
  - { application: web, zone: zoneB, rate: 400/s, calls: { com.example.UserService.getUserById: 1 } }
faults: ${opts.faults}
`;
}
const check = (text: string) => checkScenario(parseScenario(text, 'surge.yaml'));
const kinds = (text: string, ...wanted: string[]) => check(text).warnings.filter((w) => wanted.includes(w.kind));

describe('traffic surges', () => {
  it('warns on a x50 surge that overloads the pools, naming the surge and its phase', () => {
    const warnings = kinds(surge({ faults: '[{ at: 20s, for: 10s, traffic: { consumer: web, zone: zoneA, factor: 50 } }]' }), 'pool-overload');
    // 20,000 calls/s from zoneA + 400/s from zoneB over two groups x 10 ms = 102 threads each, of 80.
    expect(warnings.map((w) => [w.providerGroup, w.phase])).toEqual([
      ['users-a', { fromMs: 20_000, toMs: 30_000 }],
      ['users-b', { fromMs: 20_000, toMs: 30_000 }],
    ]);
    expect(warnings[0]!.message).toContain('is offered 102 threads of its 80 during the traffic x50 of web in zoneA at 20 s (faults[0])');
  });

  it('is quiet for a surge the pools can take', () => {
    expect(kinds(surge({ faults: '[{ at: 20s, for: 10s, traffic: { consumer: web, zone: zoneA, factor: 5 } }]' }), 'pool-overload')).toEqual([]);
  });
});

describe('the zone that holds the registry', () => {
  it('warns when it goes down: zonesim keeps the registry up, a real one there would leave consumers with stale lists', () => {
    const warnings = kinds(surge({ faults: '[{ at: 40s, for: 10s, zoneDown: zoneA }]' }), 'registry-zone-down', 'registry-zone-cut');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: 'registry-zone-down', zone: 'zoneA', registry: 'registry', fault: 'faults[0]', phase: { fromMs: 40_000, toMs: 50_000 } });
    expect(warnings[0]!.message).toContain('faults[0] (zoneDown zoneA (blackhole)), 40 s - 50 s, takes down zoneA, where the registry (nacos, in zoneA) lives');
    expect(warnings[0]!.message).toContain('keep their last (stale) lists');
  });

  it('lasts until a later zoneUp when the zoneDown has no for:', () => {
    const [w] = kinds(surge({ faults: '[{ at: 40s, zoneDown: zoneA }, { at: 45s, zoneUp: zoneA }]' }), 'registry-zone-down');
    expect(w!.phase).toEqual({ fromMs: 40_000, toMs: 45_000 });
  });

  it('warns when a partition cuts another zone off it, naming who keeps stale lists and who is dropped', () => {
    const warnings = kinds(surge({ faults: '[{ at: 10s, partition: [zoneB, zoneA] }]' }), 'registry-zone-down', 'registry-zone-cut');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: 'registry-zone-cut', zone: 'zoneA', fault: 'faults[0]', phase: { fromMs: 10_000, toMs: 60_000 } });
    expect(warnings[0]!.message).toContain('cuts zoneB off the registry (nacos, in zoneA): its consumers (web) get no pushes and keep their last (stale) lists');
    // The providers run the 3.3 default, nacos-client 2.x: connection-bound instances.
    expect(warnings[0]!.message).toContain(
      'its providers (users-b) are not heard, so the registry drops them from every list (Nacos 2.x ejects their connections 20-28 s after they fall silent)',
    );
    const v27 = kinds(surge({ faults: '[{ at: 10s, partition: [zoneB, zoneA] }]', extra: "dubbo: '2.7'" }), 'registry-zone-cut');
    expect(v27[0]!.message).toContain('so the registry drops them from every list (Nacos 1.x deletes them after 30 s)');
  });

  it('warns on a registryPartition of its zone', () => {
    expect(kinds(surge({ faults: '[{ at: 10s, for: 5s, registryPartition: zoneA }]' }), 'registry-zone-cut').map((w) => w.phase)).toEqual([
      { fromMs: 10_000, toMs: 15_000 },
    ]);
  });

  it('says nothing for other zones, for a cut side where nobody uses the registry, for a group-targeted zoneDown or a static registry', () => {
    const quiet = [
      surge({ faults: '[{ at: 10s, zoneDown: zoneB }, { at: 20s, registryPartition: zoneB }]' }),
      surge({ faults: '[{ at: 10s, partition: [zoneA, zoneC] }]' }),
      surge({ faults: '[{ at: 10s, zoneDown: { group: users-a } }]' }),
      surge({ faults: '[{ at: 10s, zoneDown: zoneA }]', registry: '{ type: static, zone: zoneA }' }),
    ];
    for (const text of quiet) expect(kinds(text, 'registry-zone-down', 'registry-zone-cut')).toEqual([]);
  });

  it('checks each of several registries by its own zone', () => {
    const text = surge({
      faults: '[{ at: 10s, zoneDown: zoneB }]',
      registry: '{ type: nacos }',
      extra: 'registries:\n  regA: { zone: zoneA }\n  regB: { type: zookeeper, zone: zoneB }',
    });
    const warnings = kinds(text, 'registry-zone-down');
    expect(warnings.map((w) => [w.registry, w.zone])).toEqual([['regB', 'zoneB']]);
    expect(warnings[0]!.message).toContain('where registry regB (zookeeper, in zoneB) lives');
  });
});
