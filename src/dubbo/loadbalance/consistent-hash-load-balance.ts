/**
 * Consistent hashing on the call's arguments: a ketama ring of MD5 points (`hash.nodes` virtual
 * nodes per invoker address, default 160) per `serviceKey.method`, rebuilt whenever the invoker list
 * changes in membership or order; the key is the `hash.arguments` arguments (default the first)
 * concatenated. Weights and warmup are ignored. Under `consistentHash: bounded` (Dubbo 2.7.15+), a
 * node that has taken 1.5x the selector's average of picks passes the key on to the next node of the
 * ring. Owns the selectors; MD5 comes from js-md5, which is deterministic. Follows dubbo-cluster
 * `loadbalance/ConsistentHashLoadBalance.java` (3.3; 2.7.23 for the bounded loads).
 */
import { md5 as jsMd5 } from 'js-md5';
import { HASH_ARGUMENTS, HASH_NODES } from '../constants.js';
import type { DubboRuntime } from '../runtime.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getArguments, getMethodName } from './rpc-utils.js';

/** Dubbo's default `hash.nodes`. */
export const DEFAULT_REPLICA_NUMBER = 160;

/** Ring points per MD5 digest: a ring has `hash.nodes / 4` digests per address (integer division). */
const POINTS_PER_DIGEST = 4;

/**
 * `hash.nodes` below 4: ConsistentHashSelector's loop (3.3 ConsistentHashLoadBalance.java:88,
 * `i < replicaNumber / 4`) adds no point, so `selectForKey` (:116-118) finds neither a ceiling nor a
 * first entry and Dubbo fails the call with a NullPointerException. zonesim fails it with this instead.
 */
export class EmptyHashRingError extends Error {
  override readonly name = 'EmptyHashRingError';
  readonly replicaNumber: number;

  constructor(replicaNumber: number, methodName: string) {
    super(
      `hash.nodes ${replicaNumber}${methodName === '' ? '' : ` (method ${methodName})`} is below 4: consistenthash puts hash.nodes/4 x 4 ` +
        `points per provider on its ring, so the ring is empty and Dubbo fails the call with a NullPointerException ` +
        `(ConsistentHashLoadBalance.selectForKey); use 4 or more (default ${DEFAULT_REPLICA_NUMBER})`,
    );
    this.replicaNumber = replicaNumber;
  }
}

// PERF: js-md5's digest as a byte array: 0.3 us a digest against 1.5 us for node:crypto's one-shot `hash` and
// 1.9 us through a Hash object (measured, 10^6 digests of address texts); the seed scale's 10^5 addresses hash
// 4·10^6 times for their ring points. The same bytes (tests compare it with node:crypto).
/** MD5 of the UTF-8 text (Dubbo `Bytes.getMD5(String)`), 16 bytes. */
export function md5(text: string): readonly number[] {
  return jsMd5.array(text);
}

/** Ring point `number` (0..3) of a digest: the little-endian uint32 of bytes `4n..4n+3`. */
export function ketamaHash(digest: ArrayLike<number>, number: number): number {
  const o = number * 4;
  return (digest[o]! | (digest[o + 1]! << 8) | (digest[o + 2]! << 16) | (digest[o + 3]! << 24)) >>> 0;
}

// PERF: an address's ring points (`replicaNumber / 4` MD5 digests) are the same in every ring it is in;
// they are computed once per provider address and replica number, so a ring rebuilt for a changed list
// (a push, or failover's reselect list) sorts points instead of hashing again. They are kept in a
// Float64Array: a plain array of uint32 points holds each as a boxed number (160 points: 4.1 KB against
// 1.6 KB; 10^5 provider URLs called with consistenthash keep some 250 MB less). They are found by the address,
// not the URL: each consumer group's invoker of a provider has a URL of its own (the provider's merged with the
// group's reference), and hashed per URL the seed scale at a tenth with consistenthash spent 31% of its run in MD5
// (four invoker URLs an address: two services, two zones' groups). Looked up once per invoker of a ring built.
const pointsByAddress = new Map<string, Float64Array>();
/** Addresses whose points are kept (the map is dropped whole when full, as `keyPoints` is). */
const ADDRESS_POINTS_MAX = 1 << 18;

