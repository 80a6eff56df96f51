/**
 * RandomLoadBalance with exact picks for a seeded `lb` stream. The expected picks are worked out
 * in the test from Dubbo's rules on a second stream with the same seed:
 *  - no `weight` (method- or service-level) and no `timestamp` on the first invoker: one
 *    `nextInt(n)` per pick, weights never consulted;
 *  - otherwise running totals of getWeight: unequal weights with a positive total draw
 *    `offset = nextInt(total)` and pick the first index whose running total exceeds it (so
 *    zero-weight invokers are never picked); equal or all-zero weights draw `nextInt(n)`.
 */
import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../../src/engine/random.js';
import { REGISTRY_SERVICE } from '../../../src/dubbo/constants.js';
import { OK, type ClusterInvokerLike, type Result } from '../../../src/dubbo/rpc.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';
import type { Proc } from '../../../src/engine/simulation.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickIndexes, TestInvoker } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');
const SEED = 3;
const RUNS = 200;

/** The stream `makeRuntime({ seed })` gives the balancer, replayed by the test. */
function sameStream(seed: number) {
  return new RandomStreams(seed).stream('lb');
}

/** Dubbo's uniform pick: one nextInt(n) per call. */
function uniformPicks(seed: number, n: number, runs: number): number[] {
  const rng = sameStream(seed);
  return Array.from({ length: runs }, () => rng.nextInt(n));
}

/** Dubbo's weighted pick: offset = nextInt(total), the first i with offset < w0 + … + wi. */
function weightedPicks(seed: number, weights: number[], runs: number): number[] {
  const rng = sameStream(seed);
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: runs }, () => {
    const offset = rng.nextInt(total);
    let running = 0;
    return weights.findIndex((w) => offset < (running += w));
  });
}

function randomPicks(params: Array<Record<string, string | number>>, runs = RUNS, seed = SEED): number[] {
  const invokers = invokersWith(params);
  const lb = makeRuntime({ seed }).getLoadBalance('random');
  return pickIndexes(() => lb.select(invokers, CONSUMER, invocation('sayHello')), invokers, runs);
}

