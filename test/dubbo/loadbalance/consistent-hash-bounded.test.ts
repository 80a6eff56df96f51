/**
 * ConsistentHashLoadBalance with bounded loads (`consistentHash: bounded`, the 2.7 profile): Dubbo
 * 2.7.15+ (#8916; 2.7.23 ConsistentHashLoadBalance.java:124-127, 155-196) counts the picks of each
 * selector by address and passes a key on to the next node of the ring while its node has taken
 * `total / invokers x 1.5` picks or more; the selector (and its counts) is rebuilt when the list's
 * hashCode changes. 3.3 (`ring`) has no bound: a key always lands on its node.
 */
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/engine/simulation.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../../src/dubbo/release.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, makeRuntime, TestInvoker } from './fixtures.js';
import { ReferenceBoundedConsistentHashLoadBalance } from './reference/consistent-hash-bounded.js';
import type { Invoker } from '../../../src/dubbo/rpc.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');
const twoPorts = () => [1, 2].map((p) => new TestInvoker(`test://127.0.0.1:${p}/DemoService`));

function balancer(release: DubboRelease) {
  return createRuntime({ sim: new Simulation(), random: new RandomStreams(1).stream('lb'), release }).getLoadBalance('consistenthash');
}

function picks(release: DubboRelease, n: number, invokers = twoPorts(), lb = balancer(release)): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(lb.select(invokers, CONSUMER, invocation('m', ['user-1']))!.getUrl().getAddress());
  return out;
}

describe('consistent hash with bounded loads (2.7.15+) against the plain ring (3.3)', () => {
  it('sends one hot key to its node every time under 3.3', () => {
    const all = picks(DUBBO_3_3, 20);
    expect(new Set(all).size).toBe(1);
  });

  it('moves a hot key on once its node reaches 1.5x the average: node, other, node, node, other, ...', () => {
    // The rule by hand, for key K on node A of two (the threshold is total/2 x 1.5 before each pick):
    // t=0: A unknown -> A (A=1); t=1: 0.75, A=1 -> B (B=1); t=2: 1.5, A=1 -> A (A=2); t=3: 2.25, A=2 -> A (A=3);
    // t=4: 3, A=3 -> B (B=2); t=5: 3.75 -> A (4); t=6: 4.5 -> A (5); t=7: 5.25 -> A (6); t=8: 6, A=6 -> B.
    const all = picks(DUBBO_2_7, 9);
    const a = all[0]!;
    expect(all.map((p) => (p === a ? 'A' : 'B')).join('')).toBe('ABAABAAAB');
  });

  it('keeps the hot node near 1.5x the average over many picks (60% of 2 nodes), where the ring gives it all', () => {
    const all = picks(DUBBO_2_7, 1000);
    const hot = all.filter((p) => p === all[0]).length;
    // The node's count stays below 1.5 x total/2 + 1 at every step.
    expect(hot).toBeLessThanOrEqual(Math.floor(1.5 * (1000 / 2)) + 1);
    expect(hot).toBeGreaterThan(1000 / 2);
  });

  it('keeps its counts for a new list object with the same invokers, and starts again for another list (invokers.hashCode())', () => {
    const invokers = twoPorts();
    const lb = balancer(DUBBO_2_7);
    const first = picks(DUBBO_2_7, 1, invokers, lb)[0];
    // Same elements, new array: the counts carry on (the next pick of the key moves on).
    expect(picks(DUBBO_2_7, 1, [...invokers], lb)[0]).not.toBe(first);
    // Another list (a third invoker): a new selector, fresh counts, so the key's node again.
    const three = [...invokers, new TestInvoker('test://127.0.0.1:3/DemoService')];
    const fresh = picks(DUBBO_2_7, 1, three, balancer(DUBBO_2_7))[0];
    expect(picks(DUBBO_2_7, 1, three, lb)[0]).toBe(fresh);
  });
});

