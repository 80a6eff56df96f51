/** LeastActiveLoadBalance: weighted random without `actives`, least-active with ActiveLimitFilter counts. */
import { describe, expect, it } from 'vitest';
import { ActiveLimitFilter } from '../../../src/dubbo/filter/active-limit-filter.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams, type Rng } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickIndexes, setStatus } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

describe('LeastActiveLoadBalance', () => {
  it('makes exactly the picks of random when no invoker has active calls', () => {
    const invokers = invokersWith([{ weight: 1 }, { weight: 9 }, { weight: 6 }, { weight: 11 }, { weight: 3 }]);
    const least = makeRuntime({ seed: 5 }).getLoadBalance('leastactive');
    const random = makeRuntime({ seed: 5 }).getLoadBalance('random');
    const a = pickIndexes(() => least.select(invokers, CONSUMER, invocation()), invokers, 1000);
    const b = pickIndexes(() => random.select(invokers, CONSUMER, invocation()), invokers, 1000);
    expect(a).toEqual(b);
  });

  it('draws by weight among the invokers tied at the least active count', () => {
    const invokers = invokersWith([{ weight: 100 }, { weight: 1 }, { weight: 100 }]);
    const runtime = makeRuntime({ seed: 2 });
    setStatus(runtime, invokers[0]!, 'sayHello', { active: 1 });
    const lb = runtime.getLoadBalance('leastactive');
    const picks = pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 2000);
    expect(picks.filter((i) => i === 0)).toHaveLength(0);
    // Invoker 1 has weight 1 of 101 among the tied pair.
    expect(picks.filter((i) => i === 1).length).toBeLessThan(60);
  });

  it('spreads calls that stay in flight when ActiveLimitFilter counts them', () => {
    // actives=100 activates ActiveLimitFilter without limiting here; actives=0 would not activate it at
    // all (ConfigUtils.isNotEmpty("0") is false, see active-limit-filter.test.ts).
    const invokers = invokersWith([{ actives: 100 }, { actives: 100 }, { actives: 100 }]);
    const runtime = makeRuntime({ seed: 3, filters: [new ActiveLimitFilter()] });
    const lb = runtime.getLoadBalance('leastactive');
    const filter = runtime.filters[0]!;
    const picks = pickIndexes(
      () => {
        const inv = invocation();
        const picked = lb.select(invokers, CONSUMER, inv)!;
        filter.admit!(picked, inv).next();
        return picked;
      },
      invokers,
      9,
    );
    expect([0, 1, 2].map((i) => picks.filter((p) => p === i).length)).toEqual([3, 3, 3]);
  });

  it('stays random with actives=0: ActiveLimitFilter is not activated, so calls in flight are not counted', () => {
    // ActiveLimitFilter.java line 45 with ExtensionLoader.isActive and ConfigUtils.isNotEmpty("0") == false.
    const invokers = invokersWith([{ actives: 0 }, { actives: 0 }, { actives: 0 }]);
    const runtime = makeRuntime({ seed: 3, filters: [new ActiveLimitFilter()] });
    const lb = runtime.getLoadBalance('leastactive');
    const filter = runtime.filters[0]!;
    const random = makeRuntime({ seed: 3 }).getLoadBalance('random');
    const picks = pickIndexes(
      () => {
        const inv = invocation();
        const picked = lb.select(invokers, CONSUMER, inv)!;
        filter.admit!(picked, inv).next();
        return picked;
      },
      invokers,
      30,
    );
    expect(picks).toEqual(pickIndexes(() => random.select(invokers, CONSUMER, invocation()), invokers, 30));
    expect(runtime.rpcStatus.getStatus(invokers[0]!.getUrl(), 'sayHello').getActive()).toBe(0);
  });

  it('draws nextInt(total) over the tied invokers only and subtracts their weights in list order', () => {
    // Invoker 0 (weight 100) has a call in flight; tied at 0: invokers 1, 2, 3 with 1 + 100 + 50 = 151.
    const invokers = invokersWith([{ weight: 100 }, { weight: 1 }, { weight: 100 }, { weight: 50 }]);
    const runtime = makeRuntime({ seed: 4 });
    setStatus(runtime, invokers[0]!, 'sayHello', { active: 1 });
    const lb = runtime.getLoadBalance('leastactive');
    const replay = new RandomStreams(4).stream('lb');
    const expected = Array.from({ length: 300 }, () => {
      let offset = replay.nextInt(151);
      for (const [index, weight] of [[1, 1], [2, 100], [3, 50]] as const) if ((offset -= weight) < 0) return index;
      return -1;
    });
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 300)).toEqual(expected);
  });

  it('draws nextInt(count) among tied invokers whose weights are all 0', () => {
    const invokers = invokersWith([{ weight: 0 }, { weight: 0 }, { weight: 5 }, { weight: 0 }]);
    const runtime = makeRuntime({ seed: 4 });
    setStatus(runtime, invokers[2]!, 'sayHello', { active: 2 });
    const lb = runtime.getLoadBalance('leastactive');
    const replay = new RandomStreams(4).stream('lb');
    const tied = [0, 1, 3];
    const expected = Array.from({ length: 300 }, () => tied[replay.nextInt(3)]);
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 300)).toEqual(expected);
  });

  it('returns the one invoker with the fewest active calls without drawing', () => {
    const invokers = invokersWith([{ weight: 100 }, { weight: 1 }, { weight: 100 }]);
    let draws = 0;
    const inner = new RandomStreams(1).stream('lb');
    const random: Rng = {
      next: () => (draws++, inner.next()),
      nextInt: (n) => (draws++, inner.nextInt(n)),
    };
    const runtime = createRuntime({ sim: new Simulation(), random, clock: { now: () => NOW_MS } });
    setStatus(runtime, invokers[0]!, 'sayHello', { active: 1 });
    setStatus(runtime, invokers[2]!, 'sayHello', { active: 3 });
    const lb = runtime.getLoadBalance('leastactive');
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 20)).toEqual(new Array(20).fill(1));
    expect(draws).toBe(0);
  });
});
