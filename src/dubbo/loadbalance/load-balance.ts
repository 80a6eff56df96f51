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
export function getWeight(invoker: Invoker, invocation: RpcInvocation, nowMs: number): number {
  let weight: number;
  const url = isClusterInvoker(invoker) ? invoker.getRegistryUrl() : invoker.getUrl();
  if (url.getServiceInterface() === REGISTRY_SERVICE) {
    weight = url.getNumber(WEIGHT_KEY, DEFAULT_WEIGHT);
  } else {
    weight = Math.trunc(url.getMethodNumber(getMethodName(invocation), WEIGHT_KEY, DEFAULT_WEIGHT));
    if (weight > 0) {
      const timestamp = url.getNumber(TIMESTAMP_KEY, 0);
      if (timestamp > 0) {
        const uptime = Math.trunc(nowMs - timestamp);
        if (uptime < 0) return 1;
        const warmup = invoker.getUrl().getNumber(WARMUP_KEY, DEFAULT_WARMUP);
        if (uptime > 0 && uptime < warmup) weight = calculateWarmupWeight(uptime, warmup, weight);
      }
    }
  }
  return Math.max(weight, 0);
}
