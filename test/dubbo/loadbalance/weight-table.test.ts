/**
 * The shared weight table and the balancers that read it, against plain references: the table's
 * weights equal `getWeight` per invoker at every instant (warmup steps included), its validity never
 * outlives a weight, and random / leastactive / shortestresponse / roundrobin pick exactly what
 * Dubbo's uncached scans pick for the same random draws (references in `reference/`).
 */
import { describe, expect, it } from 'vitest';
import type { LoadBalance } from '../../../src/dubbo/loadbalance/load-balance.js';
import { getWeight, weightAt, weightInputsOf } from '../../../src/dubbo/loadbalance/load-balance.js';
import { LeastActiveLoadBalance } from '../../../src/dubbo/loadbalance/least-active-load-balance.js';
import { RandomLoadBalance } from '../../../src/dubbo/loadbalance/random-load-balance.js';
import { RoundRobinLoadBalance } from '../../../src/dubbo/loadbalance/round-robin-load-balance.js';
import { ShortestResponseLoadBalance } from '../../../src/dubbo/loadbalance/shortest-response-load-balance.js';
import { drawIndex, listWeightedIndex, markDrawnFrom, nextWeightChangeMs, weightTableOf, type WeightTable } from '../../../src/dubbo/loadbalance/weight-table.js';
import { markSubList, previousVersion, VersionChain } from '../../../src/dubbo/per-list.js';
import type { DubboRuntime } from '../../../src/dubbo/runtime.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, setStatus, TestInvoker } from './fixtures.js';
import { ReferenceLeastActiveLoadBalance } from './reference/least-active-load-balance.js';
import { ReferenceRandomLoadBalance } from './reference/random-load-balance.js';
import { ReferenceRoundRobinLoadBalance } from './reference/round-robin-load-balance.js';
import { ReferenceShortestResponseLoadBalance } from './reference/shortest-response-load-balance.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

/** A seeded generator for the test's own choices (a stream of its own, not the balancers'). */
function seeded(seed: number) {
  const rng = new RandomStreams(seed).stream('test-choices');
  return (n: number) => rng.nextInt(n);
}

/**
 * Random provider lists as a registry would push them: weights (0 and method-level ones included),
 * start timestamps in the past, just now and in the future, warmups from none to 10 minutes.
 */
function randomLists(rand: (n: number) => number, count: number): TestInvoker[][] {
  const lists: TestInvoker[][] = [];
  for (let l = 0; l < count; l++) {
    const n = 1 + rand(30);
    const params: Array<Record<string, string | number>> = [];
    for (let i = 0; i < n; i++) {
      const p: Record<string, string | number> = {};
      const kind = rand(6);
      if (kind > 0) p.weight = [0, 1, 7, 100, 100, 250][rand(6)]!;
      if (rand(5) > 0) p.timestamp = NOW_MS + [-700_000, -30_000, -3_000, -1, 0, 1, 40, 2_000][rand(8)]! + rand(500);
      if (rand(3) > 0) p.warmup = [1, 1_000, 10_000, 60_000, 600_000][rand(5)]!;
      if (rand(8) === 0) p['sayHello.weight'] = 1 + rand(300);
      params.push(p);
    }
    lists.push(invokersWith(params));
  }
  return lists;
}

/** Per parent list a few sub-lists as directories make them (some invokers set aside, order kept), marked. */
function subListsOf(rand: (n: number) => number, parents: TestInvoker[][]): TestInvoker[][] {
  const subs: TestInvoker[][] = [];
  for (const parent of parents) {
    for (let k = 0; k < 3; k++) {
      const keep = 1 + rand(4);
      const sub = parent.filter(() => rand(5) < keep);
      if (sub.length === 0 || sub.length === parent.length) continue;
      markSubList(sub, parent);
      subs.push(sub);
    }
  }
  return subs;
}

/** A table equal to a fresh build's: weights, running totals, total, flag, validity and weight inputs. */
function expectSameTable(table: WeightTable, fresh: WeightTable, where: string): void {
  expect([...table.weights], where).toEqual([...fresh.weights]);
  expect([...table.prefix], where).toEqual([...fresh.prefix]);
  expect([table.totalWeight, table.sameWeight, table.validUntilMs], where).toEqual([fresh.totalWeight, fresh.sameWeight, fresh.validUntilMs]);
  expect(table.inputs, where).toEqual(fresh.inputs);
}

