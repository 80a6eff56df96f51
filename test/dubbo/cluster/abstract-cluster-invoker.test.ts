import { describe, expect, it } from 'vitest';
import { AbstractClusterInvoker, invokeAtStart } from '../../../src/dubbo/cluster/abstract-cluster-invoker.js';
import { FailoverClusterInvoker } from '../../../src/dubbo/cluster/failover-cluster-invoker.js';
import { DUBBO_VERSION, RpcCode } from '../../../src/dubbo/constants.js';
import { DynamicDirectory } from '../../../src/dubbo/directory/directory.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../../src/dubbo/release.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import type { LoadBalance } from '../../../src/dubbo/loadbalance/load-balance.js';
import { OK, RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import { weightInputsOf } from '../../../src/dubbo/loadbalance/load-balance.js';
import { UrlInvoker } from '../../../src/analysis/provider-list.js';
import type { RouterChainLike, RouteTraceEntry } from '../../../src/dubbo/router/router.js';
import type { Proc } from '../../../src/engine/simulation.js';
import type { ConsumerFilter } from '../../../src/dubbo/runtime.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { consumerFilters } from '../../../src/dubbo/filter/index.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import {
  consumerUrl,
  errorOf,
  fail,
  invocation,
  makeRuntime,
  ok,
  providerUrl,
  RecordingDirectory,
  registryUrl,
  runCall,
  ScriptedClusterInvoker,
  setup,
  ScriptedInvoker,
  SERVICE,
  type Answer,
  type AttemptRecord,
} from './fixtures.js';

describe('AbstractClusterInvoker.invokeWithContext', () => {
  it('runs the consumer filters around a provider attempt', () => {
    const sim = new Simulation();
    const seen: string[] = [];
    const filter: ConsumerFilter = {
      before: (_inv, _invocation, nowMs) => seen.push(`before@${nowMs}`),
      after: (_inv, _invocation, result, elapsedMs) => seen.push(`after ${result.kind} ${elapsedMs}ms`),
    };
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: [filter] });
    const cUrl = consumerUrl();
    const log: AttemptRecord[] = [];
    const provider = new ScriptedInvoker({ name: 'p0', url: providerUrl(0, cUrl), sim, script: () => ok('x', 7), log });
    const cluster = clusters.failfast!(new RecordingDirectory(runtime, registryUrl(), cUrl, [provider]), runtime);
    runCall(sim, cluster.invoke(invocation()));
    expect(seen).toEqual(['before@0', 'after ok 7ms']);
  });

  it('does not run the filters around a nested cluster invoker, which runs them around its own attempts', () => {
    const sim = new Simulation();
    let calls = 0;
    const filter: ConsumerFilter = { before: () => calls++, after: () => calls++ };
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: [filter] });
    const cUrl = consumerUrl();
    const group = new ScriptedClusterInvoker({ registryUrl: registryUrl(), consumerUrl: cUrl, sim, answer: ok('merged') });
    const cluster = clusters.mergeable!(new RecordingDirectory(runtime, registryUrl(), cUrl, [group]), runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'merged' });
    expect(group.invocations).toBe(1);
    expect(calls).toBe(0);
  });

  // Two providers, `p0` and `p1`; `active` says which of them each filter is built into.
  function activationWorld(filters: ConsumerFilter[], fixed: boolean) {
    const sim = new Simulation();
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters, filtersFixed: fixed });
    const cUrl = consumerUrl();
    const providers = [0, 1].map((i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script: () => ok('x', 3), log: [] }));
    const call = (i: number) => runCall(sim, clusters.failfast!(new RecordingDirectory(runtime, registryUrl(), cUrl, [providers[i]!]), runtime).invoke(invocation()));
    return { runtime, call, providers };
  }
  const counting = (name: string, seen: string[], active?: (invoker: Invoker) => boolean): ConsumerFilter => ({
    ...(active !== undefined ? { activeFor: active } : {}),
    admitNow: (invoker) => (seen.push(`${name} admit ${nameOf(invoker)}`), true),
    *admit() {
      return null;
    },
    before: (invoker) => seen.push(`${name} before ${nameOf(invoker)}`),
    after: (invoker) => seen.push(`${name} after ${nameOf(invoker)}`),
  });
  const onlyP1 = (invoker: Invoker) => nameOf(invoker) === 'p1';

  it('skips the filters on an invoker none of them is active for, when the runtime\'s filters are fixed', () => {
    const seen: string[] = [];
    const world = activationWorld([counting('a', seen, onlyP1), counting('b', seen, () => false)], true);
    expect(world.runtime.filtersActiveFor?.(world.providers[0]!)).toBe(false);
    expect(world.call(0).result?.kind).toBe('ok');
    expect(seen).toEqual([]);
    // One filter active: the whole chain runs, each filter deciding for itself as before.
    world.call(1);
    expect(seen).toEqual(['a admit p1', 'b admit p1', 'a before p1', 'b before p1', 'a after p1', 'b after p1']);
  });

  it('records an attempt that no filter runs around as invoked, and still calls a subclass\'s own invokeWithContext', () => {
    const seen: string[] = [];
    const world = activationWorld([counting('a', seen, () => false)], true);
    const inv = invocation();
    const cluster = clusters.failover!(new RecordingDirectory(world.runtime, registryUrl(), consumerUrl(), [world.providers[0]!]), world.runtime);
    expect(runCall(world.runtime.sim as Simulation, cluster.invoke(inv)).result?.kind).toBe('ok');
    expect(inv.invokedInvokers.map(nameOf)).toEqual(['p0']);
    expect(seen).toEqual([]);
    class Wrapped extends FailoverClusterInvoker {
      protected override *invokeWithContext(invoker: Invoker, invocation: RpcInvocation): Proc<Result> {
        seen.push(`wrapped ${nameOf(invoker)}`);
        return yield* super.invokeWithContext(invoker, invocation);
      }
    }
    const wrapped = new Wrapped(new RecordingDirectory(world.runtime, registryUrl(), consumerUrl(), [world.providers[1]!]), world.runtime);
    runCall(world.runtime.sim as Simulation, wrapped.invoke(invocation()));
    expect(seen).toEqual(['wrapped p1']);
  });

  it('runs every filter when one does not say where it is active, or when filters may still be added', () => {
    const seen: string[] = [];
    const unsaid = activationWorld([counting('a', seen, () => false), counting('b', seen)], true);
    expect(unsaid.runtime.filtersActiveFor).toBeUndefined();
    unsaid.call(0);
    expect(seen).toEqual(['a admit p0', 'b admit p0', 'a before p0', 'b before p0', 'a after p0', 'b after p0']);
    seen.length = 0;
    const open = activationWorld([counting('a', seen, () => false)], false);
    expect(open.runtime.filtersActiveFor).toBeUndefined();
    open.runtime.filters.push(counting('late', seen, () => false));
    open.call(0);
    expect(seen).toEqual(['a admit p0', 'late admit p0', 'a before p0', 'late before p0', 'a after p0', 'late after p0']);
  });

  it('freezes fixed filters, and gives every runtime with the same filter kinds one shared answer', () => {
    const fixed = activationWorld([counting('a', [], onlyP1)], true);
    expect(() => fixed.runtime.filters.push(counting('late', []))).toThrow(TypeError);
    const sim = new Simulation();
    const runtimeOf = () => createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: consumerFilters(), filtersFixed: true });
    const [r1, r2] = [runtimeOf(), runtimeOf()];
    expect(r1.filtersActiveFor).toBeDefined();
    expect(r1.filtersActiveFor).toBe(r2.filtersActiveFor);
    expect(createRuntime({ sim, random: new RandomStreams(1).stream('c'), filtersFixed: true }).filtersActiveFor?.(fixed.providers[0]!)).toBe(false);
  });

  it('says the built-in filters are active exactly where Dubbo builds them: actives, or the adaptive balancer', () => {
    const sim = new Simulation();
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: consumerFilters(), filtersFixed: true });
    const invokerWith = (params: Record<string, string>) =>
      new ScriptedInvoker({ name: 'p', url: providerUrl(0, consumerUrl(params)), sim, script: () => ok('x', 1), log: [] });
    expect(runtime.filtersActiveFor!(invokerWith({}))).toBe(false);
    expect(runtime.filtersActiveFor!(invokerWith({ actives: '5' }))).toBe(true);
    expect(runtime.filtersActiveFor!(invokerWith({ actives: '0' }))).toBe(false);
    expect(runtime.filtersActiveFor!(invokerWith({ loadbalance: 'adaptive' }))).toBe(true);
    expect(runtime.filtersActiveFor!(invokerWith({ loadbalance: 'random' }))).toBe(false);
  });
});

