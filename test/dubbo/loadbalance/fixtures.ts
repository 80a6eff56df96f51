/**
 * Test factories for load balancers: provider invokers built from URL text, a seeded runtime with a
 * fixed clock, invocations, and a helper that records RpcStatus counts as ActiveLimitFilter would.
 */
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation, type Proc } from '../../../src/engine/simulation.js';
import { OK, RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import type { DubboRelease } from '../../../src/dubbo/release.js';
import type { ConsumerFilter, DubboRuntime } from '../../../src/dubbo/runtime.js';
import { URL } from '../../../src/dubbo/url.js';

/** An epoch-like instant used as "now" unless a test needs another. */
export const NOW_MS = 1_700_000_000_000;

/** A provider invoker with a fixed URL; `available` can be flipped by the test. */
export class TestInvoker implements Invoker {
  readonly #url: URL;
  available: boolean;
  constructor(url: URL | string, available = true) {
    this.#url = typeof url === 'string' ? URL.valueOf(url) : url;
    this.available = available;
  }
  getUrl(): URL {
    return this.#url;
  }
  isAvailable(): boolean {
    return this.available;
  }
  *invoke(): Proc<Result> {
    return OK;
  }
}

/** `test://127.0.0.1:<port>/DemoService?<params>`, ports from 1 in list order. */
export function invokersWith(params: Array<Record<string, string | number>>, service = 'DemoService'): TestInvoker[] {
  return params.map((p, i) => {
    const q = Object.entries(p)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    return new TestInvoker(`test://127.0.0.1:${i + 1}/${service}${q ? '?' + q : ''}`);
  });
}

/** A runtime of `release` (default 3.3) with a seeded `lb` stream and a clock fixed at `nowMs` (or driven by `clock`). */
export function makeRuntime(
  opts: { seed?: number; nowMs?: number; clock?: { now(): number }; filters?: ConsumerFilter[]; release?: DubboRelease } = {},
): DubboRuntime & { counters: Map<string, number> } {
  const nowMs = opts.nowMs ?? NOW_MS;
  return createRuntime({
    sim: new Simulation(),
    random: new RandomStreams(opts.seed ?? 1).stream('lb'),
    clock: opts.clock ?? { now: () => nowMs },
    filters: opts.filters,
    ...(opts.release !== undefined ? { release: opts.release } : {}),
  });
}

/** An invocation of `method` with `args`. */
export function invocation(method = 'sayHello', args: unknown[] = []): RpcInvocation {
  return new RpcInvocation({ methodName: method, serviceName: 'DemoService', arguments: args });
}

/** Sets an invoker's RpcStatus as if calls had run: `succeeded` finished ones, then `active` in flight. */
export function setStatus(
  runtime: DubboRuntime,
  invoker: Invoker,
  method: string,
  s: { active?: number; succeeded?: number; succeededElapsedMs?: number },
): void {
  const url = invoker.getUrl();
  for (let i = 0; i < (s.succeeded ?? 0); i++) {
    runtime.rpcStatus.beginCount(url, method);
    runtime.rpcStatus.endCount(url, method, i === 0 ? (s.succeededElapsedMs ?? 0) : 0, true);
  }
  for (let i = 0; i < (s.active ?? 0); i++) runtime.rpcStatus.beginCount(url, method);
}

/** Index of each pick in `invokers`. */
export function pickIndexes(
  select: () => Invoker | null,
  invokers: Invoker[],
  runs: number,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(invokers.indexOf(select()!));
  return out;
}

/** How many times each invoker was picked. */
export function pickCounts(select: () => Invoker | null, invokers: Invoker[], runs: number): number[] {
  const counts = new Array<number>(invokers.length).fill(0);
  for (const i of pickIndexes(select, invokers, runs)) counts[i]!++;
  return counts;
}