/** The sorted ring points of `url`'s address for `replicaNumber` virtual nodes (shared by every URL of that address). */
export function addressPoints(url: URL, replicaNumber: number): Float64Array {
  const address = url.getAddress();
  const key = `${replicaNumber} ${address}`;
  let points = pointsByAddress.get(key);
  if (points === undefined) {
    points = hashPoints(address, replicaNumber);
    if (pointsByAddress.size >= ADDRESS_POINTS_MAX) pointsByAddress.clear();
    pointsByAddress.set(key, points);
  }
  return points;
}

function hashPoints(address: string, replicaNumber: number): Float64Array {
  const digests = Math.max(0, Math.trunc(replicaNumber / POINTS_PER_DIGEST));
  const all = new Float64Array(digests * POINTS_PER_DIGEST);
  for (let i = 0; i < digests; i++) {
    const digest = md5(address + i);
    for (let h = 0; h < 4; h++) all[i * 4 + h] = ketamaHash(digest, h);
  }
  // Sorted, each point once (an address that hits one point twice owns it either way); a typed array sorts by value.
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i]! !== all[n - 1]!) all[n++] = all[i]!;
  return n === all.length ? all : all.slice(0, n);
}

/** A sorted ring: points and, per point, the list index of its owner. */
interface Ring {
  points: Float64Array;
  owners: Int32Array;
}

/** Owner indexes packed below a point: a point (< 2^32) times this plus an index (< this) stays below 2^53. */
const OWNER_SPAN = 2 ** 21;

/**
 * The ring of `perInvoker` (each invoker's sorted points): every point once, in order, owned by the last invoker
 * in list order that has it, as TreeMap.put in list order leaves it.
 * PERF: each point packed with its owner's index into one number (point x 2^21 + index) and the lot sorted as a
 * typed array, so equal points sort by owner and the last of a run is the later invoker's. Merging the invokers'
 * sorted runs in halves into plain arrays took 13 of 69 s of the seed scale with consistenthash (2,000 rings of
 * 32,000 points in its first second), and most of the 17 s of garbage collection beside it.
 */
function buildRing(perInvoker: readonly Float64Array[]): Ring {
  if (perInvoker.length > OWNER_SPAN) {
    throw new RangeError(`consistenthash: a list of ${perInvoker.length} invokers is more than zonesim's ring holds (${OWNER_SPAN})`);
  }
  let total = 0;
  for (const points of perInvoker) total += points.length;
  const packed = new Float64Array(total);
  let k = 0;
  perInvoker.forEach((points, owner) => {
    for (let j = 0; j < points.length; j++) packed[k++] = points[j]! * OWNER_SPAN + owner;
  });
  packed.sort();
  // Each run of equal points written once, its last (latest owner) staying: a later entry of the run overwrites.
  const points = new Float64Array(total);
  const owners = new Int32Array(total);
  let at = 0;
  for (let i = 0; i < total; i++) {
    const point = Math.floor(packed[i]! / OWNER_SPAN);
    if (at > 0 && points[at - 1] === point) at--;
    points[at] = point;
    owners[at++] = packed[i]! - point * OWNER_SPAN;
  }
  return at === total ? { points, owners } : { points: points.slice(0, at), owners: owners.slice(0, at) };
}

// PERF: a ring is a function of its list's addresses in order and the replica number alone (points come from
// the address, owners are list indexes), so lists of other invokers on the same addresses share one: each
// consumer group's invokers are its own, and a provider's services share its address, so the seed scale's
// 2,000 lists called with consistenthash (two services, two rooms' groups of one application) have 500 rings.
// Held weakly: a ring lives as long as a selector uses it.
const ringsByAddresses = new Map<string, WeakRef<Ring>>();
let ringsPruneAt = 1024;

function sharedRing(invokers: readonly Invoker[], perInvoker: readonly Float64Array[], replicaNumber: number): Ring {
  let key = String(replicaNumber);
  for (const invoker of invokers) key += `,${invoker.getUrl().getAddress()}`;
  const known = ringsByAddresses.get(key)?.deref();
  if (known !== undefined) return known;
  const ring = buildRing(perInvoker);
  if (ringsByAddresses.size >= ringsPruneAt) {
    for (const [k, ref] of ringsByAddresses) if (ref.deref() === undefined) ringsByAddresses.delete(k);
    ringsPruneAt = Math.max(1024, 2 * ringsByAddresses.size);
  }
  ringsByAddresses.set(key, new WeakRef(ring));
  return ring;
}