describe('InvokerMemoSlots', () => {
  // An invoker that carries the memo slots, as DubboInvoker does (the what-if tools' UrlInvoker).
  const SlotInvoker = UrlInvoker;

  it('keeps the filters\' answer on the invoker, and a second list of filters answers for itself', () => {
    const sim = new Simulation();
    const builtIn = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: consumerFilters(), filtersFixed: true });
    const never: ConsumerFilter = { activeFor: () => false, before: () => {}, after: () => {} };
    const other = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters: [never], filtersFixed: true });
    const withActives = new SlotInvoker(providerUrl(0, consumerUrl({ actives: '5' })));
    const plain = new SlotInvoker(providerUrl(1, consumerUrl()));
    // The built-in list asks first: its answers go to the slots, and stay right when asked again.
    expect(builtIn.filtersActiveFor!(withActives)).toBe(true);
    expect(builtIn.filtersActiveFor!(plain)).toBe(false);
    expect(withActives.anyActiveOf).toBe(builtIn.filtersActiveFor);
    expect([withActives.activeLimitFilterActive, withActives.adaptiveFilterActive]).toEqual([true, false]);
    // The other list's own answer, never the slot's, in any order.
    expect(other.filtersActiveFor!(withActives)).toBe(false);
    expect(builtIn.filtersActiveFor!(withActives)).toBe(true);
    expect(other.filtersActiveFor!(withActives)).toBe(false);
    expect(withActives.anyActiveOf).toBe(builtIn.filtersActiveFor);
    // A slot never written stays free for the first list that asks.
    const fresh = new SlotInvoker(providerUrl(2, consumerUrl({ loadbalance: 'adaptive' })));
    expect(other.filtersActiveFor!(fresh)).toBe(false);
    expect(builtIn.filtersActiveFor!(fresh)).toBe(true);
    expect(fresh.anyActiveOf).toBe(other.filtersActiveFor);
  });

  it('keeps the weight inputs of one method, then of each method, on the invoker', () => {
    const invoker = new SlotInvoker(providerUrl(0, consumerUrl(), { weight: '40', 'b.weight': '70', timestamp: '1000', warmup: '60000' }));
    const a = weightInputsOf(invoker, 'a');
    expect(a).toMatchObject({ weight: 40, timestamp: 1000, warmup: 60000, registry: false });
    expect(invoker.weightInputs).toBe(a);
    const b = weightInputsOf(invoker, 'b');
    expect(b).toMatchObject({ weight: 70, timestamp: 1000, warmup: 60000 });
    expect(weightInputsOf(invoker, 'a')).toBe(a);
    expect(weightInputsOf(invoker, 'b')).toBe(b);
    expect(invoker.weightInputs).toBeInstanceOf(Map);
  });
});

