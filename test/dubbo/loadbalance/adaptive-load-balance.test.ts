/** AdaptiveLoadBalance (P2C) with AdaptiveMetrics, and the filter that feeds them. */
import { describe, expect, it } from 'vitest';
import { AdaptiveLoadBalanceFilter, isAdaptiveFilterActive } from '../../../src/dubbo/filter/adaptive-load-balance-filter.js';
import { AdaptiveLoadBalance } from '../../../src/dubbo/loadbalance/adaptive-load-balance.js';
import {
  ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY,
  AdaptiveMetrics,
  adaptiveServiceKey,
} from '../../../src/dubbo/loadbalance/adaptive-metrics.js';
import { rpcError } from '../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickCounts, TestInvoker } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

describe('AdaptiveLoadBalance', () => {
  it('picks the candidate with the lower load', () => {
    const invokers = invokersWith([{}, {}]);
    const lb = new AdaptiveLoadBalance(makeRuntime());
    lb.adaptiveMetrics.setProviderMetrics(adaptiveServiceKey(invokers[0]!), { curTime: NOW_MS, load: 1, rt: 900 });
    lb.adaptiveMetrics.setProviderMetrics(adaptiveServiceKey(invokers[1]!), { curTime: NOW_MS, load: 1, rt: 10 });
    expect(lb.select(invokers, CONSUMER, invocation())).toBe(invokers[1]);
  });

  it('tosses a weighted coin between candidates of equal load', () => {
    const invokers = invokersWith([{ weight: 10 }, { weight: 90 }]);
    const lb = makeRuntime({ seed: 9 }).getLoadBalance('adaptive');
    const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation()), invokers, 10_000);
    // p = 0.1, sd = 30.
    expect(Math.abs(counts[0]! - 1000)).toBeLessThan(135);
  });

  it('compares two distinct candidates drawn at random from a longer list', () => {
    const invokers = invokersWith([{}, {}, {}]);
    const lb = new AdaptiveLoadBalance(makeRuntime({ seed: 4 }));
    // Invoker 2 reports a high load: it loses every comparison it enters.
    lb.adaptiveMetrics.setProviderMetrics(adaptiveServiceKey(invokers[2]!), { curTime: NOW_MS, load: 50, rt: 100 });
    const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation()), invokers, 3000);
    expect(counts[2]).toBe(0);
    expect(Math.abs(counts[0]! - counts[1]!)).toBeLessThan(300);
  });

  it('force-picks an invoker not picked for more than twice its timeout', () => {
    let now = NOW_MS;
    const invokers = invokersWith([{ timeout: 100 }, { timeout: 1000 }]);
    const lb = new AdaptiveLoadBalance(makeRuntime({ clock: { now: () => now } }));
    const m = lb.adaptiveMetrics;
    m.setProviderMetrics(adaptiveServiceKey(invokers[0]!), { curTime: now, load: 5, rt: 10 });
    m.setProviderMetrics(adaptiveServiceKey(invokers[1]!), { curTime: now, load: 1, rt: 10 });
    expect(lb.select(invokers, CONSUMER, invocation())).toBe(invokers[1]);
    now += 201; // invoker 0's load drops to 0 ("mandatory selected"); invoker 1 is still loaded
    expect(lb.select(invokers, CONSUMER, invocation())).toBe(invokers[0]);
  });

  it('marks the invocation and counts the request for the chosen invoker', () => {
    const invokers = invokersWith([{}, {}]);
    const lb = new AdaptiveLoadBalance(makeRuntime());
    const inv = invocation();
    const picked = lb.select(invokers, CONSUMER, inv)!;
    expect(inv.getAttachment(ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY)).toBe('mem,load');
    expect(lb.adaptiveMetrics.getInflight(adaptiveServiceKey(picked))).toBe(1);
  });
});

describe('AdaptiveMetrics.getLoad', () => {
  it('penalises the first read after a report with twice the timeout', () => {
    const m = new AdaptiveMetrics({ now: () => NOW_MS });
    m.setProviderMetrics('k', { curTime: NOW_MS, load: 1, rt: 0 });
    // ewma: report 0.5·0 → 0, then penalty 0.5·0 + 0.5·2000 = 1000; inflight 0, no successes.
    expect(m.getLoad('k', 100, 1000)).toBeCloseTo(Math.sqrt(1000) + 1, 12);
  });

  it('is 0 while no provider has reported a load', () => {
    const m = new AdaptiveMetrics({ now: () => NOW_MS });
    m.addConsumerReq('k');
    expect(m.getLoad('k', 100, 1000)).toBe(0);
  });
});

