/**
 * Consistent hashing on the call's arguments: a ketama ring of MD5 points (`hash.nodes` virtual
 * nodes per invoker address, default 160) per `serviceKey.method`, rebuilt whenever the invoker list
 * changes in membership or order; the key is the `hash.arguments` arguments (default the first)
 * concatenated. Weights and warmup are ignored. Owns the selectors; MD5 comes from node:crypto,
 * which is deterministic. Follows dubbo-cluster `loadbalance/ConsistentHashLoadBalance.java`.
 */
import { createHash } from 'node:crypto';
import { HASH_ARGUMENTS, HASH_NODES } from '../constants.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getArguments, getMethodName } from './rpc-utils.js';

/** Dubbo's default `hash.nodes`. */
export const DEFAULT_REPLICA_NUMBER = 160;

/** MD5 of the UTF-8 text (Dubbo `Bytes.getMD5(String)`). */
export function md5(text: string): Buffer {
  return createHash('md5').update(text, 'utf8').digest();
}

/** Ring point `number` (0..3) of a digest: the little-endian uint32 of bytes `4n..4n+3`. */
export function ketamaHash(digest: Uint8Array, number: number): number {
  const o = number * 4;
  return (digest[o]! | (digest[o + 1]! << 8) | (digest[o + 2]! << 16) | (digest[o + 3]! << 24)) >>> 0;
}

/** One ring over one invoker list (Dubbo `ConsistentHashSelector`). */
export class ConsistentHashSelector {
  /** What the ring was built from (Dubbo compares `invokers.hashCode()`). */
  readonly identityKey: string;
  readonly replicaNumber: number;
  readonly argumentIndex: number[];
  // PERF: a sorted array of points plus a parallel array of invokers instead of a TreeMap.
  readonly #points: Float64Array;
  readonly #owners: Invoker[];

  constructor(invokers: Invoker[], methodName: string, identityKey: string) {
    this.identityKey = identityKey;
    const url = invokers[0]!.getUrl();
    this.replicaNumber = Math.trunc(url.getMethodNumber(methodName, HASH_NODES, DEFAULT_REPLICA_NUMBER));
    const index = (url.getMethodParameter(methodName, HASH_ARGUMENTS) ?? '0').split(/\s*,+\s*/);
    // DIVERGENCE: Dubbo throws NumberFormatException on a non-numeric index; zonesim skips it.
    this.argumentIndex = index.map((s) => Number.parseInt(s, 10)).filter((n) => Number.isInteger(n));
    const ring = new Map<number, Invoker>();
    for (const invoker of invokers) {
      const address = invoker.getUrl().getAddress();
      for (let i = 0; i < Math.trunc(this.replicaNumber / 4); i++) {
        const digest = md5(address + i);
        // A later invoker overwrites a point it collides with, as TreeMap.put does.
        for (let h = 0; h < 4; h++) ring.set(ketamaHash(digest, h), invoker);
      }
    }
    const points = [...ring.keys()].sort((a, b) => a - b);
    this.#points = Float64Array.from(points);
    this.#owners = points.map((p) => ring.get(p)!);
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
    const hash = ketamaHash(md5(key), 0);
    const points = this.#points;
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.#owners[lo === points.length ? 0 : lo]!;
  }
}

export class ConsistentHashLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'consistenthash';

  readonly #selectors = new Map<string, ConsistentHashSelector>();
  readonly #invokerIds = new WeakMap<Invoker, number>();
  #nextInvokerId = 0;

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const methodName = getMethodName(invocation);
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${methodName}`;
    const identityKey = this.#identityKey(invokers);
    let selector = this.#selectors.get(key);
    if (selector === undefined || selector.identityKey !== identityKey) {
      selector = new ConsistentHashSelector(invokers, methodName, identityKey);
      this.#selectors.set(key, selector);
    }
    return selector.select(invocation);
  }

  // DIVERGENCE: Dubbo compares `List.hashCode()` (element identity hashes, collisions possible);
  // zonesim compares the exact sequence of invoker object ids, so any change in membership or
  // order rebuilds and a replaced invoker object is never returned from a stale ring.
  #identityKey(invokers: Invoker[]): string {
    let key = '';
    for (const invoker of invokers) {
      let id = this.#invokerIds.get(invoker);
      if (id === undefined) {
        id = this.#nextInvokerId++;
        this.#invokerIds.set(invoker, id);
      }
      key += `${id},`;
    }
    return key;
  }
}