/** Exposes the protected select. */
class SelectProbe extends AbstractClusterInvoker {
  protected *doInvoke(): Proc<Result> {
    return OK;
  }
  pick(lb: LoadBalance, inv: RpcInvocation, invokers: Invoker[], selected: Invoker[] | null): Invoker | null {
    return this.select(lb, inv, invokers, selected);
  }
}

/** A balancer that records every list it is asked to choose from and answers with `choose`. */
function spyBalancer(choose: (invokers: Invoker[], call: number) => Invoker | null) {
  const calls: string[][] = [];
  const lb: LoadBalance = {
    select(invokers) {
      calls.push(invokers.map((i) => (i as ScriptedInvoker).name));
      return choose(invokers, calls.length - 1);
    },
  };
  return { lb, calls };
}

/** `count` providers, a recording directory over them, and a select probe. */
function selectWorld(init: {
  count: number;
  seed?: number;
  consumer?: Record<string, string>;
  registry?: Record<string, string>;
  unavailable?: number[];
  release?: DubboRelease;
}) {
  const { sim, runtime } = makeRuntime(init.seed ?? 1, { release: init.release });
  const cUrl = consumerUrl(init.consumer);
  const log: AttemptRecord[] = [];
  const providers = Array.from(
    { length: init.count },
    (_, i) =>
      new ScriptedInvoker({
        name: `p${i}`,
        url: providerUrl(i, cUrl),
        sim,
        script: () => ok(),
        log,
        available: !(init.unavailable ?? []).includes(i),
      }),
  );
  const directory = new RecordingDirectory(runtime, registryUrl(init.registry), cUrl, providers);
  const probe = new SelectProbe(directory, runtime);
  return { sim, runtime, providers, directory, probe };
}

const nameOf = (inv: Invoker | null) => (inv === null ? null : (inv as ScriptedInvoker).name);
const sayHello = () => invocation();
const otherMethod = () => new RpcInvocation({ methodName: 'sayBye', serviceName: SERVICE });
/** Round robin over whatever list the balancer is given, by call number. */
const byCall = (invokers: Invoker[], call: number) => invokers[call % invokers.length]!;

