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
