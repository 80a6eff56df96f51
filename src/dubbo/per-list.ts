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

/** `derive` memoised per list object and key (the list held weakly, as `perList`). */
export function perListAndKey<L extends readonly Invoker[], K, T>(derive: (invokers: L, key: K) => T): (invokers: L, key: K) => T {
  const values = new WeakMap<L, Map<K, T>>();
  return (invokers, key) => {
    let byKey = values.get(invokers);
    if (byKey === undefined) values.set(invokers, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = derive(invokers, key)));
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

/**
 * `sub.filter(keep)` for a filter that judges each invoker alone, worked out from `keptOfParent`, the
 * same filter of `parent` (the list `sub` was made from): the invokers of `keptOfParent` that `sub`
 * holds, in order, without judging any invoker again. The result is `sub` itself when the filter keeps
 * all of it, `keptOfParent` when `sub` left out none of what it keeps, else a new list marked as a
 * sub-list of `keptOfParent`.
 */
// PERF: an instance that sets providers aside routes lists of its own; filtering each from scratch read
// every provider's URL per list, and handed the load balancer an unmarked list whose weights it then
// built for that instance alone. Marked, the balancer reads the weights of the filtered parent, which
// every instance shares (see `subListIndex`).
export function keptOfSubList(sub: readonly Invoker[], parent: readonly Invoker[], keptOfParent: readonly Invoker[]): Invoker[] {
  const out: Invoker[] = [];
  let j = 0;
  let k = 0;
  for (let i = 0; i < parent.length && k < keptOfParent.length; i++) {
    const invoker = parent[i]!;
    const inSub = sub[j] === invoker;
    if (inSub) j++;
    if (keptOfParent[k] === invoker) {
      k++;
      if (inSub) out.push(invoker);
    }
  }
  if (out.length === sub.length) return sub as Invoker[];
  if (out.length === keptOfParent.length) return keptOfParent as Invoker[];
  markSubList(out, keptOfParent);
  return out;
}
