/**
 * The contract every load balancer in the `loadBalances` table shares: an empty list gives null,
 * a single invoker comes back without touching state or drawing, every pick is a member of the
 * list, and a fixed seed gives a fixed sequence.
 */
import { describe, expect, it } from 'vitest';
import type { Rng } from '../../../src/engine/random.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation } from '../../../src/engine/simulation.js';
import { loadBalances } from '../../../src/dubbo/extensions.js';
import type { LoadBalance } from '../../../src/dubbo/loadbalance/load-balance.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import { URL } from '../../../src/dubbo/url.js';
import { invocation, NOW_MS, TestInvoker } from './fixtures.js';

const names = Object.keys(loadBalances);

const CONSUMER = URL.valueOf(
  'consumer://10.10.0.9/com.example.DemoService?zone=zoneA&envoy.local_zones=zoneA:8,zoneB:2',
);

/** Eight providers over two zones with mixed weights, warmup and one unavailable. */
function mixedInvokers(): TestInvoker[] {
  const list: TestInvoker[] = [];
  for (let i = 0; i < 8; i++) {
    const zone = i < 4 ? 'zoneA' : 'zoneB';
    const params = `zone=${zone}&weight=${(i % 3) * 50}&timestamp=${NOW_MS - i * 100_000}`;
    list.push(new TestInvoker(`dubbo://10.0.0.${i + 1}:20880/com.example.DemoService?${params}`, i !== 5));
  }
  return list;
}

/** A random stream that counts its draws. */
function countingRng(seed: number): Rng & { draws: number } {
  const inner = new RandomStreams(seed).stream('lb');
  const rng = {
    draws: 0,
    next() {
      rng.draws++;
      return inner.next();
    },
    nextInt(n: number) {
      rng.draws++;
      return inner.nextInt(n);
    },
  };
  return rng;
}

function balancer(name: string, random: Rng): LoadBalance {
  const runtime = createRuntime({ sim: new Simulation(), random, clock: { now: () => NOW_MS } });
  return runtime.getLoadBalance(name);
}

function sequence(lb: LoadBalance, invokers: TestInvoker[], runs: number, args: unknown[] = ['k']): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    out.push(invokers.indexOf(lb.select(invokers, CONSUMER, invocation('sayHello', [`${args[0]}${i % 7}`])) as TestInvoker));
  }
  return out;
}

describe.each(names)('load balancer %s', (name) => {
  it('returns null for an empty list', () => {
    expect(balancer(name, countingRng(1)).select([], CONSUMER, invocation())).toBeNull();
  });

  it('returns a single invoker without drawing or touching its state', () => {
    const rng = countingRng(1);
    const lb = balancer(name, rng);
    const invokers = mixedInvokers();
    expect(lb.select([invokers[0]!], CONSUMER, invocation())).toBe(invokers[0]);
    expect(rng.draws).toBe(0);
    const after = sequence(lb, invokers, 50);
    const fresh = sequence(balancer(name, countingRng(1)), invokers, 50);
    expect(after).toEqual(fresh);
  });

  it('always picks a member of the list', () => {
    const lb = balancer(name, countingRng(3));
    const invokers = mixedInvokers();
    for (let size = 2; size <= invokers.length; size++) {
      const list = invokers.slice(0, size);
      for (const i of sequence(lb, list, 40)) expect(i).toBeGreaterThanOrEqual(0);
    }
  });

  it('gives the same sequence for the same seed', () => {
    const invokers = mixedInvokers();
    const a = sequence(balancer(name, countingRng(42)), invokers, 200);
    const b = sequence(balancer(name, countingRng(42)), invokers, 200);
    expect(a).toEqual(b);
  });
});
