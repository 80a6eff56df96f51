import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { DistSpec } from '../../src/engine/distributions.js';
import type { FaultAction, FaultSpec, ProviderGroupSpec, Scenario } from '../../src/model/types.js';
import { faultBoundaries, faultLabel, scheduleFaults, type FaultHooks } from '../../src/world/faults.js';
import type { WorldObserver } from '../../src/metrics/observer.js';
import type { IncomingCall } from '../../src/world/provider-call.js';
import { providerStateVersion, type ProviderInstance } from '../../src/world/provider.js';
import type { ProviderListener, RegistryModel, Subscriber } from '../../src/world/registry.js';
import { World } from '../../src/world/world.js';
import { registrySpec } from './registry-fixtures.js';
import { quietObserver } from '../helpers/quiet-observer.js';

const USERS = 'com.example.UserService';
const ORDERS = 'com.example.OrderService';
const constant = (value: number): DistSpec => ({ dist: 'constant', value });

function group(name: string, service: string, zone: string, count: number): ProviderGroupSpec {
  return {
    name,
    service,
    services: [service],
    exports: {},
    zone,
    count,
    threads: 2,
    queues: 0,
    weight: 100,
    warmupMs: 600_000,
    application: 'users-provider',
    params: {},
    dubbo: defaultProfile('3.3'),
  };
}

function fault(atMs: number, action: FaultAction, forMs?: number): FaultSpec {
  return { atMs, forMs, action, label: 'faults[0]' };
}

/** A normalized scenario: users-a (4) and users-b (2) for UserService, orders-a (2); no consumers. */
function scenario(faults: FaultSpec[], seed = 1): Scenario {
  const method = { serviceTime: constant(100), idempotent: true, bizErrorRate: 0, calls: [], parallel: false };
  return {
    name: 'faults',
    description: '',
    seed,
    durationMs: 120_000,
    warmupMs: 0,
    bucketMs: 1000,
    zones: { zoneA: { cidr: '10.10.0.0/16' }, zoneB: { cidr: '10.20.0.0/16' } },
    network: {
      sameZone: constant(0.2),
      default: constant(2),
      pairs: [
        { from: 'zoneA', to: 'zoneB', dist: constant(4) },
        { from: 'zoneB', to: 'zoneA', dist: constant(4) },
      ],
    },
    registry: registrySpec({ type: 'static', pushLag: constant(0) }),
    registries: {},
    services: {
      [USERS]: { methods: { getUserById: method, updateUser: method } },
      [ORDERS]: { methods: { place: method } },
    },
    providers: [group('users-a', USERS, 'zoneA', 4), group('users-b', USERS, 'zoneB', 2), group('orders-a', ORDERS, 'zoneA', 2)],
    consumers: [],
    routers: [],
    faults,
    strategies: {},
  };
}

type RegistryCall = [tMs: number, op: string, arg: string];

/** A registry that only records what the faults tell it. */
class RecordingRegistry implements RegistryModel {
  readonly log: RegistryCall[] = [];
  constructor(readonly now: () => number) {}
  providerStarted(p: ProviderInstance): void {
    this.log.push([this.now(), 'started', p.address]);
  }
  providerStopped(p: ProviderInstance, graceful: boolean): void {
    this.log.push([this.now(), graceful ? 'deregistered' : 'silent', p.address]);
  }
  subscribe(_s: Subscriber, _service: string, _l: ProviderListener): void {}
  isKnownGone(): boolean {
    return false;
  }
  setZoneCut(zone: string, cut: boolean): void {
    this.log.push([this.now(), cut ? 'zoneCut' : 'zoneJoined', zone]);
  }
  setDown(down: boolean): void {
    this.log.push([this.now(), down ? 'down' : 'up', '']);
  }
  setPushSwitch(on: boolean): void {
    this.log.push([this.now(), on ? 'pushOn' : 'pushOff', '']);
  }
  setRoomDown(zone: string, down: boolean): void {
    this.log.push([this.now(), down ? 'roomDown' : 'roomUp', zone]);
  }
}

