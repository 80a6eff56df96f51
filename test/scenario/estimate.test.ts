import { describe, expect, it } from 'vitest';
import { COST_MODEL, distMeanMs, estimateCost } from '../../src/scenario/estimate.js';
import { costProblems, MAX_BUCKETS, type CostLimits } from '../../src/scenario/estimate-limits.js';
import { scopeTimelineRows } from '../../src/scenario/estimate-summary-size.js';
import { MAX_SCOPE_TIMELINE_ROWS } from '../../src/metrics/recorder.js';
import { join } from 'node:path';
import { loadScenarioWithRaw, parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { repoRoot } from '../helpers/cli.js';

/** A small valid scenario; `extra` lines are appended at the top level, `sets` are --set overrides. */
function scenario(extra = '', sets: string[] = []) {
  const text = `
name: est
duration: 60s
warmup: 10s
zones:
  zoneA: { cidr: 10.0.0.0/8 }
  zoneB: { cidr: 11.20.0.0/16 }
registry: { type: nacos }
services:
  com.example.S:
    methods:
      get: { serviceTime: 10ms }
      put: { serviceTime: 20ms }
providers:
  - { name: s-a, service: com.example.S, zone: zoneA, count: 10 }
  - { name: s-b, service: com.example.S, zone: zoneB, count: 5 }
consumers:
  - application: web
    zone: zoneA
    instances: 4
    rate: 100/s
    calls: { com.example.S.get: 3, com.example.S.put: 1 }
${extra}`;
  return parseScenario(text, 'est.yaml', sets);
}

const LIMITS: CostLimits = { maxRequests: 2e8, memoryMb: 4000, maxBuckets: MAX_BUCKETS };

describe('estimateCost', () => {
  it('counts rate x duration as the edge requests and one bucket per bucket width of the measured window', () => {
    const e = estimateCost(scenario());
    expect(e.edgeRequests).toBe(6000);
    expect(e.requests).toBe(6000);
    expect(e.buckets).toBe(50);
    expect(e.consumerInstances).toBe(4);
    expect(e.providersAtStart).toBe(15);
    expect(e.providersAddedByFaults).toBe(0);
  });

  it('integrates traffic faults: a rate set for a while, then restored', () => {
    const e = estimateCost(scenario(`faults:\n  - { at: 20s, for: 10s, traffic: { consumer: web, rate: 1000/s } }\n`));
    // 50 s at 100/s + 10 s at 1000/s.
    expect(e.edgeRequests).toBeCloseTo(5000 + 10000, 6);
  });

  it('multiplies by a traffic factor until the end when there is no for:', () => {
    const e = estimateCost(scenario(`faults:\n  - { at: 30s, traffic: { consumer: web, factor: 3 } }\n`));
    expect(e.edgeRequests).toBeCloseTo(3000 + 9000, 6);
  });

  it('counts providers that faults start: scale-out, restarts and the replacements of crashed instances', () => {
    const e = estimateCost(
      scenario(`faults:
  - { at: 5s, scale: { group: s-a, count: 30 } }
  - { at: 10s, restart: { group: s-b, count: 2 } }
  - { at: 20s, for: 5s, crash: { group: s-b, count: 3 } }
`),
    );
    expect(e.providersAddedByFaults).toBe(20 + 2 + 3);
    expect(e.pushDeliveries).toBeGreaterThan(0);
  });

  it('grows memory with consumer instances, providers, buckets and registry bursts', () => {
    const base = estimateCost(scenario()).memoryMb;
    expect(estimateCost(scenario('', ['consumers[0].instances=40000', 'consumers[0].cohorts=off'])).memoryMb.consumers).toBeGreaterThan(base.consumers + 200);
    // A cohort (auto from 1,000 instances) holds the state of its 32 representatives only.
    expect(estimateCost(scenario('', ['consumers[0].instances=40000'])).memoryMb.consumers).toBeLessThan(base.consumers + 2);
    expect(estimateCost(scenario('', ['providers[0].count=100000'])).memoryMb.providers).toBeGreaterThan(base.providers + 400);
    // A row per bucket, and one per zone and provider group and bucket while those fit the recorder's cap.
    const fine = scenario('', ['bucket=1ms']);
    const scopes = Object.keys(fine.zones).length + fine.providers.length;
    expect(scopes * 50_000).toBeLessThanOrEqual(MAX_SCOPE_TIMELINE_ROWS);
    expect(estimateCost(fine).memoryMb.timeline).toBeCloseTo(
      (50_000 * COST_MODEL.bytesPerBucket + scopes * 50_000 * COST_MODEL.bytesPerScopeRow) / 2 ** 20,
      6,
    );
    // Beyond the cap the summary has no per-zone or per-group rows, and the estimate counts none.
    const finer = scenario('', ['bucket=0.1ms']);
    expect(estimateCost(finer).memoryMb.timeline).toBeCloseTo((500_000 * COST_MODEL.bytesPerBucket) / 2 ** 20, 6);
    expect(scopeTimelineRows(finer, MAX_SCOPE_TIMELINE_ROWS)).toBe(0);
    const burst = estimateCost(scenario(`faults:\n  - { at: 5s, scale: { group: s-a, count: 5000 } }\n`)).memoryMb.registry;
    expect(burst).toBeGreaterThan(1000);
  });

  it("counts a provider's registry state by how it registers: at both levels, as a client of a Nacos server", () => {
    const MB = 2 ** 20;
    const providersMb = (sets: string[]) => estimateCost(scenario('', sets)).memoryMb.providers;
    // 15 providers of one export each.
    const plain = (15 * COST_MODEL.bytesPerProvider) / MB;
    const bothLevels = (15 * COST_MODEL.bytesPerDualRegistration) / MB;
    const nacosClients = (15 * COST_MODEL.bytesPerNacosServerClient) / MB;
    // Dubbo 3.3 registers at both levels by default (register-mode all); 2.7 and `registration: interface` at interface
    // level only, `registration: application` at application level only (no more than interface level: measured less).
    expect(providersMb([])).toBeCloseTo(plain + bothLevels, 9);
    expect(providersMb(['dubbo=2.7'])).toBeCloseTo(plain, 9);
    expect(providersMb(['registry.registration=interface'])).toBeCloseTo(plain, 9);
    expect(providersMb(['registry.registration=application'])).toBeCloseTo(plain, 9);
    // Nacos modeled as a server adds each provider's client; ZooKeeper's is in `bytesPerProvider` (fitted on it); a static registry keeps none.
    expect(providersMb(['registry.servers={zoneA: 1}'])).toBeCloseTo(plain + bothLevels + nacosClients, 9);
    expect(providersMb(['registry.capacity={bandwidth: 1Gbps}', 'dubbo=2.7'])).toBeCloseTo(plain + nacosClients, 9);
    expect(providersMb(['registry.type=zookeeper', 'registry.servers={zoneA: 1}'])).toBeCloseTo(plain + bothLevels, 9);
    expect(providersMb(['registry.type=static'])).toBeCloseTo(plain, 9);
  });

  it('counts each provider instance`s export whose URL may activate a limit filter (executes, tps, or such a param)', () => {
    const MB = 2 ** 20;
    const limited = COST_MODEL.bytesPerLimitedExport / MB;
    const base = estimateCost(scenario()).memoryMb.providers;
    const providersMb = (sets: string[]) => estimateCost(scenario('', sets)).memoryMb.providers - base;
    // s-a: 10 processes, s-b: 5.
    expect(providersMb(['providers[0].exports={com.example.S: {executes: 10}}'])).toBeCloseTo(10 * limited, 9);
    expect(providersMb(['providers[1].exports={com.example.S: {tps: 100}}'])).toBeCloseTo(5 * limited, 9);
    expect(providersMb(['providers[1].exports={com.example.S: {methods: {get: {executes: 2}}}}'])).toBeCloseTo(5 * limited, 9);
    expect(providersMb(['providers[0].params={get.executes: "3"}'])).toBeCloseTo(10 * limited, 9);
    // An export setting that activates neither filter costs nothing of this.
    expect(providersMb(['providers[0].exports={com.example.S: {params: {shard: "a"}}}'])).toBeCloseTo(0, 9);
  });

  it('counts a router in each reference`s chain for every condition and tag rule (not one for another service)', () => {
    const MB = 2 ** 20;
    const router = COST_MODEL.bytesPerConditionRouter / MB;
    const base = estimateCost(scenario()).memoryMb.consumers;
    const rule = (key: string) => `  - type: condition\n    rule: |\n      scope: application\n      key: ${key}\n      conditions:\n        - "=> zone = zoneA"\n`;
    const consumersMb = (routers: string) => estimateCost(scenario(`routers:\n${routers}`)).memoryMb.consumers - base;
    // 4 instances, one reference each; every reference builds each rule's router, whichever application it names.
    expect(consumersMb(rule('web'))).toBeCloseTo(4 * router, 9);
    expect(consumersMb(rule('web') + rule('batch'))).toBeCloseTo(8 * router, 9);
    expect(consumersMb(`  - { type: condition, service: com.example.S, rule: "=> zone = zoneA" }\n`)).toBeCloseTo(4 * router, 9);
    expect(consumersMb(`  - { type: zone, fallback: true }\n`)).toBeCloseTo(0, 9);
    // A tag rule: its own figure per reference.
    const tag = `  - type: tag\n    rule: |\n      key: s\n      tags:\n        - { name: gray, match: [{ key: dubbo.tag, value: { exact: gray } }] }\n`;
    expect(consumersMb(tag)).toBeCloseTo((4 * COST_MODEL.bytesPerTagRule) / MB, 9);
    expect(consumersMb(tag + rule('web'))).toBeCloseTo((4 * COST_MODEL.bytesPerTagRule) / MB + 4 * router, 9);
    // A rule for another service: not in the chains of references to com.example.S.
    const twoServices = (routers: string) =>
      estimateCost(
        parseScenario(
          `name: est\nduration: 60s\nzones: { zoneA: {} }\nregistry: { type: static }\nservices:\n  com.example.S: { methods: { get: { serviceTime: 10ms } } }\n` +
            `  com.example.T: { methods: { get: { serviceTime: 10ms } } }\nproviders:\n  - { name: s, service: com.example.S, zone: zoneA, count: 2 }\n` +
            `  - { name: t, service: com.example.T, zone: zoneA, count: 2 }\nconsumers:\n  - { application: web, zone: zoneA, instances: 4, rate: 10/s, calls: { com.example.S.get: 1 } }\n${routers}`,
          'est.yaml',
        ),
      ).memoryMb.consumers;
    const none = twoServices('');
    expect(twoServices('routers:\n  - { type: condition, service: com.example.T, rule: "=> zone = zoneA" }\n') - none).toBeCloseTo(0, 9);
    expect(twoServices('routers:\n  - { type: condition, service: com.example.S, rule: "=> zone = zoneA" }\n') - none).toBeCloseTo(4 * router, 9);
  });

  it('counts one consistenthash ring per consumer group and service, shared by its instances', () => {
    const MB = 2 ** 20;
    const ring = (15 * COST_MODEL.bytesPerHashRingProvider) / MB;
    const lb = (sets: string[]) => estimateCost(scenario('', sets)).memoryMb.loadBalancers;
    expect(lb(['consumers[0].reference={com.example.S: {loadbalance: consistenthash}}'])).toBeCloseTo(ring, 9);
    // As many instances again: the same one ring.
    expect(lb(['consumers[0].reference={com.example.S: {loadbalance: consistenthash}}', 'consumers[0].instances=400'])).toBeCloseTo(ring, 9);
    expect(lb(['consumers[0].reference={com.example.S: {methods: {get: {loadbalance: consistenthash}}}}'])).toBeCloseTo(ring, 9);
    expect(lb([])).toBeCloseTo(0, 9);
  });

  it('counts a Sentinel JVM for each provider process and simulated consumer instance that loads rules, or that a sentinel fault may give some', () => {
    const MB = 2 ** 20;
    const jvm = COST_MODEL.bytesPerSentinelJvm / MB;
    const base = estimateCost(scenario()).memoryMb;
    const flow = '{ flowRules: [{ resource: com.example.S, count: 5 }] }';
    // One provider group's 10 processes.
    const own = estimateCost(scenario('', [`providers[0].sentinel=${flow}`])).memoryMb;
    expect(own.providers - base.providers).toBeCloseTo(10 * jvm, 9);
    expect(own.consumers).toBeCloseTo(base.consumers, 9);
    // Top-level rules: every JVM (15 processes, 4 consumer instances).
    const top = estimateCost(scenario(`sentinel: ${flow}`)).memoryMb;
    expect(top.providers - base.providers).toBeCloseTo(15 * jvm, 9);
    expect(top.consumers - base.consumers).toBeCloseTo(4 * jvm, 9);
    // A datasource update for web's JVMs later in the run: web's 4 instances load Sentinel from the start.
    const later = estimateCost(scenario(`faults:\n  - { at: 20s, sentinel: { application: web, flowRules: [{ resource: com.example.S, count: 5 }] } }\n`)).memoryMb;
    expect(later.consumers - base.consumers).toBeCloseTo(4 * jvm, 9);
    expect(later.providers).toBeCloseTo(base.providers, 9);
  });

  it('counts the registry state and liveness ticks of a provider group only at the registries it registers with', () => {
    const MB = 2 ** 20;
    // Two Nacos servers, one a zone; each zone's group registers with its own (s-a: 10, s-b: 5 providers), or with both.
    const registries = ['registries={ra: {type: nacos, zone: zoneA, servers: {zoneA: 1}}, rb: {type: nacos, zone: zoneB, servers: {zoneB: 1}}}'];
    const own = estimateCost(scenario('', [...registries, 'providers[0].registries=[ra]', 'providers[1].registries=[rb]']));
    const both = estimateCost(scenario('', registries));
    const perRegistry = (15 * (COST_MODEL.bytesPerDualRegistration + COST_MODEL.bytesPerNacosServerClient)) / MB;
    expect(own.memoryMb.providers).toBeCloseTo((15 * COST_MODEL.bytesPerProvider) / MB + perRegistry, 9);
    // The second registration of each provider (one export): its state and record there; Nacos's client is per registry above.
    const further = (15 * (COST_MODEL.bytesPerFurtherRegistration + COST_MODEL.bytesPerFurtherRegistrationExport)) / MB;
    expect(both.memoryMb.providers).toBeCloseTo((15 * COST_MODEL.bytesPerProvider) / MB + 2 * perRegistry + further, 9);
    expect(own.heartbeats * 2).toBeCloseTo(both.heartbeats, 6);
    // A consumer reference keeps a directory at each registry its group subscribes to (4 instances, one service).
    expect(both.references).toBe(2 * 4);
    expect(estimateCost(scenario('', [...registries, 'consumers[0].registries=[ra]'])).references).toBe(4);
    expect(estimateCost(scenario()).references).toBe(4);
  });

  it('counts each registration after a provider\'s first: a record per export, and a client of a ZooKeeper server', () => {
    const MB = 2 ** 20;
    const zk = (servers: string) => `registries={ra: {type: zookeeper, zone: zoneA${servers}}, rb: {type: zookeeper, zone: zoneB${servers}}}`;
    // Interface level only: at both levels (3.3's default) each registration also costs `bytesPerDualRegistration`.
    const providersMb = (overrides: string[]) => estimateCost(scenario('', ['registry.registration=interface', ...overrides])).memoryMb.providers;
    const one = providersMb([zk(''), 'providers[0].registries=[ra]', 'providers[1].registries=[ra]']);
    const both = providersMb([zk('')]);
    // 15 providers of one export each register twice: the second costs their state and record there.
    const perExport = COST_MODEL.bytesPerFurtherRegistrationExport;
    expect(both - one).toBeCloseTo((15 * (COST_MODEL.bytesPerFurtherRegistration + perExport)) / MB, 9);
    // As servers, each second registration is a ZooKeeper session too.
    const oneServed = providersMb([zk(', servers: {zoneA: 1}'), 'providers[0].registries=[ra]', 'providers[1].registries=[ra]']);
    const bothServed = providersMb([zk(', servers: {zoneA: 1}')]);
    expect(bothServed - oneServed).toBeCloseTo((15 * (COST_MODEL.bytesPerFurtherRegistration + perExport + COST_MODEL.bytesPerFurtherZookeeperClient)) / MB, 9);
    // Three exports each (12 processes): three records at the second registry.
    const threeExports = (registries: string) =>
      estimateCost(
        parseScenario(
          `
name: three
duration: 60s
zones: { zoneA: { cidr: 10.0.0.0/8 } }
registry: { type: zookeeper, registration: interface }
registries: { ra: { zone: zoneA }, rb: { zone: zoneA } }
services:
  com.example.S: { methods: { m: { serviceTime: 5ms } } }
  com.example.T: { methods: { m: { serviceTime: 5ms } } }
  com.example.U: { methods: { m: { serviceTime: 5ms } } }
providers:
  - { name: p, services: [com.example.S, com.example.T, com.example.U], zone: zoneA, count: 12, registries: ${registries} }
consumers:
  - { application: web, zone: zoneA, instances: 2, rate: 10/s, calls: { com.example.S.m: 1 } }
`,
          'three.yaml',
        ),
      ).memoryMb.providers;
    expect(threeExports('[ra, rb]') - threeExports('[ra]')).toBeCloseTo((12 * (COST_MODEL.bytesPerFurtherRegistration + 3 * perExport)) / MB, 9);
  });

  it("adds up the registry bursts of every group a fault changes at one instant, in lists that hold the other groups' providers", () => {
    // A dark zone coming back: every application's zoneA instances register again at once, each change pushed on
    // its own (a registry without servers) to lists that still hold the application's zoneB instances.
    const estate = (apps: number, registry = '{ type: nacos }', count = 200) => {
      const services = Array.from({ length: apps }, (_, i) => `  com.example.S${i}: { methods: { get: { serviceTime: 10ms } } }`).join('\n');
      const groups = Array.from({ length: apps }, (_, i) =>
        ['A', 'B'].map((z) => `  - { name: a${i}-${z}, application: a${i}, service: com.example.S${i}, zone: zone${z}, count: ${count} }`).join('\n'),
      ).join('\n');
      const consumers = Array.from({ length: apps }, (_, i) => `  - { application: c${i}, zone: zoneB, instances: 4, rate: 10/s, calls: { com.example.S${i}.get: 1 } }`).join('\n');
      return parseScenario(
        `name: dark\nduration: 200s\nzones:\n  zoneA: { cidr: 10.0.0.0/16 }\n  zoneB: { cidr: 10.1.0.0/16 }\nregistry: ${registry}\nservices:\n${services}\n` +
          `providers:\n${groups}\nconsumers:\n${consumers}\nfaults:\n  - { at: 60s, for: 60s, zoneDown: zoneA }\n`,
        'dark.yaml',
      );
    };
    const one = estimateCost(estate(1));
    const ten = estimateCost(estate(10));
    expect(one.registryBurst).toMatchObject({ atMs: 120_000, changes: 200, groups: 1 });
    expect(ten.registryBurst).toMatchObject({ atMs: 120_000, changes: 2000, groups: 10 });
    expect(ten.memoryMb.registry).toBeCloseTo(10 * one.memoryMb.registry, 6);
    // 200 changes to a list of zoneB's 200 and the 100 of zoneA back on average: 200 x 300 entries queued.
    const entries = 200 * (200 + 200 / 2);
    expect(one.memoryMb.registry * 2 ** 20).toBeCloseTo(entries * COST_MODEL.bytesPerSnapshotEntry + 200 * 4 * COST_MODEL.bytesPerDelivery, 0);
    // Nacos as a server merges a list's changes into one push per 500 ms: one snapshot per list is queued.
    const merged = estimateCost(estate(10, '{ type: nacos, capacity: { bandwidth: 1Gbps } }'));
    expect(merged.memoryMb.registry).toBeLessThan(ten.memoryMb.registry / 100);
    // The refusal names the instant, the changes, the groups and the ways out.
    const big = estimateCost(estate(10, '{ type: nacos }', 2000));
    const [problem] = costProblems(big, LIMITS);
    expect(problem).toMatch(
      /the most is registry burst, [\d,]+ MB: 20,000 instances registered or deregistered at 120 s \(10 provider groups at once\), each change pushed on its own .*Nacos: one push of a list per 500 ms.*NODE_OPTIONS=--max-old-space-size=MB\)$/,
    );
  });

  it('counts the set-aside lists of every reference to providers that refuse connections (crash mode only)', () => {
    const consumers = (faults: string, sets: string[] = []) =>
      estimateCost(scenario(faults === '' ? '' : `faults:\n  - ${faults}\n`, ['consumers[0].instances=1000', 'consumers[0].cohorts=off', ...sets])).memoryMb.consumers;
    const none = consumers('');
    const perReference = (1000 * COST_MODEL.bytesPerSetAsideReference) / 2 ** 20;
    expect(consumers('{ at: 5s, for: 10s, zoneDown: zoneB, mode: crash }')).toBeCloseTo(none + perReference, 6);
    expect(consumers('{ at: 5s, for: 10s, crash: { group: s-a, count: 2 } }')).toBeCloseTo(none + perReference, 6);
    // A black hole times calls out: nothing is set aside.
    expect(consumers('{ at: 5s, for: 10s, zoneDown: zoneB }')).toBe(none);
    expect(consumers('{ at: 5s, for: 10s, crash: { group: s-a, count: 2, mode: blackhole } }')).toBe(none);
  });

  it('counts one push per subscribing instance and change at application level, however many services the application exports', () => {
    const text = (registration: string) => `
name: app
duration: 60s
zones: { zoneA: { cidr: 10.0.0.0/8 } }
registry: { type: nacos, registration: ${registration} }
services:
  com.example.A: { methods: { get: { serviceTime: 10ms } } }
  com.example.B: { methods: { get: { serviceTime: 10ms } } }
  com.example.C: { methods: { get: { serviceTime: 10ms } } }
providers:
  - { name: p, application: shop, services: [com.example.A, com.example.B, com.example.C], zone: zoneA, count: 10 }
consumers:
  - { application: web, zone: zoneA, instances: 100, rate: 100/s, calls: { com.example.A.get: 1, com.example.B.get: 1 } }
  - { application: admin, zone: zoneA, instances: 7, rate: 10/s, calls: { com.example.C.get: 1 } }
faults:
  - { at: 10s, restart: { group: p, count: 4 } }
`;
    const byInterface = estimateCost(parseScenario(text('interface'), 'app.yaml')).pushDeliveries;
    const byApplication = estimateCost(parseScenario(text('application'), 'app.yaml')).pushDeliveries;
    // Interface level: one push per change, per subscribed service and instance (web subscribes to two).
    expect(byInterface / byApplication).toBeCloseTo((100 * 2 + 7) / (100 + 7), 9);
    // Unset registration: the groups' profiles decide. 3.3 providers registering both levels
    // (register-mode all) and consumers at APPLICATION_FIRST get both levels' pushes; a 2.7 consumer
    // (admin) only the interface level's.
    const both = parseScenario(
      text('interface').replace(', registration: interface', '').replace('count: 10 }', "count: 10, dubbo: { version: '3.3', registerMode: all } }")
        .replace('instances: 100,', "instances: 100, dubbo: { version: '3.3', migrationStep: APPLICATION_FIRST },")
        .replace('instances: 7,', "instances: 7, dubbo: '2.7',"),
      'app.yaml',
    );
    expect(estimateCost(both).pushDeliveries).toBeCloseTo(byInterface + (byApplication * 100) / (100 + 7), 6);
  });

  it('keeps per-(instance, provider) state only for round robin, adaptive and actives, which hold it', () => {
    const lb = (name: string, extra: string[] = []) =>
      estimateCost(scenario('', ['consumers[0].instances=1000', `consumers[0].reference["com.example.S"].loadbalance=${name}`, ...extra])).memoryMb.loadBalancers;
    const pairs = 1000 * 15;
    expect(lb('random')).toBe(0);
    expect(lb('leastactive')).toBe(0);
    expect(lb('shortestresponse')).toBe(0);
    expect(lb('roundrobin')).toBeCloseTo((pairs * COST_MODEL.bytesPerRoundRobinEntry) / 2 ** 20, 6);
    expect(lb('adaptive')).toBeCloseTo((pairs * COST_MODEL.bytesPerAdaptiveEntry) / 2 ** 20, 6);
    // `actives` counts every call in an RpcStatus, whatever the balancer.
    expect(lb('leastactive', ['consumers[0].reference["com.example.S"].actives=5'])).toBeCloseTo((pairs * COST_MODEL.bytesPerRpcStatusEntry) / 2 ** 20, 6);
    expect(lb('random', ['consumers[0].reference["com.example.S"].methods.get.actives=5'])).toBeGreaterThan(0);
  });

  it('does not grow the consumers\' memory with the simulated time (provider state is shared, not per instance)', () => {
    const at = (d: string) => estimateCost(scenario('', ['consumers[0].instances=5000', `duration=${d}`])).memoryMb.consumers;
    expect(at('10m')).toBe(at('20s'));
  });

  it('grows the base with the traffic, up to the young generation\'s maximum', () => {
    const base = (rate: string) => estimateCost(scenario('', [`consumers[0].rate=${rate}`])).memoryMb.base;
    expect(base('100/s')).toBeCloseTo(COST_MODEL.baseMb + COST_MODEL.youngGenerationMinMb + (100 * COST_MODEL.bytesPerRequestPerSec) / 2 ** 20, 6);
    expect(base('10000/s')).toBeGreaterThan(base('100/s'));
    expect(base('1000000/s')).toBe(COST_MODEL.baseMb + COST_MODEL.youngGenerationMaxMb);
  });

  it('says how many requests are in flight by Little\'s law', () => {
    // 100/s over a mean of 0.75 x 10 ms + 0.25 x 20 ms, plus the median RTT to each provider picked:
    // 0.2 ms to the 10 in zoneA, 2 ms to the 5 in zoneB.
    expect(estimateCost(scenario()).inFlight).toBeCloseTo(100 * (0.0125 + (10 / 15) * 0.0002 + (5 / 15) * 0.002), 6);
  });

  it('stays finite-or-Infinity and fast for absurd values', () => {
    // The schema stops duration at 8760h; the estimate must still cope with what it is given.
    const e = estimateCost({ ...scenario('', ['warmup=1s']), durationMs: 1e300 });
    expect(e.buckets).toBeGreaterThan(1e290);
    expect(e.requests).toBeGreaterThan(1e290);
    expect(costProblems(e, LIMITS)).toHaveLength(3);
  });
});

