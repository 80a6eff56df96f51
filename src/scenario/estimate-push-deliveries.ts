/**
 * The registry pushes of the cost estimate (estimate.ts), per discovery level: who registers at which
 * level (a provider group's `registerLevels`) and who subscribes to which (a consumer side's migration
 * step: APPLICATION_FIRST subscribes both levels), so a provider registered at both levels pushes at
 * both to a consumer watching both (SPEC 4 `pushes`). Interface level: a change of a group is one push
 * per subscribed (service, consumer instance); application level: one per consumer instance that
 * calls any service the group's application exports. Registry faults re-read every subscription; a dark room
 * coming back re-reads its consumers'.
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
  /** Where its instances are (a dark room's consumers read their lists again when it is back). */
  zone?: string;
}

/** Push deliveries per discovery level over every discovery registry. */
export interface PushDeliveries {
  interface: number;
  application: number;
}

/**
 * The pushes the run delivers, per level, given the provider churn. PERF: linear in groups and services (an
 * estate of 20,000 provider groups and 10,000 consumer groups is estimated in a moment): who watches each
 * service (interface level) and each application (application level) is summed once per registry, then each
 * changed group reads its own; the same sums as asking every consumer side about every changed group
 * (`test/scenario/estimate-push-deliveries.test.ts` keeps that form and compares).
 */
export function pushDeliveries(scenario: Scenario, discovery: readonly RegistrySpec[], sides: readonly ConsumerSide[], churn: ProviderChurn): PushDeliveries {
  const out: PushDeliveries = { interface: 0, application: 0 };
  // The applications exporting each service.
  const appsOf = new Map<string, Set<string>>();
  for (const g of scenario.providers) {
    for (const s of g.services) {
      let apps = appsOf.get(s);
      if (apps === undefined) appsOf.set(s, (apps = new Set()));
      apps.add(g.application);
    }
  }
  for (const r of discovery) {
    // Instances watching each service at interface level, and each application at application level.
    const serviceWatchers = new Map<string, number>();
    const appWatchers = new Map<string, number>();
    const subscriptions: PushDeliveries = { interface: 0, application: 0 };
    for (const side of sides) {
      const apps = new Set<string>();
      const roomResyncs = side.zone === undefined ? 0 : (churn.roomResyncs.get(side.zone) ?? 0);
      for (const s of side.services) {
        const urlStep = side.reference[s]?.parameters?.['migration.step'] ?? side.defaults?.['migration.step'];
        const levels = subscribedLevels(consumerMigrationStep(r, side.dubbo, urlStep));
        if (levels.includes('interface')) {
          subscriptions.interface += side.instances;
          out.interface += roomResyncs * side.instances;
          serviceWatchers.set(s, (serviceWatchers.get(s) ?? 0) + side.instances);
        }
        if (levels.includes('application')) for (const app of appsOf.get(s) ?? []) apps.add(app);
      }
      subscriptions.application += apps.size * side.instances;
      out.application += roomResyncs * apps.size * side.instances;
      for (const app of apps) appWatchers.set(app, (appWatchers.get(app) ?? 0) + side.instances);
    }
    for (const g of scenario.providers) {
      const changed = churn.changes.get(g.name) ?? 0;
      if (changed === 0) continue;
      const levels = registerLevels(r, g.dubbo);
      if (levels.interface) for (const s of g.services) out.interface += changed * (serviceWatchers.get(s) ?? 0);
      // One instance list per provider application, however many services it exports.
      if (levels.application) out.application += changed * (appWatchers.get(g.application) ?? 0);
    }
    out.interface += churn.resyncs * subscriptions.interface;
    out.application += churn.resyncs * subscriptions.application;
  }
  return out;
}
