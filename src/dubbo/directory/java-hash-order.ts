/**
 * Java's hash-table iteration order, for the places where Dubbo turns a `HashMap` or a
 * `ConcurrentHashMap` into a list (`new ArrayList<>(map.values())`): `String.hashCode`,
 * `Objects.hash`, each map's spread function, table sizing and growth, and iteration by bin index
 * with each bin in its own order. Owns no Dubbo logic; callers say which keys and hashes Dubbo uses.
 * Follows OpenJDK 11+ `java/util/HashMap.java` and `java/util/concurrent/ConcurrentHashMap.java`
 * (identical in 17, 21 and 25); checked against JDK 17 and 25 by `test/dubbo/directory/java-hash-order.test.ts`.
 */

const MAXIMUM_CAPACITY = 1 << 30;
const DEFAULT_INITIAL_CAPACITY = 16;
const TREEIFY_THRESHOLD = 8;
const UNTREEIFY_THRESHOLD = 6;
const MIN_TREEIFY_CAPACITY = 64;

/** Java `String.hashCode`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code units, in 32-bit int arithmetic. */
export function stringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Java `Objects.hash(values...)` (`Arrays.hashCode`): strings hash as `String.hashCode`, numbers
 * as `Integer.hashCode` (the value itself), null and undefined as 0.
 */
export function objectsHash(...values: ReadonlyArray<string | number | null | undefined>): number {
  let h = 1;
  for (const v of values) {
    const e = v === null || v === undefined ? 0 : typeof v === 'string' ? stringHashCode(v) : v | 0;
    h = (Math.imul(h, 31) + e) | 0;
  }
  return h;
}

// HashMap/ConcurrentHashMap `tableSizeFor`: the smallest power of two >= c (at least 1).
function tableSizeFor(c: number): number {
  if (c <= 1) return 1;
  if (c >= MAXIMUM_CAPACITY) return MAXIMUM_CAPACITY;
  let n = 1;
  while (n < c) n *= 2;
  return n;
}

/** How keys go into a HashMap: `put` appends to the bin, `computeIfAbsent` puts the new node first. */
export type HashMapInsertion = 'put' | 'computeIfAbsent';

/**
 * The key order of `new HashMap<>()` (or `new HashMap<>(initialCapacity)`) after inserting `keys`
 * (distinct) in the given order with `put` or `computeIfAbsent`: its `keySet()`/`values()`
 * iteration order. Spread `h ^ (h >>> 16)`; the table (16 by default) doubles when the size
 * exceeds 3/4 of it (`put` checks after inserting, `computeIfAbsent` before), and instead of
 * treeifying a long bin while the table is below 64 (a 9th key with `put`, an 8th with
 * `computeIfAbsent`); a resize keeps each bin's relative order.
 */
export function hashMapKeyOrder<K>(
  keys: readonly K[],
  hashOf: (key: K) => number,
  options: { insertion?: HashMapInsertion; initialCapacity?: number } = {},
): K[] {
  const prepend = options.insertion === 'computeIfAbsent';
  const hashes = keys.map((k) => {
    const h = hashOf(k) | 0;
    return h ^ (h >>> 16);
  });
  let n = 0;
  let threshold = options.initialCapacity === undefined ? 0 : tableSizeFor(options.initialCapacity);
  let table: number[][] = [];
  const resize = (): void => {
    const m = n === 0 ? (threshold > 0 ? threshold : DEFAULT_INITIAL_CAPACITY) : Math.min(n * 2, MAXIMUM_CAPACITY);
    const next: number[][] = Array.from({ length: m }, () => []);
    for (const bin of table) for (const k of bin) next[hashes[k]! & (m - 1)]!.push(k);
    table = next;
    n = m;
    threshold = Math.floor(m * 0.75);
  };
  let size = 0;
  for (let k = 0; k < keys.length; k++) {
    if (n === 0 || (prepend && size > threshold)) resize();
    const bin = table[hashes[k]! & (n - 1)]!;
    const before = bin.length;
    if (prepend) bin.unshift(k);
    else bin.push(k);
    // treeifyBin below MIN_TREEIFY_CAPACITY resizes instead.
    // DIVERGENCE: a real treeified bin (table >= 64) iterates with its red-black root moved to the
    // front; not modelled (it needs 8 or 9 keys in one bin of a table of 64 or more; kept in list order here).
    if (before >= TREEIFY_THRESHOLD - (prepend ? 1 : 0) && n < MIN_TREEIFY_CAPACITY) resize();
    if (++size > threshold && !prepend) resize();
  }
  const out: K[] = [];
  for (const bin of table) for (const k of bin) out.push(keys[k]!);
  return out;
}

