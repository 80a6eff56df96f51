/**
 * The LoadBalance contract and Dubbo's AbstractLoadBalance: the size-0/size-1 shortcuts and
 * `getWeight` with warmup. Follows dubbo-cluster `loadbalance/AbstractLoadBalance.java`.
 */
import {
  DEFAULT_WARMUP,
  DEFAULT_WEIGHT,
  REGISTRY_SERVICE,
  TIMESTAMP_KEY,
  WARMUP_KEY,
  WEIGHT_KEY,
} from '../constants.js';
import type { Rng } from '../../engine/random.js';
import { InvokerMemoSlots, isClusterInvoker, type Clock, type Invoker, type RpcInvocation } from '../rpc.js';
import type { DubboRuntime, LoadBalance } from '../runtime.js';
import { NumberFormatException, type URL } from '../url.js';
import { getMethodName } from './rpc-utils.js';

export type { LoadBalance } from '../runtime.js';

/** Builds a load balancer for one consumer instance (its state lives in the instance). */
export type LoadBalanceFactory = (runtime: DubboRuntime) => LoadBalance;

/**
 * The warmup step `(float) warmup / weight` of `calculateWarmupWeight`: the int weight is promoted to
 * float too, and the quotient is a float.
 */
export function warmupStep(warmup: number, weight: number): number {
  // A quotient of two floats computed in double and rounded once to float is the correctly rounded
  // float quotient (53 >= 2 * 24 + 2 bits): Java's float division exactly.
  return Math.fround(Math.fround(warmup) / Math.fround(weight));
}

/**
 * Dubbo `AbstractLoadBalance.calculateWarmupWeight` (AbstractLoadBalance.java lines 49-52):
 * `int ww = (int) (uptime / ((float) warmup / weight))`, clamped to [1, weight]. Every step is Java
 * float (32-bit) arithmetic: the int `uptime` is promoted to float for the division, whose quotient is
 * a float, then truncated. So (300000, 600000, 26) is 13, where doubles give 12.
 */
// DIVERGENCE: Dubbo 2.7.15+ weighs by round((uptime / warmup)^2 * weight) (#9104); zonesim uses 3.x's linear
// formula under every release profile (docs/fidelity.md, issue 39).
export function calculateWarmupWeight(uptime: number, warmup: number, weight: number): number {
  const ww = Math.trunc(Math.fround(Math.fround(uptime) / warmupStep(warmup, weight)));
  return ww < 1 ? 1 : Math.min(ww, weight);
}

/** Base class: empty → null, one → it, otherwise `doSelect`. */
export abstract class AbstractLoadBalance implements LoadBalance {
  protected readonly runtime: DubboRuntime;
  // PERF: the runtime's stream and clock, read on every pick: kept here, one object fewer to reach.
  protected readonly random: Rng;
  protected readonly clock: Clock;

  constructor(runtime: DubboRuntime) {
    this.runtime = runtime;
    this.random = runtime.random;
    this.clock = runtime.clock;
  }

