/**
 * `zonesim check` on the registry's nodes (issue 40, item 4): a roomDown or partition that takes a
 * ZooKeeper ensemble's quorum, or every node some clients can reach; and a roomDown of the zone of a
 * registry without `servers` (its only node).
 */
import { describe, expect, it } from 'vitest';
import { checkScenario } from '../../src/analysis/check.js';
import { parseScenario } from '../../src/scenario/load.js';

/** users in zoneA, zoneB and zoneC (4 each), web in each zone; the registry as given. */
function rooms(opts: { registry: string; faults: string }): string {
  return `
name: rooms
duration: 60s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
  zoneC: { cidr: 10.30.0.0/16 }
network:
  rtt:
    default: 3ms
registry: ${opts.registry}
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 10ms }
providers:
  - { name: users-a, service: com.example.UserService, zone: zoneA, count: 4 }
  - { name: users-b, service: com.example.UserService, zone: zoneB, count: 4 }
  - { name: users-c, service: com.example.UserService, zone: zoneC, count: 4 }
consumers:
  - { application: web, zone: zoneA, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
  - { application: web, zone: zoneB, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
  - { application: web, zone: zoneC, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
faults: ${opts.faults}
`;
}
const KINDS = ['registry-quorum-lost', 'registry-unreachable', 'registry-zone-down', 'registry-zone-cut'];
const warnings = (text: string) => checkScenario(parseScenario(text, 'rooms.yaml')).warnings.filter((w) => KINDS.includes(w.kind));
const ZK_2_1 = '{ type: zookeeper, servers: { zoneA: 2, zoneB: 1 } }';

describe('a ZooKeeper ensemble of 2 + 1 nodes', () => {
  it('loses its quorum when the 2-node room goes dark: writes stop until roomUp', () => {
    const ws = warnings(rooms({ registry: ZK_2_1, faults: '[{ at: 20s, roomDown: zoneA }, { at: 50s, roomUp: zoneA }]' }));
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ kind: 'registry-quorum-lost', registry: 'registry', fault: 'faults[0]', phase: { fromMs: 20_000, toMs: 50_000 } });
    expect(ws[0]!.message).toContain('the registry (zookeeper, nodes zoneA 2, zoneB 1) keeps at most 1 of its 3 nodes able to reach one leader');
    expect(ws[0]!.message).toContain('writes stop: no registrations, no expiries, no watches; consumers keep stale lists until it returns');
  });

  it('keeps its quorum when the 1-node room goes dark (2 of 3 is a majority): no warning', () => {
    expect(warnings(rooms({ registry: ZK_2_1, faults: '[{ at: 20s, for: 10s, roomDown: zoneB }]' }))).toEqual([]);
  });

  it('keeps a quorum through one partition of a 2 + 2 + 1 ensemble, and names the zone a second one leaves outside it', () => {
    const ws = warnings(rooms({ registry: '{ type: zookeeper, servers: { zoneA: 2, zoneB: 2, zoneC: 1 } }', faults: '[{ at: 10s, partition: [zoneA, zoneB] }]' }));
    // A leader in zoneA reaches zoneA and zoneC (3 of 5): still a quorum; zoneB's clients reach zoneC, a follower of it.
    expect(ws).toEqual([]);
    const both = warnings(
      rooms({ registry: '{ type: zookeeper, servers: { zoneA: 2, zoneB: 2, zoneC: 1 } }', faults: '[{ at: 10s, partition: [zoneA, zoneB] }, { at: 20s, partition: [zoneA, zoneC] }]' }),
    );
    // Then a leader in zoneB reaches zoneB and zoneC (3 of 5): the quorum moves there, and zoneA's clients reach none of it.
    expect(both.map((w) => [w.kind, w.fault, w.zone])).toEqual([['registry-unreachable', 'faults[1]', 'zoneA']]);
    expect(both[0]!.message).toContain('the clients of the registry (zookeeper, nodes zoneA 2, zoneB 2, zoneC 1) in zoneA can reach no node of the quorum');
    expect(both[0]!.message).toContain('its providers (users-a) are not heard, so their sessions expire after 40 s and they leave every list');
  });

  it('names the zone whose clients a second partition cuts from every node of the quorum, for that partition\'s span', () => {
    const ws = warnings(
      rooms({
        registry: '{ type: zookeeper, servers: { zoneA: 2, zoneB: 2, zoneC: 1 } }',
        faults: '[{ at: 10s, for: 20s, partition: [zoneA, zoneB] }, { at: 15s, for: 5s, partition: [zoneB, zoneC] }]',
      }),
    );
    // After the second cut: a leader in zoneA reaches zoneA + zoneC = 3 of 5; still a quorum, but zoneB reaches neither A nor C.
    expect(ws.map((w) => [w.kind, w.fault, w.zone, w.phase])).toEqual([['registry-unreachable', 'faults[1]', 'zoneB', { fromMs: 15_000, toMs: 20_000 }]]);
  });
});

describe('Nacos nodes and single nodes', () => {
  it('warns when a partition leaves a zone\'s clients without any Nacos node', () => {
    const ws = warnings(rooms({ registry: '{ type: nacos, servers: { zoneA: 1, zoneB: 1 } }', faults: '[{ at: 10s, partition: [zoneC, zoneA] }, { at: 20s, partition: [zoneC, zoneB] }]' }));
    expect(ws.map((w) => [w.kind, w.fault, w.zone])).toEqual([['registry-unreachable', 'faults[1]', 'zoneC']]);
    expect(ws[0]!.message).toContain('in zoneC can reach no node: its consumers (web) get no pushes and keep stale lists; its providers (users-c) are not heard, so Nacos drops them');
  });

  it('does not count a Nacos cluster\'s lost nodes as a quorum: the room left keeps serving its clients', () => {
    expect(warnings(rooms({ registry: '{ type: nacos, servers: { zoneA: 2, zoneB: 1 } }', faults: '[{ at: 10s, roomDown: zoneA }]' }))).toEqual([]);
  });

  it('warns when a roomDown takes the zone of a registry without servers (its only node), until roomUp', () => {
    const ws = warnings(rooms({ registry: '{ type: zookeeper, zone: zoneA }', faults: '[{ at: 20s, roomDown: zoneA }, { at: 40s, roomUp: zoneA }]' }));
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ kind: 'registry-zone-down', zone: 'zoneA', fault: 'faults[0]', phase: { fromMs: 20_000, toMs: 40_000 } });
    expect(ws[0]!.message).toContain('takes down zoneA and with it the registry (zookeeper, in zoneA), its only node');
    // Another room, or a registry with nodes in several rooms: nothing from this rule.
    expect(warnings(rooms({ registry: '{ type: zookeeper, zone: zoneA }', faults: '[{ at: 20s, roomDown: zoneB }]' }))).toEqual([]);
  });

  it('leaves a partition of a registry with servers to the node rule (no registry-zone-cut from its zone)', () => {
    const ws = warnings(rooms({ registry: '{ type: nacos, zone: zoneA, servers: { zoneA: 1, zoneB: 1 } }', faults: '[{ at: 10s, partition: [zoneA, zoneC] }]' }));
    expect(ws).toEqual([]);
  });
});
