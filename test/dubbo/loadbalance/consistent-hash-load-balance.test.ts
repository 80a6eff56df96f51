/** ConsistentHashLoadBalance: argument keys, generic calls, and rebuilding the ring on list changes. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addressPoints, ketamaHash, md5, selectorOf } from '../../../src/dubbo/loadbalance/consistent-hash-load-balance.js';
import { RpcInvocation, type Invoker } from '../../../src/dubbo/rpc.js';
import { URL } from '../../../src/dubbo/url.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { invocation, invokersWith, makeRuntime, TestInvoker } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');

function fivePorts(params = ''): TestInvoker[] {
  return [1, 2, 3, 4, 5].map((p) => new TestInvoker(`test://127.0.0.1:${p}/DemoService${params}`));
}

function address(picked: unknown): string {
  return (picked as TestInvoker).getUrl().getAddress();
}

/** Two keys `k<n>` whose hash lies above `top` (so a lookup wraps to the ring's first point). */
function keysAbove(top: number): [string, string] {
  const found: string[] = [];
  for (let n = 0; found.length < 2; n++) if (ketamaHash(md5(`k${n}`), 0) > top) found.push(`k${n}`);
  return [found[0]!, found[1]!];
}

describe('ConsistentHashLoadBalance', () => {
  it('maps the first argument to a fixed invoker (arg1 → 127.0.0.1:2)', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    expect(address(lb.select(fivePorts(), CONSUMER, invocation('m', ['arg1', 'x'])))).toBe('127.0.0.1:2');
  });

  it('ignores arguments other than the configured ones', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const invokers = fivePorts();
    const a = lb.select(invokers, CONSUMER, invocation('m', ['42', 'a']));
    const b = lb.select(invokers, CONSUMER, invocation('m', ['42', 'b']));
    expect(a).toBe(b);
    expect(address(a)).toBe('127.0.0.1:5');
  });

  it('concatenates the hash.arguments indexes into the key', () => {
    // Key "arg" + "1" = "arg1" → 127.0.0.1:2, although "arg" alone hashes elsewhere.
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const picked = lb.select(fivePorts('?hash.arguments=0,1'), CONSUMER, invocation('m', ['arg', 1]));
    expect(address(picked)).toBe('127.0.0.1:2');
  });

  it('unwraps a generic $invoke call to its real method and arguments', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const generic = new RpcInvocation({ methodName: '$invoke', arguments: ['m', ['java.lang.String'], ['arg0']] });
    expect(address(lb.select(fivePorts(), CONSUMER, generic))).toBe('127.0.0.1:4');
  });

  it('rebuilds the ring when the list changes and returns the current invoker objects', () => {
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const invokers = fivePorts();
    expect(address(lb.select(invokers, CONSUMER, invocation('m', ['arg1'])))).toBe('127.0.0.1:2');
    const without2 = invokers.filter((_, i) => i !== 1);
    expect(address(lb.select(without2, CONSUMER, invocation('m', ['arg1'])))).not.toBe('127.0.0.1:2');
    const replaced = [...invokers];
    replaced[1] = new TestInvoker('test://127.0.0.1:2/DemoService');
    expect(lb.select(replaced, CONSUMER, invocation('m', ['arg1']))).toBe(replaced[1]);
  });

  it('picks what a per-instance ring, rebuilt only when the list changes, picks (rings shared by list)', () => {
    // Dubbo's bookkeeping, plainly: one TreeMap-like ring per method, rebuilt when the invokers in
    // order differ; each invoker puts 8 MD5 points, a later one overwriting a point it shares.
    const own = new Map<string, { list: readonly Invoker[]; points: number[]; owners: Map<number, Invoker> }>();
    const reference = (list: Invoker[], inv: RpcInvocation): Invoker => {
      const method = inv.getMethodName();
      let s = own.get(method);
      if (s === undefined || s.list.length !== list.length || s.list.some((x, i) => x !== list[i])) {
        const owners = new Map<number, Invoker>();
        for (const invoker of list) {
          for (let i = 0; i < 2; i++) {
            const digest = md5(invoker.getUrl().getAddress() + i);
            for (let h = 0; h < 4; h++) owners.set(ketamaHash(digest, h), invoker);
          }
        }
        s = { list, points: [...owners.keys()].sort((a, b) => a - b), owners };
        own.set(method, s);
      }
      const hash = ketamaHash(md5(String(inv.arguments[0])), 0);
      const ceiling = s.points.find((p) => p >= hash) ?? s.points[0]!;
      return s.owners.get(ceiling)!;
    };
    const rng = new RandomStreams(3).stream('test');
    // hash.nodes=8 (two digests per invoker): a list is picked over often enough for its ring to be built.
    const pool = invokersWith(Array.from({ length: 12 }, () => ({ 'hash.nodes': 8 })));
    // Twins: other invokers at the addresses of the first two, so they share every ring point with them.
    pool.push(new TestInvoker('test://127.0.0.1:1/DemoService?hash.nodes=8&twin=1'), new TestInvoker('test://127.0.0.1:2/DemoService?hash.nodes=8&twin=1'));
    const lbs = [0, 1, 2].map(() => makeRuntime().getLoadBalance('consistenthash'));
    let list = pool.slice(0, 8);
    for (let step = 0; step < 600; step++) {
      const r = rng.nextInt(8);
      // A new list object with the same invokers, a changed one (picked over once or more, like
      // failover's reselect lists and pushed lists), or the same object again.
      if (r === 0) list = [...list];
      else if (r === 1) list = pool.filter(() => rng.nextInt(3) > 0).slice(0, 10);
      if (list.length < 2) list = pool.slice(0, 3);
      const inv = invocation(['m', 'n'][rng.nextInt(2)]!, [`user${rng.nextInt(50)}`]);
      const expected = reference(list, inv);
      for (const lb of lbs) expect(lb.select(list, CONSUMER, inv)).toBe(expected);
    }
    // The consumer instances holding one list object share its ring.
    expect(selectorOf(list, 'm')).toBe(selectorOf(list, 'm'));
  });

  it('answers a repeated key from its memo and a new key from the ring, over lists built and not yet built', () => {
    // No arguments: every call hashes the empty key, and one list always gives the same invoker.
    const lb = makeRuntime().getLoadBalance('consistenthash');
    const list = fivePorts();
    const none = lb.select(list, CONSUMER, invocation('m', []));
    for (let i = 0; i < 400; i++) expect(lb.select(list, CONSUMER, invocation('m', []))).toBe(none);
    // Keys in turn after the repeats: each is the owner of its own hash, not the memo's answer.
    const fresh = fivePorts();
    const expected = ['arg1', '42', 'x', 'y'].map((k) => lb.select(fresh, CONSUMER, invocation('m', [k])));
    expect(new Set(expected.map(address)).size).toBeGreaterThan(1);
    for (let i = 0; i < 700; i++) {
      const k = i % 4;
      expect(lb.select(list, CONSUMER, invocation('m', [['arg1', '42', 'x', 'y'][k]]))).toBe(list[fresh.indexOf(expected[k] as TestInvoker)]);
      if (i % 3 === 0) expect(lb.select(list, CONSUMER, invocation('m', []))).toBe(none);
    }
  });

  it('wraps a hash above every point to the first point, with or without a built ring', () => {
    const list = fivePorts();
    let top = 0;
    for (const inv of list) for (let i = 0; i < 40; i++) top = Math.max(top, ...[0, 1, 2, 3].map((h) => ketamaHash(md5(inv.getUrl().getAddress() + i), h)));
    const keys = keysAbove(top);
    // The owner of the least point of all: the answer of a ring's first entry.
    let least = Infinity;
    let owner = '';
    for (const inv of list) {
      for (let i = 0; i < 40; i++) {
        for (let h = 0; h < 4; h++) {
          const p = ketamaHash(md5(inv.getUrl().getAddress() + i), h);
          if (p < least) [least, owner] = [p, inv.getUrl().getAddress()];
        }
      }
    }
    const lb = makeRuntime().getLoadBalance('consistenthash');
    // That owner last in the list, so that "the first invoker" is not the answer by chance.
    const ordered = [...list.filter((i) => i.getUrl().getAddress() !== owner), ...list.filter((i) => i.getUrl().getAddress() === owner)];
    // The first picks over a list search each invoker's points; after 320 (2 x hash.nodes) the ring is built.
    // Two keys in turn, so that no pick is the selector's memo of the hash before.
    for (let i = 0; i < 330; i++) expect(address(lb.select(ordered, CONSUMER, invocation('m', [keys[i % 2]])))).toBe(owner);
  });

  it('wraps to the later of two invokers sharing the least point (TreeMap.put keeps the later), with or without a built ring', () => {
    const list = fivePorts();
    // The address owning the least point of all (hash.nodes 160: 40 digests of 4 points each).
    const pointsOf = (addr: string) => Array.from({ length: 40 }, (_, i) => [0, 1, 2, 3].map((h) => ketamaHash(md5(addr + i), h))).flat();
    let least = Infinity;
    let top = 0;
    let owner = '';
    for (const inv of list) {
      for (const p of pointsOf(inv.getUrl().getAddress())) {
        top = Math.max(top, p);
        if (p < least) [least, owner] = [p, inv.getUrl().getAddress()];
      }
    }
    const keys = keysAbove(top);
    // A twin of that owner (same address, so the same points), placed after it and before the rest.
    const first = list.find((i) => i.getUrl().getAddress() === owner)!;
    const twin = new TestInvoker(`test://${owner}/DemoService?twin=1`);
    const ordered = [first, twin, ...list.filter((i) => i !== first)];
    const lb = makeRuntime().getLoadBalance('consistenthash');
    for (let i = 0; i < 330; i++) expect(lb.select(ordered, CONSUMER, invocation('m', [keys[i % 2]]))).toBe(twin);
    // And the twin first: the original, now later, wins.
    const swapped = [twin, first, ...list.filter((i) => i !== first)];
    for (let i = 0; i < 330; i++) expect(lb.select(swapped, CONSUMER, invocation('m', [keys[i % 2]]))).toBe(first);
  });
});