interface Marker {
  tMs: number;
  kind: 'start' | 'end';
  label: string;
}

function observer(markers: Marker[]): WorldObserver {
  return quietObserver({ marker: (m) => markers.push(m) });
}

/** A world with the faults scheduled, a recording registry and collected markers. */
function world(faults: FaultSpec[], hooks: FaultHooks = {}, seed = 1) {
  const markers: Marker[] = [];
  let registry!: RecordingRegistry;
  const w = new World(scenario(faults, seed), {
    seed,
    observer: observer(markers),
    consumerStack: () => ({ refer() {}, *call() { return { outcome: 'ok' as const }; } }),
    makeRegistry: (wd) => (registry = new RecordingRegistry(() => wd.sim.now)),
    scheduleFaults: (wd) => scheduleFaults(wd, hooks),
  });
  const groups = Object.fromEntries(w.providerGroups.map((g) => [g.spec.name, g]));
  const states = (name: string) => groups[name]!.instances.map((p) => p.state);
  const after = (tMs: number) => registry.log.filter(([t]) => t >= tMs);
  return { w, markers, registry: () => registry, groups, states, after, runTo: (tMs: number) => w.sim.run({ until: tMs }) };
}

/** A call that keeps one provider thread busy for the method's service time. */
function incoming(delivered: string[]): IncomingCall {
  return {
    service: USERS,
    method: 'getUserById',
    consumerZone: 'zoneA',
    request: { ended: false },
    settled: false,
    attachments: new Map(),
    deliver: (reply) => delivered.push(reply.kind),
  };
}

describe('zoneDown and zoneUp', () => {
  it('black-holes every provider of the zone at the fault time, and no other', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' })]);
    t.runTo(9_999);
    expect(t.states('users-a')).toEqual(['up', 'up', 'up', 'up']);
    t.runTo(10_000);
    expect(t.states('users-a')).toEqual(['blackhole', 'blackhole', 'blackhole', 'blackhole']);
    expect(t.states('orders-a')).toEqual(['blackhole', 'blackhole']);
    expect(t.states('users-b')).toEqual(['up', 'up']);
  });

  it('moves the provider state version with every state change, and only then', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, 5_000)]);
    t.runTo(9_999);
    const before = providerStateVersion();
    t.runTo(10_000);
    // Six zoneA processes (users-a and orders-a) went from up to black hole.
    expect(providerStateVersion() - before).toBe(6);
    const p = t.groups['users-a']!.instances[0]!;
    const now = providerStateVersion();
    p.state = 'blackhole';
    expect(providerStateVersion()).toBe(now);
    t.runTo(15_000);
    expect(providerStateVersion() - now).toBe(6);
  });

  it('stops the heartbeats of black-holed providers (they fall silent in the registry)', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' })]);
    t.runTo(10_000);
    expect(t.after(10_000).map(([time, op]) => [time, op])).toEqual(Array(6).fill([10_000, 'silent']));
  });

  it('resumes black-holed providers as the same instances when undone, registering them again', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, 5_000)]);
    const before = [...t.groups['users-a']!.instances];
    t.runTo(15_000);
    expect(t.groups['users-a']!.instances).toEqual(before);
    expect(t.states('users-a')).toEqual(['up', 'up', 'up', 'up']);
    expect(t.after(15_000).filter(([, op]) => op === 'started').map(([, , a]) => a)).toContain(before[0]!.address);
  });

  it('crash mode refuses at once and brings the zone back as new instances with a new timestamp', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'crash' }, 5_000)]);
    t.runTo(10_000);
    expect(t.states('users-a')).toEqual(['crashed', 'crashed', 'crashed', 'crashed']);
    expect(t.groups['users-a']!.instances.every((p) => !p.connectable)).toBe(true);
    t.runTo(15_000);
    const live = t.groups['users-a']!.instances.filter((p) => p.state === 'up');
    expect(live.map((p) => p.startMs)).toEqual([15_000, 15_000, 15_000, 15_000]);
    expect(live[0]!.url).toContain(`timestamp=${1_767_225_600_000 + 15_000}`);
  });

  it('zoneUp restores a zone taken down without for:', () => {
    const t = world([
      fault(10_000, { kind: 'zoneDown', zone: 'zoneB', mode: 'blackhole' }),
      fault(20_000, { kind: 'zoneUp', zone: 'zoneB' }),
    ]);
    t.runTo(19_999);
    expect(t.states('users-b')).toEqual(['blackhole', 'blackhole']);
    t.runTo(20_000);
    expect(t.states('users-b')).toEqual(['up', 'up']);
  });
});

