/**
 * A plain reference of Dubbo 2.7.23's `ConsistentHashLoadBalance` with bounded loads (lines 124-127,
 * 155-196) for differential tests: one selector per `serviceKey.method`, rebuilt when the list's elements
 * change; a TreeMap of MD5 points (later invokers overwrite equal points); counts by address text in a map;
 * the walk past overloaded nodes reads each point's address. No caches. The balancer in src/ must pick
 * exactly what this picks.
 */
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { getMethodName } from '../../../../src/dubbo/loadbalance/rpc-utils.js';
import { createHash } from 'node:crypto';

// Dubbo's Bytes.getMD5 and ConsistentHashSelector.hash, through node:crypto (src uses another MD5).
const md5 = (text: string): Buffer => createHash('md5').update(text, 'utf8').digest();
const ketamaHash = (d: Buffer, n: number): number => d.readUInt32LE(n * 4);

class Selector {
  readonly invokers: readonly Invoker[];
  readonly #points: number[];
  readonly #owners: Invoker[];
  readonly #argumentIndex: number[];
  readonly #counts = new Map<string, number>();
  #total = 0;

  constructor(invokers: readonly Invoker[], method: string) {
    this.invokers = invokers;
    const url = invokers[0]!.getUrl();
    const replicaNumber = Number(url.getMethodParameter(method, 'hash.nodes') ?? 160);
    this.#argumentIndex = (url.getMethodParameter(method, 'hash.arguments') ?? '0').split(',').map((s) => Number.parseInt(s.trim(), 10));
    const tree = new Map<number, Invoker>();
    for (const invoker of invokers) {
      const address = invoker.getUrl().getAddress();
      for (let i = 0; i < Math.trunc(replicaNumber / 4); i++) {
        const digest = md5(address + i);
        for (let h = 0; h < 4; h++) tree.set(ketamaHash(digest, h), invoker);
      }
    }
    this.#points = [...tree.keys()].sort((a, b) => a - b);
    this.#owners = this.#points.map((p) => tree.get(p)!);
  }

  select(invocation: RpcInvocation): Invoker {
    let key = '';
    for (const i of this.#argumentIndex) if (i >= 0 && i < invocation.arguments.length) key += String(invocation.arguments[i] ?? 'null');
    const hash = ketamaHash(md5(key), 0);
    let start = this.#points.findIndex((p) => p >= hash);
    if (start < 0) start = 0;
    let at = start;
    const overloadThread = (this.#total / this.invokers.length) * 1.5;
    let address = this.#owners[at]!.getUrl().getAddress();
    let steps = 0;
    while (this.#counts.has(address) && this.#counts.get(address)! >= overloadThread) {
      // src's DIVERGENCE: after one turn of the ring (every address past the bound), the key's own node.
      if (steps++ >= this.#points.length) {
        at = start;
        address = this.#owners[at]!.getUrl().getAddress();
        break;
      }
      at = (at + 1) % this.#points.length;
      address = this.#owners[at]!.getUrl().getAddress();
    }
    this.#counts.set(address, (this.#counts.get(address) ?? 0) + 1);
    this.#total++;
    return this.#owners[at]!;
  }
}

export class ReferenceBoundedConsistentHashLoadBalance extends AbstractLoadBalance {
  readonly #selectors = new Map<string, Selector>();

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const method = getMethodName(invocation);
    const key = `${invokers[0]!.getUrl().getServiceKey()}.${method}`;
    let selector = this.#selectors.get(key);
    const same = selector !== undefined && selector.invokers.length === invokers.length && selector.invokers.every((x, i) => x === invokers[i]);
    if (!same) this.#selectors.set(key, (selector = new Selector(invokers, method)));
    return selector!.select(invocation);
  }
}
