/**
 * Dubbo's `AbstractLoadBalance.getWeight` and `calculateWarmupWeight`, one rule per test, with the
 * expected weight worked out from the rule in each test:
 *  - weight = method-level `weight` (default 100); a registry URL (multi-registry child) uses its
 *    service-level `weight` and never warms up;
 *  - only when weight > 0 and the invoker's `timestamp` > 0: uptime = now - timestamp; uptime < 0
 *    gives 1; 0 < uptime < warmup gives trunc(uptime / float(warmup / weight)) clamped to
 *    [1, weight]; uptime 0 and uptime >= warmup give the full weight;
 *  - the result is max(weight, 0).
 * The default warmup is 600000 ms, so with the default weight 100 one warmup step is 6000 ms.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  calculateWarmupWeight,
  getWeight,
  weightAt,
  weightInputsOf,
  type WeightInputs,
} from '../../../src/dubbo/loadbalance/load-balance.js';
import type { ClusterInvokerLike, Result } from '../../../src/dubbo/rpc.js';
import { OK } from '../../../src/dubbo/rpc.js';
import type { Proc } from '../../../src/engine/simulation.js';
import { NumberFormatException, URL } from '../../../src/dubbo/url.js';
import { invocation, NOW_MS, TestInvoker } from './fixtures.js';

const warmupVectors = JSON.parse(readFileSync(new globalThis.URL('./warmup-weight.vectors.json', import.meta.url), 'utf8')) as Record<
  'sameInDouble' | 'differInDouble',
  [number, number, number, number][]
>;

const REGISTRY = 'org.apache.dubbo.registry.RegistryService';

/** Inputs of a provider URL (not a registry URL) with Dubbo's default warmup. */
function provider(weight: number, timestamp: number, warmup = 600_000): WeightInputs {
  return { registry: false, weight, timestamp, warmup };
}

