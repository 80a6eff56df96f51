/** ActiveLimitFilter: counts RpcStatus only for URLs whose `actives` activates it; waits for a slot above the limit. */
import { describe, expect, it } from 'vitest';
import { ActiveLimitFilter, hasActivesParameter } from '../../../src/dubbo/filter/active-limit-filter.js';
import { consumerFilters } from '../../../src/dubbo/filter/index.js';
import { rpcError, type Invoker, type Result, type RpcError, type RpcInvocation } from '../../../src/dubbo/rpc.js';
import type { ConsumerFilter } from '../../../src/dubbo/runtime.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { invocation, makeRuntime, TestInvoker } from '../loadbalance/fixtures.js';

const OK_RESULT: Result = { kind: 'ok' };

/** Runs the filter's gate to completion when it does not have to wait (a call that starts now). */
function begin(filter: ConsumerFilter, invoker: Invoker, inv: RpcInvocation): void {
  const step = filter.admit!(invoker, inv).next();
  expect(step.done).toBe(true);
  expect(step.value).toBeNull();
}

describe('ActiveLimitFilter', () => {
  it('counts active calls and elapsed time for an invoker with actives', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const filter = runtime.filters[0]!;
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=5');
    const status = runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello');
    begin(filter, invoker, invocation());
    begin(filter, invoker, invocation());
    expect(status.getActive()).toBe(2);
    filter.after(invoker, invocation(), OK_RESULT, 40, 40);
    filter.after(invoker, invocation(), rpcError(2, 'timeout'), 1000, 1000);
    expect([status.getActive(), status.getSucceeded(), status.getSucceededElapsed(), status.failed]).toEqual([0, 1, 40, 1]);
  });

  it('leaves RpcStatus untouched for an invoker without actives', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService');
    begin(runtime.filters[0]!, invoker, invocation());
    expect(runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello').getActive()).toBe(0);
  });

  it('makes a call above the actives limit wait until a call in flight ends', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const filter = runtime.filters[0]!;
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=1&timeout=500');
    const sim = runtime.sim;
    const log: Array<[string, number]> = [];
    begin(filter, invoker, invocation());
    const second = sim.process(
      (function* () {
        const refused: RpcError | null = yield* filter.admit!(invoker, invocation());
        log.push([refused === null ? 'admitted' : `refused ${refused.code}`, sim.now]);
      })(),
    );
    sim.schedule(120, () => filter.after(invoker, invocation(), OK_RESULT, 120, 120));
    sim.run();
    expect(second.processed).toBe(true);
    expect(log).toEqual([['admitted', 120]]);
    expect(runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello').getActive()).toBe(1);
  });

  it('admitNow takes a free slot at once, and with none takes nothing, leaving the wait to admit', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const filter = runtime.filters[0]!;
    const limited = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=2');
    const free = new TestInvoker('dubbo://10.0.0.2:20880/DemoService');
    const status = runtime.rpcStatus.getStatus(limited.getUrl(), 'sayHello');
    expect([filter.admitNow!(limited, invocation()), filter.admitNow!(limited, invocation())]).toEqual([true, true]);
    expect(status.getActive()).toBe(2);
    expect(filter.admitNow!(limited, invocation())).toBe(false);
    expect(status.getActive()).toBe(2);
    // The gate that admitNow passed on still waits (its first step yields an event).
    expect(filter.admit!(limited, invocation()).next().done).toBe(false);
    // Without actives the filter is not in Dubbo's chain: admitted, nothing counted.
    expect(filter.admitNow!(free, invocation())).toBe(true);
    expect(runtime.rpcStatus.getStatus(free.getUrl(), 'sayHello').getActive()).toBe(0);
  });

  it('refuses with LIMIT_EXCEEDED (code 7) once the URL timeout has passed without a free slot', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const filter = runtime.filters[0]!;
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=1&timeout=500');
    const sim = runtime.sim;
    let refused: RpcError | null = null;
    begin(filter, invoker, invocation());
    sim.process(
      (function* () {
        refused = yield* filter.admit!(invoker, invocation());
      })(),
    );
    sim.run();
    expect(sim.now).toBe(500);
    expect(refused).toMatchObject({ code: 7, message: expect.stringMatching(/^Waiting concurrent invoke timeout in client-side/) });
  });

  it('is activated by a method-level actives or by the consumer side of a merged URL', () => {
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?sayHello.actives=3'))).toBe(true);
    const merged = new ServiceAddressURL(URL.valueOf('dubbo://h:1/S'), URL.valueOf('consumer://c/S?actives=3'));
    expect(hasActivesParameter(merged)).toBe(true);
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?active=3'))).toBe(false);
  });

  // ActiveLimitFilter.java line 45: @Activate(group = CONSUMER, value = ACTIVES_KEY). ExtensionLoader.isActive
  // (ExtensionLoader.java lines 470-495) takes url.getParameter("actives"), or getAnyMethodParameter when that is
  // empty, and requires ConfigUtils.isNotEmpty (ConfigUtils.java lines 59-69): "0", "false", "null" and "N/A" (any
  // case) are empty, so actives=0 leaves the filter out of the chain: nothing counts, leastactive is random.
  it.each([
    ['actives=5', true],
    ['actives=-1', true],
    ['actives=0', false],
    ['actives=false', false],
    ['actives=NULL', false],
    ['actives=n/a', false],
    ['actives=', false],
    ['sayHello.actives=0', false],
    // The method level is read only when the interface level is empty: actives=0 hides sayHello.actives=5.
    ['actives=0&sayHello.actives=5', false],
    ['actives=5&sayHello.actives=0', true],
  ])('consumer ?%s activates it: %s', (query, active) => {
    const url = new ServiceAddressURL(URL.valueOf('dubbo://h:1/S'), URL.valueOf(`consumer://c/S?${query}`));
    expect(hasActivesParameter(url)).toBe(active);
  });

  it('reads the provider side when the consumer has no actives, but a consumer actives=0 hides the provider\'s', () => {
    const provider = URL.valueOf('dubbo://h:1/S?actives=5');
    expect(hasActivesParameter(new ServiceAddressURL(provider, URL.valueOf('consumer://c/S')))).toBe(true);
    expect(hasActivesParameter(new ServiceAddressURL(provider, URL.valueOf('consumer://c/S?actives=0')))).toBe(false);
  });

  it('takes the first method-level actives in Java HashMap order of the method names (URLParam.getAnyMethodParameter)', () => {
    // No `methods` list on the consumer (Dubbo strips it): the values of a HashMap keyed by method name, in
    // bucket order. "b" (hash 98) comes before "z" (hash 122) and "a" (97) before "b", whatever the URL order.
    const merged = (q: string) => new ServiceAddressURL(URL.valueOf('dubbo://h:1/S'), URL.valueOf(`consumer://c/S?${q}`));
    expect(hasActivesParameter(merged('z.actives=5&b.actives=0'))).toBe(false);
    expect(hasActivesParameter(merged('z.actives=0&b.actives=5'))).toBe(true);
    expect(hasActivesParameter(merged('b.actives=0&a.actives=5'))).toBe(true);
    // A provider URL lists its methods: the first listed method with a value.
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?methods=z,b&z.actives=5&b.actives=0'))).toBe(true);
  });

  it('refuses to count before it is attached to a runtime', () => {
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=5');
    expect(() => new ActiveLimitFilter().admit(invoker, invocation()).next()).toThrow(/attach/);
  });
});

describe('consumerFilters', () => {
  it('returns the adaptive filter before the active-limit filter, as Dubbo orders them', () => {
    expect(consumerFilters().map((f) => f.constructor.name)).toEqual(['AdaptiveLoadBalanceFilter', 'ActiveLimitFilter']);
  });
});
