/**
 * zonesim's zone router (not a Dubbo router; the kind Dubbo users write as a StateRouter
 * extension): keeps the providers whose `zone` URL param equals the call's target zone. When the
 * zone has none it falls back to all providers (`fallback: true`), to none (`false`, strict), to
 * the nearest zone that has providers (`nearest`: by median RTT from the consumer's zone, equally
 * near zones together, then the next nearest), or to the first zone of an explicit list that has
 * providers (`[zoneB, zoneC]`; zones not listed are never used). The target comes from an
 * attachment (default key `zone`, falling back to the consumer's own `zone` param) or from the
 * consumer URL. Order 160: after Dubbo's tag (100) and condition routers (140-150), so rules
 * narrow first and the zone preference applies to what they allow.
 */
import { ZONE_KEY } from '../constants.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { keptOfSubList, parentList } from '../per-list.js';
import { formatDistance, providerZonesOf, zoneGroups, zoneMembersOf, type ZoneDistance, type ZoneGroup, type ZoneOrderOptions } from '../zone-order.js';
import type { RouterResult, RoutingInputs, StateRouter } from './router.js';

/** The zone router's place in the chain (after Dubbo's condition routers). */
export const ZONE_ROUTER_ORDER = 160;

/**
 * What an empty target zone falls back to: true = all providers, false = none (strict),
 * `nearest` = the nearest zone with providers, a list = the first listed zone with providers.
 */
export type ZoneFallback = boolean | 'nearest' | readonly string[];

/** Options of the zone router (scenario `{ type: zone, fallback, zoneFrom }`). */
export interface ZoneStateRouterOptions {
  /** See `ZoneFallback`. */
  fallback: ZoneFallback;
  /** `attachment`: the call's attachment, else the consumer's zone; `local`: the consumer URL's `zone` param. */
  zoneFrom: 'attachment' | 'local';
  /** The attachment key carrying the target zone; default `zone`. */
  attachmentKey?: string;
  /** Median RTT between zones, for `fallback: nearest` (without it every zone is equally near). */
  zoneDistance?: ZoneDistance;
}

const NO_INPUTS: RoutingInputs = Object.freeze({ method: false, attachments: [], arguments: [], random: false }) as RoutingInputs;

/** Routes to the target zone's providers (name `zone`). */
export class ZoneStateRouter implements StateRouter {
  readonly name = 'zone';
  readonly order = ZONE_ROUTER_ORDER;
  readonly fallback: ZoneFallback;
  readonly zoneFrom: 'attachment' | 'local';
  readonly attachmentKey: string;
  readonly #inputs: RoutingInputs;
  readonly #zoneDistance: ZoneDistance | undefined;

  constructor(options: ZoneStateRouterOptions) {
    this.fallback = options.fallback;
    this.#zoneDistance = options.zoneDistance;
    this.zoneFrom = options.zoneFrom;
    this.attachmentKey = options.attachmentKey ?? ZONE_KEY;
    this.#inputs =
      this.zoneFrom === 'attachment'
        ? (Object.freeze({ method: false, attachments: [this.attachmentKey], arguments: [], random: false }) as RoutingInputs)
        : NO_INPUTS;
  }

  routingInputs(): RoutingInputs {
    return this.#inputs;
  }

  /** The cache decision: the target zone. */
  routeKey(consumerUrl: URL, invocation: RpcInvocation): string {
    return this.targetZone(consumerUrl, invocation) ?? '';
  }

  /** The zone this call should stay in, or undefined when nothing names one. */
  targetZone(consumerUrl: URL, invocation: RpcInvocation): string | undefined {
    if (this.zoneFrom === 'attachment') {
      const fromCall = invocation.getAttachment(this.attachmentKey);
      if (fromCall !== undefined && fromCall !== '') return fromCall;
    }
    return consumerUrl.getParameter(ZONE_KEY);
  }