/** A multi-registry child: a cluster invoker whose own URL and registry URL differ. */
class TestClusterInvoker implements ClusterInvokerLike {
  readonly #url: URL;
  readonly #registryUrl: URL;
  constructor(url: string, registryUrl: string) {
    this.#url = URL.valueOf(url);
    this.#registryUrl = URL.valueOf(registryUrl);
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

describe('weightAt (getWeight from resolved inputs)', () => {
  it('gives weight 1 to a provider whose start time is still ahead of the clock (uptime < 0)', () => {
    // uptime = -5000 and uptime = -1: Dubbo returns 1 before looking at the warmup.
    expect(weightAt(provider(100, NOW_MS + 5_000), NOW_MS)).toBe(1);
    expect(weightAt(provider(100, NOW_MS + 1), NOW_MS)).toBe(1);
    expect(weightAt(provider(40, NOW_MS + 1), NOW_MS)).toBe(1);
  });

  it('gives the full weight at uptime 0 (the warmup applies only while 0 < uptime < warmup)', () => {
    expect(weightAt(provider(100, NOW_MS), NOW_MS)).toBe(100);
    expect(weightAt(provider(40, NOW_MS), NOW_MS)).toBe(40);
  });

  it('scales a weight by the elapsed share of the warmup while 0 < uptime < warmup', () => {
    // Weight 100 over 600000 ms: one step per 6000 ms.
    expect(weightAt(provider(100, NOW_MS - 60_000), NOW_MS)).toBe(10); // 60000 / 6000
    expect(weightAt(provider(100, NOW_MS - 599_999), NOW_MS)).toBe(99); // trunc(99.99983)
    // Below the first step the warmup weight is clamped up to 1: trunc(3000 / 6000) = 0.
    expect(weightAt(provider(100, NOW_MS - 3_000), NOW_MS)).toBe(1);
    expect(weightAt(provider(100, NOW_MS - 1), NOW_MS)).toBe(1);
    // Weight 40 over 60000 ms: one step per 1500 ms; 30000 ms is 20 steps.
    expect(weightAt(provider(40, NOW_MS - 30_000, 60_000), NOW_MS)).toBe(20);
  });

  it('gives the full weight from the moment uptime reaches the warmup, even where the warmup formula would give less', () => {
    // Weight 7 over 600000 ms: the step is float32(600000 / 7) = 85714.2890625 (float32 spacing is
    // 2^-7 at this size), a little above 85714.2857, so the formula at uptime 600000 gives
    // trunc(600000 / 85714.2890625) = trunc(6.9999997) = 6. Dubbo does not apply it at uptime >= warmup.
    expect(weightAt(provider(7, NOW_MS - 600_000), NOW_MS)).toBe(7);
    expect(weightAt(provider(7, NOW_MS - 600_001), NOW_MS)).toBe(7);
    expect(weightAt(provider(100, NOW_MS - 3_600_000), NOW_MS)).toBe(100);
  });

  it('gives weight 0 to a zero-weight provider however young it is (no warmup, no "1 before the start")', () => {
    expect(weightAt(provider(0, NOW_MS + 5_000), NOW_MS)).toBe(0);
    expect(weightAt(provider(0, NOW_MS - 60_000), NOW_MS)).toBe(0);
    expect(weightAt(provider(0, NOW_MS), NOW_MS)).toBe(0);
  });

  it('turns a negative weight into 0, also before the start time and during the warmup', () => {
    expect(weightAt(provider(-5, 0), NOW_MS)).toBe(0);
    expect(weightAt(provider(-5, NOW_MS + 5_000), NOW_MS)).toBe(0);
    expect(weightAt(provider(-5, NOW_MS - 60_000), NOW_MS)).toBe(0);
  });

  it('never warms up a provider without a positive timestamp, even when the clock is within one warmup of 0', () => {
    // Were timestamp 0 or -1 taken as a start time, uptime 60000 (60001) would give weight 10.
    expect(weightAt(provider(100, 0), 60_000)).toBe(100);
    expect(weightAt(provider(100, -1), 60_000)).toBe(100);
    // And a clock before that "start" would give 1.
    expect(weightAt(provider(100, 0), -5)).toBe(100);
  });

  it('gives a registry URL its weight as is: no warmup, no weight 1 before the start, never negative', () => {
    const registry = (weight: number, timestamp: number): WeightInputs => ({ registry: true, weight, timestamp, warmup: 600_000 });
    expect(weightAt(registry(50, NOW_MS + 5_000), NOW_MS)).toBe(50);
    // 60 s into a 10 min warmup a provider of weight 100 would count 10.
    expect(weightAt(registry(100, NOW_MS - 60_000), NOW_MS)).toBe(100);
    expect(weightAt(registry(0, NOW_MS + 5_000), NOW_MS)).toBe(0);
    expect(weightAt(registry(-3, NOW_MS + 5_000), NOW_MS)).toBe(0);
  });
});

describe('calculateWarmupWeight', () => {
  it('is trunc(uptime / float32(warmup / weight)) clamped to [1, weight]', () => {
    expect(calculateWarmupWeight(60_000, 600_000, 100)).toBe(10);
    expect(calculateWarmupWeight(6_000, 600_000, 100)).toBe(1);
    expect(calculateWarmupWeight(5_999, 600_000, 100)).toBe(1); // trunc(0.99983) = 0, clamped to 1
    expect(calculateWarmupWeight(1_199_999, 600_000, 100)).toBe(100); // 199.99, clamped to the weight
    // The float32 step of weight 7 (see above): 85714 / 85714.2890625 < 1, so 0, clamped to 1;
    // 171429 / 85714.2890625 = 2.0000003, so 2.
    expect(calculateWarmupWeight(85_714, 600_000, 7)).toBe(1);
    expect(calculateWarmupWeight(171_429, 600_000, 7)).toBe(2);
  });

  it('divides the uptime in float too: Java promotes the int uptime to float (AbstractLoadBalance.java line 50)', () => {
    // 300000f / 23076.923828125f = 12.9999995 in double, which rounds to 13.0f; likewise 8.9999995 → 9.0f.
    expect(calculateWarmupWeight(300_000, 600_000, 26)).toBe(13);
    expect(calculateWarmupWeight(200_000, 600_000, 27)).toBe(9);
  });

  it.each(['sameInDouble', 'differInDouble'] as const)(
    'matches Java on the generated vectors (%s: whether the outer division in double gives the same weight)',
    (group) => {
      // Printed by java/WarmupWeightVectors.java (OpenJDK 17): [uptime, warmup, weight, Java's weight].
      const cases = warmupVectors[group];
      expect(cases).toHaveLength(150);
      for (const [uptime, warmup, weight, expected] of cases) {
        expect(calculateWarmupWeight(uptime, warmup, weight), `${uptime}, ${warmup}, ${weight}`).toBe(expected);
      }
    },
  );
});

describe('getWeight (URL parameters of an invoker)', () => {
  it('reads the method-level weight before the service-level one, per method', () => {
    const invoker = new TestInvoker('test://127.0.0.1:1/DemoService?weight=10&sayHello.weight=30');
    expect(getWeight(invoker, invocation('sayHello'), NOW_MS)).toBe(30);
    expect(getWeight(invoker, invocation('other'), NOW_MS)).toBe(10);
    expect(getWeight(new TestInvoker('test://127.0.0.1:1/DemoService'), invocation(), NOW_MS)).toBe(100);
  });

  it('takes the weight of a multi-registry child from its registry URL, service-level only, without warmup', () => {
    // The invoker's own URL says weight 30 and started 60 s ago; the registry URL says 50 (and 5 for
    // sayHello, which a registry URL does not consult).
    const invoker = new TestClusterInvoker(
      `test://127.0.0.1:1/DemoService?weight=30&timestamp=${NOW_MS - 60_000}`,
      `registry://127.0.0.1:2181/${REGISTRY}?weight=50&sayHello.weight=5`,
    );
    expect(getWeight(invoker, invocation('sayHello'), NOW_MS)).toBe(50);
    expect(weightInputsOf(invoker, 'sayHello').registry).toBe(true);
    // Before the invoker's start time a registry weight is still 50, not 1.
    const young = new TestClusterInvoker(
      `test://127.0.0.1:2/DemoService?timestamp=${NOW_MS + 5_000}`,
      `registry://127.0.0.1:2181/${REGISTRY}?weight=50`,
    );
    expect(getWeight(young, invocation('sayHello'), NOW_MS)).toBe(50);
  });

  it('treats a plain provider URL naming the registry interface as a registry URL too', () => {
    const invoker = new TestInvoker(`registry://127.0.0.1:2181/${REGISTRY}?weight=50&sayHello.weight=5&timestamp=${NOW_MS - 60_000}`);
    expect(getWeight(invoker, invocation('sayHello'), NOW_MS)).toBe(50);
  });

  it('takes the weight of a cluster invoker over a non-registry URL method-level, and the timestamp and warmup from the invoker itself', () => {
    // Registry URL: sayHello weight 30 (and a warmup of 60000 that is not consulted). Invoker: started
    // 60 s ago, default warmup 600000 → step float32(600000 / 30) = 20000 → 60000 / 20000 = 3.
    const invoker = new TestClusterInvoker(
      `test://127.0.0.1:1/DemoService?timestamp=${NOW_MS - 60_000}`,
      'test://127.0.0.1:9/DemoService?weight=10&sayHello.weight=30&warmup=60000',
    );
    expect(getWeight(invoker, invocation('sayHello'), NOW_MS)).toBe(3);
  });

  it('applies the warmup with the invoker URL\'s own warmup parameter', () => {
    // Weight 100 over 60000 ms: one step per 600 ms; 6000 ms is 10 steps.
    const invoker = new TestInvoker(`test://127.0.0.1:1/DemoService?warmup=60000&timestamp=${NOW_MS - 6_000}`);
    expect(getWeight(invoker, invocation(), NOW_MS)).toBe(10);
  });

  it('reads weights as Java ints: a weight such as "2.5" is not truncated but refused (Integer.parseInt)', () => {
    // AbstractLoadBalance.java line 84 (registry URL: getParameter(WEIGHT_KEY, int)) and line 86
    // (getMethodParameter(method, WEIGHT_KEY, int)): Integer.parseInt throws NumberFormatException.
    const message = /weight "2\.5" on .* is not an int: .*NumberFormatException: For input string: "2\.5"/;
    expect(() => getWeight(new TestInvoker('test://127.0.0.1:1/DemoService?weight=2.5'), invocation(), NOW_MS)).toThrow(message);
    expect(() => getWeight(new TestInvoker('test://127.0.0.1:2/DemoService?sayHello.weight=2.5'), invocation(), NOW_MS)).toThrow(
      NumberFormatException,
    );
    const child = new TestClusterInvoker('test://127.0.0.1:3/DemoService', `registry://127.0.0.1:2181/${REGISTRY}?weight=2.5`);
    expect(() => getWeight(child, invocation(), NOW_MS)).toThrow(message);
    expect(getWeight(new TestInvoker('test://127.0.0.1:4/DemoService?weight=+7'), invocation(), NOW_MS)).toBe(7);
  });
});
