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
import { isClusterInvoker, type Invoker, type RpcInvocation } from '../rpc.js';
import type { DubboRuntime } from '../runtime.js';
import type { URL } from '../url.js';
import { getMethodName } from './rpc-utils.js';

/** Picks one invoker for one invocation. */
export interface LoadBalance {
  select(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker | null;
}

/** Builds a load balancer for one consumer instance (its state lives in the instance). */
export type LoadBalanceFactory = (runtime: DubboRuntime) => LoadBalance;

/** Dubbo `calculateWarmupWeight`: float division then truncation, clamped to [1, weight]. */
export function calculateWarmupWeight(uptime: number, warmup: number, weight: number): number {
  const ww = Math.trunc(uptime / Math.fround(Math.fround(warmup) / weight));
  return ww < 1 ? 1 : Math.min(ww, weight);
}

/** Base class: empty → null, one → it, otherwise `doSelect`. */
export abstract class AbstractLoadBalance implements LoadBalance {
  protected readonly runtime: DubboRuntime;

  constructor(runtime: DubboRuntime) {
    this.runtime = runtime;
  }

  select(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker | null {
    if (invokers.length === 0) return null;
    if (invokers.length === 1) return invokers[0]!;
    return this.doSelect(invokers, url, invocation);
  }

  protected abstract doSelect(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker;

  /** Dubbo `getWeight`: method-level weight, warmup from `timestamp`, never negative. */
  getWeight(invoker: Invoker, invocation: RpcInvocation): number {
    return getWeight(invoker, invocation, this.runtime.clock.now());
  }
}

/** `AbstractLoadBalance.getWeight` as a function of the clock. */
/** The static inputs of `getWeight` for one invoker and method (URLs are immutable). */
export interface WeightInputs {
  registry: boolean;
  weight: number;
  timestamp: number;
  warmup: number;
}

// PERF: getWeight runs for every invoker on every weighted pick; its URL reads are memoized here.
const weightInputs = new WeakMap<Invoker, Map<string, WeightInputs>>();

/** The memoized static weight inputs of one invoker for one method. */
export function weightInputsOf(invoker: Invoker, method: string): WeightInputs {
  let byMethod = weightInputs.get(invoker);
  if (byMethod === undefined) weightInputs.set(invoker, (byMethod = new Map()));
  let w = byMethod.get(method);
  if (w === undefined) {
    const url = isClusterInvoker(invoker) ? invoker.getRegistryUrl() : invoker.getUrl();
    const registry = url.getServiceInterface() === REGISTRY_SERVICE;
    w = {
      registry,
      weight: registry ? url.getNumber(WEIGHT_KEY, DEFAULT_WEIGHT) : Math.trunc(url.getMethodNumber(method, WEIGHT_KEY, DEFAULT_WEIGHT)),
      // Weight may come from a registry URL, but warmup is always the invoker's own.
      timestamp: invoker.getUrl().getNumber(TIMESTAMP_KEY, 0),
      warmup: invoker.getUrl().getNumber(WARMUP_KEY, DEFAULT_WARMUP),
    };
    byMethod.set(method, w);
  }
  return w;
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
