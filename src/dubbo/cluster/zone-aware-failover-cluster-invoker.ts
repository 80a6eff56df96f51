/**
 * zonesim extension `zoneAwareFailover` (no Dubbo counterpart; the retry loop is Dubbo's
 * `support/FailoverClusterInvoker.java`): failover that keeps its attempts inside the consumer's
 * zone while it can. Same retries, same re-list before each retry, same messages as failover; only
 * the pick of each attempt differs:
 * - the local subset is the providers whose registered `zone` equals the consumer URL's `zone`;
 * - while the local subset still has a provider not yet tried (or when there are no providers
 *   outside it), the attempt selects among the local subset only, avoiding the local ones tried;
 * - otherwise (every local provider tried, or none local) it selects across all providers,
 *   avoiding every provider tried, and counts `zoneAwareFailover.crossZone`.
 * A consumer URL without `zone` makes it plain failover.
 */
import { ZONE_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import { FailoverClusterInvoker } from './failover-cluster-invoker.js';

/** Failover inside the local zone while it has untried providers, then across zones. */
export class ZoneAwareFailoverClusterInvoker extends FailoverClusterInvoker {
  static override readonly NAME: string = 'zoneAwareFailover';

  protected override selectForAttempt(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    invoked: Invoker[],
  ): Invoker | null {
    const zone = this.getUrl().getParameter(ZONE_KEY);
    if (zone === undefined) return this.select(loadbalance, invocation, invokers, invoked);
    const local = invokers.filter((invoker) => providerZone(invoker) === zone);
    if (local.length > 0) {
      const untriedLocal = local.some((invoker) => !invoked.includes(invoker));
      if (untriedLocal || local.length === invokers.length) {
        // Only local ones count as selected: Dubbo's reselect falls back to available members of
        // `selected`, which must not lead out of the zone.
        const triedLocal = invoked.filter((invoker) => local.includes(invoker));
        return this.select(loadbalance, invocation, local, triedLocal);
      }
    }
    this.runtime.events.count('zoneAwareFailover.crossZone');
    return this.select(loadbalance, invocation, invokers, invoked);
  }
}

// The provider's own `zone`: an invoker URL is consumer-first (ServiceAddressURL), so `getParameter`
// would answer with the consumer's zone; the original (provider) parameter is the registered one.
function providerZone(invoker: Invoker): string | undefined {
  const zone = invoker.getUrl().getOriginalParameter(ZONE_KEY);
  return zone === '' ? undefined : zone;
}