describe('AbstractClusterInvoker.select: sticky', () => {
  it('with sticky=true returns the first pick again without consulting the balancer', () => {
    const { providers, probe } = selectWorld({ count: 3, consumer: { sticky: 'true' } });
    const { lb, calls } = spyBalancer(byCall);
    const picks = [0, 1, 2].map(() => nameOf(probe.pick(lb, sayHello(), providers, null)));
    expect(picks).toEqual(['p0', 'p0', 'p0']);
    expect(calls).toHaveLength(1);
  });

  it('without sticky every select is balanced', () => {
    const { providers, probe } = selectWorld({ count: 3 });
    const { lb } = spyBalancer(byCall);
    const picks = [0, 1, 2].map(() => nameOf(probe.pick(lb, sayHello(), providers, null)));
    expect(picks).toEqual(['p0', 'p1', 'p2']);
  });

  it('does not reuse the sticky invoker when it is among the already selected', () => {
    const { providers, probe } = selectWorld({ count: 3, consumer: { sticky: 'true' } });
    const { lb } = spyBalancer(byCall);
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p0');
    // the balancer's next answer is p1, which is not selected
    expect(nameOf(probe.pick(lb, sayHello(), providers, [providers[0]!]))).toBe('p1');
  });

  it('does not reuse an unavailable sticky invoker', () => {
    const { providers, probe } = selectWorld({ count: 3, consumer: { sticky: 'true' } });
    const { lb } = spyBalancer(byCall);
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p0');
    providers[0]!.available = false;
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p1');
  });

  it('with cluster.availablecheck=false stickiness never takes effect', () => {
    const { providers, probe } = selectWorld({
      count: 3,
      consumer: { sticky: 'true' },
      registry: { 'cluster.availablecheck': 'false' },
    });
    const { lb } = spyBalancer(byCall);
    const picks = [0, 1, 2].map(() => nameOf(probe.pick(lb, sayHello(), providers, null)));
    expect(picks).toEqual(['p0', 'p1', 'p2']);
  });

  it('forgets the sticky invoker once it is no longer in the list', () => {
    const { providers, probe } = selectWorld({ count: 3, consumer: { sticky: 'true' } });
    const { lb } = spyBalancer((invokers) => invokers[0]!);
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p0');
    expect(nameOf(probe.pick(lb, sayHello(), [providers[1]!, providers[2]!], null))).toBe('p1');
    // p1 is now the sticky one, even back on the full list
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p1');
  });

  it('stickiness is per method: a method without sticky is balanced even after a sticky method pinned an invoker', () => {
    const { providers, probe } = selectWorld({ count: 3, consumer: { 'sayHello.sticky': 'true' } });
    const { lb } = spyBalancer(byCall);
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p0');
    expect(nameOf(probe.pick(lb, otherMethod(), providers, null))).toBe('p1');
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p0');
  });

  it('a cluster with a sticky invoker is as available as that invoker (Dubbo isAvailable)', () => {
    const { providers, probe } = selectWorld({ count: 2, consumer: { sticky: 'true' } });
    const { lb } = spyBalancer(byCall);
    probe.pick(lb, sayHello(), providers, null);
    providers[0]!.available = false;
    expect(probe.isAvailable()).toBe(false);
  });

  it('without sticky the cluster is as available as its directory, whatever the last pick was', () => {
    const { providers, probe } = selectWorld({ count: 2 });
    const { lb } = spyBalancer(byCall);
    probe.pick(lb, sayHello(), providers, null);
    providers[0]!.available = false;
    expect(probe.isAvailable()).toBe(true);
  });
});