/** A multi-registry child: a cluster invoker whose registry URL carries the weight. */
class TestRegistryChild implements ClusterInvokerLike {
  readonly #url: URL;
  readonly #registryUrl: URL;
  constructor(index: number, registryQuery: string) {
    this.#url = URL.valueOf(`test://127.0.0.1:${index}/DemoService`);
    this.#registryUrl = URL.valueOf(`registry://10.0.0.${index}:2181/${REGISTRY_SERVICE}?${registryQuery}`);
  }
  getUrl(): URL {
    return this.#url;
  }
  getRegistryUrl(): URL {
    return this.#registryUrl;
  }
  isAvailable(): boolean {
    return true;
  }
  isDestroyed(): boolean {
    return false;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

describe('RandomLoadBalance', () => {
  it('picks uniformly, ignoring the other invokers\' weights, when the first invoker has neither weight nor timestamp', () => {
    // Weighted, invoker 2 (weight 0) would never be picked and invoker 1 would get 3/4 of the picks.
    const picks = randomPicks([{}, { weight: 300 }, { weight: 0 }]);
    expect(picks).toEqual(uniformPicks(SEED, 3, RUNS));
    expect(picks).toContain(2);
  });

  it('draws by weight when the first invoker has only a timestamp (every registry-pushed provider has one)', () => {
    // Started an hour ago: past the 10 min warmup, so weights 100, 300, 0.
    const picks = randomPicks([{ timestamp: NOW_MS - 3_600_000 }, { weight: 300 }, { weight: 0 }]);
    expect(picks).toEqual(weightedPicks(SEED, [100, 300, 0], RUNS));
  });

  it('draws by weight when the first invoker has only a method-level weight for the called method', () => {
    const picks = randomPicks([{ 'sayHello.weight': 100 }, { weight: 300 }, {}]);
    expect(picks).toEqual(weightedPicks(SEED, [100, 300, 100], RUNS));
  });

  it('draws by weight when a provider under the consumer view registers only a method-level weight', () => {
    // ServiceAddressURL.getMethodParameter: the provider's sayHello.weight counts (RandomLoadBalance.java line 120).
    const consumer = URL.valueOf('consumer://127.0.0.1/DemoService?timeout=1000');
    const invokers = ['sayHello.weight=100', 'weight=300', ''].map(
      (q, i) => new TestInvoker(new ServiceAddressURL(URL.valueOf(`test://127.0.0.1:${i + 1}/DemoService?${q}`), consumer)),
    );
    const lb = makeRuntime({ seed: SEED }).getLoadBalance('random');
    const picks = pickIndexes(() => lb.select(invokers, CONSUMER, invocation('sayHello')), invokers, RUNS);
    expect(picks).toEqual(weightedPicks(SEED, [100, 300, 100], RUNS));
  });

  it('on a registry URL needs a `weight` there, and ignores a timestamp (RandomLoadBalance.java lines 116-118)', () => {
    const child = (i: number, registryQuery: string) => new TestRegistryChild(i, registryQuery);
    const lb = makeRuntime({ seed: SEED }).getLoadBalance('random');
    const unweighted = [child(1, `timestamp=${NOW_MS - 3_600_000}`), child(2, 'weight=300')];
    expect(pickIndexes(() => lb.select(unweighted, CONSUMER, invocation()), unweighted, RUNS)).toEqual(uniformPicks(SEED, 2, RUNS));
    const weighted = [child(1, 'weight=100'), child(2, 'weight=300')];
    const lb2 = makeRuntime({ seed: SEED }).getLoadBalance('random');
    expect(pickIndexes(() => lb2.select(weighted, CONSUMER, invocation()), weighted, RUNS)).toEqual(weightedPicks(SEED, [100, 300], RUNS));
  });

  it('still picks uniformly when the first invoker has a weight only for another method', () => {
    const picks = randomPicks([{ 'other.weight': 100 }, { weight: 300 }, { weight: 0 }]);
    expect(picks).toEqual(uniformPicks(SEED, 3, RUNS));
  });

  it('picks the first invoker whose running total exceeds the offset, skipping zero weights, in long and short lists', () => {
    const long = [0, 5, 0, 0, 3, 0, 2, 0, 7, 1, 0];
    const longPicks = randomPicks(long.map((weight) => ({ weight })), 500);
    expect(longPicks).toEqual(weightedPicks(SEED, long, 500));
    // Every non-zero invoker is reached (offsets on each running total included) and no zero-weight one.
    expect([...new Set(longPicks)].sort((a, b) => a - b)).toEqual([1, 4, 6, 8, 9]);
    for (const short of [[1, 2, 0, 3], [4, 0], [0, 1], [1, 0, 0, 1]]) {
      expect(randomPicks(short.map((weight) => ({ weight })))).toEqual(weightedPicks(SEED, short, RUNS));
    }
  });

  it('picks uniformly when every weight is 0 (not "nobody", and not always the last)', () => {
    const picks = randomPicks([{ weight: 0 }, { weight: 0 }, { weight: 0 }, { weight: 0 }, { weight: 0 }]);
    expect(picks).toEqual(uniformPicks(SEED, 5, RUNS));
    // A weight becomes 0 also from a warmup of a zero weight: never 1 for a provider not yet started.
    expect(randomPicks([{ weight: 0, timestamp: NOW_MS + 5_000 }, { weight: 0 }, { weight: 0 }])).toEqual(uniformPicks(SEED, 3, RUNS));
  });

  it('picks uniformly when every weight is equal, also when warmup makes them equal', () => {
    expect(randomPicks([{ weight: 50 }, { weight: 50 }, { weight: 50 }])).toEqual(uniformPicks(SEED, 3, RUNS));
    // Invoker 0 started 60 s ago with the default warmup: 60000 / 6000 = 10, equal to invoker 1's 10.
    expect(randomPicks([{ weight: 100, timestamp: NOW_MS - 60_000 }, { weight: 10 }])).toEqual(uniformPicks(SEED, 2, RUNS));
  });
});
