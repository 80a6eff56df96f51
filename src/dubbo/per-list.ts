/**
 * Values derived from one invoker list alone, worked out once per list object. A pushed list is
 * replaced, never mutated, and every consumer instance that received that version holds the same
 * array, so what depends only on the list (and its invokers' immutable URLs) is shared by them all.
 */
import type { Invoker } from './rpc.js';

/** `derive` memoised per list object (held weakly: a list no one holds takes its value with it). */
export function perList<L extends readonly Invoker[], T>(derive: (invokers: L) => T): (invokers: L) => T {
  const values = new WeakMap<L, T>();
  return (invokers) => {
    let value = values.get(invokers);
    if (value === undefined) values.set(invokers, (value = derive(invokers)));
    return value;
  };
}

// PERF: a consumer instance's directory sets unavailable providers aside in a list of its own (a copy of
// the pushed list without them). What is derived per list can often be derived from the pushed list's
// value, which every instance shares, instead of from scratch for each instance's copy.
const parents = new WeakMap<readonly Invoker[], readonly Invoker[]>();

/** Records that `sub` is `parent` with some of its invokers left out, the rest in the same order. */
export function markSubList(sub: readonly Invoker[], parent: readonly Invoker[]): void {
  if (sub !== parent) parents.set(sub, parents.get(parent) ?? parent);
}

/** The list `sub` was made from by leaving invokers out (see `markSubList`), or undefined. */
export function parentList(sub: readonly Invoker[]): readonly Invoker[] | undefined {
  return parents.get(sub);
}