describe('weightTableOf', () => {
  it('gives getWeight of every invoker at every instant, while time moves on and jumps back and forth', () => {
    const rand = seeded(11);
    const lists = randomLists(rand, 40);
    let now = NOW_MS - 2_000;
    let checked = 0;
    for (let step = 0; step < 4_000; step++) {
      const list = lists[rand(lists.length)]!;
      const method = rand(3) === 0 ? 'other' : 'sayHello';
      // Mostly forward in small steps (a simulation's clock); sometimes a fraction of a ms, sometimes a jump either way.
      const r = rand(20);
      now += r === 0 ? rand(120_000) : r === 1 ? -rand(5_000) : r === 2 ? 0.25 : rand(40);
      const table = weightTableOf(list, method, now);
      const inv = invocation(method);
      list.forEach((invoker, i) => {
        expect(table.weights[i], `step ${step} #${i}`).toBe(getWeight(invoker, inv, now));
        checked++;
      });
      let total = 0;
      list.forEach((invoker, i) => (total += getWeight(invoker, inv, now)) && expect(table.prefix[i]).toBe(total));
      expect(table.totalWeight).toBe(total);
    }
    expect(checked).toBeGreaterThan(30_000);
  });

  it('keeps a weight constant from now until the change time it reports (checked on every ms, warmup steps included)', () => {
    const rand = seeded(5);
    const invokers = randomLists(rand, 30).flat();
    const violations: string[] = [];
    let checked = 0;
    for (const invoker of invokers) {
      const inputs = weightInputsOf(invoker, 'sayHello');
      for (let k = 0; k < 6; k++) {
        const now = NOW_MS - 1_500 + rand(4_000) + rand(4) / 4;
        const next = nextWeightChangeMs(inputs, now);
        const w = weightAt(inputs, now);
        if (!(next > now - 1)) violations.push(`next ${next} before now ${now}`);
        const end = Math.min(next, now + 1_500);
        for (let t = now; t < end; t += 1) if (weightAt(inputs, t) !== w) violations.push(`${invoker.getUrl()} at ${t - NOW_MS}`);
        if (next < Infinity && weightAt(inputs, next - 1e-3) !== w) violations.push(`${invoker.getUrl()} just before ${next - NOW_MS}`);
        checked++;
      }
    }
    expect(violations).toEqual([]);
    expect(checked).toBeGreaterThan(1_000);
  });

  it('redoes an expired table exactly as a fresh build at that instant (only the changed weights are weighed again)', () => {
    const rand = seeded(23);
    const lists = randomLists(rand, 20);
    let now = NOW_MS - 1_000;
    const last = new Map<TestInvoker[], unknown>();
    let redone = 0;
    for (let step = 0; step < 3_000; step++) {
      const list = lists[rand(lists.length)]!;
      now += rand(10) === 0 ? rand(30_000) : rand(60);
      const table = weightTableOf(list, 'sayHello', now);
      // A new table for a list seen before: the old one had expired.
      if (last.has(list) && last.get(list) !== table) redone++;
      last.set(list, table);
      // The same invokers in a new array: nothing cached, built from scratch.
      const fresh = weightTableOf([...list], 'sayHello', now);
      expectSameTable(table, fresh, `step ${step}`);
    }
    expect(redone).toBeGreaterThan(150);
  });

  it('builds the table of a list\'s next version from an earlier one\'s exactly as a fresh build at that instant', () => {
    const rand = seeded(29);
    // One pool of providers (warming up, weighted, starting later); each version leaves some out, brings
    // some in anywhere, now and then reorders a stretch, as pushes during a rolling restart do.
    const pool = randomLists(rand, 12).flat();
    const chain = new VersionChain();
    const versions: TestInvoker[][] = [];
    let current = pool.slice(0, 40);
    let now = NOW_MS - 1_000;
    let fromEarlier = 0;
    for (let step = 0; step < 3_000; step++) {
      if (rand(3) === 0) {
        const next = current.filter(() => rand(25) > 0);
        for (let k = rand(3); k > 0; k--) {
          const inv = pool[rand(pool.length)]!;
          if (!next.includes(inv)) next.splice(rand(next.length + 1), 0, inv);
        }
        if (rand(20) === 0 && next.length > 4) {
          const at = rand(next.length - 3);
          next.splice(at, 3, ...next.slice(at, at + 3).reverse());
        }
        if (next.length > 0) {
          current = next;
          chain.add(current);
          versions.push(current);
        }
      }
      if (versions.length === 0) continue;
      // Instances read versions a little behind the newest (their push lag), now and then an old one.
      const list = versions[Math.max(0, versions.length - 1 - (rand(8) === 0 ? rand(40) : rand(5)))]!;
      now += rand(10) === 0 ? rand(30_000) : rand(60);
      const method = rand(4) === 0 ? 'other' : 'sayHello';
      if (previousVersion(list) !== undefined) fromEarlier++;
      const table = weightTableOf(list, method, now);
      const fresh = weightTableOf([...list], method, now);
      expectSameTable(table, fresh, `step ${step}`);
    }
    expect(fromEarlier).toBeGreaterThan(1_000);
  });

  it("weighs a list drawn from another (failover's reselect) off that list's table, as a fresh build would", () => {
    const rand = seeded(31);
    const parents = randomLists(rand, 20);
    const sources = [...parents, ...subListsOf(rand, parents)];
    const strangers = randomLists(rand, 2).flat();
    let now = NOW_MS - 1_000;
    for (let step = 0; step < 3_000; step++) {
      const source = sources[rand(sources.length)]!;
      // A few draws with repeats, now and then an invoker the source does not hold (reselect's fallback).
      const drawn: TestInvoker[] = [];
      for (let k = 1 + rand(10); k > 0; k--) drawn.push(rand(12) === 0 ? strangers[rand(strangers.length)]! : source[rand(source.length)]!);
      now += rand(10) === 0 ? rand(30_000) : rand(60);
      const method = rand(4) === 0 ? 'other' : 'sayHello';
      markDrawnFrom(drawn, source);
      const table = weightTableOf(drawn, method, now);
      const fresh = weightTableOf([...drawn], method, now);
      expectSameTable(table, fresh, `step ${step}`);
    }
  });

  it("reads a sub-list's table (a directory's providers with some set aside) off its parent's, as a fresh build would weigh it", () => {
    const rand = seeded(29);
    const parents = randomLists(rand, 12).filter((l) => l.length > 2);
    let now = NOW_MS - 1_000;
    let derived = 0;
    for (let step = 0; step < 2_000; step++) {
      const parent = parents[rand(parents.length)]!;
      now += rand(10) === 0 ? rand(30_000) : rand(60);
      // Leave some invokers out, keeping the order, as the directory does.
      const sub = parent.filter(() => rand(4) > 0);
      markSubList(sub, parent);
      const method = rand(3) === 0 ? 'other' : 'sayHello';
      const table = weightTableOf(sub, method, now);
      const fresh = weightTableOf([...sub], method, now);
      expectSameTable(table, fresh, `step ${step}`);
      if (sub.length < parent.length) derived++;
    }
    expect(derived).toBeGreaterThan(1_500);
  });

  it("picks from a sub-list through its parent's table as from the sub-list's own: the same index and the same draws", () => {
    const rand = seeded(37);
    const subs = subListsOf(rand, randomLists(rand, 40).filter((l) => l.length > 2));
    const ours = new RandomStreams(5).stream('pick');
    const theirs = new RandomStreams(5).stream('pick');
    let now = NOW_MS - 1_000;
    let weighted = 0;
    for (let step = 0; step < 6_000; step++) {
      // The same sub-lists come back while time moves on, so their totals are reused and redone.
      const sub = subs[rand(subs.length)]!;
      now += rand(20) === 0 ? rand(60_000) : rand(40);
      const method = rand(4) === 0 ? 'other' : 'sayHello';
      const fresh = weightTableOf([...sub], method, now);
      const expected = drawIndex(fresh.prefix, fresh.totalWeight, fresh.sameWeight, theirs);
      expect(listWeightedIndex(sub, method, now, ours), `step ${step}`).toBe(expected);
      expect(ours.next()).toBe(theirs.next());
      if (!fresh.sameWeight && fresh.totalWeight > 0) weighted++;
    }
    // Most picks were weighted draws over unequal weights (every list leaves invokers out: subListsOf).
    expect(weighted).toBeGreaterThan(3_000);
  });

  // A draw's bound tells Dubbo's two paths apart: nextInt(length) when the weights are equal, nextInt(total) otherwise.
  it.each([
    { left: 'every unequal weight', weights: [100, 7, 100, 250, 100], keep: [0, 2, 4], bound: 3 },
    { left: 'the first invoker, the only unequal one', weights: [7, 100, 100, 100], keep: [1, 2, 3], bound: 3 },
    { left: 'equal weights only', weights: [7, 100, 100, 250, 100], keep: [0, 3, 4], bound: 357 },
  ])("draws over a sub-list that leaves out $left as Dubbo's scan of it does (bound $bound)", ({ weights, keep, bound }) => {
    const parent = invokersWith(weights.map((weight) => ({ weight })));
    const sub = keep.map((i) => parent[i]!);
    markSubList(sub, parent);
    const bounds: number[] = [];
    const rng = { next: () => 0.5, nextInt: (n: number) => (bounds.push(n), n - 1) };
    const index = listWeightedIndex(sub, 'sayHello', NOW_MS, rng);
    expect(bounds).toEqual([bound]);
    expect(index).toBe(sub.length - 1);
  });

  it('reports the exact step of a warming-up weight: weight 100 over 600 s changes every 6 s', () => {
    const [invoker] = invokersWith([{ weight: 100, warmup: 600_000, timestamp: NOW_MS }]);
    const inputs = weightInputsOf(invoker!, 'sayHello');
    // uptime 6000 ms: weight 1 (trunc(6000/6000) = 1), then 2 from uptime 12000 ms.
    expect(weightAt(inputs, NOW_MS + 6_000)).toBe(1);
    expect(nextWeightChangeMs(inputs, NOW_MS + 6_000)).toBe(NOW_MS + 12_000);
    expect(weightAt(inputs, NOW_MS + 12_000)).toBe(2);
    // The last step before the warmup ends, then the full weight for ever.
    expect(nextWeightChangeMs(inputs, NOW_MS + 594_000)).toBe(NOW_MS + 600_000);
    expect(nextWeightChangeMs(inputs, NOW_MS + 600_000)).toBe(Infinity);
  });
});