  select(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker | null {
    if (invokers.length === 0) return null;
    if (invokers.length === 1) return invokers[0]!;
    return this.doSelect(invokers, url, invocation);
  }

  protected abstract doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker;

  /** Dubbo `getWeight`: method-level weight, warmup from `timestamp`, never negative. */
  getWeight(invoker: Invoker, invocation: RpcInvocation): number {
    return getWeight(invoker, invocation, this.clock.now());
  }
}

/** The static inputs of `getWeight` for one invoker and method (URLs are immutable). */
export interface WeightInputs {
  registry: boolean;
  weight: number;
  timestamp: number;
  warmup: number;
}

/** Weight inputs memoized for one method (see `weightInputsOf`). */
interface MethodWeightInputs extends WeightInputs {
  readonly method: string;
}

// PERF: getWeight runs for every invoker on every weighted pick; its URL reads are memoized here, per
// invoker the inputs of the one method it was weighed for, and a map only once a second method is (most
// invokers are called for one: a map per invoker was 5% of the heap at the seed articles' scale).
// A DubboInvoker keeps them in its own slot (`InvokerMemoSlots`), any other invoker in this map.
const weightInputs = new WeakMap<Invoker, MethodWeightInputs | Map<string, MethodWeightInputs>>();

/** The memoized static weight inputs of one invoker for one method. */
export function weightInputsOf(invoker: Invoker, method: string): WeightInputs {
  const slots = invoker instanceof InvokerMemoSlots ? invoker : null;
  const known = slots !== null ? (slots.weightInputs as MethodWeightInputs | Map<string, MethodWeightInputs> | undefined) : weightInputs.get(invoker);
  if (known !== undefined) {
    if (!(known instanceof Map)) {
      if (known.method === method) return known;
    } else {
      const w = known.get(method);
      if (w !== undefined) return w;
    }
  }
  const url = isClusterInvoker(invoker) ? invoker.getRegistryUrl() : invoker.getUrl();
  const registry = url.getServiceInterface() === REGISTRY_SERVICE;
  const w: MethodWeightInputs = {
    method,
    registry,
    weight: intWeight(url, method, registry),
    // Weight may come from a registry URL, but warmup is always the invoker's own.
    timestamp: invoker.getUrl().getNumber(TIMESTAMP_KEY, 0),
    warmup: invoker.getUrl().getNumber(WARMUP_KEY, DEFAULT_WARMUP),
  };
  if (known instanceof Map) known.set(method, w);
  else {
    const value = known === undefined ? w : new Map([[known.method, known], [method, w]]);
    if (slots !== null) slots.weightInputs = value;
    else weightInputs.set(invoker, value);
  }
  return w;
}

/**
 * The weight as Dubbo reads it (AbstractLoadBalance.java lines 84 and 86): an int, `url.getParameter(
 * "weight", 100)` on a registry URL, `url.getMethodParameter(method, "weight", 100)` otherwise, both
 * `Integer.parseInt`. A value that is not an int ("2.5", "1e2") is neither truncated nor rounded: Dubbo
 * throws NumberFormatException from every pick that weighs the invoker.
 */
// DIVERGENCE: Dubbo fails each such call with the NumberFormatException; zonesim stops at the first
// (bad input), with a message that names the weight and its URL.
function intWeight(url: URL, method: string, registry: boolean): number {
  try {
    return registry ? url.getInt(WEIGHT_KEY, DEFAULT_WEIGHT) : url.getMethodInt(method, WEIGHT_KEY, DEFAULT_WEIGHT);
  } catch (e) {
    if (!(e instanceof NumberFormatException)) throw e;
    const text = registry ? url.getParameter(WEIGHT_KEY) : url.getMethodParameter(method, WEIGHT_KEY);
    throw new NumberFormatException(
      `weight "${text}" on ${url} is not an int: Dubbo's getWeight reads it with Integer.parseInt, so every call ` +
        `that weighs this invoker fails with java.lang.NumberFormatException: ${e.message}`,
    );
  }
}

/** `AbstractLoadBalance.getWeight` as a function of the clock. */
export function getWeight(invoker: Invoker, invocation: RpcInvocation, nowMs: number): number {
  return weightAt(weightInputsOf(invoker, getMethodName(invocation)), nowMs);
}

/** `getWeight` from already-resolved inputs: warmup from `timestamp`, never negative. */
export function weightAt(w: WeightInputs, nowMs: number): number {
  let weight = w.weight;
  if (!w.registry && weight > 0 && w.timestamp > 0) {
    const uptime = Math.trunc(nowMs - w.timestamp);
    if (uptime < 0) return 1;
    if (uptime > 0 && uptime < w.warmup) weight = calculateWarmupWeight(uptime, w.warmup, weight);
  }
  return Math.max(weight, 0);
}
