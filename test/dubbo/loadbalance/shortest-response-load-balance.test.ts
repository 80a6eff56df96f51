/** ShortestResponseLoadBalance: estimates from the slide window, and the 30 s window reset. */
import { describe, expect, it } from 'vitest';
import { ShortestResponseLoadBalance } from '../../../src/dubbo/loadbalance/shortest-response-load-balance.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickIndexes, setStatus } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

describe('ShortestResponseLoadBalance', () => {
  it('avoids the invoker with the longest estimated response', () => {
    const invokers = invokersWith([{}, {}, {}]);
    const runtime = makeRuntime();
    setStatus(runtime, invokers[1]!, 'sayHello', { succeeded: 2, succeededElapsedMs: 300 });
    const lb = runtime.getLoadBalance('shortestresponse');
    const picks = pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 500);
    expect(picks).not.toContain(1);
  });

  it('multiplies the average by active + 1', () => {
    // Invoker 0: 100 ms average, 2 in flight → 300; invoker 1: 200 ms average, idle → 200.
    const invokers = invokersWith([{}, {}]);
    const runtime = makeRuntime();
    setStatus(runtime, invokers[0]!, 'sayHello', { succeeded: 1, succeededElapsedMs: 100, active: 2 });
    setStatus(runtime, invokers[1]!, 'sayHello', { succeeded: 1, succeededElapsedMs: 200 });
    const lb = runtime.getLoadBalance('shortestresponse');
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 20)).toEqual(new Array(20).fill(1));
  });

  it('forgets old response times once the 30 s slide period has passed', () => {
    let now = NOW_MS;
    const invokers = invokersWith([{}, {}]);
    const runtime = makeRuntime({ clock: { now: () => now } });
    setStatus(runtime, invokers[0]!, 'sayHello', { succeeded: 1, succeededElapsedMs: 500 });
    const lb = new ShortestResponseLoadBalance(runtime);
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 10)).not.toContain(0);
    now += 30_001;
    lb.select(invokers, CONSUMER, invocation()); // this select still sees the old window, then resets it
    const after = pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 200);
    expect(after).toContain(0);
  });
});
