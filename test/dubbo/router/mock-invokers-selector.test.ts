/** MockInvokersSelector (reference 3.6): mock:// invokers only for calls that need the mock. */
import { describe, expect, it } from 'vitest';
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
});
