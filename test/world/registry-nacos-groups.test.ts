/**
 * Groups and versions at interface level (SPEC 2.5): Nacos names a service
 * `providers:<iface>:<version>:<group>` (dubbo-registry-nacos NacosServiceName / NacosRegistry
 * `getServiceName`), so a change in one group pushes nothing to the consumers of another;
 * ZooKeeper keeps every group under one `/dubbo/<iface>/providers` node, so all of them get it.
 * A `*` or comma-list subscription watches every existing compatible name and aggregates their
 * lists (NacosRegistry `filterServiceNames`, `NacosAggregateListener`).
 */
import { describe, expect, it } from 'vitest';
import { isCompatible, subscribedNames } from '../../src/world/nacos-service-name.js';
import type { DiscoveryRegistry } from '../../src/world/registry-discovery.js';
import type { World } from '../../src/world/world.js';
import { at, makeWorld, NO_NOTIFICATION_DELAY, providers, scenario, SERVICE, type TestWorld } from './registry-fixtures.js';

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const ref = (parameters: Record<string, string>) => ({ [SERVICE]: { parameters, methods: {} } });

/** Providers of group a (zoneA) and b (zoneB); consumers web-a, web-b, web-any of group a, b and `*`. */
function groupsWorld(type: 'nacos' | 'zookeeper', anyGroup = '*'): TestWorld {
  return makeWorld(
    scenario({
      registry: { type },
      providers: [
        { name: 'users-a', zone: 'zoneA', count: 2, params: { group: 'a', version: '1.0.0' } },
        { name: 'users-b', zone: 'zoneB', count: 2, params: { group: 'b', version: '1.0.0' } },
      ],
      // No delay-notification: every change its own push (with it, ZooKeeper's one-shot watch merges a restart's two).
      consumers: [
        { application: 'web-a', instances: 2, reference: ref({ group: 'a', version: '1.0.0' }), dubbo: NO_NOTIFICATION_DELAY },
        { application: 'web-b', instances: 2, reference: ref({ group: 'b', version: '1.0.0' }), dubbo: NO_NOTIFICATION_DELAY },
        { application: 'web-any', instances: 1, reference: ref({ group: anyGroup, version: '1.0.0' }), dubbo: NO_NOTIFICATION_DELAY },
      ],
    }),
  );
}

/** Graceful stop, then a new instance of its group (the fault timeline's restart). */
function restart(world: World, p: ReturnType<typeof providers>[number]): void {
  world.registry.providerStopped(p, true);
  p.state = 'stopped';
  world.startProvider(p.group);
}

/** Pushes per consumer application after `fromMs`. */
function pushesByApp(t: TestWorld, count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of t.observer.pushes.slice(count)) {
    const app = p.instance.slice(0, p.instance.indexOf('@'));
    out[app] = (out[app] ?? 0) + 1;
  }
  return out;
}

/** Restarts group a's first provider at 10 s; the pushes that change makes, per consumer application. */
function restartGroupA(type: 'nacos' | 'zookeeper', anyGroup?: string): { pushes: Record<string, number>; t: TestWorld } {
  const t = groupsWorld(type, anyGroup);
  const [a0] = providers(t.world).filter((p) => p.group.spec.name === 'users-a');
  let before = 0;
  at(t.world, 10_000, () => {
    before = t.observer.pushes.length;
    restart(t.world, a0!);
  });
  t.world.sim.run({ until: 12_000 });
  return { pushes: pushesByApp(t, before), t };
}