describe('AbstractClusterInvoker.select: doSelect and reselect', () => {
  it('with one invoker returns it without consulting the balancer, even unavailable and selected, and reports it invalid', () => {
    const { providers, directory, probe } = selectWorld({ count: 1, unavailable: [0] });
    const { lb, calls } = spyBalancer(byCall);
    expect(nameOf(probe.pick(lb, sayHello(), providers, [providers[0]!]))).toBe('p0');
    expect(calls).toEqual([]);
    expect(directory.invalidated).toEqual([providers[0]]);
  });

  it('gives no invoker when the balancer picks none', () => {
    const { providers, probe } = selectWorld({ count: 2 });
    const { lb } = spyBalancer(() => null);
    expect(probe.pick(lb, sayHello(), providers, null)).toBeNull();
  });

  it('when reselect finds nothing, takes the invoker after the pick without an availability check', () => {
    const { providers, probe } = selectWorld({ count: 3, unavailable: [0, 1, 2] });
    const { lb, calls } = spyBalancer((invokers) => invokers[1] ?? null);
    // the balancer picks p1 (unavailable); reselect has no available candidate and nothing selected
    // to fall back on, so the pick is invokers[(1 + 1) % 3] = p2; the balancer is asked only once
    expect(nameOf(probe.pick(lb, sayHello(), providers, null))).toBe('p2');
    expect(calls).toEqual([['p0', 'p1', 'p2']]);
  });

  it('with no unselected candidate, reselect balances over the selected invokers that are available', () => {
    const { providers, probe } = selectWorld({
      count: 2,
      unavailable: [0],
      registry: { 'cluster.availablecheck': 'false' },
    });
    const { lb, calls } = spyBalancer((invokers) => invokers[0]!);
    expect(nameOf(probe.pick(lb, sayHello(), providers, [providers[0]!, providers[1]!]))).toBe('p1');
    expect(calls).toEqual([['p0', 'p1'], ['p1']]);
  });

  it('over more than 10 invokers reselect draws 10 with replacement, keeping repeats when nothing was selected', () => {
    const seed = 1;
    const { providers, directory, probe } = selectWorld({ count: 12, seed, unavailable: [0] });
    const { lb, calls } = spyBalancer((invokers) => invokers[0]!);
    // The balancer picks p0, which is unavailable: reported, then reselect draws 10 indexes from the
    // consumer's random stream; with selected == null every available draw is a candidate.
    const replay = new RandomStreams(seed).stream('consumer');
    const draws = Array.from({ length: 10 }, () => replay.nextInt(12));
    expect(draws).not.toContain(0); // so only doSelect reports p0
    probe.pick(lb, sayHello(), providers, null);
    expect(calls[1]).toEqual(draws.map((i) => `p${i}`));
    expect(directory.invalidated).toEqual([providers[0]]);
  });

  it('over more than 10 invokers a selected invoker drawn again becomes a candidate once (Dubbo OR condition)', () => {
    const seed = 1;
    const replay = new RandomStreams(seed).stream('consumer');
    const draws = Array.from({ length: 10 }, () => replay.nextInt(12));
    // the most drawn index is the selected one, so the rule is exercised on repeats
    const counts = new Map<number, number>();
    for (const d of draws) counts.set(d, (counts.get(d) ?? 0) + 1);
    const chosen = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
    expect(counts.get(chosen)).toBeGreaterThan(1);
    // a draw is added when: selected is null || it is not selected || it is not yet a candidate
    const expected: string[] = [];
    for (const d of draws) if (d !== chosen || !expected.includes(`p${d}`)) expected.push(`p${d}`);
    const { providers, probe } = selectWorld({ count: 12, seed });
    const { lb, calls } = spyBalancer((invokers, call) => (call === 0 ? providers[chosen]! : invokers[0]!));
    probe.pick(lb, sayHello(), providers, [providers[chosen]!]);
    expect(calls[1]).toEqual(expected);
  });

  it('over more than 10 invokers reselect skips and reports the unavailable draws', () => {
    const seed = 1;
    const replay = new RandomStreams(seed).stream('consumer');
    const draws = Array.from({ length: 10 }, () => replay.nextInt(12));
    const down = draws[0]!;
    const { providers, directory, probe } = selectWorld({ count: 12, seed, unavailable: [down] });
    const first = providers.find((p, i) => i !== down && !draws.includes(i))!;
    const { lb, calls } = spyBalancer((invokers, call) => (call === 0 ? first : invokers[0]!));
    // the balancer picks an available invoker that is already selected, so reselect runs
    probe.pick(lb, sayHello(), providers, [first]);
    expect(calls[1]).toEqual(draws.filter((i) => i !== down).map((i) => `p${i}`));
    expect(directory.invalidated).toEqual([providers[down]]);
  });
});

