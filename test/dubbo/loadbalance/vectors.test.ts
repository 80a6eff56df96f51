/**
 * Every `loadbalance` case of Dubbo's vectors (copied into test/dubbo/vectors/loadbalance.json),
 * run against the ports. Each case is interpreted by its `input.op`; an op this file does not know
 * fails, so a new case cannot be skipped silently.
 */
import { describe, expect, it } from 'vitest';
import { loadBalances } from '../../../src/dubbo/extensions.js';
import {
  ConsistentHashSelector,
  ketamaHash,
  md5,
} from '../../../src/dubbo/loadbalance/consistent-hash-load-balance.js';
import { calculateWarmupWeight, getWeight } from '../../../src/dubbo/loadbalance/load-balance.js';
import { URL } from '../../../src/dubbo/url.js';
import data from '../vectors/loadbalance.json' with { type: 'json' };
import { invocation, invokersWith, makeRuntime, NOW_MS, pickCounts, pickIndexes, setStatus, TestInvoker } from './fixtures.js';

// The vector file is heterogeneous JSON; each case is interpreted by its keys below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const cases = (data as Json[]).map((c, i) => [`#${i} ${c.source.split('/').pop()} ${c.input.op}`, c] as const);

/** A vector invoker: its URL text, with `weight` added when the case gives one and the URL lacks it. */
function vectorInvoker(spec: Json): TestInvoker {
  let url = URL.valueOf(spec.url);
  if (spec.weight !== undefined && url.getParameter('weight') === undefined) {
    url = url.addParameters({ weight: String(spec.weight) });
  }
  return new TestInvoker(url);
}

/**
 * The expected keys each op interprets. A key outside its op's list fails the case, so an
 * expectation cannot be skipped silently (most selectCounts keys are checked only when present).
 */
const INTERPRETED: Record<string, readonly string[]> = {
  calculateWarmupWeight: ['weight'],
  getWeight: ['weights', 'equal'],
  selectCounts: [
    'counts',
    'approxCounts',
    'maxAbsDelta',
    'derivedExactCountsSingleThread',
    'neverSelectedIndices',
    'sumOfOthers',
    'distinctSelected',
    'hitCount',
    'derivedSelectedAddress',
  ],
  selectSequence: ['sequence'],
  consistentHashSelect: ['keyHash', 'address'],
};

function runCase(c: Json): void {
  const input = c.input;
  const expected = c.expected;
  expect(Object.keys(INTERPRETED), `op ${input.op}`).toContain(input.op);
  for (const key of Object.keys(expected)) expect(INTERPRETED[input.op], `expected.${key}`).toContain(key);
  switch (input.op) {
    case 'calculateWarmupWeight':
      expect(calculateWarmupWeight(input.uptimeMs, input.warmupMs, input.weight)).toBe(expected.weight);
      return;
    case 'getWeight': {
      const invokers = (input.invokers as Json[]).map(
        (spec, i) => new TestInvoker(`test://127.0.0.1:${i + 1}/DemoService?timestamp=${NOW_MS - spec.timestampAgoMs}`),
      );
      const weights = invokers.map((inv) => getWeight(inv, invocation(input.method), NOW_MS));
      expect(weights).toEqual(expected.weights);
      expect(new Set(weights).size === 1).toBe(expected.equal);
      return;
    }
    case 'selectCounts': {
      // Every check below is conditional on its key: a case with none of them would check nothing.
      const checks = ['counts', 'approxCounts', 'derivedExactCountsSingleThread', 'neverSelectedIndices', 'distinctSelected', 'derivedSelectedAddress'];
      expect(checks.filter((k) => expected[k] !== undefined), 'selectCounts checks').not.toEqual([]);
      const runtime = makeRuntime({ seed: 7 });
      const invokers = (input.invokers as Json[]).map(vectorInvoker);
      (input.invokers as Json[]).forEach((spec, i) => setStatus(runtime, invokers[i]!, input.method, spec));
      const lb = runtime.getLoadBalance(input.loadbalance);
      const url = URL.valueOf('consumer://127.0.0.1/DemoService');
      const select = () => lb.select(invokers, url, invocation(input.method, input.arguments ?? []));
      const counts = pickCounts(select, invokers, input.runs);
      if (expected.counts !== undefined) expect(counts).toEqual(expected.counts);
      if (expected.approxCounts !== undefined) {
        (expected.approxCounts as number[]).forEach((n, i) => expect(Math.abs(counts[i]! - n)).toBeLessThan(expected.maxAbsDelta));
      }
      if (expected.derivedExactCountsSingleThread !== undefined) expect(counts).toEqual(expected.derivedExactCountsSingleThread);
      if (expected.neverSelectedIndices !== undefined) {
        for (const i of expected.neverSelectedIndices as number[]) expect(counts[i]).toBe(0);
        expect(counts.reduce((a, b) => a + b, 0)).toBe(expected.sumOfOthers);
      }
      if (expected.distinctSelected !== undefined) {
        expect(counts.filter((n) => n > 0)).toHaveLength(expected.distinctSelected);
        expect(Math.max(...counts)).toBe(expected.hitCount);
      }
      if (expected.derivedSelectedAddress !== undefined) {
        expect(invokers[counts.indexOf(Math.max(...counts))]!.getUrl().getAddress()).toBe(expected.derivedSelectedAddress);
      }
      return;
    }
    case 'selectSequence': {
      expect(input.freshState).toBe(true);
      const runtime = makeRuntime();
      const invokers = invokersWith((input.weights as number[]).map((weight) => ({ weight })));
      const lb = runtime.getLoadBalance(input.loadbalance);
      const url = URL.valueOf('consumer://127.0.0.1/DemoService');
      const sequence = pickIndexes(() => lb.select(invokers, url, invocation('method1')), invokers, input.runs);
      expect(sequence).toEqual(expected.sequence);
      return;
    }
    case 'consistentHashSelect': {
      const invokers = (input.addresses as string[]).map(
        (a) => new TestInvoker(`test://${a}/DemoService?hash.nodes=${input.replicaNumber}`),
      );
      const selector = new ConsistentHashSelector(invokers, 'method1');
      expect(ketamaHash(md5(input.key), 0)).toBe(expected.keyHash);
      expect(selector.selectForKey(input.key).getUrl().getAddress()).toBe(expected.address);
      return;
    }
    default:
      throw new Error(`unknown loadbalance vector op ${input.op}`);
  }
}

describe('Dubbo loadbalance vectors', () => {
  it('covers only balancers that exist', () => {
    for (const [, c] of cases) if (c.input.loadbalance !== undefined) expect(Object.keys(loadBalances)).toContain(c.input.loadbalance);
  });

  it.each(cases)('%s', (_name, c) => {
    runCase(c);
  });
});
