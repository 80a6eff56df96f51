/** RoundRobinLoadBalance: smooth weighted sequences, tie-breaking, state keys, resets and recycling. */
import { describe, expect, it } from 'vitest';
import { RoundRobinLoadBalance } from '../../../src/dubbo/loadbalance/round-robin-load-balance.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickIndexes, TestInvoker } from './fixtures.js';

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
});