describe('Nacos per-group service names', () => {
  it('a restart of group-a providers pushes only to group-a consumers (and to the * consumer)', () => {
    // Deregistration and registration: 2 changes, each to 2 web-a instances and the 1 web-any instance.
    expect(restartGroupA('nacos').pushes).toEqual({ 'web-a': 4, 'web-any': 2 });
  });

  it('ZooKeeper: the same restart pushes to the consumers of every group', () => {
    expect(restartGroupA('zookeeper').pushes).toEqual({ 'web-a': 4, 'web-b': 4, 'web-any': 2 });
  });

  it('hands each consumer only its own group, and the * consumer the union of both', () => {
    const { log, world } = groupsWorld('nacos');
    world.sim.run({ until: 1000 });
    const last = new Map<string, string[]>();
    for (const d of log) last.set(d.instance, d.addresses);
    const zoneOf = (addresses: string[]) => [...new Set(addresses.map((a) => (a.startsWith('10.10.') ? 'a' : 'b')))].sort();
    expect(zoneOf(last.get('web-a@zoneA#0')!)).toEqual(['a']);
    expect(zoneOf(last.get('web-b@zoneA#0')!)).toEqual(['b']);
    expect(zoneOf(last.get('web-any@zoneA#0')!)).toEqual(['a', 'b']);
  });

  it('the * consumer reads each group once when it subscribes (one first read per Nacos service)', () => {
    const { observer } = groupsWorld('nacos');
    const first = observer.pushes.filter((p) => p.instance.startsWith('web-any@'));
    expect(first).toHaveLength(2);
  });

  it('a comma list of groups watches those groups only', () => {
    expect(restartGroupA('nacos', 'b,c').pushes).toEqual({ 'web-a': 4 });
    expect(restartGroupA('nacos', 'a,b').pushes).toEqual({ 'web-a': 4, 'web-any': 2 });
  });

  it('puts the Nacos service name providers:<iface>:<version>:<group> in the push envelope', () => {
    const { t } = restartGroupA('nacos');
    const registry = t.world.registry as DiscoveryRegistry;
    const [a0] = providers(t.world);
    const envelope = (name: string) =>
      utf8Bytes(
        JSON.stringify({
          name: `DEFAULT_GROUP@@${name}`,
          groupName: 'DEFAULT_GROUP',
          clusters: '',
          cacheMillis: 10_000,
          hosts: [],
          lastRefTime: Date.UTC(2026, 0, 1),
          checksum: '',
          allIPs: false,
          reachProtectionThreshold: false,
          valid: true,
        }),
      );
    // web-a's first read at 0 s: group a's two providers.
    const first = t.observer.pushes.find((p) => p.instance === 'web-a@zoneA#0')!;
    expect(first.bytes).toBe(envelope(`providers:${SERVICE}:1.0.0:a`) + 2 * utf8Bytes(a0!.url));
    expect(registry.entryOf(a0!)?.service).toBe(`providers:${SERVICE}:1.0.0:a`);
    // currentList still answers per interface: every group's providers.
    expect(registry.currentList(SERVICE)).toHaveLength(4);
  });

  it('a subscription passed its group and version uses them (the consumer URL), over the reference parameters', () => {
    const t = groupsWorld('nacos');
    const got: number[] = [];
    const subscriber = { id: 'tool@zoneA#0', zone: 'zoneA' };
    t.world.registry.subscribe(subscriber, SERVICE, (l) => got.push(l.length), { group: 'b', version: '1.0.0' });
    t.world.registry.subscribe(subscriber, SERVICE, (l) => got.push(l.length), { group: 'b', version: '2.0.0' });
    expect(got).toEqual([2, 0]);
  });
});

describe('NacosServiceName.isCompatible and the names a subscription watches', () => {
  const known = [`providers:${SERVICE}:1.0.0:a`, `providers:${SERVICE}:2.0.0:b`, `providers:${SERVICE}::`, `providers:other:1.0.0:a`];

  it('watches its own name when group and version are concrete, existing or not', () => {
    expect(subscribedNames(SERVICE, { group: 'c', version: '1.0.0' }, known)).toEqual([`providers:${SERVICE}:1.0.0:c`]);
    expect(subscribedNames(SERVICE, {}, known)).toEqual([`providers:${SERVICE}::`]);
  });

  it('a wildcard group (or version) accepts every name of the interface, whatever the other part', () => {
    expect(subscribedNames(SERVICE, { group: '*', version: '1.0.0' }, known)).toEqual(known.slice(0, 3));
    expect(subscribedNames(SERVICE, { group: 'a', version: '*' }, known)).toEqual(known.slice(0, 3));
  });

  it('a list matches its members; a blank part in a non-concrete subscription matches anything', () => {
    expect(subscribedNames(SERVICE, { group: 'a,b', version: '1.0.0' }, known)).toEqual([known[0]]);
    expect(subscribedNames(SERVICE, { group: 'a,b' }, known)).toEqual(known.slice(0, 2));
  });

  it('follows Java split: "a," is one concrete group, ",a" a list', () => {
    expect(isCompatible({ version: '', group: ',a' }, { version: '', group: 'a' })).toBe(true);
    expect(subscribedNames(SERVICE, { group: 'a,' }, known)).toEqual([`providers:${SERVICE}::a,`]);
  });
});