describe('ring points of an address', () => {
  // What Dubbo's ConsistentHashSelector puts on the ring for one address: replicaNumber/4 digests of address + i, four points each.
  const expected = (address: string, replicaNumber: number): number[] => {
    const points = new Set<number>();
    for (let i = 0; i < replicaNumber / 4; i++) for (let h = 0; h < 4; h++) points.add(ketamaHash(md5(address + i), h));
    return [...points].sort((a, b) => a - b);
  };

  it('are hashed once per address and replica number, shared by every URL of that address', () => {
    // Two consumer groups' invokers of one provider: their URLs differ, the address is the same.
    const a = URL.valueOf('dubbo://10.0.0.7:20880/com.example.S?application=web&timeout=1000');
    const b = URL.valueOf('dubbo://10.0.0.7:20880/com.example.T?application=app&loadbalance=consistenthash');
    const other = URL.valueOf('dubbo://10.0.0.8:20880/com.example.S?application=web');
    const pa = addressPoints(a, 160);
    expect([...pa]).toEqual(expected('10.0.0.7:20880', 160));
    expect(addressPoints(b, 160)).toBe(pa);
    expect(addressPoints(a, 160)).toBe(pa);
    expect([...addressPoints(other, 160)]).toEqual(expected('10.0.0.8:20880', 160));
    expect(addressPoints(other, 160)).not.toBe(pa);
    // Another replica number is another set of points.
    expect([...addressPoints(b, 8)]).toEqual(expected('10.0.0.7:20880', 8));
    expect(addressPoints(b, 8)).toHaveLength(8);
  });
});

describe('md5 (js-md5, in place of node:crypto)', () => {
  it("gives node:crypto's bytes for addresses, keys, empty, non-ASCII and multi-block texts", () => {
    const texts = ['', '0', '10.0.0.1:20880', '10.0.0.1:2088039', 'null', 'user-1', 'é1', '用户:42', '\u{1F600}', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'y'.repeat(1000)];
    const rng = new RandomStreams(5).stream('text');
    for (let i = 0; i < 500; i++) texts.push(Array.from({ length: rng.nextInt(130) }, () => String.fromCharCode(32 + rng.nextInt(2000))).join(''));
    for (const text of texts) expect(Buffer.from(md5(text)), text).toEqual(createHash('md5').update(text, 'utf8').digest());
  });
});