describe('AdaptiveLoadBalanceFilter', () => {
  // The filter is in an invoker's chain only when its URL says loadbalance=adaptive (see the activation tests below).
  const ADAPTIVE = { loadbalance: 'adaptive' };

  it('reports success, the in-flight load and the elapsed time for an adaptive pick', () => {
    const invokers = invokersWith([ADAPTIVE, ADAPTIVE]);
    const runtime = makeRuntime();
    const lb = new AdaptiveLoadBalance(runtime);
    const filter = new AdaptiveLoadBalanceFilter();
    const inv = invocation();
    const picked = lb.select(invokers, CONSUMER, inv)!;
    filter.after(picked, inv, { kind: 'ok' }, 30, 30);
    const key = adaptiveServiceKey(picked);
    expect(lb.adaptiveMetrics.getInflight(key)).toBe(0);
    // Report: load 1 (this call), rt 30 → ewma 15, then the read's penalty → 0.5·15 + 0.5·2000.
    // Divisor: success/(req+1)·weight + 1 = 0.5·100 + 1.
    expect(lb.adaptiveMetrics.getLoad(key, 100, 1000)).toBeCloseTo((1 * (Math.sqrt(1007.5) + 1) * 1) / 51, 12);
  });

  it('counts an error without a report', () => {
    const invokers = invokersWith([ADAPTIVE, ADAPTIVE]);
    const lb = new AdaptiveLoadBalance(makeRuntime());
    const inv = invocation();
    const picked = lb.select(invokers, CONSUMER, inv)!;
    new AdaptiveLoadBalanceFilter().after(picked, inv, rpcError(2, 'timeout'), 1000, 1000);
    const key = adaptiveServiceKey(picked);
    expect(lb.adaptiveMetrics.getInflight(key)).toBe(0);
    expect(lb.adaptiveMetrics.getLoad(key, 100, 1000)).toBe(0);
  });

  it('ignores invocations the adaptive balancer did not pick', () => {
    const invokers = invokersWith([ADAPTIVE, ADAPTIVE]);
    const lb = new AdaptiveLoadBalance(makeRuntime());
    const picked = lb.select(invokers, CONSUMER, invocation())!;
    new AdaptiveLoadBalanceFilter().after(picked, invocation(), { kind: 'ok' }, 5, 5);
    expect(lb.adaptiveMetrics.getInflight(adaptiveServiceKey(picked))).toBe(1);
  });

  // AdaptiveLoadBalanceFilter.java line 51: @Activate(value = {"loadbalance:adaptive"}), decided by
  // ExtensionLoader.isActive (lines 470-495) on the invoker URL: interface-level `loadbalance` (the
  // consumer's, else the provider's) equals "adaptive", or, only when that is empty, the first
  // method-level one (URLParam.getAnyMethodParameter) does.
  it.each([
    ['dubbo://h:1/S?loadbalance=adaptive', '', true],
    ['dubbo://h:1/S', 'loadbalance=adaptive', true],
    ['dubbo://h:1/S?methods=sayHello&sayHello.loadbalance=adaptive', '', true],
    ['dubbo://h:1/S', 'sayHello.loadbalance=adaptive', true],
    // The consumer's interface-level value hides every method-level one.
    ['dubbo://h:1/S', 'loadbalance=random&sayHello.loadbalance=adaptive', false],
    ['dubbo://h:1/S?loadbalance=adaptive', 'loadbalance=random', false],
    ['dubbo://h:1/S?loadbalance=Adaptive', '', false],
    ['dubbo://h:1/S', '', false],
  ])('is in the chain of provider %s under consumer ?%s: %s', (provider, consumer, active) => {
    const url = new ServiceAddressURL(URL.valueOf(provider), URL.valueOf(`consumer://c/S?${consumer}`));
    expect(isAdaptiveFilterActive(new TestInvoker(url))).toBe(active);
  });

  it('feeds no metrics when the invoker URL does not activate it, though the balancer picked adaptively', () => {
    // A method on `adaptive` under a reference on `random`: Dubbo balances adaptively without the filter.
    const consumer = URL.valueOf('consumer://c/DemoService?loadbalance=random&sayHello.loadbalance=adaptive');
    const invokers = [1, 2].map(
      (i) => new TestInvoker(new ServiceAddressURL(URL.valueOf(`test://127.0.0.1:${i}/DemoService`), consumer)),
    );
    const lb = new AdaptiveLoadBalance(makeRuntime());
    const inv = invocation();
    const picked = lb.select(invokers, CONSUMER, inv)!;
    new AdaptiveLoadBalanceFilter().after(picked, inv, { kind: 'ok' }, 30, 30);
    expect(lb.adaptiveMetrics.getInflight(adaptiveServiceKey(picked))).toBe(1);
  });
});