describe('markers', () => {
  it('records a start and an end marker with a readable label', () => {
    const t = world([fault(10_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, 5_000)]);
    t.runTo(60_000);
    expect(t.markers).toEqual([
      { tMs: 10_000, kind: 'start', label: 'zoneDown zoneA (blackhole)' },
      { tMs: 15_000, kind: 'end', label: 'zoneDown zoneA (blackhole)' },
    ]);
  });

  it('records only a start marker for a fault without for:', () => {
    const t = world([fault(5_000, { kind: 'registryDown' })]);
    t.runTo(60_000);
    expect(t.markers).toEqual([{ tMs: 5_000, kind: 'start', label: 'registryDown' }]);
  });

  it('names the instances a partial crash hit, in the start and the end marker alike', () => {
    const t = world([fault(10_000, { kind: 'crash', zone: 'zoneA', service: USERS, count: 2 }, 5_000)]);
    t.runTo(10_000);
    const hit = t.groups['users-a']!.instances.map((p, i) => (p.state === 'crashed' ? `users-a#${i}` : '')).filter((n) => n !== '');
    t.runTo(60_000);
    const label = `crash 2 of ${USERS} in zoneA: ${hit.join(', ')}`;
    expect(hit).toHaveLength(2);
    expect(t.markers).toEqual([
      { tMs: 10_000, kind: 'start', label },
      { tMs: 15_000, kind: 'end', label },
    ]);
  });

  it('says how many instances a rolling restart covers and in how many batches', () => {
    const t = world([fault(20_000, { kind: 'rollingRestart', group: 'users-a', batch: 3, intervalMs: 10_000 })]);
    t.runTo(60_000);
    const label = 'rollingRestart group users-a (batch 3 every 10s): 4 instances in 2 batches';
    expect(t.markers).toEqual([
      { tMs: 20_000, kind: 'start', label },
      { tMs: 30_000, kind: 'end', label },
    ]);
  });
});

describe('crash and restart', () => {
  const crash2 = fault(10_000, { kind: 'crash', zone: 'zoneA', service: USERS, count: 2 });
  const crashed = (seed: number) => {
    const t = world([crash2], {}, seed);
    t.runTo(10_000);
    return t.groups['users-a']!.instances.filter((p) => p.state === 'crashed').map((p) => p.address);
  };

  it('crashes exactly count instances of the matching group', () => {
    const t = world([crash2]);
    t.runTo(10_000);
    expect(t.states('users-a').filter((s) => s === 'crashed')).toHaveLength(2);
    expect(t.states('users-b')).toEqual(['up', 'up']);
    expect(t.states('orders-a')).toEqual(['up', 'up']);
  });

  it('picks the same instances for the same seed', () => {
    expect(crashed(7)).toEqual(crashed(7));
  });

  it('picks from the faults stream, so some seed picks differently', () => {
    const picks = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => crashed(s).join(',')));
    expect(picks.size).toBeGreaterThan(1);
  });

  it('rounds a fraction to the nearest whole instance', () => {
    const t = world([fault(10_000, { kind: 'crash', group: 'users-a', fraction: 0.6 })]);
    t.runTo(10_000);
    expect(t.states('users-a').filter((s) => s === 'crashed')).toHaveLength(2);
  });

  it('tells the registry that crashed providers fell silent (not deregistered)', () => {
    const t = world([crash2]);
    t.runTo(10_000);
    expect(t.after(10_000).map(([, op]) => op)).toEqual(['silent', 'silent']);
  });

  it('restarts the crashed instances as new ones when undone', () => {
    const t = world([fault(10_000, { kind: 'crash', group: 'users-b', count: 1 }, 20_000)]);
    t.runTo(30_000);
    const instances = t.groups['users-b']!.instances;
    expect(instances.map((p) => p.state).sort()).toEqual(['crashed', 'up', 'up']);
    expect(instances[2]!.startMs).toBe(30_000);
  });

  it('restart stops a live instance gracefully and starts a new one', () => {
    const t = world([fault(10_000, { kind: 'restart', group: 'users-b', count: 1 })]);
    t.runTo(10_000);
    const [a, b, c] = t.groups['users-b']!.instances;
    expect([a!.state, b!.state, c!.state].filter((s) => s === 'stopped')).toHaveLength(1);
    expect(c!.startMs).toBe(10_000);
    expect(t.after(10_000).map(([, op]) => op)).toEqual(['deregistered', 'started']);
  });

  it('restart brings crashed instances back before touching live ones', () => {
    const t = world([
      fault(10_000, { kind: 'crash', group: 'users-a', count: 1 }),
      fault(20_000, { kind: 'restart', group: 'users-a', count: 1 }),
    ]);
    t.runTo(20_000);
    const states = t.states('users-a');
    expect(states.filter((s) => s === 'stopped')).toHaveLength(0);
    expect(states.filter((s) => s === 'up')).toHaveLength(4);
    expect(states).toHaveLength(5);
  });
});

