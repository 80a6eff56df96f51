/** ActiveLimitFilter: counts RpcStatus only for URLs with `actives`; waits for a slot above the limit. */
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
    const merged = new ServiceAddressURL(URL.valueOf('dubbo://h:1/S'), URL.valueOf('consumer://c/S?actives=0'));
    expect(hasActivesParameter(merged)).toBe(true);
    expect(hasActivesParameter(URL.valueOf('dubbo://h:1/S?active=3'))).toBe(false);
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
