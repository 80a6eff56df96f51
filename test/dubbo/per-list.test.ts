import { describe, expect, it } from 'vitest';
import { perList, perListAndKey } from '../../src/dubbo/per-list.js';
import type { Invoker } from '../../src/dubbo/rpc.js';

const invoker = (name: string) => ({ name }) as unknown as Invoker;

describe('perList', () => {
  it('derives once per list object and again for another list with the same invokers', () => {
    const calls: number[] = [];
    const lengthOf = perList((invokers: readonly Invoker[]) => {
      calls.push(invokers.length);
      return { length: invokers.length };
    });
    const a = [invoker('a'), invoker('b')];
    const first = lengthOf(a);
    expect(lengthOf(a)).toBe(first);
    const copy = [...a];
    expect(lengthOf(copy)).not.toBe(first);
    expect(lengthOf(copy)).toEqual({ length: 2 });
    expect(calls).toEqual([2, 2]);
  });
});

describe('perListAndKey', () => {
  it('derives once per list object and key, false included', () => {
    const calls: string[] = [];
    const holds = perListAndKey((invokers: readonly Invoker[], name: string) => {
      calls.push(name);
      return invokers.some((i) => (i as unknown as { name: string }).name === name);
    });
    const a = [invoker('a'), invoker('b')];
    expect([holds(a, 'a'), holds(a, 'a'), holds(a, 'z'), holds(a, 'z'), holds([...a], 'a')]).toEqual([true, true, false, false, true]);
    expect(calls).toEqual(['a', 'z', 'a']);
  });
});
