/**
 * A plugin's load balancer behind the guard: its factory runs as one timed call with the plugin's
 * runtime, and each `select` is a plugin call whose pick must be one of the invokers it was given.
 */
import type { LoadBalance, LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import type { DubboRuntime } from '../dubbo/runtime.js';
import { describeValue } from './describe-value.js';
import { bad, guarded } from './plugin-guard.js';
import { guardedFactory, pluginRuntime } from './plugin-runtime.js';

function guardLoadBalance(plugin: string, lb: unknown): LoadBalance {
  const select = lb !== null && typeof lb === 'object' ? (lb as Partial<LoadBalance>).select : undefined;
  if (typeof select !== 'function') {
    throw bad(plugin, 'createLoadBalance', `returned ${describeValue(lb)}, not a load balancer { select(invokers, url, invocation) }`);
  }
  return {
    select: (invokers, url, invocation) =>
      guarded(plugin, 'select', () => {
        const picked = select.call(lb, invokers, url, invocation);
        if (picked === null && invokers.length === 0) return null;
        if (picked === null || !invokers.includes(picked)) {
          throw bad(plugin, 'select', `returned ${describeValue(picked)}, not one of the ${invokers.length} invokers it was given`);
        }
        return picked;
      }),
  };
}

/** A load-balancer factory whose balancers report their calls and have their picks checked. */
export function guardLoadBalanceFactory(plugin: string, factory: Function): LoadBalanceFactory {
  return (runtime: DubboRuntime) =>
    guardedFactory(plugin, 'createLoadBalance', runtime, () => factory(pluginRuntime(plugin, runtime)), (lb) => guardLoadBalance(plugin, lb));
}