const EMPTY_OWNERS = new Int32Array(0);

/** One ring over one invoker list (Dubbo `ConsistentHashSelector`). */
export class ConsistentHashSelector {
  readonly replicaNumber: number;
  readonly argumentIndex: number[];
  readonly #invokers: Invoker[];
  /** Per invoker, its sorted ring points. */
  readonly #perInvoker: Float64Array[];
  // PERF: a sorted array of points plus a parallel array of invokers instead of a TreeMap, built once
  // the list has been picked over often enough to repay it (picks cost a ceiling search per invoker
  // until then): failover's reselect hands over a fresh list of 10 invokers per retry, used once, and
  // during a rolling restart each instance's directory sets providers aside in lists of its own.
  #points: Float64Array | null = null;
  /** The ring `#points` and `#owners` come from, held so that lists on the same addresses find it. */
  #shared: Ring | null = null;
  /** Per point, its owner's index in the list (4 bytes a point where an invoker reference took 8). */
  #owners: Int32Array = EMPTY_OWNERS;
  #picks = 0;
  // PERF: the last hash looked up and its invoker. Calls of one method often hash the same key (with no
  // arguments, every call hashes the empty key), and the answer for a hash never changes in one ring.
  #lastHash = -1;
  #lastInvoker: Invoker | null = null;
  // PERF: bounded loads walk the ring past every node whose address has taken its share. Dubbo reads each
  // point's address text and looks its count up by it; a hot key (every call of a method without arguments)
  // walks past some `invokers x ln 3` points per pick once two thirds of the nodes are full (the seed scale at a
  // tenth with consistenthash: 10x the time of random, half of it building `host:port` texts and hashing them).
  // Per invoker, the index of its address among the list's distinct addresses (first appearance in list order,
  // so equal lists number them alike), and the counts in an array by that index; a point's address is then
  // `#addressOf[#owners[point]]`. Built on the first bounded pick.
  #addressOf: Int32Array | null = null;
  #addressCount = 0;

  constructor(invokers: Invoker[], methodName: string) {
    const url = invokers[0]!.getUrl();
    this.replicaNumber = Math.trunc(url.getMethodNumber(methodName, HASH_NODES, DEFAULT_REPLICA_NUMBER));
    // Only reached with two invokers or more (AbstractLoadBalance.select returns a single one), as in Dubbo.
    if (this.replicaNumber < POINTS_PER_DIGEST) throw new EmptyHashRingError(this.replicaNumber, methodName);
    const index = (url.getMethodParameter(methodName, HASH_ARGUMENTS) ?? '0').split(/\s*,+\s*/);
    // DIVERGENCE: Dubbo throws NumberFormatException on a non-numeric index; zonesim skips it.
    this.argumentIndex = index.map((s) => Number.parseInt(s, 10)).filter((n) => Number.isInteger(n));
    this.#invokers = invokers;
    this.#perInvoker = invokers.map((invoker) => addressPoints(invoker.getUrl(), this.replicaNumber));
  }

  /** The invoker for this invocation's hash key. */
  select(invocation: RpcInvocation): Invoker {
    return this.selectForKey(this.toKey(getArguments(invocation)));
  }

  /** The configured arguments as text, concatenated with no separator (`null` for null). */
  toKey(args: readonly unknown[]): string {
    let buf = '';
    for (const i of this.argumentIndex) {
      // DIVERGENCE: Java's String.valueOf; JS String() differs for doubles (1.0 → "1") and objects.
      if (i >= 0 && i < args.length) buf += args[i] == null ? 'null' : String(args[i]);
    }
    return buf;
  }

