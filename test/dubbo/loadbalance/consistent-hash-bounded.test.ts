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
import { invocation, TestInvoker } from './fixtures.js';

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
