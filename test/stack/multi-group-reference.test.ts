/**
 * Multi-group references (`group: "*"` or `a,b`), as Dubbo 3.3 builds them:
 * - RegistryProtocol.refer (lines 563-570): such a group joins the registry directory with the
 *   `mergeable` cluster, whatever the reference's `cluster`;
 * - DynamicDirectory (constructor line 152, doList lines 208-210): `multiGroup` when the group is
 *   `*` or contains a comma; `list` then returns every invoker, unrouted;
 * - RegistryDirectory.toMergeInvokerList (lines 377-395): invokers split by provider group in a
 *   HashMap filled with computeIfAbsent; one group → its invokers themselves; several → per group
 *   a StaticDirectory (url = its first invoker's URL) with its own router chain
 *   (StaticDirectory.buildRouterChain), joined by `Cluster$Adaptive` (the `cluster` of that URL);
 * - MergeableClusterInvoker.doInvoke (lines 64-82): without `merger`, the first available invoker in
 *   list order gets the call; a group failing with "No provider available" (code 6) is skipped.
 */
import { describe, expect, it } from 'vitest';
import { MergeableClusterInvoker } from '../../src/dubbo/cluster/mergeable-cluster-invoker.js';
import { DubboConsumerStack, isMergeableGroup } from '../../src/stack/consumer-stack.js';
import { StaticDirectory, type DynamicDirectory } from '../../src/dubbo/directory/directory.js';
import { DubboInvoker } from '../../src/stack/dubbo-invoker.js';
import { isClusterInvoker, RpcInvocation, type Invoker } from '../../src/dubbo/rpc.js';
import type { Summary } from '../../src/metrics/summary.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { parseScenario } from '../../src/scenario/load.js';
import { buildWorld, runScenario } from '../../src/scenario/run.js';

const SERVICE = 'com.example.PriceService';

// Blue registers first; Java's HashMap<String, ?> iterates "green" (bin 0) before "blue" (bin 13).
const yaml = (reference: string, extra = '') => `
name: multi-group
seed: 1
duration: 4s
warmup: 0s
zones:
  dc: { cidr: 10.0.0.0/16 }
network:
  rtt:
    same-zone: 0.3ms
registry:
  type: static
services:
  ${SERVICE}:
    methods:
      quote: { serviceTime: { dist: lognormal, p50: 2ms, p99: 10ms } }
providers:
  - { name: price-blue, service: ${SERVICE}, zone: dc, count: 3, params: { group: blue } }
  - { name: price-green, service: ${SERVICE}, zone: dc, count: 3, params: { group: green } }
consumers:
  - application: web
    zone: dc
    instances: 2
    rate: 200/s
    calls: { ${SERVICE}.quote: 1 }
    reference:
      ${SERVICE}: ${reference}
${extra}`;

const run = (reference: string, extra = ''): Summary =>
  runScenario(parseScenario(yaml(reference, extra), 'multi-group.yaml'), { version: 'test' }).summary;

function reference(reference: string, extra = '') {
  const scenario = parseScenario(yaml(reference, extra), 'multi-group.yaml');
  const recorder = new Recorder({ warmupMs: 0, durationMs: scenario.durationMs, bucketMs: scenario.bucketMs, providerGroups: [] });
  const world = buildWorld(scenario, scenario.seed, recorder);
  world.sim.run({ until: 1 });
  const stack = world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack;
  return stack.references.get(SERVICE)!;
}

const groupOf = (inv: Invoker) => inv.getUrl().getParameter('group');