  route(invokers: Invoker[], consumerUrl: URL, invocation: RpcInvocation): RouterResult {
    const before = invokers.length;
    const zone = this.targetZone(consumerUrl, invocation);
    const entry = (out: Invoker[], note: string): RouterResult => ({
      invokers: out,
      trace: { router: this.name, rule: zone === undefined ? undefined : `zone=${zone}`, before, after: out.length, note },
    });
    if (before === 0) return entry(invokers, 'no provider reached the zone router');
    if (zone === undefined) {
      const where = this.zoneFrom === 'attachment' ? `no '${this.attachmentKey}' attachment and no consumer zone param` : 'the consumer URL has no zone param';
      return entry(invokers, `${where}: passed all ${before} through`);
    }
    // The provider's own zone: a consumer-first merged URL would answer with the consumer's zone.
    const kept = inZone(invokers, zone);
    if (kept.length === before) return entry(invokers, `all ${before} providers are in zone ${zone}`);
    if (kept.length > 0) return entry(kept, `kept the ${kept.length} of ${before} providers in zone ${zone}`);
    const fallback = this.fallback;
    if (fallback === true) return entry(invokers, `no provider in zone ${zone}, fell back to all ${before}`);
    if (fallback === false) return entry([], `no provider in zone ${zone} (strict: no fallback)`);
    if (fallback === 'nearest') {
      // Distances are measured from where the consumer is (its URL's zone), else from the target.
      const origin = consumerUrl.getParameter(ZONE_KEY) ?? zone;
      const first = firstStep(invokers, `nearest\u0000${origin}`, { origin, distance: this.#zoneDistance });
      if (first === undefined) return entry([], `no provider in zone ${zone} and no other zone has one`);
      const which = first.zones.length === 1 ? `zone ${first.zones[0]}` : `zones ${first.zones.join(', ')}`;
      return entry(
        first.invokers,
        `no provider in zone ${zone}, fell back to the nearest ${which} (${formatDistance(first.distanceMs)} from ${origin}): ` +
          `kept ${first.invokers.length} of ${before}`,
      );
    }
    const first = firstStep(invokers, `listed\u0000${fallback.join('\u0000')}`, { order: fallback, onlyListed: true });
    if (first === undefined) {
      return entry([], `no provider in zone ${zone} nor in the fallback zones ${fallback.join(', ')}`);
    }
    return entry(
      first.invokers,
      `no provider in zone ${zone}, fell back to zone ${first.zones[0]} (fallback order ${fallback.join(', ')}): ` +
        `kept ${first.invokers.length} of ${before}`,
    );
  }
}

// `invokers.filter((inv) => providerZone(inv) === zone)`, the same array for every call on one list; a
// sub-list's from its parent's (see `keptOfSubList`).
function inZone(invokers: Invoker[], zone: string): Invoker[] {
  const parent = parentList(invokers) as Invoker[] | undefined;
  return parent === undefined ? zoneMembersOf(invokers, zone) : keptOfSubList(invokers, parent, zoneMembersOf(parent, zone));
}

// A list's fallback steps per fallback set-up (`key`), with the distances they were ordered by.
const stepsByList = new WeakMap<readonly Invoker[], Map<string, readonly ZoneGroup[]>>();

// The steps of `zoneGroups(invokers, options)`, kept per list while the distances they were ordered by hold
// (an `rtt` fault changes them).
function stepsOf(invokers: readonly Invoker[], key: string, options: ZoneOrderOptions): readonly ZoneGroup[] {
  let byKey = stepsByList.get(invokers);
  if (byKey === undefined) stepsByList.set(invokers, (byKey = new Map()));
  const cached = byKey.get(key);
  if (cached !== undefined && cached.every((step) => step.zones.every((z) => distanceFrom(options, z) === step.distanceMs))) return cached;
  const steps = zoneGroups(invokers, options);
  byKey.set(key, steps);
  return steps;
}

// The distance `zoneGroups` orders zone `z` by (providers without a zone are grouped under '').
function distanceFrom(options: ZoneOrderOptions, z: string): number | undefined {
  return z === '' || options.origin === undefined ? undefined : options.distance?.(options.origin, z);
}

// `zoneGroups(invokers, options)[0]`. A sub-list's steps are its parent's with the providers it left out
// removed and the emptied steps dropped (the zones of a list order the same with fewer providers), so its
// first is the first of its parent's steps that keeps any of it, with that step's zones in the order the
// sub-list first names them (as `zoneGroups` breaks ties).
function firstStep(invokers: Invoker[], key: string, options: ZoneOrderOptions): ZoneGroup | undefined {
  const parent = parentList(invokers);
  if (parent === undefined) return stepsOf(invokers, key, options)[0];
  for (const step of stepsOf(parent, key, options)) {
    const kept = keptOfSubList(invokers, parent, step.invokers);
    if (kept.length === 0) continue;
    if (step.zones.length === 1) return { zones: step.zones, invokers: kept, distanceMs: step.distanceMs };
    // Read off the parent's zones (worked out once per list), not the providers' URLs.
    const zonesOfParent = providerZonesOf(parent);
    const zones: string[] = [];
    for (let i = 0, j = 0; i < parent.length && j < kept.length && zones.length < step.zones.length; i++) {
      if (parent[i] !== kept[j]) continue;
      j++;
      const z = zonesOfParent[i] ?? '';
      if (!zones.includes(z)) zones.push(z);
    }
    return { zones, invokers: kept, distanceMs: step.distanceMs };
  }
  return undefined;
}
