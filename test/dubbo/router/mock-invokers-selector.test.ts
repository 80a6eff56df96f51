/** MockInvokersSelector (reference 3.6): mock:// invokers only for calls that need the mock. */
import { describe, expect, it } from 'vitest';
import { markSubList } from '../../../src/dubbo/per-list.js';
import { MockInvokersSelector } from '../../../src/dubbo/router/mock-invokers-selector.js';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import { indicesIn, invokersOf } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService');
const PROVIDERS = [
  'dubbo://10.0.0.1:20880/com.example.UserService',
  'mock://10.0.0.2:20880/com.example.UserService',
  'dubbo://10.0.0.3:20880/com.example.UserService',
];

function routeIdx(attachments: Record<string, string>): number[] {
  const invokers = invokersOf(PROVIDERS);
  const router = new MockInvokersSelector();
  router.notify(invokers);
  return indicesIn(invokers, router.route(invokers, CONSUMER, new RpcInvocation({ methodName: 'm', attachments })).invokers);
}

describe('MockInvokersSelector', () => {
  it('has Dubbo order -100', () => {
    expect(new MockInvokersSelector().order).toBe(-100);
  });

  it('returns the normal invokers when invocation.need.mock is absent', () => {
    expect(routeIdx({})).toEqual([0, 2]);
  });

  it('returns only mock invokers when invocation.need.mock is true (any case)', () => {
    expect(routeIdx({ 'invocation.need.mock': 'TRUE' })).toEqual([1]);
  });

  it('passes the input through for any other value', () => {
    expect(routeIdx({ 'invocation.need.mock': 'false' })).toEqual([0, 1, 2]);
  });

  // A directory with providers set aside routes its own copy of the notified list (a marked sub-list).
  it("keeps a directory's sub-list of a list without mock invokers as it is", () => {
    const invokers = invokersOf([PROVIDERS[0]!, PROVIDERS[2]!, 'dubbo://10.0.0.4:20880/com.example.UserService']);
    const router = new MockInvokersSelector();
    router.notify(invokers);
    const sub = [invokers[0]!, invokers[2]!];
    markSubList(sub, invokers);
    expect(router.route(sub, CONSUMER, new RpcInvocation({ methodName: 'm' })).invokers).toBe(sub);
  });

  it("still leaves the mock invokers out of a sub-list of a list that has some", () => {
    const invokers = invokersOf(PROVIDERS);
    const router = new MockInvokersSelector();
    router.notify(invokers);
    const sub = [invokers[0]!, invokers[1]!];
    markSubList(sub, invokers);
    expect(indicesIn(invokers, router.route(sub, CONSUMER, new RpcInvocation({ methodName: 'm' })).invokers)).toEqual([0]);
  });

  it('keeps only the notified normal invokers of a sub-list of another list', () => {
    const notified = invokersOf([PROVIDERS[0]!, PROVIDERS[2]!]);
    const other = [...notified, ...invokersOf(['mock://10.0.0.9:20880/com.example.UserService', 'dubbo://10.0.0.8:20880/com.example.UserService'])];
    const router = new MockInvokersSelector();
    router.notify(notified);
    const sub = [other[0]!, other[2]!, other[3]!];
    markSubList(sub, other);
    expect(indicesIn(other, router.route(sub, CONSUMER, new RpcInvocation({ methodName: 'm' })).invokers)).toEqual([0]);
  });
});
