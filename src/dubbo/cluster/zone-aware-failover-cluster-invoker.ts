/**
 * zonesim extension `zoneAwareFailover` (no Dubbo counterpart; the retry loop is Dubbo's
 * `support/FailoverClusterInvoker.java`): failover that keeps its attempts inside the consumer's
 * zone while it can. Same retries, same re-list before each retry, same messages as failover; only
 * the pick of each attempt differs:
 * - the local subset is the providers whose registered `zone` equals the consumer URL's `zone`;
 * - while the local subset still has a provider not yet tried (or when there are no providers
 *   outside it), the attempt selects among the local subset only, avoiding the local ones tried;
 * - otherwise (every local provider tried, or none local) it crosses zones and counts
 *   `zoneAwareFailover.crossZone`. How is the consumer URL's `zone.fallback` (zonesim extension):
 *   `all` (default) selects across all providers, avoiding every provider tried; `nearest` steps
 *   through the other zones nearest first (median RTT from the consumer's zone; equally near zones
 *   form one step), selecting in the first step with an untried provider and avoiding the ones
 *   tried there; a zone list (`zoneB,zoneC`) takes those zones first, in that order, then the
 *   others nearest first (the cluster orders attempts, it never filters: that is a router's job).
 *   Once every provider is tried it selects across all of them, as `all` does.
 * A consumer URL without `zone` makes it plain failover.
 */
import { ZONE_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import { parseZoneList, zoneGroups, zoneMembersOf, type ZoneGroup } from '../zone-order.js';
import { FailoverClusterInvoker } from './failover-cluster-invoker.js';

/** Consumer URL parameter: the cross-zone step, `all` (default), `nearest` or a comma-separated zone order. */
export const ZONE_FALLBACK_KEY = 'zone.fallback';

/** Failover inside the local zone while it has untried providers, then across zones. */
export class ZoneAwareFailoverClusterInvoker extends FailoverClusterInvoker {
  static override readonly NAME: string = 'zoneAwareFailover';
  // PERF: routed lists are shared arrays (route cache), so their zone steps are worked out once.
  readonly #steps = new WeakMap<Invoker[], { key: string; steps: ZoneGroup[] }>();

  protected override selectForAttempt(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    invoked: Invoker[],
  ): Invoker | null {
    const zone = this.getUrl().getParameter(ZONE_KEY);
    if (zone === undefined) return this.select(loadbalance, invocation, invokers, invoked);
    const local = zoneMembersOf(invokers, zone);
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
    const fallback = (this.getUrl().getParameter(ZONE_FALLBACK_KEY) ?? 'all').trim();
    if (fallback !== 'all' && fallback !== '') {
      for (const step of this.#zoneSteps(invokers, zone, fallback)) {
        if (!step.invokers.some((invoker) => !invoked.includes(invoker))) continue;
        // As in the local step: only this step's tried providers count as selected.
        const tried = invoked.filter((invoker) => step.invokers.includes(invoker));
        return this.select(loadbalance, invocation, step.invokers, tried);
      }
    }
    return this.select(loadbalance, invocation, invokers, invoked);
  }

  /** The other zones' providers in the order `zone.fallback` asks for. */
  #zoneSteps(invokers: Invoker[], zone: string, fallback: string): ZoneGroup[] {
    const key = `${zone}\u0000${fallback}`;
    const cached = this.#steps.get(invokers);
    if (cached !== undefined && cached.key === key) return cached.steps;
    const steps = zoneGroups(invokers, {
      origin: zone,
      distance: this.runtime.zoneDistance,
      order: fallback === 'nearest' ? undefined : parseZoneList(fallback),
      exclude: zone,
    });
    this.#steps.set(invokers, { key, steps });
    return steps;
  }
}