describe('bounded loads: the balancer picks what a plain port of 2.7.23 picks', () => {
  const hosts = (n: number, query = '', perAddress = 1): TestInvoker[] =>
    Array.from({ length: n }, (_, i) => {
      const host = `10.0.${Math.trunc(Math.trunc(i / perAddress) / 250)}.${(Math.trunc(i / perAddress) % 250) + 1}`;
      return new TestInvoker(`test://${host}:20880/DemoService?copy=${i % perAddress}${query}`);
    });

  // Both balancers pick `rounds` times from each list in turn; the addresses and invokers picked are compared.
  function differ(lists: Invoker[][], rounds: number, args: () => unknown[]): { picks: number; distinct: number } {
    const lb = makeRuntime({ release: DUBBO_2_7 }).getLoadBalance('consistenthash');
    const ref = new ReferenceBoundedConsistentHashLoadBalance(makeRuntime({ release: DUBBO_2_7 }));
    const seen = new Set<Invoker>();
    let picks = 0;
    for (const list of lists) {
      for (let i = 0; i < rounds; i++) {
        const a = args();
        const got = lb.select(list, CONSUMER, invocation('m', a));
        const want = ref.select(list, CONSUMER, invocation('m', a));
        if (got !== want) throw new Error(`pick ${picks}: ${got?.getUrl().getAddress()} against ${want?.getUrl().getAddress()}`);
        seen.add(got!);
        picks++;
      }
    }
    return { picks, distinct: seen.size };
  }

  it('one hot key (no arguments) over 200 providers: 20,000 picks walk ever further past full nodes', () => {
    const r = differ([hosts(200)], 20_000, () => []);
    // The bound spreads the one key over most of the list (two thirds of the nodes hold 1.5x the average).
    expect(r.distinct).toBeGreaterThan(100);
  });

  it('thirty keys over 60 providers, drawn at random', () => {
    const rng = new RandomStreams(7).stream('keys');
    const r = differ([hosts(60)], 20_000, () => [`user-${rng.nextInt(30)}`]);
    expect(r.distinct).toBeGreaterThan(20);
  });

  it('invokers sharing an address count together, and a ring with every address past the bound gives the key its node', () => {
    // 12 invokers on 4 addresses: each address averages total/4 picks, past the bound of total/12 x 1.5,
    // so from the second turn on the walk goes once round the ring and stops at the key's own node.
    differ([hosts(12, '&hash.nodes=8', 3)], 2_000, () => []);
    const rng = new RandomStreams(3).stream('keys');
    differ([hosts(12, '', 3)], 2_000, () => [rng.nextInt(1000)]);
  });

  it("picks a list's own invokers when another list on the same addresses was picked from first (one ring, two lists)", () => {
    for (const release of [DUBBO_3_3, DUBBO_2_7]) {
      const first = hosts(30);
      const second = hosts(30, '&group=other');
      const a = makeRuntime({ release }).getLoadBalance('consistenthash');
      const b = makeRuntime({ release }).getLoadBalance('consistenthash');
      for (let k = 0; k < 200; k++) {
        const x = a.select(first, CONSUMER, invocation('m', [`k${k % 40}`]))!;
        const y = b.select(second, CONSUMER, invocation('m', [`k${k % 40}`]))!;
        expect(second.indexOf(y as TestInvoker)).toBe(first.indexOf(x as TestInvoker));
        expect(second).toContain(y);
      }
    }
  });

  it('carries counts over to a list of the same invokers and starts again when the list changes', () => {
    const a = hosts(40);
    const lists = [a, [...a], a.slice(1), a, [...a].reverse(), a, [...a]];
    const rng = new RandomStreams(11).stream('keys');
    const r = differ([...lists, ...lists, ...lists], 700, () => (rng.nextInt(4) === 0 ? [] : [`k${rng.nextInt(8)}`]));
    expect(r.picks).toBe(21 * 700);
  });
});

describe('the consistentHash setting (SPEC 2.11)', () => {
  it("defaults to the release's (2.7: bounded, 3.3: ring) and can be set on its own", async () => {
    const { parseScenario } = await import('../../../src/scenario/load.js');
    const { releaseOf } = await import('../../../src/stack/dubbo-release.js');
    const base = `zones: { dc: { cidr: 10.0.0.0/24 } }
services: { S: { methods: { m: { serviceTime: 1ms } } } }
providers: [{ service: S, zone: dc }]
consumers:
  - { application: a, zone: dc, rate: 10/s, calls: { S.m: 1 } }
  - { application: b, zone: dc, rate: 10/s, calls: { S.m: 1 }, dubbo: '2.7' }
  - { application: c, zone: dc, rate: 10/s, calls: { S.m: 1 }, dubbo: { version: '2.7', consistentHash: ring } }
`;
    const s = parseScenario(base, 'x.yaml');
    expect(s.consumers.map((c) => releaseOf(c.dubbo).consistentHash)).toEqual(['ring', 'bounded', 'ring']);
  });
});