describe('weightTableOf fields', () => {
  /** The table of a fresh list with these URL parameters at NOW_MS. */
  function tableOf(params: Array<Record<string, string | number>>, nowMs = NOW_MS) {
    return weightTableOf(invokersWith(params), 'sayHello', nowMs);
  }

  it('holds the weights, their running totals and the total', () => {
    const table = tableOf([{ weight: 5 }, { weight: 0 }, { weight: 7 }, { 'sayHello.weight': 3, weight: 9 }]);
    expect([...table.weights]).toEqual([5, 0, 7, 3]);
    expect([...table.prefix]).toEqual([5, 5, 12, 15]);
    expect(table.totalWeight).toBe(15);
  });

  it('sets sameWeight when every weight is equal: equal URL weights, all zero, or equal after warmup', () => {
    expect(tableOf([{ weight: 50 }, { weight: 50 }, { weight: 50 }]).sameWeight).toBe(true);
    expect(tableOf([{}, {}]).sameWeight).toBe(true);
    expect(tableOf([{ weight: 0 }, { weight: 0 }, { weight: 0 }]).sameWeight).toBe(true);
    // Weight 100 started 60 s ago with the default 600000 ms warmup counts 60000 / 6000 = 10.
    expect(tableOf([{ weight: 100, timestamp: NOW_MS - 60_000 }, { weight: 10 }]).sameWeight).toBe(true);
    expect(tableOf([{ weight: 7 }]).sameWeight).toBe(true);
  });

  it('clears sameWeight as soon as one weight differs, wherever it is', () => {
    expect(tableOf([{ weight: 5 }, { weight: 5 }, { weight: 6 }]).sameWeight).toBe(false);
    expect(tableOf([{ weight: 6 }, { weight: 5 }, { weight: 5 }]).sameWeight).toBe(false);
    expect(tableOf([{ weight: 0 }, { weight: 5 }]).sameWeight).toBe(false);
    expect(tableOf([{ weight: 5 }, { weight: 0 }]).sameWeight).toBe(false);
    expect(tableOf([{ weight: 0 }, { weight: 0 }, { weight: 1 }]).sameWeight).toBe(false);
    // Equal URL weights made unequal by warmup: 10 and 100.
    expect(tableOf([{ weight: 100, timestamp: NOW_MS - 60_000 }, { weight: 100 }]).sameWeight).toBe(false);
  });

  it('gives the new weight from the exact instant a warmup step changes it', () => {
    // Weight 100 over the default 600000 ms: 1 from uptime 6000 ms, 2 from uptime 12000 ms.
    const list = invokersWith([{ weight: 100, timestamp: NOW_MS }, { weight: 100 }]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS + 6_000).weights]).toEqual([1, 100]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS + 11_999.5).weights]).toEqual([1, 100]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS + 12_000).weights]).toEqual([2, 100]);
    // And the old one again when the clock is set back before the table's start.
    expect([...weightTableOf(list, 'sayHello', NOW_MS + 6_000).weights]).toEqual([1, 100]);
    expect(weightTableOf(list, 'sayHello', NOW_MS + 6_000).prefix[1]).toBe(101);
  });

  it('keeps one table per method of a list', () => {
    const list = invokersWith([{ weight: 10, 'sayHello.weight': 30 }, { weight: 20 }]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS).weights]).toEqual([30, 20]);
    expect([...weightTableOf(list, 'other', NOW_MS).weights]).toEqual([10, 20]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS).weights]).toEqual([30, 20]);
  });
});

