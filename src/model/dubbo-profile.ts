/**
 * A consumer or provider group's Dubbo release profile (SPEC 2.11): the release it runs and every
 * behaviour that differs between 2.7.23 and 3.3, resolved from the scenario's `dubbo:` settings
 * (scenario/dubbo-profiles.ts). The port-side switches carry the same names and values as the port's
 * `DubboRelease` (dubbo/release.ts), which stack/ builds from this; the others drive the world's
 * registry path.
 */

/** The releases modelled: `'2.7'` is 2.7.23, `'3.3'` is 3.3. */
export type DubboVersionName = '2.7' | '3.3';

/** Dubbo's MigrationStep: which discovery level a consumer's MigrationInvoker calls through. */
export type MigrationStep = 'FORCE_INTERFACE' | 'APPLICATION_FIRST' | 'FORCE_APPLICATION';

/** Dubbo's `register-mode`: the levels a provider registers at (`instance` is application level). */
export type RegisterMode = 'interface' | 'instance' | 'all';

export interface DubboProfile {
  version: DubboVersionName;
  // --- the registry path (world/) ---
  /** `delay-notification` on the registry URL (3.x RegistryNotifier; 0 = none, 2.7). Consumer side. */
  delayNotificationMs: number;
  /** The Nacos client the process ships: `1.x` heartbeats (2.7: 1.4.2) or `2.x` connection-bound gRPC (3.3: 2.4.3). */
  nacosClient: '1.x' | '2.x';
  /** Provider side: where it registers (3.3 `all`; 2.7 `interface`). */
  registerMode: RegisterMode;
  /** Consumer side: MigrationInvoker's step (3.3 APPLICATION_FIRST; 2.7 has interface level only). */
  migrationStep: MigrationStep;
  // --- the port (dubbo/release.ts `DubboRelease`, same names) ---
  conditionMissingKey: 'fail' | 'pass';
  reselect: 'sample' | 'all';
  /** ShortestResponseLoadBalance's reset period; `Infinity` = 2.7's lifetime average. */
  shortestResponseWindowMs: number;
  rpcExceptionFilter: boolean;
  retryTimeout: 'first' | 'each';
  timeoutDetection: 'exact' | 'timer';
  tpsLimit: 'returned' | 'thrown';
  consistentHash: 'ring' | 'bounded';
}

/** The settings a scenario may give (`dubbo: { version, <switch>: ... }`): any subset. */
export type DubboProfileSettings = Partial<DubboProfile>;
