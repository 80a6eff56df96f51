/**
 * Weights are honoured: over many picks with a fixed seed each invoker's share is its weight share,
 * within 4.5 standard deviations of binomial sampling error (round robin is exact instead).
 */
import { describe, expect, it } from 'vitest';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, invokersWith, makeRuntime, NOW_MS, pickCounts } from './fixtures.js';

const CONSUMER = URL.valueOf('consumer://127.0.0.1/DemoService');
const RUNS = 20_000;

/** |observed − expected| within 4.5 binomial standard deviations. */
function expectShare(count: number, runs: number, p: number): void {
  const sd = Math.sqrt(runs * p * (1 - p));
  expect(Math.abs(count - runs * p)).toBeLessThanOrEqual(4.5 * sd + 1e-9);
}

describe.each(['random', 'leastactive', 'shortestresponse', 'zoneAware', 'envoyZoneAware'])(
  'weighted balancer %s',
  (name) => {
    it('picks each invoker in proportion to its weight', () => {
      const weights = [10, 30, 60, 100, 0];
      const invokers = invokersWith(weights.map((weight) => ({ weight })));
      const lb = makeRuntime({ seed: 11 }).getLoadBalance(name);
      const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation()), invokers, RUNS);
      const total = weights.reduce((a, b) => a + b, 0);
      weights.forEach((w, i) => expectShare(counts[i]!, RUNS, w / total));
    });

    it('scales weights by warmup', () => {
      // Started 60 s ago with the default 10 min warmup: weight 100 counts as 10.
      const invokers = invokersWith([{ timestamp: NOW_MS - 60_000 }, { timestamp: NOW_MS - 3_600_000 }]);
      const lb = makeRuntime({ seed: 12 }).getLoadBalance(name);
      const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation()), invokers, RUNS);
      expectShare(counts[0]!, RUNS, 10 / 110);
    });
  },
);

it('round robin gives exact weight shares', () => {
  const weights = [10, 30, 60, 100];
  const invokers = invokersWith(weights.map((weight) => ({ weight })));
  const lb = makeRuntime().getLoadBalance('roundrobin');
  const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation()), invokers, 2000);
  expect(counts).toEqual([100, 300, 600, 1000]);
});

it('consistent hash spreads distinct keys roughly evenly over equal invokers', () => {
  const invokers = invokersWith([{}, {}, {}, {}]);
  const lb = makeRuntime().getLoadBalance('consistenthash');
  let n = 0;
  const counts = pickCounts(() => lb.select(invokers, CONSUMER, invocation('get', [`user-${n++}`])), invokers, RUNS);
  // 160 virtual nodes each: ring shares are uneven by design, but none starves or dominates.
  for (const c of counts) {
    expect(c / RUNS).toBeGreaterThan(0.15);
    expect(c / RUNS).toBeLessThan(0.35);
  }
});
