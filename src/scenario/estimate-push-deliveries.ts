/**
 * The registry pushes of the cost estimate (estimate.ts), per discovery level: who registers at which
 * level (a provider group's `registerLevels`) and who subscribes to which (a consumer side's migration
 * step: APPLICATION_FIRST subscribes both levels), so a provider registered at both levels pushes at
 * both to a consumer watching both (SPEC 4 `pushes`). Interface level: a change of a group is one push
 * per subscribed (service, consumer instance); application level: one per consumer instance that
 * calls any service the group's application exports. Registry faults re-read every subscription.
 */
import type { DubboProfile } from '../model/dubbo-profile.js';
import type { ReferenceSpec, RegistrySpec, Scenario } from '../model/types.js';
import { consumerMigrationStep, registerLevels, subscribedLevels } from '../world/discovery-levels.js';
import type { ProviderChurn } from './estimate-provider-churn.js';

/** A consumer side (a consumer group, or a provider group's downstream calls): its instances, services, profile and references. */
export interface ConsumerSide {
  instances: number;
  services: Set<string>;
  dubbo: DubboProfile;
  /** Per service, the reference (its `parameters` may name a `migration.step`). */
  reference: Record<string, ReferenceSpec | undefined>;
  /** Group-level consumer URL parameters (`consumerDefaults.parameters`). */
  defaults?: Record<string, string>;
}

/** Push deliveries per discovery level over every discovery registry. */
export interface PushDeliveries {
  interface: number;
  application: number;
}

/** The pushes the run delivers, per level, given the provider churn. */
export function pushDeliveries(scenario: Scenario, discovery: readonly RegistrySpec[], sides: readonly ConsumerSide[], churn: ProviderChurn): PushDeliveries {
  const out: PushDeliveries = { interface: 0, application: 0 };
  for (const r of discovery) {
    // Per side and service, the levels its reference subscribes to at this registry.
    const watches = sides.map((side) => {
      const byService = new Map<string, readonly string[]>();
      for (const s of side.services) {
        const urlStep = side.reference[s]?.parameters?.['migration.step'] ?? side.defaults?.['migration.step'];
        byService.set(s, subscribedLevels(consumerMigrationStep(r, side.dubbo, urlStep)));
      }
      return byService;
    });
    const subscriptions: PushDeliveries = { interface: 0, application: 0 };
    for (const [i, side] of sides.entries()) {
      const apps = new Set<string>();
      for (const [s, levels] of watches[i]!) {
        if (levels.includes('interface')) subscriptions.interface += side.instances;
        if (levels.includes('application')) for (const g of scenario.providers) if (g.services.includes(s)) apps.add(g.application);
      }
      subscriptions.application += apps.size * side.instances;
    }
    for (const g of scenario.providers) {
      const changed = churn.changes.get(g.name) ?? 0;
      if (changed === 0) continue;
      const levels = registerLevels(r, g.dubbo);
      for (const [i, side] of sides.entries()) {
        const watched = watches[i]!;
        if (levels.interface) {
          for (const s of g.services) if (watched.get(s)?.includes('interface')) out.interface += changed * side.instances;
        }
        if (levels.application) {
          // One instance list per provider application, however many services it exports.
          const exported = new Set(scenario.providers.filter((p) => p.application === g.application).flatMap((p) => p.services));
          if ([...watched].some(([s, l]) => exported.has(s) && l.includes('application'))) out.application += changed * side.instances;
        }
      }
    }
    out.interface += churn.resyncs * subscriptions.interface;
    out.application += churn.resyncs * subscriptions.application;
  }
  return out;
}