describe('slowdown', () => {
  it('multiplies the service time of the method while it lasts and restores it after', () => {
    const t = world([fault(10_000, { kind: 'slowdown', zone: 'zoneA', service: USERS, method: 'getUserById', factor: 5 }, 10_000)]);
    const g = t.groups['users-a']!;
    t.runTo(10_000);
    expect([g.factor('getUserById'), g.factor('updateUser'), t.groups['users-b']!.factor('getUserById')]).toEqual([5, 1, 1]);
    t.runTo(20_000);
    expect(g.factor('getUserById')).toBe(1);
  });

  it('applies to every method when no method is named', () => {
    const t = world([fault(10_000, { kind: 'slowdown', zone: 'zoneA', factor: 3 })]);
    t.runTo(10_000);
    expect([t.groups['users-a']!.factor('updateUser'), t.groups['orders-a']!.factor('place')]).toEqual([3, 3]);
  });
});

describe('network faults', () => {
  it('partitions two zones and heals them when undone', () => {
    const t = world([fault(10_000, { kind: 'partition', zones: ['zoneA', 'zoneB'] }, 5_000)]);
    t.runTo(10_000);
    expect(t.w.network.oneWayMs('zoneB', 'zoneA')).toBe(-1);
    t.runTo(15_000);
    expect(t.w.network.isPartitioned('zoneA', 'zoneB')).toBe(false);
    // Messages get through again, both ways.
    expect([t.w.network.oneWayMs('zoneA', 'zoneB'), t.w.network.oneWayMs('zoneB', 'zoneA')]).toEqual([2, 2]);
  });

  it('heal ends a partition', () => {
    const t = world([
      fault(10_000, { kind: 'partition', zones: ['zoneA', 'zoneB'] }),
      fault(30_000, { kind: 'heal', zones: ['zoneB', 'zoneA'] }),
    ]);
    t.runTo(29_999);
    expect(t.w.network.isPartitioned('zoneA', 'zoneB')).toBe(true);
    expect([t.w.network.oneWayMs('zoneA', 'zoneB'), t.w.network.oneWayMs('zoneB', 'zoneA')]).toEqual([-1, -1]);
    t.runTo(30_000);
    expect(t.w.network.isPartitioned('zoneA', 'zoneB')).toBe(false);
    expect([t.w.network.oneWayMs('zoneA', 'zoneB'), t.w.network.oneWayMs('zoneB', 'zoneA')]).toEqual([2, 2]);
  });

  it('sets the RTT between two zones and restores the old one when undone', () => {
    const t = world([fault(10_000, { kind: 'rtt', between: ['zoneA', 'zoneB'], set: constant(100) }, 5_000)]);
    t.runTo(10_000);
    expect([t.w.network.oneWayMs('zoneA', 'zoneB'), t.w.network.oneWayMs('zoneB', 'zoneA')]).toEqual([50, 50]);
    t.runTo(15_000);
    expect(t.w.network.oneWayMs('zoneA', 'zoneB')).toBe(2);
  });
});

