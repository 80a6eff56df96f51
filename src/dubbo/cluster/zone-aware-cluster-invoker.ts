/**
 * ZoneAware: Dubbo's default cluster over several registries. Its invokers are per-registry cluster
 * invokers; it calls the first available one whose registry URL says `preferred=true`, else the
 * first available one in the requested registry zone (`registry_zone`, `registry_zone_force`),
 * else one picked by the load balancer, which weighs registries by their registry URL's `weight`.
 * The requested zone is the call's `registry_zone` attachment only: Dubbo ships no ZoneDetector, so
 * a consumer that sets none is balanced over the registries by weight, whatever zone it runs in.
 * The chosen cluster is invoked directly: its own strategy makes the attempts.
 * Follows dubbo-cluster `support/registry/ZoneAwareClusterInvoker.java` (3.3; 2.7.23 where the
 * release says so: random among registries, no ZoneDetector, and `invokers.get(0)` when none is available).
 */
import type { Proc } from '../../engine/simulation.js';
import { PREFERRED_KEY, REGISTRY_ZONE, REGISTRY_ZONE_FORCE, RpcCode, ZONE_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import { perList, perListAndKey } from '../per-list.js';
import { isClusterInvoker, type Invoker, type Result, type RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { describeInvokers } from './describe-invokers.js';

/**
 * Consumer URL parameter that stands for an installed ZoneDetector extension (zonesim extension):
 * the zone of every request of the reference. Unset by default, as Dubbo ships no detector.
 */
export const REGISTRY_ZONE_PARAM = 'registry.zone';
/** With `registry.zone`: the detector's `isZoneForcingEnabled`, `true` forbids leaving the zone. */
export const REGISTRY_ZONE_FORCE_PARAM = 'registry.zone.force';

/** 2.7's load balancer among registries (`RegistryConstants.LOADBALANCE_AMONG_REGISTRIES`). */
const LOADBALANCE_AMONG_REGISTRIES = 'random';

/** Dubbo's `zone-aware` cluster: preferred registry, then same-zone registry, then weighted. */
export class ZoneAwareClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'zone-aware';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    // First the registry marked preferred (usually the local one).
    for (const invoker of preferredOf(invokers)) {
      if (invoker.isAvailable() && isTrue(registryUrlOf(invoker).getParameter(PREFERRED_KEY))) {
        return yield* this.#call(invoker, invocation);
      }
    }

    // 3.3 reads the RpcContext client attachments, 2.7 the invocation's (ZoneAwareClusterInvoker.java:78-80
    // in 3.3, :80,88 in 2.7.23); in zonesim the client attachments travel on the invocation.
    const v27 = this.runtime.release.version === '2.7';
    let zone = invocation.getAttachment(REGISTRY_ZONE);
    let force = invocation.getAttachment(REGISTRY_ZONE_FORCE);
    if ((zone === undefined || zone === '') && !v27) {
      // 3.3 asks a `ZoneDetector` extension named `default` (ZoneAwareClusterInvoker.java:56-63,81-84), which
      // Dubbo does not ship: without one there is no zone. A reference's `registry.zone` parameter stands
      // for an installed detector (zonesim extension); nothing sets it by default. 2.7 has no detector.
      zone = this.getUrl().getParameter(REGISTRY_ZONE_PARAM);
      force = this.getUrl().getParameter(REGISTRY_ZONE_FORCE_PARAM);
    }

    if (zone !== undefined && zone !== '') {
      for (const invoker of inRegistryZone(invokers, zone)) {
        if (invoker.isAvailable() && zone === registryUrlOf(invoker).getParameter(ZONE_KEY)) {
          return yield* this.#call(invoker, invocation);
        }
      }
      if (force !== undefined && force.toLowerCase() === 'true') {
        // DIVERGENCE: Dubbo throws IllegalStateException (not an RpcException); as data it is an
        // error with code 0 (unknown) and cause `registry:zone-force`.
        return this.error(
          RpcCode.UNKNOWN_EXCEPTION,
          `No registry instance in zone or no available providers in the registry, zone: ${zone}, registries: ` +
            invokers.map((invoker) => registryUrlOf(invoker).toString()).join(','),
          'registry:zone-force',
        );
      }
    }

    // Load balance among all registries, registry weight counted in: 3.3 with the reference's balancer
    // (:109), 2.7 with a fixed `random` one (LOADBALANCE_AMONG_REGISTRIES, 2.7.23 :61).
    const balanced = this.select(v27 ? this.runtime.getLoadBalance(LOADBALANCE_AMONG_REGISTRIES) : loadbalance, invocation, invokers, null);
    if (balanced !== null && balanced.isAvailable()) return yield* this.#call(balanced, invocation);

    // None preferred and the balancer's pick unavailable: the first available one.
    for (const invoker of invokers) {
      if (invoker.isAvailable()) return yield* this.#call(invoker, invocation);
    }
    // 2.7.23 (:111-112): none available, the first one is invoked all the same.
    if (v27 && invokers.length > 0) return yield* this.#call(invokers[0]!, invocation);
    return this.error(
      RpcCode.UNKNOWN_EXCEPTION,
      `No provider available in ${describeInvokers(invokers)}`,
      'cluster:unavailable',
    );
  }

  // Dubbo calls the registry's cluster invoker directly (no invokeWithContext): its own strategy
  // records and filters the attempts. A plain provider (see registryUrlOf) is an attempt itself.
  *#call(invoker: Invoker, invocation: RpcInvocation): Proc<Result> {
    if (isClusterInvoker(invoker)) return yield* invoker.invoke(invocation);
    return yield* this.invokeWithContextNow(invoker, invocation);
  }
}

// DIVERGENCE: Dubbo casts every invoker to ClusterInvoker and fails on a plain one; zonesim uses a
// plain invoker's own URL, so that a zone-aware cluster over plain providers still works.
function registryUrlOf(invoker: Invoker): URL {
  return isClusterInvoker(invoker) ? invoker.getRegistryUrl() : invoker.getUrl();
}

// PERF: which invokers' registry URLs say `preferred=true`, or name a zone, depends on the list alone: the
// scans above go over those (worked out once per list and zone) instead of reading every invoker's URL per
// call, as a zone-aware cluster over the providers of one registry did, hundreds per call. Only for lists
// of plain providers, whose `isAvailable()` has no effect: a cluster invoker's may set providers aside
// (StaticDirectory), so Dubbo's scan of every one of them is kept.
const holdsClusterInvoker = perList((invokers: readonly Invoker[]): boolean => invokers.some(isClusterInvoker));
const preferredOf = perList((invokers: readonly Invoker[]): readonly Invoker[] =>
  holdsClusterInvoker(invokers) ? invokers : invokers.filter((invoker) => isTrue(registryUrlOf(invoker).getParameter(PREFERRED_KEY))),
);
const inRegistryZone = perListAndKey((invokers: readonly Invoker[], zone: string): readonly Invoker[] =>
  holdsClusterInvoker(invokers) ? invokers : invokers.filter((invoker) => zone === registryUrlOf(invoker).getParameter(ZONE_KEY)),
);

// Java's Boolean.parseBoolean.
function isTrue(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() === 'true';
}