describe('multi-group reference (group "*" or "a,b")', () => {
  it('RegistryProtocol.refer: "*" and a comma list are multi-group, one group or a trailing comma is not', () => {
    expect(['*', 'a,b', 'a , b', ',a'].map(isMergeableGroup)).toEqual([true, true, true, true]);
    expect([undefined, '', 'a', 'a,', 'a,,'].map(isMergeableGroup)).toEqual([false, false, false, false, false]);
  });

  it('joins the registry directory with the mergeable cluster over one cluster invoker per group, in HashMap order', () => {
    const ref = reference('{ parameters: { group: "*" } }');
    expect(ref.invoker).toBeInstanceOf(MergeableClusterInvoker);
    const dir = ref.directory as DynamicDirectory;
    expect(dir.multiGroup).toBe(true);
    const perGroup = dir.getAllInvokers();
    expect(perGroup.every(isClusterInvoker)).toBe(true);
    expect(perGroup.map((g) => groupOf(g))).toEqual(['green', 'blue']);
    // Each is a cluster (failover by default) over a StaticDirectory of that group's three providers.
    for (const g of perGroup) {
      const inner = (g as unknown as { getDirectory(): StaticDirectory }).getDirectory();
      expect(inner).toBeInstanceOf(StaticDirectory);
      expect(inner.getAllInvokers().map(groupOf)).toEqual([groupOf(g), groupOf(g), groupOf(g)]);
      // AbstractDirectory's consumer URL for a URL without `refer`: protocol consumer, port 0, provider host.
      expect(inner.getConsumerUrl().protocol).toBe('consumer');
      expect(inner.getConsumerUrl().port).toBe(0);
    }
  });

  it('a per-group cluster is the one the first invoker URL names: the reference `cluster`, consumer value first', () => {
    const ref = reference('{ cluster: failfast, parameters: { group: "*" } }');
    expect(ref.invoker).toBeInstanceOf(MergeableClusterInvoker);
    const names = ref.directory.getAllInvokers().map((g) => g.constructor.name);
    expect(names).toEqual(['FailfastClusterInvoker', 'FailfastClusterInvoker']);
  });

  it('lists every per-group invoker unrouted (DynamicDirectory.doList returns getInvokers())', () => {
    const ref = reference('{ parameters: { group: "*" } }', 'routers:\n  - { type: condition, force: true, rule: "=> group = blue" }');
    const all = ref.directory.getAllInvokers();
    expect(ref.directory.list(new RpcInvocation({ methodName: 'quote', serviceName: SERVICE }))).toBe(all);
  });

  it('without a merger every call goes to the first available group: green, although blue registered first', () => {
    const s = run('{ parameters: { group: "*" } }');
    expect(s.ok).toBe(s.requests);
    expect(s.byProviderGroup['price-blue']!.executions).toBe(0);
    expect(s.byProviderGroup['price-green']!.executions).toBe(s.requests);
  });

  it('a group whose providers are all unavailable is passed over (isAvailable), the next group gets the calls', () => {
    // Green's zone crashes at 1 s: its invokers refuse connections, so StaticDirectory.isAvailable is false.
    const text = yaml('{ parameters: { group: "*" } }', 'faults:\n  - { at: 1s, zoneDown: dc2, mode: crash }')
      .replace('  dc: { cidr: 10.0.0.0/16 }', '  dc: { cidr: 10.0.0.0/16 }\n  dc2: { cidr: 10.1.0.0/16 }')
      .replace(`{ name: price-green, service: ${SERVICE}, zone: dc,`, `{ name: price-green, service: ${SERVICE}, zone: dc2,`);
    const s = runScenario(parseScenario(text, 'multi-group.yaml'), { version: 'test' }).summary;
    expect(s.byProviderGroup['price-green']!.executions).toBeGreaterThan(0);
    expect(s.byProviderGroup['price-blue']!.executions).toBeGreaterThan(0);
    expect(s.byProviderGroup['price-green']!.executions + s.byProviderGroup['price-blue']!.executions).toBe(s.requests);
    expect(s.timeline.filter((row) => row.tMs >= 1000).every((row) => row.ok === row.requests)).toBe(true);
  });

  it('"blue,green" and "green,blue" behave as "*": the order comes from the HashMap, not from the reference', () => {
    for (const group of ['blue,green', 'green,blue']) {
      const s = run(`{ parameters: { group: "${group}" } }`);
      expect(s.byProviderGroup['price-green']!.executions).toBe(s.requests);
    }
  });

  it('the router chain runs inside each group only: a group it empties fails with code 6 and the next group is called', () => {
    const s = run('{ parameters: { group: "*" } }', 'routers:\n  - { type: condition, force: true, rule: "=> group = blue" }');
    expect(s.ok).toBe(s.requests);
    expect(s.byProviderGroup['price-blue']!.executions).toBe(s.requests);
  });

  it('the tag router is not applied across groups: a canary tag asked of the green group falls back to green', () => {
    const canary = '{ parameters: { group: "*" } }\n    attachments:\n      dubbo.tag: canary';
    const tagged = yaml(canary).replace('params: { group: blue }', 'params: { group: blue, dubbo.tag: canary }');
    const s = runScenario(parseScenario(tagged, 'multi-group.yaml'), { version: 'test' }).summary;
    expect(s.ok).toBe(s.requests);
    expect(s.byProviderGroup['price-blue']!.executions).toBe(0);
    // One group (no "*"): the tag router sends every tagged request to the blue canaries.
    const single = runScenario(parseScenario(tagged.replace('group: "*"', 'group: blue'), 'multi-group.yaml'), { version: 'test' }).summary;
    expect(single.byProviderGroup['price-blue']!.executions).toBe(single.requests);
  });

  it("a group's consumer URL is its first provider's URL: an untagged call reads that provider's dubbo.tag (TagStateRouter line 118)", () => {
    // Blue's providers are all canaries and the rule sends everything to blue. Over one flat list,
    // untagged calls would never reach tagged providers; in blue's own chain the consumer URL is a
    // blue provider's, whose dubbo.tag=canary becomes the requested tag, so every call succeeds there.
    const text = yaml('{ parameters: { group: "*" } }', 'routers:\n  - { type: condition, force: true, rule: "=> group = blue" }')
      .replace('params: { group: blue }', 'params: { group: blue, dubbo.tag: canary }');
    const s = runScenario(parseScenario(text, 'multi-group.yaml'), { version: 'test' }).summary;
    expect(s.ok).toBe(s.requests);
    expect(s.byProviderGroup['price-blue']!.executions).toBe(s.requests);
  });

  it('with only one group behind "*", the directory holds the providers themselves and the first available one gets every call', () => {
    const oneGroup = yaml('{ parameters: { group: "*" } }').replace('params: { group: green }', 'params: { group: blue }');
    const scenario = parseScenario(oneGroup, 'multi-group.yaml');
    const s = runScenario(scenario, { version: 'test' }).summary;
    expect(s.ok).toBe(s.requests);
    const recorder = new Recorder({ warmupMs: 0, durationMs: scenario.durationMs, bucketMs: scenario.bucketMs, providerGroups: [] });
    const world = buildWorld(scenario, scenario.seed, recorder);
    world.sim.run({ until: 1 });
    const ref = (world.consumerGroups[0]!.instances[0]!.stack as DubboConsumerStack).references.get(SERVICE)!;
    const invokers = ref.directory.getAllInvokers();
    expect(invokers).toHaveLength(6);
    expect(invokers.every((i) => i instanceof DubboInvoker)).toBe(true);
    // Push order (interface level, see the DIVERGENCE in ReferenceInvokers): the first blue provider.
    expect(s.byProviderGroup['price-blue']!.executions).toBe(s.requests);
  });
});