describe('nextWeightChangeMs', () => {
  const inputs = (weight: number, timestamp: number, warmup = 600_000, registry = false) => ({ registry, weight, timestamp, warmup });

  it('is Infinity for a weight that can never change', () => {
    // A registry URL's weight has no warmup and no "1 before the start".
    expect(nextWeightChangeMs(inputs(50, NOW_MS + 5_000, 600_000, true), NOW_MS)).toBe(Infinity);
    // Weights <= 0 are 0 whatever the uptime.
    expect(nextWeightChangeMs(inputs(0, NOW_MS + 5_000), NOW_MS)).toBe(Infinity);
    expect(nextWeightChangeMs(inputs(-5, NOW_MS + 5_000), NOW_MS)).toBe(Infinity);
    expect(nextWeightChangeMs(inputs(0, NOW_MS), NOW_MS)).toBe(Infinity);
    // No positive timestamp: never warms up, even with the clock within one warmup of 0.
    expect(nextWeightChangeMs(inputs(100, 0), 60_000)).toBe(Infinity);
    // Weight 1: the warmup weight is clamped to [1, 1].
    expect(nextWeightChangeMs(inputs(1, NOW_MS - 60_000), NOW_MS)).toBe(Infinity);
    // From uptime == warmup on the weight is full for ever, even where the warmup formula at that
    // uptime would give less (weight 7: trunc(600000 / float32(600000 / 7)) = 6).
    expect(nextWeightChangeMs(inputs(7, NOW_MS - 600_000), NOW_MS)).toBe(Infinity);
    expect(nextWeightChangeMs(inputs(100, NOW_MS - 700_000), NOW_MS)).toBe(Infinity);
  });

  it('finds the step where Java float arithmetic puts it, not where doubles would', () => {
    // Weight 26 over 600000 ms: 12 up to uptime 299999, 13 from 300000 (300000f / 23076.924f rounds to
    // 13.0f); in double the quotient is 12.9999995 and the step would come 1 ms later.
    expect(nextWeightChangeMs(inputs(26, NOW_MS), NOW_MS + 290_000)).toBe(NOW_MS + 300_000);
    const list = invokersWith([{ weight: 26, timestamp: NOW_MS }, { weight: 100 }]);
    expect(weightTableOf(list, 'sayHello', NOW_MS + 299_999).weights[0]).toBe(12);
    expect(weightTableOf(list, 'sayHello', NOW_MS + 300_000).weights[0]).toBe(13);
  });

  it('is 1 ms before the start time while the provider has not started (its weight is 1 up to then)', () => {
    expect(nextWeightChangeMs(inputs(100, NOW_MS + 5_000), NOW_MS)).toBe(NOW_MS + 4_999);
  });

  it('is 1 ms after the start time at uptime 0 (full weight at 0, then the first warmup weight)', () => {
    expect(nextWeightChangeMs(inputs(100, NOW_MS), NOW_MS)).toBe(NOW_MS + 1);
    // Half a ms before the start the uptime truncates to 0 as well.
    expect(nextWeightChangeMs(inputs(100, NOW_MS), NOW_MS - 0.5)).toBe(NOW_MS + 1);
  });

  it('lets a table built at a provider\'s start instant give way to the warmup weight 1 ms later', () => {
    // Weight 100: full at uptime 0; trunc(1 / 6000) = 0 clamped to 1 at uptime 1.
    const list = invokersWith([{ weight: 100, timestamp: NOW_MS }, { weight: 100 }]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS - 5).weights]).toEqual([1, 100]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS).weights]).toEqual([100, 100]);
    expect([...weightTableOf(list, 'sayHello', NOW_MS + 1).weights]).toEqual([1, 100]);
  });
});