describe('AbstractClusterInvoker.select under 2.7 (reselect: all)', () => {
  it('reselects over every other available invoker, however many (2.7 AbstractClusterInvoker.java:214-250), not over 10 draws', () => {
    for (const [release, size] of [
      [DUBBO_2_7, 39],
      [DUBBO_3_3, 10],
    ] as const) {
      const { providers, probe } = selectWorld({ count: 40, release });
      const { lb, calls } = spyBalancer((invokers, call) => (call === 0 ? providers[0]! : invokers[0]!));
      probe.pick(lb, sayHello(), providers, [providers[0]!]);
      if (release === DUBBO_2_7) expect(calls[1]).toEqual(providers.slice(1).map((p) => p.name));
      // 3.3 draws 10 indexes; the OR condition keeps every draw, the selected one and repeats included.
      else expect(calls[1]).toHaveLength(size);
    }
  });

  it('sets no unavailable invoker aside, in doSelect or reselect (2.7 has no connectivity validation)', () => {
    const one = selectWorld({ count: 1, unavailable: [0], release: DUBBO_2_7 });
    expect(nameOf(one.probe.pick(spyBalancer(byCall).lb, sayHello(), one.providers, null))).toBe('p0');
    const many = selectWorld({ count: 12, unavailable: [0, 5], release: DUBBO_2_7 });
    const { lb, calls } = spyBalancer((invokers) => invokers[0]!);
    many.probe.pick(lb, sayHello(), many.providers, null);
    expect(calls[1]).toEqual(many.providers.filter((_, i) => i !== 0 && i !== 5).map((p) => p.name));
    expect([one.directory.invalidated, many.directory.invalidated]).toEqual([[], []]);
  });
});

/** A router chain that empties every list, reporting `entry` as the router that did it. */
function emptyingChain(entry: RouteTraceEntry): RouterChainLike {
  return {
    route: (_url, invokers) => ({ invokers: [], trace: [entry], emptiedBy: { ...entry, before: invokers.length } }),
    setInvokers: () => {},
  };
}

