/**
 * Which discovery levels a provider group registers at and a consumer group reads, from the
 * registry's explicit `registration` (for every group) or else the group's Dubbo profile (SPEC
 * 2.11): a provider's `registerMode` (3.3 ConfigValidationUtils: `interface`, `instance` =
 * application level only, `all` = both; default `all`) and a consumer's `migrationStep` (3.3
 * MigrationRule.getStep: APPLICATION_FIRST by default, which subscribes both levels). What a
 * consumer does with two levels is the Dubbo layer's MigrationInvoker; this module only decides.
 */
import type { DubboProfile, MigrationStep } from '../model/dubbo-profile.js';
import type { RegistrySpec } from '../model/types.js';

/** A discovery level: interface (one record per export) or application (one ServiceInstance per process). */
export type DiscoveryLevel = 'interface' | 'application';

/** The levels a provider registers at. */
export interface RegisterLevels {
  readonly interface: boolean;
  readonly application: boolean;
}

const INTERFACE_ONLY: RegisterLevels = Object.freeze({ interface: true, application: false });
const APPLICATION_ONLY: RegisterLevels = Object.freeze({ interface: false, application: true });
const BOTH: RegisterLevels = Object.freeze({ interface: true, application: true });

/**
 * Where a provider group registers with `spec`: the explicit `registration` wins (interface: interface
 * only; application: application level only), else its profile's `registerMode`.
 */
export function registerLevels(spec: Pick<RegistrySpec, 'registration'>, profile: Pick<DubboProfile, 'registerMode'>): RegisterLevels {
  if (spec.registration === 'interface') return INTERFACE_ONLY;
  if (spec.registration === 'application') return APPLICATION_ONLY;
  switch (profile.registerMode) {
    case 'interface':
      return INTERFACE_ONLY;
    case 'instance':
      return APPLICATION_ONLY;
    case 'all':
      return BOTH;
  }
}

const STEPS: readonly string[] = ['FORCE_INTERFACE', 'APPLICATION_FIRST', 'FORCE_APPLICATION'];

/**
 * The migration step a consumer group's references take with `spec`: the explicit `registration` wins
 * (interface: FORCE_INTERFACE, application: FORCE_APPLICATION), else `urlStep` (the consumer URL's
 * `migration.step`, which 3.3 MigrationRule.getStep reads before the application default; a value that
 * is no step makes `Enum.valueOf` throw, and MigrationRuleHandler.doMigrate keeps APPLICATION_FIRST),
 * else its profile's `migrationStep`. A `static` registry has no levels, and 2.7 no MigrationInvoker:
 * interface level.
 */
export function consumerMigrationStep(
  spec: Pick<RegistrySpec, 'registration' | 'type'>,
  profile: Pick<DubboProfile, 'migrationStep' | 'version'>,
  urlStep?: string,
): MigrationStep {
  if (spec.type === 'static' || spec.registration === 'interface') return 'FORCE_INTERFACE';
  if (spec.registration === 'application') return 'FORCE_APPLICATION';
  if (urlStep !== undefined && profile.version !== '2.7') return STEPS.includes(urlStep) ? (urlStep as MigrationStep) : 'APPLICATION_FIRST';
  return profile.migrationStep;
}

/** The levels a consumer subscribes to at a migration step (MigrationInvoker.migrateTo*Invoker). */
export function subscribedLevels(step: MigrationStep): readonly DiscoveryLevel[] {
  switch (step) {
    case 'FORCE_INTERFACE':
      return ['interface'];
    case 'FORCE_APPLICATION':
      return ['application'];
    case 'APPLICATION_FIRST':
      return ['interface', 'application'];
  }
}