describe('costProblems', () => {
  it('is empty for a scenario within the limits', () => {
    expect(costProblems(estimateCost(scenario()), LIMITS)).toEqual([]);
  });

  it('names too many buckets with the bucket width and the way out', () => {
    const [p] = costProblems(estimateCost(scenario('', ['bucket=0.001ms'])), { ...LIMITS, memoryMb: Infinity });
    expect(p).toBe('the timeline would have 50,000,000 buckets (bucket 0.001 ms over 50,000 ms measured); at most 1,000,000: use a wider bucket');
  });

  it('names requests above --max-requests', () => {
    expect(costProblems(estimateCost(scenario()), { ...LIMITS, maxRequests: 1000 })).toEqual([
      '6,000 simulated requests exceed --max-requests 1,000',
    ]);
  });

  it('names memory above the limit', () => {
    const problems = costProblems(estimateCost(scenario('', ['providers[0].count=1000000'])), { ...LIMITS, memorySource: 'the V8 heap limit' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^estimated peak memory [\d,]+ MB exceeds the 4,000 MB one simulation may use \(the V8 heap limit\); the most is provider instances, [\d,]+ MB$/);
  });
  it('names the consumer groups simulated per instance that `cohorts: on` would make cohorts, when references are the most', () => {
    // 2,000,000 instances: `auto` makes the group a cohort, `off` keeps it per instance.
    const off = estimateCost(scenario('', ['consumers[0].instances=2000000', 'consumers[0].cohorts=off']));
    expect([off.perInstanceGroups, off.perInstanceGroupInstances]).toEqual([1, 2_000_000]);
    expect(costProblems(off, LIMITS)[0]).toMatch(
      /; the most is consumer references, [\d,]+ MB; 1 consumer group \(2,000,000 instances\) run per instance \(`cohorts: off`\): `cohorts: on` makes them cohorts$/,
    );
    // A leastactive group stays per instance under `auto` (per-process state): named too, with why.
    const stateful = estimateCost(scenario('', ['consumers[0].instances=2000000', 'consumers[0].reference={"com.example.S": {loadbalance: leastactive}}']));
    expect([stateful.perInstanceGroups, stateful.perInstanceReason]).toEqual([1, 'loadbalance leastactive keeps state per process']);
    expect(costProblems(stateful, LIMITS)[0]).toMatch(/ run per instance \(loadbalance leastactive keeps state per process\): `cohorts: on` makes them cohorts$/);
    // Round-robin's weights over many providers are the most: the way out is the same, and says where their state goes.
    const weights = estimateCost(
      scenario('', ['consumers[0].instances=200000', 'consumers[0].reference={"com.example.S": {loadbalance: roundrobin}}', 'providers[0].count=2000']),
    );
    expect(weights.perInstanceReason).toBe('loadbalance roundrobin keeps state per process');
    expect(costProblems(weights, LIMITS)[0]).toMatch(
      /; the most is load balancers, [\d,]+ MB; 1 consumer group \(200,000 instances\) run per instance \(loadbalance roundrobin keeps state per process\): `cohorts: on` makes them cohorts, their load balancers' state then kept per representative \(docs\/cohorts.md\)$/,
    );
    // Groups kept per instance for different reasons: the reason of the most instances, and how many others.
    const mixed = estimateCost(
      scenario(
        `  - { application: rr, zone: zoneA, instances: 1500, rate: 1/s, calls: { com.example.S.get: 1 }, reference: { com.example.S: { loadbalance: roundrobin } } }
  - { application: off, zone: zoneB, instances: 1000, cohorts: off, rate: 1/s, calls: { com.example.S.get: 1 } }
`,
      ),
    );
    expect(mixed.perInstanceReason).toBe('loadbalance roundrobin keeps state per process, and 1 other reason');
    // In a cohort, or no larger than its representatives, a group is not named.
    const cohort = estimateCost(scenario('', ['consumers[0].instances=2000000']));
    expect([cohort.perInstanceGroups, cohort.perInstanceGroupInstances]).toEqual([0, 0]);
    expect(estimateCost(scenario('', ['consumers[0].instances=32', 'consumers[0].cohorts=off'])).perInstanceGroups).toBe(0);
    // Groups no larger than their representatives stay per instance: fewer representatives would make cohorts of them.
    const small = estimateCost(scenario('', ['consumers[0].instances=20']));
    expect([small.smallGroups, small.smallGroupInstances, small.perInstanceGroups]).toEqual([1, 20, 0]);
    expect(estimateCost(scenario('', ['consumers[0].instances=20', 'consumers[0].representatives=8'])).smallGroups).toBe(0);
    const [smallOver] = costProblems({ ...small, smallGroups: 20_000, smallGroupInstances: 500_000, memoryMb: { ...small.memoryMb, consumers: 5000, total: 5200 } }, LIMITS);
    expect(smallOver).toMatch(
      /the most is consumer references, 5,000 MB; 20,000 consumer groups \(500,000 instances\) run per instance, no larger than their representatives: fewer `representatives` \(8, say\) make cohorts of them/,
    );
    // Other parts over the limit say nothing of cohorts.
    const providersOver = costProblems(estimateCost(scenario('', ['providers[0].count=1000000', 'consumers[0].cohorts=off', 'consumers[0].instances=100'])), LIMITS);
    expect(providersOver[0]).toMatch(/the most is provider instances, [\d,]+ MB$/);
  });
});

describe('distMeanMs', () => {
  it.each([
    [{ dist: 'constant', value: 5 }, 5],
    [{ dist: 'uniform', min: 2, max: 4 }, 3],
    [{ dist: 'exponential', mean: 7 }, 7],
    [{ dist: 'lognormal', mu: 0, sigma: 0 }, 1],
    [{ dist: 'pareto', scale: 1, shape: 2 }, 2],
    [{ dist: 'pareto', scale: 1, shape: 1 }, Infinity],
    [{ dist: 'mixture', components: [{ weight: 1, dist: 'constant', value: 10 }, { weight: 3, dist: 'constant', value: 2 }] }, 4],
    // Samples: the mean of the draws, linear between order statistics ((1.5 + 4) / 2), not of the values.
    [{ dist: 'samples', values: [1, 2, 6] }, 2.75],
    [{ dist: 'histogram', le: [10, 20], counts: [50, 100], total: 100 }, 10],
  ] as const)('is the mean of %j', (d, mean) => {
    expect(distMeanMs(d as never)).toBeCloseTo(mean, 9);
  });
});

describe('summaryBytes', () => {
  it.each([
    ['scenarios/dual-zone-baseline.yaml', ['duration=20s']],
    ['scenarios/three-zone-nearest-fallback.yaml', []],
    ['scenarios/call-graph-amplification.yaml', []],
    ['scenarios/zone-a-down.yaml', ['bucket=100ms']],
  ] as const)('is bytesPerSummaryChar times the JSON of the summary %s gives, within 10%%', (file, sets) => {
    const { scenario: s } = loadScenarioWithRaw(join(repoRoot, file), [...sets]);
    const chars = estimateCost(s).summaryBytes / COST_MODEL.bytesPerSummaryChar;
    const json = JSON.stringify(runScenario(s, { version: 'test' }).summary).length;
    expect(Math.abs(chars / json - 1)).toBeLessThan(0.1);
  });
});

describe('the estimate of registry liveness ticks', () => {
  const text = `
name: hb
duration: 90s
warmup: 0s
zones:
  zoneA: { cidr: 10.0.0.0/8 }
registry: { type: zookeeper, sessionTimeout: 30s }
services:
  com.example.A: { methods: { get: { serviceTime: 1ms } } }
  com.example.B: { methods: { get: { serviceTime: 1ms } } }
  com.example.C: { methods: { get: { serviceTime: 1ms } } }
providers:
  - { name: p, services: [com.example.A, com.example.B, com.example.C], zone: zoneA, count: 4 }
consumers:
  - { application: web, zone: zoneA, instances: 1, rate: 0/s, calls: { com.example.A.get: 1 } }
`;

  it('counts a tick per process and level it registers at, however many services it exports', () => {
    // A 30 s session pings every 30/3 - 1 = 9 s: 10 ticks in 90 s. Dubbo 3.3 registers both levels (register-mode=all):
    // 4 processes x 2 levels x 10.
    const s = parseScenario(text, 'hb.yaml');
    expect(estimateCost(s).heartbeats).toBeCloseTo(80, 9);
    expect(estimateCost(parseScenario(text, 'hb.yaml', ['registry.registration=interface'])).heartbeats).toBeCloseTo(40, 9);
    // The interface-level loop hears its three records in each tick: two besides the first, 4 x 2 x 10.
    expect(estimateCost(s).heartbeatRecords).toBeCloseTo(80, 9);
    expect(estimateCost(parseScenario(text, 'hb.yaml', ['providers[0].services=[com.example.A]'])).heartbeatRecords).toBe(0);
    // Each tick is an agenda step of the run (no requests here: the rest is the expiry sweeps and the timeline).
    expect(runScenario(s, { version: 'test' }).stats.eventsProcessed).toBeGreaterThanOrEqual(80);
  });

  it("runs a process's records in one step per tick: the kernel's events do not grow with its exported services", () => {
    for (const sets of [[], ['registry.capacity.bandwidth=1Gbps']]) {
      const three = runScenario(parseScenario(text, 'hb.yaml', sets), { version: 'test' }).stats.eventsProcessed;
      const one = runScenario(parseScenario(text, 'hb.yaml', [...sets, 'providers[0].services=[com.example.A]']), { version: 'test' }).stats.eventsProcessed;
      expect(three).toBe(one);
    }
  });
});
