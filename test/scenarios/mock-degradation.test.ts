/**
 * MockClusterInvoker in whole runs (issue 39): a reference's `mock` degrades calls as Dubbo does.
 * - fail mock (3.3 MockClusterInvoker.java:119-149): the cluster runs first, retries included; a
 *   non-business failure is then answered by MockInvoker at once. So a run with `fail:return null`
 *   makes the same attempts, in the same time, as the run without it, and each request that failed
 *   there ends as outcome `mock` here: errors 0, `mock` = the other run's failures.
 * - force mock (:108-118): no provider is called: 0 attempts, every request `mock` at its start.
 * - MockClusterWrapper wraps each cluster a registry directory is joined with, but ReferenceConfig
 *   joins the multi-registry zone-aware cluster unwrapped (3.3 ReferenceConfig.java:701-702).
 * - ConsumerContextFilter is a ClusterFilter inside MockClusterInvoker (AbstractCluster.join builds
 *   the ClusterFilter chain around the cluster invoker that MockClusterWrapper then wraps): a call the
 *   timeout countdown ends before sending (TIMEOUT_TERMINATE in the result) is answered by a fail mock.
 */
import { describe, expect, it } from 'vitest';
import { MockClusterInvoker } from '../../src/dubbo/cluster/mock-cluster-invoker.js';
import { ZoneAwareClusterInvoker } from '../../src/dubbo/cluster/zone-aware-cluster-invoker.js';
import { MigrationInvoker } from '../../src/dubbo/registry/migration-invoker.js';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';
import { parseScenario } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';
import type { DubboConsumerStack } from '../../src/stack/consumer-stack.js';

const SERVICE = 'com.example.UserService';
const FAULT_FROM_MS = 20_000;
const FAULT_TO_MS = 40_000;

/** Two zones, zoneA black-holed from 20 s to 40 s; the zoneA consumers' reference gets `reference`. */
const zoneDown = (reference: string) => `
name: mock-zone-down
seed: 7
duration: 50s
warmup: 5s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
network:
  rtt:
    same-zone: 0.2ms
    zoneA<->zoneB: 3ms
registry: { type: nacos, zone: zoneB }
services:
  ${SERVICE}:
    methods:
      getUserById: { serviceTime: { dist: lognormal, p50: 10ms, p99: 100ms } }
providers:
  - { name: users-a, service: ${SERVICE}, zone: zoneA, count: 4 }
  - { name: users-b, service: ${SERVICE}, zone: zoneB, count: 4 }
consumers:
  - application: web
    zone: zoneA
    instances: 4
    rate: 200/s
    calls: { ${SERVICE}.getUserById: 1 }
    reference:
      ${SERVICE}: ${reference}
faults:
  - { at: ${FAULT_FROM_MS / 1000}s, for: ${(FAULT_TO_MS - FAULT_FROM_MS) / 1000}s, zoneDown: zoneA }
`;

const run = (yaml: string): Summary => runScenario(parseScenario(yaml, 'mock.yaml'), { version: 'test' }).summary;

/** The reference to SERVICE of the first consumer instance, once the world is built. */
function referenceOf(yaml: string) {
  const scenario = parseScenario(yaml, 'mock.yaml');
  const world = buildWorld(scenario, 1, new Recorder({ warmupMs: 0, durationMs: scenario.durationMs, bucketMs: scenario.bucketMs, providerGroups: [] }));
  world.sim.run({ until: 1 });
  return (world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack).references.get(SERVICE)!;
}
const failed = (s: Summary) => s.requests - s.outcomes.ok - s.outcomes.mock;

