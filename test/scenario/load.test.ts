import { readFileSync } from 'node:fs';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, loadScenarioWithRaw, parseScenario } from '../../src/scenario/load.js';

const fixture = (name: string) => join(dirname(fileURLToPath(import.meta.url)), 'fixtures', name);

const MINIMAL = `
zones: { zoneA: {}, zoneB: {} }
services:
  com.example.UserService:
    methods:
      getUserById: { serviceTime: 20ms }
providers:
  - { service: com.example.UserService, zone: zoneA }
  - { service: com.example.UserService, zone: zoneA, count: 2 }
  - { service: com.example.UserService, zone: zoneB }
consumers:
  - { zone: zoneA, rate: 100, calls: { com.example.UserService.getUserById: 1 } }
`;

describe('the SPEC example file', () => {
  const s = loadScenarioFile(fixture('spec-example.yaml'));

  it('keeps the top-level values in ms', () => {
    expect([s.name, s.seed, s.durationMs, s.warmupMs, s.bucketMs]).toEqual(['zone-a-down', 1, 180_000, 10_000, 1000]);
  });

  it('reads zones and the network, with the same-zone RTT and the default for unlisted pairs', () => {
    expect(s.zones).toEqual({ zoneA: { cidr: '10.10.0.0/16' }, zoneB: { cidr: '10.20.0.0/16' } });
    expect(s.network).toEqual({
      sameZone: { dist: 'constant', value: 0.2 },
      default: { dist: 'constant', value: 2 },
      pairs: [
        { from: 'zoneA', to: 'zoneB', dist: { dist: 'lognormal', p50: 3, p99: 8 } },
        { from: 'zoneB', to: 'zoneA', dist: { dist: 'lognormal', p50: 3, p99: 8 } },
      ],
    });
  });

  it('reads the nacos registry', () => {
    expect(s.registry).toEqual({
      type: 'nacos',
      zone: 'zoneA',
      pushLag: { dist: 'uniform', min: 20, max: 300 },
      heartbeatMs: 5000,
      unhealthyAfterMs: 15_000,
      removeAfterMs: 30_000,
      sessionTimeoutMs: 40_000,
      emptyProtection: false,
      registration: 'interface',
      registerDelayMs: 0,
      // connectionBound unset: each provider group's Dubbo profile decides (SPEC 2.11).
      preferred: false,
      weight: 100,
    });
    expect(s.registries).toEqual({});
  });

  it('reads methods with their service-time distributions and defaults', () => {
    expect(s.services['com.example.UserService']!.methods).toEqual({
      getUserById: {
        serviceTime: { dist: 'lognormal', p50: 20, p99: 450 },
        idempotent: true,
        bizErrorRate: 0,
        calls: [],
        parallel: false,
      },
      updateUser: {
        serviceTime: { dist: 'exponential', mean: 30 },
        idempotent: false,
        bizErrorRate: 0,
        calls: [],
        parallel: false,
      },
    });
  });

  it('fills provider defaults and names the unnamed group <service>@<zone>#<index>', () => {
    expect(s.providers).toEqual([
      {
        name: 'users-a',
        service: 'com.example.UserService',
        services: ['com.example.UserService'],
        exports: {},
        zone: 'zoneA',
        count: 20,
        threads: 200,
        queues: 0,
        weight: 100,
        warmupMs: 600_000,
        application: 'UserService-provider',
        params: { zone: 'zoneA' },
        dubbo: defaultProfile('3.3'),
      },
      {
        name: 'com.example.UserService@zoneB#0',
        service: 'com.example.UserService',
        services: ['com.example.UserService'],
        exports: {},
        zone: 'zoneB',
        count: 5,
        threads: 200,
        queues: 0,
        weight: 100,
        warmupMs: 600_000,
        application: 'UserService-provider',
        params: { zone: 'zoneB' },
        dubbo: defaultProfile('3.3'),
      },
    ]);
  });

  it('reads the consumer group with its reference in Dubbo names and leaves absent attributes absent', () => {
    expect(s.consumers).toEqual([
      {
        application: 'web',
        zone: 'zoneA',
        instances: 10,
        ratePerSec: 2000,
        arrival: 'poisson',
        calls: { 'com.example.UserService.getUserById': 0.9, 'com.example.UserService.updateUser': 0.1 },
        reference: {
          'com.example.UserService': {
            timeoutMs: 1000,
            retries: 2,
            loadbalance: 'random',
            cluster: 'failover',
            parameters: {},
            methods: { updateUser: { retries: 0, parameters: {} } },
          },
        },
        consumerDefaults: { parameters: {} },
        attachments: {},
        userIds: 1_000_000,
        dubbo: defaultProfile('3.3'),
      },
    ]);
  });

  it('has no routers, faults or strategies', () => {
    expect([s.routers, s.faults, s.strategies]).toEqual([[], [], {}]);
  });
});