describe('AbstractClusterInvoker.invoke', () => {
  // Dubbo's checkInvokers message (code 6), with the registry part from directory.toString().
  const noProvider = (dir: { toString(): string }) =>
    `Failed to invoke the method sayHello in the service ${SERVICE}. No provider available for the service ${SERVICE} ` +
    `from registry ${dir.toString()} on the consumer 10.10.0.1 using the dubbo version ${DUBBO_VERSION}. ` +
    `Please check if the providers have been started and registered.`;

  it('an empty directory gives "No provider available" (code 6), saying the directory has no providers', () => {
    const { sim, runtime } = makeRuntime();
    const directory = new RecordingDirectory(runtime, registryUrl(), consumerUrl(), []);
    const cluster = clusters.failfast!(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER,
        message: `${noProvider(directory)} [zonesim: the directory has no providers]`,
        cause: 'directory:empty',
      },
    });
  });

  it('when connectivity validation set every provider aside, the code-6 error says so', () => {
    const { sim, runtime } = makeRuntime();
    const cUrl = consumerUrl();
    const provider = new ScriptedInvoker({ name: 'p0', url: providerUrl(0, cUrl), sim, script: () => ok(), log: [] });
    const directory = new RecordingDirectory(runtime, registryUrl(), cUrl, [provider]);
    directory.addInvalidateInvoker(provider);
    const cluster = clusters.failfast!(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()), 0);
    expect(errorOf(result)).toEqual({
      code: RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER,
      message: `${noProvider(directory)} [zonesim: every provider was set aside by connectivity validation]`,
      cause: 'connectivity:unavailable',
    });
  });

  it('when a router emptied the list, the code-6 error names the router, its rule, the count it received and its note', () => {
    const { sim, runtime } = makeRuntime();
    const cUrl = consumerUrl();
    const providers = [0, 1].map(
      (i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script: () => ok(), log: [] }),
    );
    const directory = new RecordingDirectory(runtime, registryUrl(), cUrl, providers);
    const rule = 'method = sayHello => host = 10.9.9.9';
    directory.setRouterChain(emptyingChain({ router: 'condition', rule, before: 0, after: 0, note: 'no host matched' }));
    const cluster = clusters.failfast!(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result)).toEqual({
      code: RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER,
      message: `${noProvider(directory)} [zonesim: condition rule "${rule}" left 0 of 2 providers: no host matched]`,
      cause: 'router:condition',
    });
  });

  it('a router without rule or note is named alone in the code-6 error', () => {
    const { sim, runtime } = makeRuntime();
    const cUrl = consumerUrl();
    const provider = new ScriptedInvoker({ name: 'p0', url: providerUrl(0, cUrl), sim, script: () => ok(), log: [] });
    const directory = new RecordingDirectory(runtime, registryUrl(), cUrl, [provider]);
    directory.setRouterChain(emptyingChain({ router: 'tag', before: 0, after: 0 }));
    const cluster = clusters.failfast!(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result).message).toBe(`${noProvider(directory)} [zonesim: tag rule left 0 of 1 providers]`);
    expect(errorOf(result).cause).toBe('router:tag');
  });

  it('a forbidden directory fails the call with its code-4 error', () => {
    const { sim, runtime } = makeRuntime();
    const directory = new DynamicDirectory(runtime, registryUrl(), consumerUrl());
    directory.notifyEmpty();
    const cluster = clusters.failfast!(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result?.kind).toBe('error');
    expect(errorOf(result).code).toBe(RpcCode.FORBIDDEN_EXCEPTION);
  });

  it('a destroyed cluster invoker refuses every call with Dubbo message (code 0)', () => {
    const { sim, runtime, directory, cluster, log } = setup({ cluster: clusters.failfast!, scripts: [ok()] });
    const invoker = cluster as AbstractClusterInvoker;
    expect(invoker.getDirectory()).toBe(directory);
    expect(invoker.isDestroyed()).toBe(false);
    invoker.destroy();
    expect(invoker.isDestroyed()).toBe(true);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: RpcCode.UNKNOWN_EXCEPTION,
        message: `Rpc cluster invoker for ${SERVICE} on consumer ${runtime.consumerHost} use dubbo version ${DUBBO_VERSION} is now destroyed! Can not invoke any more.`,
      },
    });
    expect(log).toHaveLength(0);
  });

  it('takes the load balancer named on the first invoker URL, method level before service level', () => {
    const sim = new Simulation();
    const used: string[] = [];
    const named = (name: string) => () => ({
      select: (invokers: Invoker[]) => {
        used.push(name);
        return invokers[0]!;
      },
    });
    const runtime = createRuntime({
      sim,
      random: new RandomStreams(1).stream('c'),
      plugins: { methodLevel: named('methodLevel'), serviceLevel: named('serviceLevel') },
    });
    const cUrl = consumerUrl();
    const providers = [0, 1].map(
      (i) =>
        new ScriptedInvoker({
          name: `p${i}`,
          url: providerUrl(i, cUrl, i === 0 ? { loadbalance: 'serviceLevel', 'sayHello.loadbalance': 'methodLevel' } : {}),
          sim,
          script: () => ok(),
          log: [],
        }),
    );
    const directory = new RecordingDirectory(runtime, registryUrl(), cUrl, providers);
    const cluster = clusters.failfast!(directory, runtime);
    runCall(sim, cluster.invoke(invocation()));
    runCall(sim, cluster.invoke(new RpcInvocation({ methodName: 'sayBye', serviceName: SERVICE })));
    expect(used).toEqual(['methodLevel', 'serviceLevel']);
    // A list whose first invoker names none: the default (random) from then on, for every method.
    directory.replaceInvokers([providers[1]!, providers[0]!]);
    runCall(sim, cluster.invoke(invocation()));
    directory.replaceInvokers(providers);
    runCall(sim, cluster.invoke(invocation()));
    expect(used).toEqual(['methodLevel', 'serviceLevel', 'methodLevel']);
  });

  it('reads sticky off the first invoker URL of each list, per method', () => {
    const { providers, directory, probe } = selectWorld({ count: 3 });
    const stickyFirst = new ScriptedInvoker({
      name: 'sticky',
      url: providerUrl(9, directory.getConsumerUrl(), { 'sayHello.sticky': 'true' }),
      sim: new Simulation(),
      script: () => ok(),
      log: [],
    });
    const { lb, calls } = spyBalancer(byCall);
    const withSticky = [stickyFirst, ...providers];
    const picks = [0, 1, 2].map(() => nameOf(probe.pick(lb, sayHello(), withSticky, null)));
    // Without sticky on the first URL, every select is balanced again.
    const plain = [0, 1].map(() => nameOf(probe.pick(lb, sayHello(), providers, null)));
    expect(picks).toEqual(['sticky', 'sticky', 'sticky']);
    expect(plain).toEqual(['p1', 'p2']);
    expect(calls).toHaveLength(3);
  });
});