describe('mock (MockClusterInvoker) in a run', () => {
  it('fail:return under a zone going down: errors 0, and exactly the requests that failed without it end as mock, after the same attempts', () => {
    const without = run(zoneDown('{ retries: 2 }'));
    const withMock = run(zoneDown('{ retries: 2, mock: "fail:return null" }'));
    // The zone-down makes requests fail without the mock (all three attempts black-holed).
    expect(without.outcomes.timeout).toBeGreaterThan(0);
    expect(failed(without)).toBe(without.outcomes.timeout);
    expect(withMock.errorRate).toBe(0);
    expect(failed(withMock)).toBe(0);
    expect(withMock.outcomes.mock).toBe(without.outcomes.timeout);
    expect(withMock.mockCauses).toEqual({ 'fail:return': withMock.outcomes.mock });
    expect(withMock.mockRate).toBeCloseTo(withMock.outcomes.mock / withMock.requests, 6);
    // The mock answers after the cluster gave up: the same attempts and the same latencies of every request.
    expect(withMock.attempts).toBe(without.attempts);
    expect(withMock.outcomes.ok).toBe(without.outcomes.ok);
    expect(withMock.latencyAllMs).toEqual(without.latencyAllMs);
    expect(withMock.latencyMs).toEqual(without.latencyMs);
    // Mocked requests are not ok, so not in latencyMs; they are in the timeline's own column, only
    // for requests that could meet the black hole (started at most one attempt's timeout before it).
    for (const row of withMock.timeline) {
      expect(row.ok + row.mock, `bucket ${row.tMs}`).toBe(row.requests);
      if (row.tMs + 1000 <= FAULT_FROM_MS - 1000 || row.tMs >= FAULT_TO_MS) expect(row.mock, `bucket ${row.tMs}`).toBe(0);
    }
  });

  it('force:return calls no provider: every request is mock, at once, with no attempt', () => {
    const s = run(zoneDown('{ mock: "force:return null" }'));
    expect(s.requests).toBeGreaterThan(0);
    expect(s.outcomes.mock).toBe(s.requests);
    expect(s.mockCauses).toEqual({ 'force:return': s.requests });
    expect(s.attempts).toBe(0);
    expect(s.providerExecutions).toBe(0);
    expect(s.latencyAllMs.max).toBe(0);
    expect(s.errorRate).toBe(0);
  });

  it('a method-level mock applies to that method only', () => {
    const s = run(zoneDown('{ methods: { getUserById: { mock: "force:throw" } }, parameters: { mock: "false" } }'));
    expect(s.mockCauses).toEqual({ 'force:throw': s.requests });
  });

  it('wraps each registry cluster in MockClusterInvoker, not the zone-aware cluster over registries (ReferenceConfig.java:701-702)', () => {
    // One discovery level (FORCE_INTERFACE): one cluster per registry, each wrapped.
    const interfaceOnly = (yaml: string) => `dubbo: { migrationStep: FORCE_INTERFACE }\n${yaml}`;
    const multi = zoneDown('{ mock: "fail:return null" }')
      .replace('registry: { type: nacos, zone: zoneB }', 'registry: { type: nacos, zone: zoneB }\nregistries:\n  east: { type: nacos, zone: zoneA }\n  west: { type: nacos, zone: zoneB }');
    const ref = referenceOf(interfaceOnly(multi));
    expect(ref.invoker).toBeInstanceOf(ZoneAwareClusterInvoker);
    expect(ref.mock).toBeInstanceOf(MockClusterInvoker);
    expect(ref.directories).toHaveLength(2);
    // 3.3's default APPLICATION_FIRST: a directory per level per registry; the MigrationInvoker over the two levels is
    // not a Cluster (RegistryProtocol's interceptor makes it), so each level's cluster is wrapped, not it.
    const bothLevels = referenceOf(multi);
    expect(bothLevels.invoker).toBeInstanceOf(ZoneAwareClusterInvoker);
    expect(bothLevels.directories).toHaveLength(4);
    expect(bothLevels.mock).toBeInstanceOf(MockClusterInvoker);
    const migrating = referenceOf(zoneDown('{ mock: "fail:return null" }'));
    expect(migrating.invoker).toBeInstanceOf(MigrationInvoker);
    expect(migrating.mock).toBeInstanceOf(MockClusterInvoker);
    // One registry: the reference's cluster itself is wrapped.
    const single = referenceOf(interfaceOnly(zoneDown('{ mock: "fail:return null" }')));
    expect(single.invoker).toBeInstanceOf(MockClusterInvoker);
    expect(single.mock).toBe(single.invoker);
    // Without mock, no wrapper anywhere: the calls go to the cluster as before.
    const ref2 = referenceOf(interfaceOnly(zoneDown('{ retries: 2 }')));
    expect(ref2.invoker).not.toBeInstanceOf(MockClusterInvoker);
    expect(ref2.mock).toBeUndefined();
  });
});