describe('registry faults', () => {
  it('cuts a zone off the registry and joins it back when undone', () => {
    const t = world([fault(10_000, { kind: 'registryPartition', zone: 'zoneB' }, 5_000)]);
    t.runTo(60_000);
    expect(t.after(1)).toEqual([
      [10_000, 'zoneCut', 'zoneB'],
      [15_000, 'zoneJoined', 'zoneB'],
    ]);
  });

  it('takes the registry down and up again', () => {
    const t = world([fault(10_000, { kind: 'registryDown' }, 8_000)]);
    t.runTo(60_000);
    expect(t.after(1)).toEqual([
      [10_000, 'down', ''],
      [18_000, 'up', ''],
    ]);
  });

  it('switches pushes off and back on when undone', () => {
    const t = world([fault(10_000, { kind: 'pushSwitch', on: false }, 1_000)]);
    t.runTo(60_000);
    expect(t.after(1)).toEqual([
      [10_000, 'pushOff', ''],
      [11_000, 'pushOn', ''],
    ]);
  });
});

describe('scale', () => {
  it('removes the newest instances, deregistering them first', () => {
    const t = world([
      fault(5_000, { kind: 'restart', group: 'users-a', count: 1 }),
      fault(10_000, { kind: 'scale', group: 'users-a', count: 2 }),
    ]);
    t.runTo(5_000);
    const newest = t.groups['users-a']!.instances[4]!;
    t.runTo(10_000);
    const live = t.groups['users-a']!.instances.filter((p) => p.state === 'up');
    expect(live).toHaveLength(2);
    expect(newest.state).toBe('stopped');
    expect(t.after(10_000).map(([, op]) => op)).toEqual(['deregistered', 'deregistered']);
  });

  it('lets in-flight work finish before the removed instance closes', () => {
    const t = world([fault(10_000, { kind: 'scale', group: 'users-b', count: 1 })]);
    const delivered: string[] = [];
    t.w.sim.schedule(9_950, () => t.groups['users-b']!.instances[1]!.receive(incoming(delivered)));
    t.runTo(10_000);
    const removed = t.groups['users-b']!.instances[1]!;
    expect(removed.state).toBe('up');
    expect(t.after(10_000).map(([, op, a]) => [op, a])).toEqual([['deregistered', removed.address]]);
    t.runTo(10_200);
    expect(delivered).toEqual(['ok']);
    expect(removed.state).toBe('stopped');
  });

  it('adds instances with the fault time as their timestamp', () => {
    const t = world([fault(10_000, { kind: 'scale', group: 'users-b', count: 4 })]);
    t.runTo(10_000);
    expect(t.groups['users-b']!.instances.map((p) => p.startMs)).toEqual([0, 0, 10_000, 10_000]);
  });

  it('counts crashed instances as members, so scaling down keeps them from coming back', () => {
    const t = world([
      fault(10_000, { kind: 'zoneDown', zone: 'zoneB', mode: 'crash' }, 20_000),
      fault(20_000, { kind: 'scale', group: 'users-b', count: 1 }),
    ]);
    t.runTo(30_000);
    expect(t.states('users-b')).toEqual(['crashed', 'crashed', 'up']);
    expect(t.groups['users-b']!.instances[2]!.startMs).toBe(30_000);
  });

  it('goes back to the previous count when undone', () => {
    const t = world([fault(10_000, { kind: 'scale', zone: 'zoneB', service: USERS, count: 0 }, 10_000)]);
    t.runTo(10_000);
    expect(t.states('users-b')).toEqual(['stopped', 'stopped']);
    t.runTo(20_000);
    expect(t.states('users-b')).toEqual(['stopped', 'stopped', 'up', 'up']);
  });
});