/** A fast balancer and its reference, each with its own runtime whose `lb` stream has the same seed. */
interface Pair {
  name: string;
  fast: (rt: DubboRuntime) => LoadBalance;
  reference: (rt: DubboRuntime) => LoadBalance;
  /** Whether RpcStatus counts matter (then both runtimes get the same counts). */
  usesStatus: boolean;
}

const pairs: Pair[] = [
  { name: 'random', fast: (rt) => new RandomLoadBalance(rt), reference: (rt) => new ReferenceRandomLoadBalance(rt), usesStatus: false },
  { name: 'roundrobin', fast: (rt) => new RoundRobinLoadBalance(rt), reference: (rt) => new ReferenceRoundRobinLoadBalance(rt), usesStatus: false },
  { name: 'leastactive', fast: (rt) => new LeastActiveLoadBalance(rt), reference: (rt) => new ReferenceLeastActiveLoadBalance(rt), usesStatus: true },
  {
    name: 'shortestresponse',
    fast: (rt) => new ShortestResponseLoadBalance(rt),
    reference: (rt) => new ReferenceShortestResponseLoadBalance(rt),
    usesStatus: true,
  },
];

describe.each(pairs)('$name against its plain reference', ({ fast, reference, usesStatus }) => {
  // Streaks: runs of calls on one list and method, as a route cache gives them, while warmups step.
  it.each([
    { lists: 'a random list each call', streaks: false, subLists: false },
    { lists: 'runs of calls on one list and method', streaks: true, subLists: false },
    { lists: "runs of calls on directories' lists with providers set aside", streaks: true, subLists: true },
  ])('picks the same invoker on every call over random lists, warmups, weights, in-flight counts and times ($lists)', ({ streaks, subLists }) => {
    const rand = seeded(subLists ? 31 : streaks ? 29 : 23);
    const lists = subLists ? subListsOf(rand, randomLists(rand, 25)) : randomLists(rand, 25);
    let now = NOW_MS - 1_000;
    const clock = { now: () => now };
    const rtFast = makeRuntime({ seed: 99, clock });
    const rtRef = makeRuntime({ seed: 99, clock });
    const lbFast = fast(rtFast);
    const lbRef = reference(rtRef);
    let weighted = 0;
    let list = lists[0]!;
    let method = 'sayHello';
    for (let step = 0; step < 6_000; step++) {
      if (!streaks || rand(8) === 0) {
        list = lists[rand(lists.length)]!;
        method = rand(4) === 0 ? 'other' : 'sayHello';
      }
      now += rand(25) === 0 ? rand(90_000) : rand(30);
      if (usesStatus && rand(3) === 0) {
        // The same calls start (and finish, with an elapsed time) on both sides.
        const target = list[rand(list.length)]!;
        const counts = { active: rand(3), succeeded: rand(3), succeededElapsedMs: rand(200) };
        setStatus(rtFast, target, method, counts);
        setStatus(rtRef, target, method, counts);
      }
      const inv = invocation(method);
      const expected = lbRef.select(list, CONSUMER, inv);
      expect(lbFast.select(list, CONSUMER, invocation(method)), `step ${step}`).toBe(expected);
      if (new Set(list.map((i) => getWeight(i, inv, now))).size > 1) weighted++;
    }
    // Most picks were among unequal weights, so the weighted paths were exercised.
    expect(weighted).toBeGreaterThan(3_000);
  });
});