/** An edge calling an order service that calls inventory: the edge's 100 ms budget runs out downstream. */
const callGraph = (inventoryReference: string) => `
name: mock-call-graph
seed: 3
duration: 20s
warmup: 2s
zones:
  dc: { cidr: 10.0.0.0/16 }
network:
  rtt:
    same-zone: 1ms
registry: { type: static }
services:
  com.example.OrderService:
    methods:
      place:
        serviceTime: { dist: uniform, min: 10ms, max: 150ms }
        calls:
          - service: com.example.InventoryService
            method: reserve
            reference: ${inventoryReference}
  com.example.InventoryService:
    methods:
      reserve: { serviceTime: { dist: constant, value: 5ms } }
providers:
  - { name: orders, service: com.example.OrderService, zone: dc, count: 4 }
  - { name: inventory, service: com.example.InventoryService, zone: dc, count: 4 }
consumers:
  - application: edge
    zone: dc
    instances: 2
    rate: 100/s
    calls: { com.example.OrderService.place: 1 }
    reference:
      com.example.OrderService: { timeout: 100ms, retries: 0, parameters: { enable-timeout-countdown: true } }
`;

describe('mock in a call graph', () => {
  it('a fail mock answers the calls the timeout countdown fails, those it ends before sending (TIMEOUT_TERMINATE in the result) included', () => {
    const without = run(callGraph('{ retries: 0 }'));
    const withMock = run(callGraph('{ retries: 0, mock: "fail:return null" }'));
    const reserve = 'com.example.InventoryService.reserve';
    const terminated = without.byService[reserve]!.outcomes.timeout;
    // Some orders take longer than the edge's 100 ms: their reserve call has no time left.
    expect(terminated).toBeGreaterThan(0);
    expect(withMock.byService[reserve]!.outcomes.mock).toBe(terminated);
    expect(withMock.byService[reserve]!.outcomes.timeout).toBe(0);
    // A terminated call sends nothing: the mock changes no attempt.
    expect(withMock.byService[reserve]!.attempts).toBe(without.byService[reserve]!.attempts);
  });

  it('a downstream value mock lets the provider answer; a throw mock fails its call (the provider returns an exception)', () => {
    const place = 'com.example.OrderService.place';
    const valued = run(callGraph('{ mock: "force:return null" }'));
    const thrown = run(callGraph('{ mock: "force:throw" }'));
    expect(valued.byService['com.example.InventoryService.reserve']!.mockCauses).toEqual({ 'force:return': valued.byService['com.example.InventoryService.reserve']!.requests });
    expect(thrown.byService['com.example.InventoryService.reserve']!.mockCauses).toEqual({ 'force:throw': thrown.byService['com.example.InventoryService.reserve']!.requests });
    // Orders that finish within the edge's timeout are ok with a value mock, biz with a throw mock.
    expect(valued.byService[place]!.outcomes.biz).toBe(0);
    expect(thrown.byService[place]!.outcomes.biz).toBeGreaterThan(0);
    expect(thrown.byService[place]!.outcomes.ok).toBe(0);
    expect(thrown.byService[place]!.outcomes.biz).toBe(valued.byService[place]!.outcomes.ok);
  });
});
