/**
 * The default consumer filter chain zonesim runs around every attempt, in Dubbo's activation
 * order (AdaptiveLoadBalanceFilter has order -200000, ActiveLimitFilter the default 0). Each
 * filter decides per invoker/invocation whether it applies, as Dubbo's `@Activate` values do.
 */
import type { ConsumerFilter, DubboRuntime } from '../runtime.js';
import { ActiveLimitFilter } from './active-limit-filter.js';
import { AdaptiveLoadBalanceFilter } from './adaptive-load-balance-filter.js';

export { ActiveLimitFilter, hasActivesParameter } from './active-limit-filter.js';
export { AdaptiveLoadBalanceFilter } from './adaptive-load-balance-filter.js';

/**
 * New instances of the default filters for one consumer instance. Pass them to `createRuntime`,
 * which attaches them to the runtime (ActiveLimitFilter writes the runtime's RpcStatus table), or
 * pass `runtime` to attach them here.
 */
export function consumerFilters(runtime?: DubboRuntime): ConsumerFilter[] {
  const filters: ConsumerFilter[] = [new AdaptiveLoadBalanceFilter(), new ActiveLimitFilter()];
  if (runtime !== undefined) for (const f of filters) f.attach?.(runtime);
  return filters;
}
