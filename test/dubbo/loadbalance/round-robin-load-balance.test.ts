/** RoundRobinLoadBalance: smooth weighted sequences, tie-breaking, state keys, resets and recycling. */
import { describe, expect, it } from 'vitest';
import { RoundRobinLoadBalance } from '../../../src/dubbo/loadbalance/round-robin-load-balance.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickIndexes, TestInvoker } from './fixtures.js';
import { ReferenceRoundRobinLoadBalance } from './reference/round-robin-load-balance.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

function roundRobin(nowMs: () => number = () => NOW_MS): RoundRobinLoadBalance {
  return new RoundRobinLoadBalance(makeRuntime({ clock: { now: nowMs } }));
}

describe('RoundRobinLoadBalance', () => {
  it('picks weights 1,2,3 in the smooth sequence 2,1,0,2,1,2 and repeats it', () => {
    const invokers = invokersWith([{ weight: 1 }, { weight: 2 }, { weight: 3 }]);
    const lb = roundRobin();
    const seq = pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 12);
    expect(seq).toEqual([2, 1, 0, 2, 1, 2, 2, 1, 0, 2, 1, 2]);
  });

  it('cycles equal weights strictly in list order', () => {
    const invokers = invokersWith([{}, {}, {}]);
    const lb = roundRobin();
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 6)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('never picks a zero-weight invoker while another has weight', () => {
    const invokers = invokersWith([{ weight: 0 }, { weight: 5 }, { weight: 0 }]);
    const lb = roundRobin();
    expect(new Set(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 20))).toEqual(new Set([1]));
  });

  it('keeps separate state per method', () => {
    const invokers = invokersWith([{}, {}]);
    const lb = roundRobin();
    lb.select(invokers, CONSUMER, invocation('a'));
    expect(invokers.indexOf(lb.select(invokers, CONSUMER, invocation('b')) as TestInvoker)).toBe(0);
  });

  it('resets an entry when its weight changes with warmup', () => {
    let now = NOW_MS;
    // Invoker 0 warms up: 60 s old → weight 10; invoker 1 is warm (100).
    const invokers = invokersWith([{ timestamp: NOW_MS - 60_000 }, { timestamp: NOW_MS - 3_600_000 }]);
    const lb = roundRobin(() => now);
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 5)).toEqual([1, 1, 1, 1, 1]);
    // Currents are now (50, -50). 6 s later invoker 0 weighs 11: its current restarts at 0, so
    // invoker 1 wins first (without the reset invoker 0 would, at 61).
    now += 6_000;
    const seq = pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 12);
    expect(seq).toEqual([1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('drops entries idle for over 60 s when the list size differs from the table', () => {
    let now = NOW_MS;
    const [a, b, c] = invokersWith([{}, {}, {}]);
    const lb = roundRobin(() => now);
    lb.select([a!, b!, c!], CONSUMER, invocation());
    now += 60_001;
    lb.select([a!, b!], CONSUMER, invocation());
    expect(lb.getInvokerAddrList([a!, b!], invocation())).toEqual([
      a!.getUrl().toIdentityString(),
      b!.getUrl().toIdentityString(),
    ]);
  });

  it('keeps an entry that has been idle for 60 s or less', () => {
    let now = NOW_MS;
    const [a, b, c] = invokersWith([{}, {}, {}]);
    const lb = roundRobin(() => now);
    lb.select([a!, b!, c!], CONSUMER, invocation());
    now += 60_000;
    lb.select([a!, b!], CONSUMER, invocation());
    expect(lb.getInvokerAddrList([a!], invocation())).toHaveLength(3);
  });

  it('recycles nothing, however long idle, while the list size equals the table size', () => {
    let now = NOW_MS;
    const [a, b] = invokersWith([{}, {}]);
    // A second invoker of the same provider: the same identity string, so it shares a's entry.
    const twinOfA = new TestInvoker(a!.getUrl());
    const lb = roundRobin(() => now);
    lb.select([a!, b!], CONSUMER, invocation());
    now += 120_000;
    // Two invokers, two entries (a's and b's): b is 120 s idle but the sizes match, so it stays.
    lb.select([a!, twinOfA], CONSUMER, invocation());
    expect(lb.getInvokerAddrList([a!], invocation())).toEqual([a!.getUrl().toIdentityString(), b!.getUrl().toIdentityString()]);
  });

  it('counts dropped entries out of the table size, so a later equal-size list recycles nothing', () => {
    let now = NOW_MS;
    const [a, b, c] = invokersWith([{}, {}, {}]);
    const twinOfA = new TestInvoker(a!.getUrl());
    const lb = roundRobin(() => now);
    lb.select([a!, b!, c!], CONSUMER, invocation());
    now += 61_000;
    lb.select([a!, b!], CONSUMER, invocation());
    expect(lb.getInvokerAddrList([a!], invocation())).toHaveLength(2);
    // Two invokers, two entries: b is 61 s idle, but the sizes match, so Dubbo keeps it.
    now += 61_000;
    lb.select([a!, twinOfA], CONSUMER, invocation());
    expect(lb.getInvokerAddrList([a!], invocation())).toEqual([a!.getUrl().toIdentityString(), b!.getUrl().toIdentityString()]);
  });

  it("keeps each instance's own insertion order, whatever order other instances saw the providers in", () => {
    let now = NOW_MS;
    const [a, b, c] = invokersWith([{}, {}, {}]);
    // Two consumer instances of one group (equal consumer parameters): one sees a, b, c first, the other c, b, a.
    const first = roundRobin(() => now);
    const second = roundRobin(() => now);
    first.select([a!, b!, c!], CONSUMER, invocation());
    second.select([c!, b!, a!], CONSUMER, invocation());
    const id = (x: TestInvoker) => x.getUrl().toIdentityString();
    expect(second.getInvokerAddrList([a!], invocation())).toEqual([id(c!), id(b!), id(a!)]);
    // A dropped entry that comes back is inserted last again.
    now += 61_000;
    second.select([c!, a!], CONSUMER, invocation());
    second.select([b!, c!, a!], CONSUMER, invocation());
    expect(second.getInvokerAddrList([a!], invocation())).toEqual([id(c!), id(a!), id(b!)]);
  });

  it('reports no tracked identities for a service and method it has not picked for yet', () => {
    const invokers = invokersWith([{}, {}]);
    const lb = roundRobin();
    expect(lb.getInvokerAddrList(invokers, invocation())).toBeNull();
    lb.select(invokers, CONSUMER, invocation('other'));
    expect(lb.getInvokerAddrList(invokers, invocation())).toBeNull();
  });
});