describe('defaults of a minimal file', () => {
  const s = parseScenario(MINIMAL, 'scenarios/minimal.yaml');

  it('names the scenario after the file and uses seed 1, 60s, warmup 5s, bucket 1s', () => {
    expect([s.name, s.description, s.seed, s.durationMs, s.warmupMs, s.bucketMs]).toEqual(['minimal', '', 1, 60_000, 5000, 1000]);
  });

  it('uses a static registry with no push lag', () => {
    expect(s.registry.type).toBe('static');
    expect(s.registry.pushLag).toEqual({ dist: 'constant', value: 0 });
    expect(s.registry.zone).toBeUndefined();
  });

  it('gives zones without a CIDR 10.10.0.0/16, 10.20.0.0/16, ...', () => {
    expect(s.zones).toEqual({ zoneA: { cidr: '10.10.0.0/16' }, zoneB: { cidr: '10.20.0.0/16' } });
  });

  it('indexes default group names among groups of the same service and zone', () => {
    expect(s.providers.map((p) => p.name)).toEqual([
      'com.example.UserService@zoneA#0',
      'com.example.UserService@zoneA#1',
      'com.example.UserService@zoneB#0',
    ]);
  });

  it('gives consumers one instance, Poisson arrivals, no references and a consumer-<index> application', () => {
    const c = s.consumers[0]!;
    expect([c.application, c.instances, c.arrival, c.reference, c.attachments]).toEqual(['consumer-0', 1, 'poisson', {}, {}]);
  });

  it('uses 0.2ms within a zone and 2ms between zones', () => {
    expect(s.network).toEqual({ sameZone: { dist: 'constant', value: 0.2 }, default: { dist: 'constant', value: 2 }, pairs: [] });
  });

  it('gives a nacos registry a uniform 20ms..300ms push lag', () => {
    const n = parseScenario(`${MINIMAL}registry: { type: nacos }\n`, 'x.yaml');
    expect(n.registry.pushLag).toEqual({ dist: 'uniform', min: 20, max: 300 });
  });
});

