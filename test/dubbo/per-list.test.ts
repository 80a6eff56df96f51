import { describe, expect, it } from 'vitest';
import { markSubList, matchInPrevious, parentList, perList, perListAndKey, previousVersion, VERSION_CHAIN_LENGTH, VersionChain } from '../../src/dubbo/per-list.js';
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

  it('peeks at a derived value without deriving it', () => {
    let calls = 0;
    const lengthOf = perList((invokers: readonly Invoker[]) => ({ length: invokers.length, n: ++calls }));
    const a = [invoker('a')];
    expect(lengthOf.peek(a)).toBeUndefined();
    expect(calls).toBe(0);
    const value = lengthOf(a);
    expect(lengthOf.peek(a)).toBe(value);
    expect(calls).toBe(1);
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

describe('VersionChain', () => {
  it('links each list to the one added before it, and lets go of versions more than VERSION_CHAIN_LENGTH back', () => {
    const chain = new VersionChain();
    const lists = Array.from({ length: VERSION_CHAIN_LENGTH + 5 }, (_, i) => [invoker(`v${i}`)]);
    for (const l of lists) chain.add(l);
    chain.add(lists.at(-1)!);
    expect(previousVersion(lists[0]!)).toBeUndefined();
    const last = lists.length - 1;
    // The newest reaches back exactly VERSION_CHAIN_LENGTH - 1 steps: the oldest kept list has no link left.
    const reached: number[] = [];
    for (let l: readonly Invoker[] | undefined = lists[last]; l !== undefined; l = previousVersion(l)) reached.push(lists.indexOf(l as Invoker[]));
    expect(reached).toEqual(Array.from({ length: VERSION_CHAIN_LENGTH }, (_, k) => last - k));
  });
});

describe('matchInPrevious', () => {
  const [a, b, c, d, e, f] = ['a', 'b', 'c', 'd', 'e', 'f'].map(invoker) as [Invoker, Invoker, Invoker, Invoker, Invoker, Invoker];
  it('finds an invoker at or up to three places past where the walk is, else -1', () => {
    const previous = [a, b, c, d, e, f];
    expect(matchInPrevious(previous, a, 0)).toBe(0);
    expect(matchInPrevious(previous, d, 0)).toBe(3);
    expect(matchInPrevious(previous, e, 0)).toBe(-1);
    expect(matchInPrevious(previous, a, 1)).toBe(-1);
    expect(matchInPrevious(previous, f, 4)).toBe(5);
    expect(matchInPrevious(previous, invoker('new'), 0)).toBe(-1);
  });
});

describe('markSubList', () => {
  it('gives a sub-list its root list, which a copy of it does not carry', () => {
    const [a, b, c] = ['a', 'b', 'c'].map(invoker) as [Invoker, Invoker, Invoker];
    const root = [a, b, c];
    const sub = [a, c];
    markSubList(sub, root);
    const subOfSub = [c];
    markSubList(subOfSub, sub);
    expect(parentList(sub)).toBe(root);
    expect(parentList(subOfSub)).toBe(root);
    expect(parentList(root)).toBeUndefined();
    expect(parentList([...sub])).toBeUndefined();
    markSubList(root, root);
    expect(parentList(root)).toBeUndefined();
  });
});
