/**
 * Fault targets (SPEC 2.8): `group:` (one provider group) and `instance: NAME#i` (one instance,
 * 0-based among the group's current instances in start order) instead of zone/service; crash modes
 * (`mode: blackhole`) and `zoneDown: { group | instance, mode }`; slowdown on one service or method
 * of an application, of one group, or of one instance. Markers name the target.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/scenario/load.js';
import { scheduleFaults } from '../../src/world/faults.js';
import { World } from '../../src/world/world.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const BASE = `zones: { zoneA: {}, zoneB: {} }
registry: { type: static }
services:
  com.example.A: { methods: { a1: { serviceTime: 10ms }, a2: { serviceTime: 10ms } } }
  com.example.B: { methods: { b1: { serviceTime: 10ms } } }
providers:
  - { name: app-a, application: app, services: [com.example.A, com.example.B], zone: zoneA, count: 3 }
  - { name: app-b, application: app, services: [com.example.A, com.example.B], zone: zoneB, count: 2 }
consumers: []
duration: 100s
faults:
`;

function world(faults: string) {
  const markers: string[] = [];
  const observer = quietObserver({ marker: (m) => markers.push(`${m.tMs} ${m.kind} ${m.label}`) });
  const w = new World(parseScenario(BASE + faults, 'targets.yaml'), {
    seed: 1,
    observer,
    consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }),
    scheduleFaults: (wd) => scheduleFaults(wd),
  });
  const group = (name: string) => w.providerGroups.find((g) => g.spec.name === name)!;
  const states = (name: string) => group(name).instances.map((p) => p.state);
  return { w, group, states, markers, runTo: (t: number) => w.sim.run({ until: t }) };
}

describe('fault targets', () => {
  it('crash: { instance: app-a#1 } crashes that one instance and brings a new one back after for:', () => {
    const t = world('  - { at: 10s, for: 10s, crash: { instance: app-a#1 } }\n');
    t.runTo(10_000);
    expect(t.states('app-a')).toEqual(['up', 'crashed', 'up']);
    expect(t.states('app-b')).toEqual(['up', 'up']);
    t.runTo(20_000);
    expect(t.states('app-a')).toEqual(['up', 'crashed', 'up', 'up']);
    expect(t.markers).toEqual(['10000 start crash app-a#1', '20000 end crash app-a#1']);
  });

  it('crash with mode: blackhole black-holes instead (calls time out), and the same instance resumes', () => {
    const t = world('  - { at: 10s, for: 10s, crash: { group: app-b, mode: blackhole } }\n');
    t.runTo(10_000);
    expect(t.states('app-b')).toEqual(['blackhole', 'blackhole']);
    t.runTo(20_000);
    expect(t.states('app-b')).toEqual(['up', 'up']);
    expect(t.markers[0]).toBe('10000 start crash all of group app-b (blackhole)');
  });

  it('zoneDown: { group | instance, mode } takes down a group or an instance, not the zone', () => {
    const t = world('  - { at: 10s, zoneDown: { instance: app-a#2, mode: crash } }\n  - { at: 12s, zoneDown: { group: app-b } }\n');
    t.runTo(12_000);
    expect(t.states('app-a')).toEqual(['up', 'up', 'crashed']);
    expect(t.states('app-b')).toEqual(['blackhole', 'blackhole']);
    expect(t.markers).toEqual(['10000 start zoneDown app-a#2 (crash)', '12000 start zoneDown group app-b (blackhole)']);
  });

  it('slowdown of one service of an application slows that service only; of one method, that method only', () => {
    const t = world(
      '  - { at: 10s, slowdown: { service: com.example.A, factor: 3 } }\n  - { at: 10s, slowdown: { group: app-b, service: com.example.B, method: b1, factor: 5 } }\n',
    );
    t.runTo(10_000);
    const a = t.group('app-a');
    const b = t.group('app-b');
    expect([a.factor('a1', 'com.example.A'), a.factor('a2', 'com.example.A'), a.factor('b1', 'com.example.B')]).toEqual([3, 3, 1]);
    expect([b.factor('a1', 'com.example.A'), b.factor('b1', 'com.example.B')]).toEqual([3, 5]);
    expect(t.markers).toEqual(['10000 start slowdown com.example.A x3', '10000 start slowdown com.example.B.b1 in group app-b x5']);
  });

  it('slowdown of one instance changes that instance`s service times only, and for: undoes it', () => {
    const t = world('  - { at: 10s, for: 5s, slowdown: { instance: app-a#0, factor: 4 } }\n');
    t.runTo(10_000);
    const [p0, p1] = t.group('app-a').instances;
    expect([p0!.slowdown.get('*'), p1!.slowdown.size, t.group('app-a').slowdown.size]).toEqual([4, 0, 0]);
    t.runTo(15_000);
    expect(p0!.slowdown.size).toBe(0);
    expect(t.markers).toEqual(['10000 start slowdown all services in app-a#0 x4', '15000 end slowdown all services in app-a#0 x4']);
  });

  it('rollingRestart: { instance } restarts just that instance', () => {
    const t = world('  - { at: 10s, rollingRestart: { instance: app-b#1 } }\n');
    t.runTo(30_000);
    expect(t.group('app-b').instances).toHaveLength(3);
    expect(t.states('app-b')).toEqual(['up', 'stopped', 'up']);
  });

  it('rejects instance references that do not resolve, and instance mixed with zone/group', () => {
    const errors = (faults: string) => {
      try {
        parseScenario(BASE + faults, 'targets.yaml');
      } catch (e) {
        if (e instanceof ScenarioError) return e.issues.map((i) => `${i.path}: ${i.message}`);
        throw e;
      }
      return [];
    };
    expect(errors('  - { at: 1s, crash: { instance: app-c#0 } }\n')).toEqual([
      'faults[0].crash.instance: expected a provider group declared under providers (name) (app-a, app-b), found "app-c"; did you mean "app-a"?',
    ]);
    expect(errors('  - { at: 1s, crash: { instance: app-b#2 } }\n')).toEqual([
      `faults[0].crash.instance: expected an index below the group's count (2; 0-based), found 2 in "app-b#2"`,
    ]);
    expect(errors('  - { at: 1s, crash: { instance: app-b } }\n')).toEqual([
      'faults[0].crash.instance: expected <provider group>#<index> such as app-a#0, found "app-b"',
    ]);
    expect(errors('  - { at: 1s, crash: { instance: app-b#0, zone: zoneA } }\n')).toEqual(['faults[0].crash.zone: give either instance or zone, not both']);
    expect(errors('  - { at: 1s, zoneDown: { mode: crash } }\n')).toEqual(['faults[0].zoneDown: give exactly one of zone, group, instance']);
  });
});