/** One ConcurrentHashMap bin: its keys in iteration order (a TreeBin iterates its `first` list). */
interface ChmBin {
  keys: number[];
  tree: boolean;
}

/**
 * The key order of `new ConcurrentHashMap<>(initialCapacity)` after `put`ting `keys` in the given
 * order (distinct keys): `keySet()`/`values()` iteration order. JDK 11+ sizing:
 * `tableSizeFor((long)(1.0 + initialCapacity / 0.75f))` (JDK 8 used
 * `tableSizeFor(c + c/2 + 1)`, a larger table for some sizes). Spread `(h ^ (h >>> 16)) & 0x7fffffff`;
 * a new key is appended to its list bin (prepended in a TreeBin); the table doubles when the count
 * reaches 3/4 of it, and a 9th key in one bin either presizes the table (below 64) or makes the bin
 * a TreeBin. A doubling (`transfer`) splits each list bin as Java does: the longest tail whose keys
 * go to the same half stays in order and the nodes before it are prepended one by one (reversed).
 */
export function concurrentHashMapKeyOrder<K>(keys: readonly K[], hashOf: (key: K) => number, initialCapacity: number): K[] {
  const hashes = keys.map((k) => {
    const h = hashOf(k) | 0;
    return (h ^ (h >>> 16)) & 0x7fffffff;
  });
  const size = Math.trunc(1.0 + Math.fround(Math.max(1, initialCapacity) / Math.fround(0.75)));
  let n = size >= MAXIMUM_CAPACITY ? MAXIMUM_CAPACITY : tableSizeFor(size);
  let sizeCtl = n - (n >>> 2);
  let table: (ChmBin | undefined)[] = new Array(n);
  let count = 0;

  const transfer = (): void => {
    const next: (ChmBin | undefined)[] = new Array(n * 2);
    for (let i = 0; i < n; i++) {
      const bin = table[i];
      if (bin === undefined) continue;
      const [lo, hi] = bin.tree ? splitTree(bin.keys, hashes, n) : splitList(bin.keys, hashes, n);
      if (lo.length > 0) next[i] = { keys: lo, tree: bin.tree && lo.length > UNTREEIFY_THRESHOLD };
      if (hi.length > 0) next[i + n] = { keys: hi, tree: bin.tree && hi.length > UNTREEIFY_THRESHOLD };
    }
    table = next;
    n *= 2;
    sizeCtl = n - (n >>> 2);
  };

  for (let k = 0; k < keys.length; k++) {
    const i = hashes[k]! & (n - 1);
    const bin = table[i];
    if (bin === undefined) table[i] = { keys: [k], tree: false };
    else if (bin.tree) bin.keys.unshift(k);
    else {
      const binCount = bin.keys.length;
      bin.keys.push(k);
      if (binCount >= TREEIFY_THRESHOLD) {
        if (n < MIN_TREEIFY_CAPACITY) {
          // tryPresize(n << 1): grow until the table's threshold reaches tableSizeFor(size + size/2 + 1).
          const want = n << 1;
          const c = tableSizeFor(want + (want >>> 1) + 1);
          while (c > sizeCtl && n < MAXIMUM_CAPACITY) transfer();
        } else bin.tree = true;
      }
    }
    count++;
    while (count >= sizeCtl && n < MAXIMUM_CAPACITY) transfer();
  }
  const out: K[] = [];
  for (const bin of table) if (bin !== undefined) for (const k of bin.keys) out.push(keys[k]!);
  return out;
}

// ConcurrentHashMap.transfer for a list bin: lastRun keeps its order; earlier nodes are prepended.
function splitList(bin: readonly number[], hashes: readonly number[], n: number): [number[], number[]] {
  let lastRun = 0;
  let runBit = hashes[bin[0]!]! & n;
  for (let p = 1; p < bin.length; p++) {
    const b = hashes[bin[p]!]! & n;
    if (b !== runBit) {
      runBit = b;
      lastRun = p;
    }
  }
  const tail = bin.slice(lastRun);
  const lo: number[] = runBit === 0 ? tail : [];
  const hi: number[] = runBit === 0 ? [] : tail;
  for (let p = 0; p < lastRun; p++) {
    const k = bin[p]!;
    if ((hashes[k]! & n) === 0) lo.unshift(k);
    else hi.unshift(k);
  }
  return [lo, hi];
}

// ConcurrentHashMap.transfer for a TreeBin: both halves keep the `first` order.
function splitTree(bin: readonly number[], hashes: readonly number[], n: number): [number[], number[]] {
  const lo: number[] = [];
  const hi: number[] = [];
  for (const k of bin) ((hashes[k]! & n) === 0 ? lo : hi).push(k);
  return [lo, hi];
}
