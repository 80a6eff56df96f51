/**
 * The consumer filter that feeds AdaptiveMetrics from each attempt the adaptive balancer picked:
 * a response counts a success and a provider report (`curTime`, `load`, `rt`), an error counts an
 * error. It is in an invoker's chain only as Dubbo activates it, `@Activate(value =
 * "loadbalance:adaptive")`: the invoker URL's interface-level `loadbalance` (consumer's, else
 * provider's) is `adaptive`, or, when that is empty, the first method-level one is. So
 * `loadbalance: random` with one method on `adaptive` picks adaptively but feeds no metrics. In the
 * chain, it acts only on invocations the adaptive balancer marked. Owns no metrics: they belong to
 * the balancer that picked. Follows dubbo-rpc-api `filter/AdaptiveLoadBalanceFilter.java` (and,
 * for the report, the provider side of `filter/ProfilerServerFilter.java`).
 */
import { LOADBALANCE_KEY } from '../constants.js';
import { adaptiveServiceKey, getAdaptiveAttributes } from '../loadbalance/adaptive-metrics.js';
import { InvokerMemoSlots, type Invoker, type Result, type RpcInvocation } from '../rpc.js';
import type { ConsumerFilter } from '../runtime.js';
import { isActivatedBy } from './active-limit-filter.js';

// PERF: activation depends only on the invoker's URL, so it is decided once per (shared) invoker. A DubboInvoker
// keeps the answer in its own slot (`InvokerMemoSlots`), any other invoker in this map.
const activeFor = new WeakMap<Invoker, boolean>();

/** Whether Dubbo builds AdaptiveLoadBalanceFilter (`@Activate(value = "loadbalance:adaptive")`) into this invoker's chain. */
export function isAdaptiveFilterActive(invoker: Invoker): boolean {
  if (invoker instanceof InvokerMemoSlots) return (invoker.adaptiveFilterActive ??= isActivatedBy(invoker.getUrl(), LOADBALANCE_KEY, 'adaptive'));
  let active = activeFor.get(invoker);
  if (active === undefined) {
    active = isActivatedBy(invoker.getUrl(), LOADBALANCE_KEY, 'adaptive');
    activeFor.set(invoker, active);
  }
  return active;
}

export class AdaptiveLoadBalanceFilter implements ConsumerFilter {
  readonly activeFor = isAdaptiveFilterActive;

  before(_invoker: Invoker, _invocation: RpcInvocation, _nowMs: number): void {}

  // DIVERGENCE: Dubbo applies the report and the error count on a single background thread;
  // zonesim applies them at once.
  after(invoker: Invoker, invocation: RpcInvocation, result: Result, elapsedMs: number, _nowMs: number): void {
    const attrs = getAdaptiveAttributes(invocation);
    if (attrs === undefined || !isAdaptiveFilterActive(invoker)) return;
    const metrics = attrs.metrics;
    const key = adaptiveServiceKey(invoker);
    if (result.kind === 'error') {
      metrics.addErrorReq(key);
      return;
    }
    // DIVERGENCE: a Dubbo provider reports `curTime` (its clock) and `load` (system load average ×
    // 100 / processors); the simulated provider reports nothing, so `curTime` is the consumer clock
    // now and `load` is this consumer's in-flight count to the provider (including this call).
    const load = Math.max(0, metrics.getInflight(key));
    metrics.addConsumerSuccess(key);
    // `rt` is the attempt's elapsed time, as Dubbo measures it on the consumer (now − pick time).
    metrics.setProviderMetrics(key, { curTime: metrics.currentTimeMillis(), load, rt: elapsedMs });
  }
}
