/**
 * Values derived from one invoker list alone, worked out once per list object. A pushed list is
 * replaced, never mutated, and every consumer instance that received that version holds the same
 * array, so what depends only on the list (and its invokers' immutable URLs) is shared by them all.
 */
import type { Invoker } from './rpc.js';

/** A value derived per list object, and `peek` at what is known without deriving it. */
export interface PerList<L extends readonly Invoker[], T> {
  (invokers: L): T;
  peek(invokers: L): T | undefined;
}

/** `derive` memoised per list object (held weakly: a list no one holds takes its value with it). */
export function perList<L extends readonly Invoker[], T>(derive: (invokers: L) => T): PerList<L, T> {
  const values = new WeakMap<L, T>();
  const of = (invokers: L): T => {
    let value = values.get(invokers);
    if (value === undefined) values.set(invokers, (value = derive(invokers)));
    return value;
  };
  return Object.assign(of, { peek: (invokers: L) => values.get(invokers) });
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

/** A list's invokers as a set, worked out once per list object (shared by every instance holding it). */
export const membersOf = perList((invokers: readonly Invoker[]): ReadonlySet<Invoker> => new Set(invokers));

/** Each invoker's first index in a list, worked out once per list object (shared by every instance holding it). */
export const indexesOf = perList((invokers: readonly Invoker[]): ReadonlyMap<Invoker, number> => {
  const at = new Map<Invoker, number>();
  for (let i = 0; i < invokers.length; i++) if (!at.has(invokers[i]!)) at.set(invokers[i]!, i);
  return at;
});

// PERF: a consumer instance's directory sets unavailable providers aside in a list of its own (a copy of
// the pushed list without them). What is derived per list can often be derived from the pushed list's
// value, which every instance shares, instead of from scratch for each instance's copy. The parent, and
// what is derived per sub-list (`subListFacts`), are kept on the sub-list itself (a non-enumerable
// symbol-keyed property, which copies of it do not carry): every pick asks for them, and after a zone
// crash thousands of instances each make a sub-list at every provider set aside and at every push they
// read; entries in weak maps of them all were a visible share of such a run, in lookups and in the
// collector's ephemeron work.
const SUB_LIST = Symbol('zonesim.subList');

/** What is known of a sub-list (see `markSubList`): its parent, and values derived from the two. */
export class SubListFacts {
  /** The list the sub-list was made from (never itself a sub-list). */
  readonly parent: readonly Invoker[];
  /** The parent's indexes the sub-list leaves out, ascending, once worked out (see `excludedOf`). */
  excluded: readonly number[] | undefined;
  /** Values the load balancers derive per sub-list and key (see `subListIndex`). */
  byKey: Map<string, unknown> | undefined;

  constructor(parent: readonly Invoker[], excluded: readonly number[] | undefined) {
    this.parent = parent;
    this.excluded = excluded;
    this.byKey = undefined;
  }
}

type MarkedList = { [SUB_LIST]?: SubListFacts };

/**
 * Records that `sub` (a new array) is `parent` with some of its invokers left out, the rest in the same
 * order; `excluded`, when the caller knows them, are the indexes of `parent` left out, ascending.
 */
export function markSubList(sub: readonly Invoker[], parent: readonly Invoker[], excluded?: readonly number[]): void {
  if (sub === parent) return;
  const above = (parent as MarkedList)[SUB_LIST];
  // Not enumerable: a list compares equal to a plain array of the same invokers.
  Object.defineProperty(sub, SUB_LIST, {
    value: new SubListFacts(above?.parent ?? parent, above === undefined ? excluded : undefined),
    writable: true,
    configurable: true,
  });
}

/** The list `sub` was made from by leaving invokers out (see `markSubList`), or undefined. */
export function parentList(sub: readonly Invoker[]): readonly Invoker[] | undefined {
  return (sub as MarkedList)[SUB_LIST]?.parent;
}

/** What is known of `sub` as a sub-list (see `markSubList`), or undefined when it is none. */
export function subListFacts(sub: readonly Invoker[]): SubListFacts | undefined {
  return (sub as MarkedList)[SUB_LIST];
}

// PERF: a registry push changes a list by a provider or two (a rolling restart: one leaves, one comes
// back), and each change is a new list object whose derived values (weight tables, router filters) were
// worked out from scratch. A list built for the next change remembers the one built before it, so those
// values can be carried over for the invokers both hold. The builder keeps the links of its last few
// lists only (`VersionChain`): a list never holds a long chain of old versions alive.
const previousVersions = new WeakMap<readonly Invoker[], readonly Invoker[]>();

/** How many versions back a list can reach (consumer instances receive a push up to its lag after the first). */
export const VERSION_CHAIN_LENGTH = 16;

/** The versions one builder made, linked newest to oldest, at most `VERSION_CHAIN_LENGTH` long. */
export class VersionChain {
  readonly #recent: (readonly Invoker[])[] = [];

  /** Records `list` as the next version of the last one added. */
  add(list: readonly Invoker[]): void {
    const recent = this.#recent;
    const last = recent.at(-1);
    if (last === list) return;
    if (last !== undefined) previousVersions.set(list, last);
    recent.push(list);
    // The oldest kept version lets go of the one before it.
    if (recent.length > VERSION_CHAIN_LENGTH) {
      recent.shift();
      previousVersions.delete(recent[0]!);
    }
  }
}

/** The list built before `list` (see `VersionChain`), while the link is kept, or undefined. */
export function previousVersion(list: readonly Invoker[]): readonly Invoker[] | undefined {
  return previousVersions.get(list);
}

/** How far past the expected position `matchInPrevious` looks for an invoker (providers that left there). */
const VERSION_LOOKAHEAD = 3;

/**
 * Walking `list` in order against `previous` (`from` is where the walk is in `previous`): the index in
 * `previous` of `invoker` at or a few places past `from`, or -1. A walk that follows each match from
 * the index after it finds every invoker of two versions that differ by insertions and a few removals
 * at a time; what it does not find is new as far as it can tell, which is always safe.
 */
export function matchInPrevious(previous: readonly Invoker[], invoker: Invoker, from: number): number {
  const end = Math.min(previous.length, from + 1 + VERSION_LOOKAHEAD);
  for (let k = from; k < end; k++) if (previous[k] === invoker) return k;
  return -1;
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
