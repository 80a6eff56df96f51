/**
 * How zonesim's zone extensions (the zone router's fallback, `zoneAwareFailover`'s cross-zone
 * step, the `zoneAware` balancer's cross-zone ranks) order the zones of a provider list: group the
 * providers by the zone they registered with, then order the groups by an explicit zone list and/or
 * by distance from the consumer's zone (median RTT, answered by the runtime's `zoneDistance`).
 * Zones at the same distance form one group; zones whose distance is unknown (no runtime answer,
 * a provider without `zone`) come last, together. Not Dubbo code: Dubbo has no notion of zone
 * distance; this is what users write as a router or balancer extension, with the distances as
 * configuration.
 */
import { ZONE_KEY } from './constants.js';
import { perList } from './per-list.js';
import type { Invoker } from './rpc.js';

/**
 * How far apart two zones are (ms of median round trip), or undefined when unknown. A simulation
 * answers from its network; tools without one leave it out.
 */
export type ZoneDistance = (from: string, to: string) => number | undefined;

/**
 * The zone a provider registered with: its own `zone` parameter, never the consumer's value that a
 * consumer-first ServiceAddressURL would answer with.
 */
export function providerZone(invoker: Invoker): string | undefined {
  const zone = invoker.getUrl().getOriginalParameter(ZONE_KEY);
  return zone === '' ? undefined : zone;
}

/** `providerZone` of each invoker of `invokers`, in order (worked out once per list object). */
export const providerZonesOf = perList((invokers: readonly Invoker[]): readonly (string | undefined)[] => invokers.map(providerZone));

const NO_INVOKERS: Invoker[] = [];
const membersByZone = perList((invokers: readonly Invoker[]): ReadonlyMap<string | undefined, Invoker[]> => {
  const byZone = new Map<string | undefined, Invoker[]>();
  for (const invoker of invokers) {
    const zone = providerZone(invoker);
    const members = byZone.get(zone);
    if (members === undefined) byZone.set(zone, [invoker]);
    else members.push(invoker);
  }
  return byZone;
});

/**
 * The providers of `invokers` that registered with `zone`, in list order (`invokers.filter(i =>
 * providerZone(i) === zone)`). The array is the same object for every call on the same list, so what
 * is cached per list (weight tables) holds for it too; callers must not mutate it.
 */
// PERF: a per-call filter scanned every provider's URL and handed the load balancer a new list each
// call, whose weight table was then rebuilt from scratch: zoneAwareFailover over 300 providers spent
// half its run there.
export function zoneMembersOf(invokers: readonly Invoker[], zone: string): Invoker[] {
  return membersByZone(invokers).get(zone) ?? NO_INVOKERS;
}

/** Providers of one or more zones at one step of a zone order. */
export interface ZoneGroup {
  /** The zones of the step (several when they are equally far). */
  readonly zones: readonly string[];
  /** Their providers, in input order. */
  readonly invokers: Invoker[];
  /** The zones' distance from the origin; undefined when unknown (or not asked). */
  readonly distanceMs: number | undefined;
}

/** What `zoneGroups` orders by. */
export interface ZoneOrderOptions {
  /** The consumer's zone, which distances are measured from. */
  origin?: string;
  distance?: ZoneDistance;
  /** Zones that come first, in this order (each its own step). */
  order?: readonly string[];
  /** Only the zones in `order` (the rest is dropped); default false: the rest follows by distance. */
  onlyListed?: boolean;
  /** A zone left out (e.g. the local zone, which callers handle themselves). */
  exclude?: string;
}

// Providers without a zone parameter are grouped under this key.
const NO_ZONE = '';

/**
 * The zones present in `invokers`, as steps in preference order: the listed zones (`order`) that
 * have providers, in list order, then (unless `onlyListed`) the others nearest first, equally far
 * zones sharing a step and unknown distances last.
 */
export function zoneGroups(invokers: readonly Invoker[], options: ZoneOrderOptions): ZoneGroup[] {
  const byZone = new Map<string, number>();
  for (const inv of invokers) {
    const z = providerZone(inv) ?? NO_ZONE;
    if (z === options.exclude) continue;
    byZone.set(z, (byZone.get(z) ?? 0) + 1);
  }
  const distanceOf = (z: string): number | undefined =>
    z === NO_ZONE || options.origin === undefined ? undefined : options.distance?.(options.origin, z);
  const steps: Array<{ zones: string[]; distanceMs: number | undefined }> = [];
  for (const z of options.order ?? []) {
    if (!byZone.has(z)) continue;
    steps.push({ zones: [z], distanceMs: distanceOf(z) });
    byZone.delete(z);
  }
  const listedSteps = steps.length;
  if (!options.onlyListed && byZone.size > 0) {
    // First-seen order breaks ties (Array.prototype.sort is stable).
    const rest = [...byZone.keys()].map((z) => ({ z, d: distanceOf(z) }));
    rest.sort((a, b) => (a.d === b.d ? 0 : a.d === undefined ? 1 : b.d === undefined ? -1 : a.d - b.d));
    for (const { z, d } of rest) {
      const last = steps.length > listedSteps ? steps[steps.length - 1]! : undefined;
      if (last !== undefined && last.distanceMs === d) last.zones.push(z);
      else steps.push({ zones: [z], distanceMs: d });
    }
  }
  const stepOf = new Map<string, number>();
  steps.forEach((s, i) => s.zones.forEach((z) => stepOf.set(z, i)));
  const lists: Invoker[][] = steps.map(() => []);
  for (const inv of invokers) {
    const i = stepOf.get(providerZone(inv) ?? NO_ZONE);
    if (i !== undefined) lists[i]!.push(inv);
  }
  return steps.map((s, i) => ({ zones: s.zones, invokers: lists[i]!, distanceMs: s.distanceMs }));
}

/** Parses a comma-separated zone list (URL parameter form); blanks dropped. */
export function parseZoneList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((z) => z.trim())
    .filter((z) => z !== '');
}

/** `1.5ms`-style text for trace notes. */
export function formatDistance(distanceMs: number | undefined): string {
  return distanceMs === undefined ? 'distance unknown' : `median RTT ${+distanceMs.toFixed(3)}ms`;
}
