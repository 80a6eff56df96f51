/** ShortestResponseLoadBalance: estimates from the slide window, and the 30 s window reset. */
import { describe, expect, it } from 'vitest';
import { ShortestResponseLoadBalance } from '../../../src/dubbo/loadbalance/shortest-response-load-balance.js';
import { DUBBO_2_7, DUBBO_3_3 } from '../../../src/dubbo/release.js';
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

  it.each([
    ['3.3 (30 s tumbling reset, ShortestResponseLoadBalance.java:152-160)', 'the invoker that became fast', DUBBO_3_3, 0],
    ['2.7 (lifetime average, 2.7 ShortestResponseLoadBalance.java:63-65)', 'the invoker fast over its lifetime', DUBBO_2_7, 1],
  ])('%s: after a slow phase then a fast one, picks %s', (_name, _what, release, expected) => {
    let now = NOW_MS;
    const invokers = invokersWith([{}, {}]);
    const runtime = makeRuntime({ clock: { now: () => now }, release });
    const lb = runtime.getLoadBalance('shortestresponse');
    // Slow phase: invoker 0 averages 500 ms, invoker 1 100 ms.
    setStatus(runtime, invokers[0]!, 'sayHello', { succeeded: 100, succeededElapsedMs: 50_000 });
    setStatus(runtime, invokers[1]!, 'sayHello', { succeeded: 100, succeededElapsedMs: 10_000 });
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 10)).toEqual(new Array(10).fill(1));
    // 31 s later a select resets every window (3.3 only).
    now += 31_000;
    lb.select(invokers, CONSUMER, invocation());
    // Fast phase: invoker 0 now answers in 10 ms, invoker 1 still in 100 ms. 3.3 sees the phase alone
    // (10 vs 100); 2.7's lifetime averages are (50,000 + 100) / 110 = 455 and 11,000 / 110 = 100.
    setStatus(runtime, invokers[0]!, 'sayHello', { succeeded: 10, succeededElapsedMs: 100 });
    setStatus(runtime, invokers[1]!, 'sayHello', { succeeded: 10, succeededElapsedMs: 1000 });
    expect(pickIndexes(() => lb.select(invokers, CONSUMER, invocation()), invokers, 20)).toEqual(new Array(20).fill(expected));
  });
});