  /** The ceiling entry of `md5(key)` point 0, wrapping to the first point. */
  selectForKey(key: string): Invoker {
    const hash = keyPoint(key);
    if (hash === this.#lastHash) return this.#lastInvoker!;
    const invoker = this.#ringLookup(hash);
    this.#lastHash = hash;
    this.#lastInvoker = invoker;
    return invoker;
  }

  #ringLookup(hash: number): Invoker {
    if (this.#points === null && this.#picks++ < this.replicaNumber * 2) return this.#ceilingByInvoker(hash);
    const points = this.#ring();
    const at = ceilingIndex(points, hash);
    return this.#invokers[this.#owners[at === points.length ? 0 : at]!]!;
  }

  // The ring's points in order (and `#owners`), built once.
  #ring(): Float64Array {
    if (this.#points === null) {
      // Every invoker's points in order: of equal points the later invoker's stays, as its TreeMap.put
      // overwrites an earlier one's.
      const ring = sharedRing(this.#invokers, this.#perInvoker, this.replicaNumber);
      this.#shared = ring;
      this.#points = ring.points;
      this.#owners = ring.owners;
    }
    return this.#points;
  }

  /**
   * 2.7.15+ `selectForKey` with bounded loads (2.7.23 ConsistentHashLoadBalance.java:124-127, 155-196):
   * the key's node, unless its address already took `total / invokers x 1.5` picks of this selector,
   * then the next node of the ring (wrapping) that has not; the pick is counted. 2.7 hashes the
   * invocation's own arguments (`invocation.getArguments()`, a generic call's too).
   */
  selectBounded(invocation: RpcInvocation, load: BoundedLoad): Invoker {
    const points = this.#ring();
    const addressOf = this.#addresses();
    const owners = this.#owners;
    const start = ceilingIndex(points, keyPoint(this.toKey(invocation.arguments))) % points.length;
    let at = start;
    const threshold = (load.total / this.#invokers.length) * OVERLOAD_RATIO;
    // Dubbo passes on while `serverRequestCountMap.containsKey(address) && count >= threshold`: an address
    // in the map has taken one pick or more, so an address with 0 here (never picked) is never passed.
    const bar = threshold > 1 ? threshold : 1;
    const counts = load.counts;
    let address = addressOf[owners[at]!]!;
    // DIVERGENCE: Dubbo loops forever when every address is past the bound (possible only when invokers
    // share an address); zonesim stops after one turn of the ring and takes the key's own node.
    for (let steps = 0; counts[address]! >= bar; steps++) {
      if (steps >= points.length) {
        at = start;
        address = addressOf[owners[at]!]!;
        break;
      }
      at = at + 1 === points.length ? 0 : at + 1;
      address = addressOf[owners[at]!]!;
    }
    counts[address]!++;
    load.total++;
    return this.#invokers[owners[at]!]!;
  }

  /** Fresh bounded-load counts for this list: one 0 per distinct address. */
  newCounts(): number[] {
    this.#addresses();
    return new Array<number>(this.#addressCount).fill(0);
  }

  // Per invoker, its address index (see `#addressOf`).
  #addresses(): Int32Array {
    if (this.#addressOf === null) {
      const indexOfAddress = new Map<string, number>();
      const addressOf = new Int32Array(this.#invokers.length);
      this.#invokers.forEach((invoker, i) => {
        const address = invoker.getUrl().getAddress();
        let index = indexOfAddress.get(address);
        if (index === undefined) indexOfAddress.set(address, (index = indexOfAddress.size));
        addressOf[i] = index;
      });
      this.#addressOf = addressOf;
      this.#addressCount = indexOfAddress.size;
    }
    return this.#addressOf;
  }

  // The ring's answer without the ring: the least point >= hash over every invoker (else the least
  // point of all), a later invoker winning a point several own.
  #ceilingByInvoker(hash: number): Invoker {
    let best = Infinity;
    let bestIndex = -1;
    let first = Infinity;
    let firstIndex = -1;
    this.#perInvoker.forEach((points, index) => {
      if (points.length === 0) return;
      if (points[0]! <= first) {
        first = points[0]!;
        firstIndex = index;
      }
      const at = ceilingIndex(points, hash);
      if (at < points.length && points[at]! <= best) {
        best = points[at]!;
        bestIndex = index;
      }
    });
    return this.#invokers[bestIndex >= 0 ? bestIndex : firstIndex]!;
  }
}

// PERF: point 0 of a key's MD5, remembered for recent keys: a hash per pick (through node:crypto then) cost more
// than the rest of the pick. A pure function of the key; the memo is dropped whole when full.
const keyPoints = new Map<string, number>();
const KEY_POINTS_MAX = 4096;