describe('a file using every section', () => {
  const s = loadScenarioFile(fixture('full.yaml'));

  it('puts a directed RTT entry after the symmetric ones', () => {
    expect(s.network.pairs.map((p) => `${p.from}->${p.to}`)).toEqual(['zoneA->zoneB', 'zoneB->zoneA', 'zoneA->zoneC']);
    expect(s.network.sameZone).toEqual({ dist: 'constant', value: 0.3 });
  });

  it('skips second octets already taken when choosing a default CIDR', () => {
    expect(s.zones.zoneB).toEqual({ cidr: '10.30.0.0/16' });
  });

  it('lets registries entries inherit unset fields from registry, except zone, preferred and weight', () => {
    expect(s.registries.regA).toMatchObject({ type: 'nacos', zone: 'zoneA', preferred: true, weight: 100, sessionTimeoutMs: 20_000, registerDelayMs: 1000 });
    expect(s.registries.regA!.pushLag).toEqual({ dist: 'uniform', min: 20, max: 300 });
    expect(s.registries.regB).toMatchObject({ type: 'zookeeper', zone: 'zoneB', preferred: false, weight: 10, pushLag: { dist: 'constant', value: 50 } });
  });

  it('reads call graphs with their own references', () => {
    const m = s.services['com.example.UserService']!.methods.getUserById!;
    expect(m.parallel).toBe(true);
    expect(m.calls).toEqual([
      { service: 'com.example.OrderService', method: 'list', reference: { timeoutMs: 200, retries: 0, parameters: {}, methods: {} } },
    ]);
  });

  it('keeps URL parameter values as their source text', () => {
    expect(s.providers[0]!.params).toEqual({ zone: 'zoneA', version: '1.0', canary: 'true' });
    expect(s.consumers[0]!.reference['com.example.UserService']!.parameters).toEqual({ 'hash.arguments': '0' });
  });

  it('reads threadpool, with the eager pool\'s threads default (Integer.MAX_VALUE) when threads is not written', () => {
    expect(s.providers.map((p) => [p.threadpool, p.threads, p.queues])).toEqual([
      [undefined, 100, -1],
      ['eager', 2_147_483_647, 0],
      [undefined, 200, 0],
    ]);
  });

  it('reads every reference attribute', () => {
    expect(s.consumers[0]!.reference['com.example.UserService']).toEqual({
      timeoutMs: 1000, retries: 2, loadbalance: 'roundrobin', cluster: 'failover', forks: 3, sticky: true, actives: 5, tag: 'gray',
      mock: 'fail:return null',
      parameters: { 'hash.arguments': '0' },
      methods: { updateUser: { retries: 0, timeoutMs: 3000, mock: 'false', parameters: {} } },
    });
    expect(s.consumers[0]!.consumerDefaults).toEqual({ timeoutMs: 800, parameters: {} });
    expect(s.consumers[0]!.ratePerSec).toBe(2);
  });

  it('reads the three kinds of attachment', () => {
    expect(s.consumers[0]!.attachments).toEqual({
      'dubbo.tag': { kind: 'fraction', value: 'canary', fraction: 0.005 },
      region: { kind: 'all', value: 'east' },
      cohort: { kind: 'when', value: 'gray', when: 'userId % 1000 < 5' },
    });
  });

  it('reads routers with their defaults', () => {
    expect(s.routers).toEqual([
      { type: 'condition', rule: 'host = 10.20.* => host = 10.30.*', force: true, service: 'com.example.UserService' },
      { type: 'tag', rule: 'force: false\ntags: [{ name: gray, addresses: [] }]\n' },
      { type: 'zone', fallback: true, zoneFrom: 'local' },
      { type: 'zone', fallback: false, zoneFrom: 'attachment' },
      { type: 'plugin', module: './my-router.js', options: { x: 1 } },
    ]);
  });

  it('reads every kind of fault action', () => {
    expect(s.faults.map((f) => [f.atMs, f.forMs, f.action, f.label])).toEqual([
      [60_000, 60_000, { kind: 'zoneDown', zone: 'zoneA', mode: 'blackhole' }, 'faults[0]'],
      [61_000, undefined, { kind: 'zoneDown', zone: 'zoneB', mode: 'crash' }, 'faults[1]'],
      [62_000, undefined, { kind: 'zoneDown', zone: 'zoneC', mode: 'crash' }, 'faults[2]'],
      [63_000, undefined, { kind: 'zoneUp', zone: 'zoneB' }, 'faults[3]'],
      [64_000, undefined, { kind: 'crash', zone: 'zoneA', service: 'com.example.UserService', count: 2 }, 'faults[4]'],
      [65_000, undefined, { kind: 'restart', group: 'users-a', fraction: 0.5 }, 'faults[5]'],
      [66_000, undefined, { kind: 'slowdown', zone: 'zoneB', service: 'com.example.OrderService', method: 'list', factor: 3 }, 'faults[6]'],
      [67_000, undefined, { kind: 'partition', zones: ['zoneA', 'zoneB'] }, 'faults[7]'],
      [68_000, undefined, { kind: 'heal', zones: ['zoneA', 'zoneB'] }, 'faults[8]'],
      [69_000, undefined, { kind: 'registryPartition', zone: 'zoneB' }, 'faults[9]'],
      [70_000, 5000, { kind: 'registryDown' }, 'faults[10]'],
      [71_000, undefined, { kind: 'rtt', between: ['zoneA', 'zoneB'], set: { dist: 'constant', value: 40 } }, 'faults[11]'],
      [72_000, undefined, { kind: 'scale', group: 'com.example.OrderService@zoneB#1', count: 6 }, 'faults[12]'],
      [73_000, undefined, { kind: 'rule', op: 'add', router: { type: 'zone', fallback: false, zoneFrom: 'local' } }, 'faults[13]'],
      [74_000, undefined, { kind: 'rule', op: 'remove', router: { type: 'zone', fallback: true, zoneFrom: 'local' }, index: 2 }, 'faults[14]'],
      [75_000, undefined, { kind: 'pushSwitch', on: false }, 'faults[15]'],
      [76_000, undefined, { kind: 'pushSwitch', on: true }, 'faults[16]'],
      [77_000, undefined, { kind: 'rollingRestart', service: 'com.example.OrderService', zone: 'zoneB', batch: 2, intervalMs: 30_000 }, 'faults[17]'],
    ]);
  });

  it('splits a strategy reference into attributes for all services and per-service overrides', () => {
    expect(s.strategies['fast-fail']).toEqual({
      description: 'no retries, short timeouts',
      reference: { retries: 0, timeoutMs: 300, mock: 'force:return null' },
      referenceByService: {
        'com.example.UserService': { loadbalance: 'leastactive', methods: { updateUser: { timeoutMs: 1000, parameters: {} } } },
      },
    });
    expect(s.strategies['zone-first']).toEqual({
      routers: [{ type: 'zone', fallback: true, zoneFrom: 'local' }],
      registry: { emptyProtection: true, pushLag: { dist: 'constant', value: 10 } },
    });
  });

  it('reads the other distributions', () => {
    const m = s.services['com.example.OrderService']!.methods;
    expect(m.list!.serviceTime).toEqual({ dist: 'empirical', p50: 5, p90: 9, p99: 20, p999: 50, max: 1000 });
    expect(m.raw!.serviceTime).toEqual({ dist: 'lognormal', mu: 2.5, sigma: 0.4 });
    expect(m.noisy!.serviceTime).toEqual({
      dist: 'mixture',
      components: [
        { weight: 1, dist: 'normal', mean: 10, stddev: 2 },
        { weight: 1, dist: 'pareto', scale: 1, shape: 1.5 },
      ],
    });
  });
});