describe('rollingRestart', () => {
  it('restarts batch instances every interval, oldest first, and marks the end after the last batch', () => {
    const t = world([fault(20_000, { kind: 'rollingRestart', group: 'users-a', batch: 2, intervalMs: 10_000 })]);
    const original = [...t.groups['users-a']!.instances];
    t.runTo(29_999);
    expect(original.map((p) => p.state)).toEqual(['stopped', 'stopped', 'up', 'up']);
    t.runTo(60_000);
    expect(original.map((p) => p.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped']);
    expect(t.groups['users-a']!.instances.slice(4).map((p) => p.startMs)).toEqual([20_000, 20_000, 30_000, 30_000]);
    expect(t.markers.map((m) => [m.tMs, m.kind])).toEqual([
      [20_000, 'start'],
      [30_000, 'end'],
    ]);
  });
});

describe('rule', () => {
  it('hands the rule to the hook at the fault time and runs the returned undo after for:', () => {
    const log: Array<[string, number]> = [];
    const router = { type: 'zone', fallback: false, zoneFrom: 'local' } as const;
    const t = world([fault(10_000, { kind: 'rule', op: 'add', router }, 5_000)], {
      onRule: (action, atMs) => {
        log.push([`apply ${action.op}`, atMs]);
        return () => log.push(['undo', t.w.sim.now]);
      },
    });
    t.runTo(60_000);
    expect(log).toEqual([
      ['apply add', 10_000],
      ['undo', 15_000],
    ]);
  });

  it('refuses a rule fault without a hook to apply it', () => {
    const router = { type: 'zone', fallback: false, zoneFrom: 'local' } as const;
    expect(() => world([fault(10_000, { kind: 'rule', op: 'add', router })])).toThrow(/onRule/);
  });
});

describe('faultLabel', () => {
  it.each<[FaultAction, string]>([
    [{ kind: 'zoneDown', zone: 'zoneA', mode: 'crash' }, 'zoneDown zoneA (crash)'],
    [{ kind: 'crash', zone: 'zoneA', service: USERS, count: 3 }, `crash 3 of ${USERS} in zoneA`],
    [{ kind: 'restart', group: 'users-a', fraction: 0.5 }, 'restart 50% of group users-a'],
    [{ kind: 'slowdown', zone: 'zoneB', service: USERS, method: 'getUserById', factor: 4 }, `slowdown ${USERS}.getUserById in zoneB x4`],
    [{ kind: 'partition', zones: ['zoneA', 'zoneB'] }, 'partition zoneA<->zoneB'],
    [{ kind: 'rtt', between: ['zoneA', 'zoneB'], set: constant(30) }, 'rtt zoneA<->zoneB = 30ms'],
    [{ kind: 'scale', zone: 'zoneB', count: 0 }, 'scale providers in zoneB to 0'],
    [{ kind: 'pushSwitch', on: false }, 'pushSwitch off'],
    [{ kind: 'rule', op: 'add', router: { type: 'condition', rule: 'host = 10.20.* => zone = zoneB', force: true } }, 'rule add condition "host = 10.20.* => zone = zoneB"'],
    [{ kind: 'rollingRestart', service: USERS, batch: 2, intervalMs: 30_000 }, `rollingRestart ${USERS} (batch 2 every 30s)`],
  ])('labels %j as %s', (action, label) => {
    expect(faultLabel(action)).toBe(label);
  });
});

describe('faultBoundaries', () => {
  it('lists 0, every start and end inside the run, and the duration, sorted and unique', () => {
    const s = scenario([
      fault(60_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, 30_000),
      fault(30_000, { kind: 'registryDown' }),
      fault(90_000, { kind: 'zoneUp', zone: 'zoneA' }),
      fault(100_000, { kind: 'pushSwitch', on: false }, 60_000),
    ]);
    expect(faultBoundaries(s)).toEqual([0, 30_000, 60_000, 90_000, 100_000, 120_000]);
  });
});