function keyPoint(key: string): number {
  let point = keyPoints.get(key);
  if (point === undefined) {
    point = ketamaHash(md5(key), 0);
    if (keyPoints.size >= KEY_POINTS_MAX) keyPoints.clear();
    keyPoints.set(key, point);
  }
  return point;
}

// The first index of a sorted array whose value is >= `value` (its length when none is).
function ceilingIndex(points: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// PERF: a ring is a function of the list (its invokers in order) and the method alone, so every
// consumer instance that holds the same list object shares it: a large deployment built one ring of
// 160 points per provider per instance and method (768 KB each for 300 providers) and rebuilt it on
// every list change. Rings of lists no one holds any more go with their lists.
const selectors = new WeakMap<readonly Invoker[], Map<string, ConsistentHashSelector>>();

// PERF: lists with equal contents in different objects (each consumer instance's directory sets an
// unavailable provider aside in a list of its own) share a ring too, found by their contents among
// the most recent rings.
const recentByContents = new Map<string, ConsistentHashSelector>();
const RECENT_RINGS = 64;
const invokerIds = new WeakMap<Invoker, number>();
let nextInvokerId = 1;

function contentsKey(invokers: readonly Invoker[], methodName: string): string {
  let key = methodName;
  for (const invoker of invokers) {
    let id = invokerIds.get(invoker);
    if (id === undefined) invokerIds.set(invoker, (id = nextInvokerId++));
    key += `,${id}`;
  }
  return key;
}

/** The ring of `invokers` for `methodName` (built once per list contents and method while recent, else per list object). */
export function selectorOf(invokers: Invoker[], methodName: string): ConsistentHashSelector {
  let byMethod = selectors.get(invokers);
  if (byMethod === undefined) selectors.set(invokers, (byMethod = new Map()));
  let selector = byMethod.get(methodName);
  if (selector === undefined) {
    const key = contentsKey(invokers, methodName);
    selector = recentByContents.get(key);
    if (selector === undefined) {
      selector = new ConsistentHashSelector(invokers, methodName);
      if (recentByContents.size >= RECENT_RINGS) recentByContents.delete(recentByContents.keys().next().value!);
      recentByContents.set(key, selector);
    }
    byMethod.set(methodName, selector);
  }
  return selector;
}

/** 2.7.15+ `OVERLOAD_RATIO_THREAD`: a node may take this many times the average of picks. */
const OVERLOAD_RATIO = 1.5;

/** The picks one 2.7 selector counted (`serverRequestCountMap`, `totalRequestCount`), and the list it is for. */
export interface BoundedLoad {
  invokers: readonly Invoker[];
  /** Picks per distinct address of the list (`serverRequestCountMap`), by the selector's address index. */
  counts: number[];
  total: number;
}

// Dubbo rebuilds a selector, counts and all, when `invokers.hashCode()` changes: equal elements in the same
// order keep it.
function sameInvokers(a: readonly Invoker[], b: readonly Invoker[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ConsistentHashLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'consistenthash';
  /** Bounded-load counts by `serviceKey.method`, as Dubbo keeps one selector per key in the balancer. */
  readonly #loads = new Map<string, BoundedLoad>();
  readonly #bounded: boolean;

  constructor(runtime: DubboRuntime) {
    super(runtime);
    this.#bounded = runtime.release.consistentHash === 'bounded';
  }

  // Dubbo keeps one selector per `serviceKey.method` and rebuilds it when `invokers.hashCode()`
  // changes. A ring depends on nothing but the list's invokers in order and the method, so the ring
  // of the list at hand is the one Dubbo would use: kept when the list is the same, rebuilt when not.
  // DIVERGENCE: Dubbo compares `List.hashCode()` (element identity hashes, collisions possible); here
  // a list's ring is always its own, so a replaced invoker object is never returned from a stale ring.
  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const method = getMethodName(invocation);
    const selector = selectorOf(invokers, method);
    if (!this.#bounded) return selector.select(invocation);
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${method}`;
    let load = this.#loads.get(key);
    // Lists with equal invokers in the same order number their addresses alike, so the counts carry over to
    // another selector object of the same contents.
    if (load === undefined || !sameInvokers(load.invokers, invokers)) this.#loads.set(key, (load = { invokers, counts: selector.newCounts(), total: 0 }));
    load.invokers = invokers;
    return selector.selectBounded(invocation, load);
  }
}