describe('JSON input', () => {
  it('parses a JSON file to the same scenario as the equivalent YAML', () => {
    const json = JSON.stringify({
      zones: { zoneA: {}, zoneB: {} },
      services: { 'com.example.UserService': { methods: { getUserById: { serviceTime: '20ms' } } } },
      providers: [
        { service: 'com.example.UserService', zone: 'zoneA' },
        { service: 'com.example.UserService', zone: 'zoneA', count: 2 },
        { service: 'com.example.UserService', zone: 'zoneB' },
      ],
      consumers: [{ zone: 'zoneA', rate: 100, calls: { 'com.example.UserService.getUserById': 1 } }],
    }, null, '\t');
    expect(parseScenario(json, 'minimal.json')).toEqual(parseScenario(MINIMAL, 'minimal.yaml'));
  });

  it('accepts a $schema key for editors', () => {
    const json = readFileSync(fixture('minimal.json'), 'utf8');
    expect(parseScenario(json, 'minimal.json').zones).toEqual({ zoneA: { cidr: '10.10.0.0/16' } });
  });
});

describe('loadScenarioWithRaw', () => {
  it('returns the file text unchanged when there are no overrides', () => {
    const { rawText } = loadScenarioWithRaw(fixture('spec-example.yaml'));
    expect(rawText).toBe(readFileSync(fixture('spec-example.yaml'), 'utf8'));
  });

  it('returns the document with the overrides written in', () => {
    const { scenario, rawText } = loadScenarioWithRaw(fixture('spec-example.yaml'), ['duration=10m']);
    expect(scenario.durationMs).toBe(600_000);
    expect(rawText).toMatch(/^duration: 10m/m);
    expect(parseScenario(rawText, 'again.yaml')).toEqual({ ...scenario, name: 'zone-a-down' });
  });
});

describe('YAML conveniences', () => {
  it('resolves anchors, aliases and merge keys', () => {
    const text = `${MINIMAL}    reference:
      com.example.UserService: { <<: &fast { timeout: 200ms, retries: 0 }, loadbalance: roundrobin }
`.replace('  - { zone: zoneA, rate: 100, calls: { com.example.UserService.getUserById: 1 } }\n', '  - zone: zoneA\n    rate: 100\n    calls: { com.example.UserService.getUserById: 1 }\n');
    expect(parseScenario(text, 'x.yaml').consumers[0]!.reference['com.example.UserService']).toEqual({
      timeoutMs: 200, retries: 0, loadbalance: 'roundrobin', parameters: {}, methods: {},
    });
  });
});
