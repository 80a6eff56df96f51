/**
 * The scenario keys of the registry as a server and of a dark room (SPEC 2.5, 2.8): what they load
 * as, how they are written back by `--dump`, and the errors that name the field.
 */
import { describe, expect, it } from 'vitest';
import { dumpScenarioYaml } from '../../src/scenario/dump.js';
import { parseScenario } from '../../src/scenario/load.js';
import { parseBandwidth, parseSize } from '../../src/model/unit-text.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';

const BASE = `zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
  zoneC: { cidr: 10.30.0.0/16 }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 20ms }
providers:
  - { service: com.example.UserService, zone: zoneA, count: 2 }
consumers:
  - { application: web, zone: zoneA, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
`;

describe('registry server keys', () => {
  it('loads servers, capacity, pushRate, simplified URLs and jute.maxbuffer in the units the model uses', () => {
    const s = parseScenario(
      `${BASE}registry:
  type: zookeeper
  servers: { zoneA: 2, zoneB: 1 }
  capacity: { bandwidth: 1Gbps, requests: 20000/s }
  pushRate: { interval: 10s }
  simplified: true
  extraKeys: [weight, warmup]
  juteMaxBuffer: 4MB
`,
      'ok.yaml',
    );
    expect(s.registry.servers).toEqual({ zoneA: 2, zoneB: 1 });
    expect(s.registry.capacity).toEqual({ bandwidthBytesPerSec: 125_000_000, requestsPerSec: 20_000 });
    expect(s.registry.pushRate).toEqual({ intervalMs: 10_000 });
    expect(s.registry.simplified).toBe(true);
    expect(s.registry.extraKeys).toEqual(['weight', 'warmup']);
    expect(s.registry.juteMaxBufferBytes).toBe(4 * 1024 * 1024);
    // Written back, it loads to the same registry.
    const again = parseScenario(dumpScenarioYaml(s), 'dump.yaml');
    expect(again.registry).toEqual(s.registry);
  });

  it('leaves every server key out when none is written (the unlimited registry)', () => {
    const s = parseScenario(`${BASE}registry: { type: nacos }\n`, 'ok.yaml');
    for (const key of ['servers', 'capacity', 'pushRate', 'simplified', 'extraKeys', 'juteMaxBufferBytes']) {
      expect(s.registry).not.toHaveProperty(key);
    }
  });

  it('does not let a registries: entry inherit the nodes of registry: (each cluster has its own), but capacity yes', () => {
    const s = parseScenario(
      `${BASE}registry: { type: zookeeper, servers: { zoneA: 3 }, capacity: { bandwidth: 100Mbps } }
registries:
  other: { type: nacos, zone: zoneB }
`,
      'ok.yaml',
    );
    expect(s.registries.other!.servers).toBeUndefined();
    expect(s.registries.other!.capacity).toEqual({ bandwidthBytesPerSec: 12_500_000 });
  });

  it('names the field of a malformed bandwidth, an unknown server zone and a zero node count', () => {
    expect(scenarioErrorOf(`${BASE}registry: { type: zookeeper, capacity: { bandwidth: 1GB } }\n`).format()).toMatch(
      /registry\.capacity\.bandwidth.*expected a bandwidth such as 1Gbps/s,
    );
    expect(scenarioErrorOf(`${BASE}registry: { type: zookeeper, servers: { zoneQ: 1 } }\n`).format()).toMatch(/registry\.servers\.zoneQ.*zoneQ/s);
    expect(scenarioErrorOf(`${BASE}registry: { type: zookeeper, servers: { zoneA: 0 } }\n`).format()).toMatch(/registry\.servers\.zoneA/);
  });

  it('parses bandwidths in bits per second (decimal) and bytes per second, sizes in binary multiples', () => {
    expect(parseBandwidth('1Gbps')).toBe(125_000_000);
    expect(parseBandwidth('100 Mbps')).toBe(12_500_000);
    expect(parseBandwidth('125MB/s')).toBe(125_000_000);
    expect(parseBandwidth('0Gbps')).toBeUndefined();
    expect(parseBandwidth(1000)).toBeUndefined();
    expect(parseSize('1MB')).toBe(1_048_576);
    expect(parseSize('512KB')).toBe(524_288);
    expect(parseSize(1_048_575)).toBe(1_048_575);
    expect(parseSize('1GB')).toBeUndefined();
  });
});

/** BASE with web also in zoneB and zoneC, where a shift of zoneA's traffic can go. */
const WEB_BC = `${BASE}  - { application: web, zone: zoneB, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
  - { application: web, zone: zoneC, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
`;

describe('roomDown and roomUp faults', () => {
  it('load with an optional shift of the dark room\'s traffic, and dump back', () => {
    const s = parseScenario(
      `${WEB_BC}faults:
  - { at: 60s, roomDown: zoneA, shift: { zoneB: 0.6, zoneC: 0.4 }, for: 2m }
  - { at: 300s, roomUp: zoneA }
`,
      'ok.yaml',
    );
    expect(s.faults[0]!.action).toEqual({ kind: 'roomDown', zone: 'zoneA', shift: { zoneB: 0.6, zoneC: 0.4 } });
    expect(s.faults[0]!.forMs).toBe(120_000);
    expect(s.faults[1]!.action).toEqual({ kind: 'roomUp', zone: 'zoneA' });
    expect(parseScenario(dumpScenarioYaml(s), 'dump.yaml').faults).toEqual(s.faults);
  });

  it('refuses a shift without roomDown, a shift into the dark room itself, and unknown zones', () => {
    expect(scenarioErrorOf(`${BASE}faults:\n  - { at: 1s, zoneDown: zoneA, shift: { zoneB: 1 } }\n`).format()).toMatch(/shift goes with roomDown/);
    expect(scenarioErrorOf(`${BASE}faults:\n  - { at: 1s, roomDown: zoneA, shift: { zoneA: 1 } }\n`).format()).toMatch(/cannot take its own traffic/);
    expect(scenarioErrorOf(`${BASE}faults:\n  - { at: 1s, roomDown: zoneQ }\n`).format()).toMatch(/faults\[0\]\.roomDown/);
  });

  it('refuses a shift to a room where a consumer of the dark room has no group, naming the field and the consumer', () => {
    const text = `${BASE}  - { application: web, zone: zoneB, rate: 100/s, calls: { com.example.UserService.getUserById: 1 } }
faults:
  - { at: 1s, roomDown: zoneA, shift: { zoneB: 0.6, zoneC: 0.4 } }
`;
    const message = scenarioErrorOf(text).format();
    expect(message).toMatch(/faults\[0\]\.shift\.zoneC/);
    expect(message).toContain('consumer "web" of the dark room zoneA has no group in zoneC');
    expect(message).not.toMatch(/shift\.zoneB/);
    // A room without consumers has nothing to shift, and no target needs a group.
    expect(parseScenario(`${BASE}faults:\n  - { at: 1s, roomDown: zoneC, shift: { zoneB: 1 } }\n`, 'ok.yaml').faults).toHaveLength(1);
  });
});