// A line-by-line reference of Dubbo's doSelect (no caching), to check the optimized balancer against.
function referenceRoundRobin(nowMs: () => number) {
  const tables = new Map<string, Map<string, { weight: number; current: number; last: number }>>();
  return (invokers: TestInvoker[], weights: number[], method: string): TestInvoker => {
    const key = `DemoService.${method}`;
    let map = tables.get(key);
    if (map === undefined) tables.set(key, (map = new Map()));
    let total = 0;
    let max = -Infinity;
    let best: TestInvoker | null = null;
    let bestEntry: { weight: number; current: number; last: number } | null = null;
    invokers.forEach((inv, i) => {
      const id = inv.getUrl().toIdentityString();
      const w = weights[i]!;
      let e = map!.get(id);
      if (e === undefined) map!.set(id, (e = { weight: w, current: 0, last: 0 }));
      if (w !== e.weight) {
        e.weight = w;
        e.current = 0;
      }
      e.current += w;
      e.last = nowMs();
      if (e.current > max) {
        max = e.current;
        best = inv;
        bestEntry = e;
      }
      total += w;
    });
    if (invokers.length !== map.size) for (const [id, e] of map) if (nowMs() - e.last > 60_000) map.delete(id);
    bestEntry!.current -= total;
    return best!;
  };
}

describe('RoundRobinLoadBalance against a plain reference of Dubbo\'s algorithm', () => {
  it('picks the same sequence while lists alternate, shrink, grow and go unused past the 60 s recycle period', () => {
    let now = NOW_MS;
    const lb = roundRobin(() => now);
    const ref = referenceRoundRobin(() => now);
    const all = invokersWith([{ weight: 10 }, { weight: 20 }, { weight: 30 }, { weight: 40 }, { weight: 50 }]);
    // Fixed list objects, as a directory and route cache hand them out.
    const lists = [all, all.slice(0, 3), [all[1]!, all[3]!, all[4]!], all.slice(2)];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let step = 0; step < 5000; step++) {
      const list = lists[rand(lists.length)]!;
      const method = rand(4) === 0 ? 'b' : 'a';
      now += rand(10) === 0 ? 61_000 : rand(50);
      const weights = list.map((inv) => Number(inv.getUrl().getParameter('weight')));
      const expected = ref(list, weights, method);
      expect(lb.select(list, CONSUMER, invocation(method)), `step ${step}`).toBe(expected);
    }
  });
});

describe('RoundRobinLoadBalance instances of one consumer group against plain references', () => {
  it('pick what each instance\'s own Dubbo table picks, while they share slot numbers and lists', () => {
    const rng = new RandomStreams(77).stream('test');
    const rand = (n: number) => rng.nextInt(n);
    let now = NOW_MS;
    const clock = { now: () => now };
    const pool = invokersWith(Array.from({ length: 30 }, () => ({ weight: [1, 50, 100][rand(3)]!, timestamp: NOW_MS - rand(200_000) })));
    const lists = Array.from({ length: 12 }, () => pool.filter(() => rand(3) > 0).sort(() => rand(3) - 1));
    const fast = [0, 1, 2].map(() => new RoundRobinLoadBalance(makeRuntime({ clock })));
    const reference = [0, 1, 2].map(() => new ReferenceRoundRobinLoadBalance(makeRuntime({ clock })));
    for (let step = 0; step < 5_000; step++) {
      const n = rand(3);
      const list = lists[rand(lists.length)]!;
      if (list.length === 0) continue;
      now += rand(50) === 0 ? 70_000 : rand(40);
      const method = rand(3) === 0 ? 'other' : 'sayHello';
      const expected = reference[n]!.select(list, CONSUMER, invocation(method));
      expect(fast[n]!.select(list, CONSUMER, invocation(method)), `step ${step}`).toBe(expected);
    }
  });
});
