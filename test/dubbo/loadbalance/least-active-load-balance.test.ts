/** LeastActiveLoadBalance: weighted random without `actives`, least-active with ActiveLimitFilter counts. */
import { describe, expect, it } from 'vitest';
import { ActiveLimitFilter } from '../../../src/dubbo/filter/active-limit-filter.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, invokersWith, makeRuntime, pickIndexes, setStatus } from './fixtures.js';

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
    const invokers = invokersWith([{ actives: 0 }, { actives: 0 }, { actives: 0 }]);
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
});
