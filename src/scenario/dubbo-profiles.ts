/**
 * Resolves each consumer and provider group's Dubbo profile (SPEC 2.11) from the scenario's
 * `dubbo:` settings: the group's release (its own `dubbo:`, else the top level's, else 3.3) gives
 * the defaults, then the top level's explicit switches apply, then the group's. The port-side
 * defaults are the port's own (dubbo/release.ts); the registry-path defaults are below, each with
 * the Java that decides it.
 */
import { dubboRelease } from '../dubbo/release.js';
import type { DubboProfile, DubboProfileSettings, DubboVersionName } from '../model/dubbo-profile.js';

/** The registry-path defaults of each release. */
const REGISTRY_PATH: Record<DubboVersionName, Pick<DubboProfile, 'delayNotificationMs' | 'nacosClient' | 'registerMode' | 'migrationStep'>> = {
  // 3.3: CommonConstants DEFAULT_DELAY_NOTIFICATION_TIME = 5000; the bundled nacos-client 2.4.3;
  // RegistryConfig/ServiceConfig register-mode default `all`; MigrationRule default step APPLICATION_FIRST.
  '3.3': { delayNotificationMs: 5000, nacosClient: '2.x', registerMode: 'all', migrationStep: 'APPLICATION_FIRST' },
  // 2.7.23: no RegistryNotifier; nacos-client 1.4.2; interface-level registration only.
  '2.7': { delayNotificationMs: 0, nacosClient: '1.x', registerMode: 'interface', migrationStep: 'FORCE_INTERFACE' },
};

/** A release's full default profile. */
export function defaultProfile(version: DubboVersionName): DubboProfile {
  const { version: _v, text: _t, ...port } = dubboRelease(version);
  return { version, ...REGISTRY_PATH[version], ...port };
}

/**
 * A group's profile from layers of settings, later layers winning: the release is the last one a
 * layer names (else 3.3) and gives the defaults, then each layer's switches apply in order
 * (top level, the group's own, a strategy's).
 */
export function resolveProfile(...layers: (DubboProfileSettings | undefined)[]): DubboProfile {
  let version: DubboVersionName = '3.3';
  for (const layer of layers) if (layer?.version !== undefined) version = layer.version;
  const profile = defaultProfile(version);
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [k, v] of Object.entries(layer)) if (v !== undefined && k !== 'version') (profile as unknown as Record<string, unknown>)[k] = v;
  }
  return profile;
}