describe('invokeAtStart (a call whose process starts at once)', () => {
  // The same calls through `invoke` and through `invokeAtStart`, each in a fresh setup: equal results and attempts.
  const both = (scripts: Answer[], before?: (cluster: ReturnType<typeof setup>['cluster']) => void) => {
    const run = (atStart: boolean) => {
      const s = setup({ cluster: clusters.failover!, scripts });
      before?.(s.cluster);
      const call = atStart ? invokeAtStart(s.cluster, invocation()) : s.cluster.invoke(invocation());
      return { ...runCall(s.sim, call), log: s.log };
    };
    return [run(false), run(true)] as const;
  };

  it('gives what invoke gives: retries, successes and the no-provider check', () => {
    for (const scripts of [[ok('a')], [fail(RpcCode.TIMEOUT_EXCEPTION, 'slow', 5), ok('b', 3), ok('c')], []]) {
      const [plain, atStart] = both(scripts);
      expect(atStart).toEqual(plain);
    }
    // A destroyed cluster invoker's error.
    const [plain, atStart] = both([ok('a')], (cluster) => cluster.destroy!());
    expect(errorOf(atStart.result).message).toContain('is now destroyed');
    expect(atStart).toEqual(plain);
  });

  it('lists at once, in the step that calls it (invoke lists at its first step)', () => {
    const { cluster, directory } = setup({ cluster: clusters.failover!, scripts: [ok()] });
    let lists = 0;
    const list = directory.list.bind(directory);
    directory.list = (inv) => {
      lists++;
      return list(inv);
    };
    cluster.invoke(invocation());
    expect(lists).toBe(0);
    invokeAtStart(cluster, invocation());
    expect(lists).toBe(1);
  });

  it("calls a subclass's own invoke (a plugin cluster's), not around it", () => {
    const { sim, runtime, directory } = setup({ cluster: clusters.failover!, scripts: [ok('from the list')] });
    class Wrapping extends FailoverClusterInvoker {
      override *invoke(inv: RpcInvocation): Proc<Result> {
        const inner = yield* super.invoke(inv);
        return inner.kind === 'ok' ? { kind: 'ok', value: `wrapped ${String(inner.value)}` } : inner;
      }
    }
    const { result } = runCall(sim, invokeAtStart(new Wrapping(directory, runtime), invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'wrapped from the list' });
  });
});

describe('AbstractClusterInvoker.invokeWithContext: filters', () => {
  function filterWorld(filters: ConsumerFilter[], cluster = clusters.failfast!) {
    const sim = new Simulation();
    const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('c'), filters });
    const cUrl = consumerUrl();
    const log: AttemptRecord[] = [];
    const provider = new ScriptedInvoker({
      name: 'p0',
      url: providerUrl(0, cUrl),
      sim,
      script: () => ok('x', 7),
      log,
    });
    return { sim, cluster: cluster(new RecordingDirectory(runtime, registryUrl(), cUrl, [provider]), runtime), log };
  }

  it('runs the admission gates in filter order, each after the previous one let the attempt through', () => {
    const seen: string[] = [];
    const waiting: ConsumerFilter = {
      *admit() {
        seen.push(`wait admit@${world.sim.now}`);
        yield world.sim.timeout(5);
        return null;
      },
      before: (_i, _inv, nowMs) => seen.push(`wait before@${nowMs}`),
      after: () => {},
    };
    const second: ConsumerFilter = {
      *admit() {
        seen.push(`second admit@${world.sim.now}`);
        return null;
      },
      before: (_i, _inv, nowMs) => seen.push(`second before@${nowMs}`),
      after: () => {},
    };
    const world = filterWorld([waiting, second]);
    runCall(world.sim, world.cluster.invoke(invocation()));
    expect(seen).toEqual(['wait admit@0', 'second admit@5', 'wait before@5', 'second before@5']);
    expect(world.log.map((r) => r.startMs)).toEqual([5]);
  });

  it('an admission gate that refuses ends the attempt with its error: no provider call, no before/after', () => {
    const seen: string[] = [];
    const refusing: ConsumerFilter = {
      *admit() {
        return { code: RpcCode.LIMIT_EXCEEDED_EXCEPTION, message: 'actives exceeded' };
      },
      before: () => seen.push('refusing before'),
      after: () => seen.push('refusing after'),
    };
    const observer: ConsumerFilter = { before: () => seen.push('before'), after: () => seen.push('after') };
    // the available cluster returns its single attempt's result as it is
    const { sim, cluster, log } = filterWorld([observer, refusing], clusters.available!);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'error', error: { code: RpcCode.LIMIT_EXCEEDED_EXCEPTION, message: 'actives exceeded' } });
    expect(log).toHaveLength(0);
    expect(seen).toEqual([]);
  });

  it('reports the elapsed time of the attempt, not the time since the run began', () => {
    const seen: Array<[number, number]> = [];
    const filter: ConsumerFilter = { before: () => {}, after: (_i, _inv, _r, elapsedMs, nowMs) => seen.push([elapsedMs, nowMs]) };
    const { sim, cluster } = filterWorld([filter]);
    sim.schedule(100, () => sim.process(cluster.invoke(invocation())));
    sim.run();
    // started at 100 ms, the provider answers after 7 ms: elapsed 7, at 107
    expect(seen).toEqual([[7, 107]]);
  });
});
