/** ActiveLimitFilter: counts RpcStatus only for URLs with `actives`, and never rejects. */
import { describe, expect, it } from 'vitest';
import { ActiveLimitFilter, hasActivesParameter } from '../../../src/dubbo/filter/active-limit-filter.js';
import { consumerFilters } from '../../../src/dubbo/filter/index.js';
import { rpcError, type Result } from '../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import { invocation, makeRuntime, TestInvoker } from '../loadbalance/fixtures.js';

const OK_RESULT: Result = { kind: 'ok' };

describe('ActiveLimitFilter', () => {
  it('counts active calls and elapsed time for an invoker with actives', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const filter = runtime.filters[0]!;
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=5');
    const status = runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello');
    filter.before(invoker, invocation(), 0);
    filter.before(invoker, invocation(), 0);
    expect(status.getActive()).toBe(2);
    filter.after(invoker, invocation(), OK_RESULT, 40, 40);
    filter.after(invoker, invocation(), rpcError(2, 'timeout'), 1000, 1000);
    expect([status.getActive(), status.getSucceeded(), status.getSucceededElapsed(), status.failed]).toEqual([0, 1, 40, 1]);
  });

  it('leaves RpcStatus untouched for an invoker without actives', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService');
    runtime.filters[0]!.before(invoker, invocation(), 0);
    expect(runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello').getActive()).toBe(0);
  });

  it('never rejects above the actives limit', () => {
    const runtime = makeRuntime({ filters: [new ActiveLimitFilter()] });
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=1');
    for (let i = 0; i < 3; i++) runtime.filters[0]!.before(invoker, invocation(), 0);
    expect(runtime.rpcStatus.getStatus(invoker.getUrl(), 'sayHello').getActive()).toBe(3);
  });

  it('is activated by a method-level actives or by the consumer side of a merged URL', () => {
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?sayHello.actives=3'))).toBe(true);
    const merged = new ServiceAddressURL(URL.valueOf('dubbo://h:1/S'), URL.valueOf('consumer://c/S?actives=0'));
    expect(hasActivesParameter(merged)).toBe(true);
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?active=3'))).toBe(false);
  });

  it('refuses to count before it is attached to a runtime', () => {
    const invoker = new TestInvoker('dubbo://10.0.0.1:20880/DemoService?actives=5');
    expect(() => new ActiveLimitFilter().before(invoker, invocation(), 0)).toThrow(/attach/);
  });
});

describe('consumerFilters', () => {
  it('returns the adaptive filter before the active-limit filter, as Dubbo orders them', () => {
    expect(consumerFilters().map((f) => f.constructor.name)).toEqual(['AdaptiveLoadBalanceFilter', 'ActiveLimitFilter']);
  });
});