describe('leastactive against its plain reference while calls start and finish', () => {
  // A provider set aside (its connection refused) may still have a call in flight from before.
  it('picks from a sub-list whose set-aside provider is busy as from that list itself', () => {
    for (let seed = 1; seed <= 40; seed++) {
      // Long enough for the sparse path (fewer than 1 in 8 busy).
      const parent = invokersWith([100, 7, 250, 40, 100, 3, 60, 90, 11, 100, 25, 100].map((weight) => ({ weight })));
      const sub = parent.filter((_, i) => i !== 2 && i !== 5);
      markSubList(sub, parent);
      const rtFast = makeRuntime({ seed });
      const rtRef = makeRuntime({ seed });
      for (const rt of [rtFast, rtRef]) setStatus(rt, parent[2]!, 'sayHello', { active: 1 });
      const fast = new LeastActiveLoadBalance(rtFast);
      const reference = new ReferenceLeastActiveLoadBalance(rtRef);
      for (let k = 0; k < 5; k++) {
        const expected = reference.select([...sub], CONSUMER, invocation('sayHello'));
        expect(fast.select(sub, CONSUMER, invocation('sayHello')), `seed ${seed}`).toBe(expected);
      }
    }
  });

  // Lists of up to 300 invokers with a few calls in flight at a time: the sparse path (the tied
  // invokers are the list minus the busy ones) and, once most are busy, Dubbo's scan.
  it('picks the same invoker on every call, with none, a few and most invokers busy', () => {
    const rand = seeded(31);
    const lists: TestInvoker[][] = [];
    for (let l = 0; l < 12; l++) {
      const n = 2 + rand(300);
      const params: Array<Record<string, string | number>> = [];
      for (let i = 0; i < n; i++) {
        const p: Record<string, string | number> = {};
        if (l % 3 > 0) p.weight = [1, 50, 100, 100, 100][rand(5)]!;
        if (l % 3 === 2) p.timestamp = NOW_MS - rand(20_000);
        params.push(p);
      }
      lists.push(invokersWith(params));
    }
    // Equal weights but one (among the first few): busy, it leaves a tie of equal weights behind it.
    for (let l = 0; l < 6; l++) {
      const n = l < 2 ? 9 + rand(4) : 2 + rand(200);
      const odd = rand(2) === 0 ? 0 : rand(Math.min(n, 3));
      lists.push(invokersWith(Array.from({ length: n }, (_, i) => ({ weight: i === odd ? 7 : 100 }))));
    }
    let now = NOW_MS;
    const clock = { now: () => now };
    const rtFast = makeRuntime({ seed: 5, clock });
    const rtRef = makeRuntime({ seed: 5, clock });
    const lbFast = new LeastActiveLoadBalance(rtFast);
    const lbRef = new ReferenceLeastActiveLoadBalance(rtRef);
    const inFlight: Array<{ url: URL; method: string }> = [];
    const busyCounts = new Set<number>();
    for (let step = 0; step < 8_000; step++) {
      const list = lists[rand(lists.length)]!;
      const method = rand(5) === 0 ? 'other' : 'sayHello';
      now += rand(40);
      // Phases: mostly idle, a few in flight, then a crowd that leaves most invokers busy.
      const phase = Math.floor(step / 2_000);
      const target = phase === 2 ? 400 : phase === 1 ? 6 : 1;
      if (inFlight.length < target && rand(2) === 0) {
        const url = list[rand(2) === 0 ? rand(Math.min(list.length, 3)) : rand(list.length)]!.getUrl();
        rtFast.rpcStatus.beginCount(url, method);
        rtRef.rpcStatus.beginCount(url, method);
        inFlight.push({ url, method });
      } else if (inFlight.length > 0 && rand(3) === 0) {
        const done = inFlight.splice(rand(inFlight.length), 1)[0]!;
        rtFast.rpcStatus.endCount(done.url, done.method, 5, true);
        rtRef.rpcStatus.endCount(done.url, done.method, 5, true);
      }
      busyCounts.add(Math.min(rtFast.rpcStatus.busyFor('sayHello').size, 10));
      const expected = lbRef.select(list, CONSUMER, invocation(method));
      expect(lbFast.select(list, CONSUMER, invocation(method)), `step ${step}`).toBe(expected);
    }
    // Idle, a few busy and many busy all happened.
    expect([...busyCounts].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('ties the invokers behind a busy first one by their own weights (equal here, so a uniform draw)', () => {
    const list = invokersWith(Array.from({ length: 20 }, (_, i) => ({ weight: i === 0 ? 7 : 100 })));
    const rtFast = makeRuntime({ seed: 8 });
    const rtRef = makeRuntime({ seed: 8 });
    for (const rt of [rtFast, rtRef]) rt.rpcStatus.beginCount(list[0]!.getUrl(), 'sayHello');
    const lbFast = new LeastActiveLoadBalance(rtFast);
    const lbRef = new ReferenceLeastActiveLoadBalance(rtRef);
    for (let i = 0; i < 200; i++) expect(lbFast.select(list, CONSUMER, invocation())).toBe(lbRef.select(list, CONSUMER, invocation()));
  });
});

describe('shortestresponse against its plain reference when counting starts late', () => {
  // Picks before any call is counted need no window; once calls of a method are counted, the
  // windows Dubbo made at those earlier picks must exist, and be reset by any pick's slide, as his.
  // With sub-lists, an instance may pick over a directory's list with providers set aside before or after
  // its parent: the windows Dubbo opens are those of every invoker of every list picked over.
  it.each([
    { lists: 'pushed lists', subLists: false },
    { lists: "pushed lists and directories' sub-lists of them", subLists: true },
  ])('picks the same invoker on every call, across uncounted picks, the first counts and window slides ($lists)', ({ subLists }) => {
    const rand = seeded(subLists ? 53 : 47);
    // Two families of lists on different hosts: calls are counted on the second while only the
    // first is picked over, so its windows are reset without being read, then read.
    // Half the pushed lists are picked over only through their sub-lists (set aside before the first pick).
    const withSubLists = (lists: TestInvoker[][]) => (subLists ? [...lists.slice(0, 5), ...subListsOf(rand, lists)] : lists);
    const near = withSubLists(randomLists(rand, 10));
    const far = withSubLists(
      randomLists(rand, 10).map((list) => list.map((inv) => new TestInvoker(inv.getUrl().toString().replace('127.0.0.1', '127.0.0.2')))),
    );
    let now = NOW_MS;
    const clock = { now: () => now };
    const rtFast = makeRuntime({ seed: 12, clock });
    const rtRef = makeRuntime({ seed: 12, clock });
    const lbFast = new ShortestResponseLoadBalance(rtFast);
    const lbRef = new ReferenceShortestResponseLoadBalance(rtRef);
    const inFlight: Array<{ url: URL; method: string }> = [];
    for (let step = 0; step < 6_000; step++) {
      // Phases: uncounted picks over both families; counts on far lists, picks over near ones; all.
      const phase = step < 1_500 ? 0 : step < 3_500 ? 1 : 2;
      const pickFrom = phase === 1 ? near : rand(2) === 0 ? near : far;
      const list = pickFrom[rand(pickFrom.length)]!;
      const method = rand(2) === 0 ? 'other' : 'sayHello';
      // Slide periods (30 s) pass now and then, so windows reset between counts.
      now += rand(40) === 0 ? 31_000 : rand(50);
      if (phase > 0 && rand(3) === 0) {
        const countOn = phase === 1 ? far : rand(2) === 0 ? near : far;
        const target = countOn[rand(countOn.length)]!;
        const url = target[rand(target.length)]!.getUrl();
        for (const rt of [rtFast, rtRef]) rt.rpcStatus.beginCount(url, method);
        inFlight.push({ url, method });
      }
      if (inFlight.length > 0 && rand(3) === 0) {
        const done = inFlight.splice(rand(inFlight.length), 1)[0]!;
        const elapsedMs = rand(300);
        const succeeded = rand(5) > 0;
        for (const rt of [rtFast, rtRef]) rt.rpcStatus.endCount(done.url, done.method, elapsedMs, succeeded);
      }
      const expected = lbRef.select(list, CONSUMER, invocation(method));
      expect(lbFast.select(list, CONSUMER, invocation(method)), `step ${step}`).toBe(expected);
    }
  });

  // Dubbo opens a window at each pick; a window opened before a slide is reset by it and forgets what was
  // counted before. So a slide at a pick over another list must reset the sub-list's windows too.
  it('resets at a slide the windows of a sub-list picked over before counting started, even when its parent never was', () => {
    let differs = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const parent = invokersWith([{}, {}, {}]);
      const sub = [parent[0]!, parent[1]!];
      markSubList(sub, parent);
      const other = [new TestInvoker('test://127.0.0.2:1/DemoService'), new TestInvoker('test://127.0.0.2:2/DemoService')];
      let now = NOW_MS;
      const clock = { now: () => now };
      const rtFast = makeRuntime({ seed, clock });
      const rtRef = makeRuntime({ seed, clock });
      const lbFast = new ShortestResponseLoadBalance(rtFast);
      const lbRef = new ReferenceShortestResponseLoadBalance(rtRef);
      const both = (list: TestInvoker[]) => {
        const expected = lbRef.select(list, CONSUMER, invocation('sayHello'));
        expect(lbFast.select(list, CONSUMER, invocation('sayHello')), `seed ${seed}`).toBe(expected);
        return expected;
      };
      both(sub);
      // One slow call of the sub-list's first provider is counted, then a slide period passes at a pick elsewhere.
      for (const rt of [rtFast, rtRef]) {
        rt.rpcStatus.beginCount(sub[0]!.getUrl(), 'sayHello');
        rt.rpcStatus.endCount(sub[0]!.getUrl(), 'sayHello', 500, true);
      }
      now += 31_000;
      both(other);
      // The reset window reads 0 like its neighbour's: a tie, drawn; without the reset the slow one always loses.
      if (both(sub) === sub[0]) differs++;
    }
    expect(differs).toBeGreaterThan(5);
  });
});
