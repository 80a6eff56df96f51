/** ConsistentHashLoadBalance: argument keys, generic calls, and rebuilding the ring on list changes. */
import { describe, expect, it } from 'vitest';
import { RpcInvocation } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, makeRuntime, TestInvoker } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

function fivePorts(params = ''): TestInvoker[] {
  return [1, 2, 3, 4, 5].map((p) => new TestInvoker(`test://127.0.0.1:${p}/DemoService${params}`));
}

function address(picked: unknown): string {
  return (picked as TestInvoker).getUrl().getAddress();
}

describe('ConsistentHashLoadBalance', () => {
  it('maps the first argument to a fixed invoker (arg1 → 127.0.0.1:2)', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    expect(address(lb.select(fivePorts(), CONSUMER, invocation('m', ['arg1', 'x'])))).toBe('127.0.0.1:2');
  });

  it('ignores arguments other than the configured ones', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const invokers = fivePorts();
    const a = lb.select(invokers, CONSUMER, invocation('m', ['42', 'a']));
    const b = lb.select(invokers, CONSUMER, invocation('m', ['42', 'b']));
    expect(a).toBe(b);
    expect(address(a)).toBe('127.0.0.1:5');
  });

  it('concatenates the hash.arguments indexes into the key', () => {
    // Key "arg" + "1" = "arg1" → 127.0.0.1:2, although "arg" alone hashes elsewhere.
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const picked = lb.select(fivePorts('?hash.arguments=0,1'), CONSUMER, invocation('m', ['arg', 1]));
    expect(address(picked)).toBe('127.0.0.1:2');
  });

  it('unwraps a generic $invoke call to its real method and arguments', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const generic = new RpcInvocation({ methodName: '$invoke', arguments: ['m', ['java.lang.String'], ['arg0']] });
    expect(address(lb.select(fivePorts(), CONSUMER, generic))).toBe('127.0.0.1:4');
  });

  it('rebuilds the ring when the list changes and returns the current invoker objects', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const invokers = fivePorts();
    expect(address(lb.select(invokers, CONSUMER, invocation('m', ['arg1'])))).toBe('127.0.0.1:2');
    const without2 = invokers.filter((_, i) => i !== 1);
    expect(address(lb.select(without2, CONSUMER, invocation('m', ['arg1'])))).not.toBe('127.0.0.1:2');
    const replaced = [...invokers];
    replaced[1] = new TestInvoker('test://127.0.0.1:2/DemoService');
    expect(lb.select(replaced, CONSUMER, invocation('m', ['arg1']))).toBe(replaced[1]);
  });
});
