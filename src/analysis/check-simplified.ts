/**
 * The `simplified` part of `zonesim check`: a registry with `simplified: true` holds provider URLs with
 * only the keys Dubbo keeps (world/registry-simplified-url.ts), and consumers build their invokers from
 * those URLs. A key the scenario's routing reads from the provider URL and the registry drops is then
 * missing for every consumer: `zone` for the zone router, the zoneAware / envoyZoneAware load balancers
 * and the zoneAwareFailover cluster (no provider is in any zone); in 3.3, `dubbo.tag` for tag routing
 * (no provider carries a tag) and `timestamp` for warmup (no provider warms up). `extraKeys` keeps them.
 * Application-level registration is not simplified: only consumer groups that call through the
 * interface level are considered (FORCE_INTERFACE, or APPLICATION_FIRST while no provider of the
 * service registers at application level), and only the provider groups registered there. Owns the finding and its words; the warning shape is check-warnings.ts's.
 */
import type { ConsumerGroupSpec, RegistrySpec, Scenario } from '../model/types.js';
import { referenceAttribute } from '../model/reference-attribute.js';
import { simplifiedKeys } from '../world/registry-simplified-url.js';
import { consumerMigrationStep, registerLevels } from '../world/discovery-levels.js';

/** A key routing needs that a simplified registry drops from the provider URLs. */
export interface SimplifiedKeyWarning {
  kind: 'registry-simplified-drops';
  /** `registry`, or the name of a `registries:` entry. */
  registry: string;
  consumer: string;
  zone: string;
  service: string;
  /** The dropped URL parameter. */
  key: string;
  message: string;
}

const ZONE_LOAD_BALANCES = new Set(['zoneAware', 'envoyZoneAware']);
const ZONE_CLUSTERS = new Set(['zoneAwareFailover']);

/** Every (registry, consumer group, service, key) where `simplified` drops a key the routing of that service reads. */
export function simplifiedKeyWarnings(
  scenario: Scenario,
  calledMethods: (c: ConsumerGroupSpec) => Map<string, string[]>,
): SimplifiedKeyWarning[] {
  const named = Object.entries(scenario.registries);
  const registries: Array<[string, RegistrySpec]> = named.length > 0 ? named : [['registry', scenario.registry]];
  const out: SimplifiedKeyWarning[] = [];
  for (const [name, spec] of registries) {
    if (spec.simplified !== true || spec.type === 'static' || spec.registration === 'application') continue;
    const what = name === 'registry' ? 'the registry' : `registry ${name}`;
    const uses = (list: string[] | undefined) => list === undefined || list.includes(name);
    for (const c of scenario.consumers) {
      if (!uses(c.registries)) continue;
      for (const [service, methods] of calledMethods(c)) {
        const routers = scenario.routers.filter((r) => r.service === undefined || r.service === service);
        const serving = scenario.providers.filter((p) => p.services.includes(service) && uses(p.registries));
        const step = consumerMigrationStep(spec, c.dubbo, c.reference[service]?.parameters?.['migration.step'] as string | undefined);
        const appLevel = serving.some((g) => registerLevels(spec, g.dubbo).application);
        if (!(step === 'FORCE_INTERFACE' || (step === 'APPLICATION_FIRST' && !appLevel))) continue;
        const groups = serving.filter((g) => registerLevels(spec, g.dubbo).interface);
        const kept = (version: '2.7' | '3.3') => simplifiedKeys(version, spec.extraKeys);
        const needs: Array<[string, string, boolean]> = [];
        const zoneReaders = [
          ...routers.filter((r) => r.type === 'zone').map(() => 'the zone router'),
          ...methods.flatMap((m) => {
            const lb = referenceAttribute(c, service, m, 'loadbalance');
            const cluster = referenceAttribute(c, service, m, 'cluster');
            return [lb !== undefined && ZONE_LOAD_BALANCES.has(lb) ? `loadbalance ${lb}` : [], cluster !== undefined && ZONE_CLUSTERS.has(cluster) ? `cluster ${cluster}` : []].flat();
          }),
        ];
        needs.push(['zone', [...new Set(zoneReaders)].join(' and '), zoneReaders.length > 0 && groups.some((g) => !kept(g.dubbo.version).has('zone'))]);
        const tagged = routers.some((r) => r.type === 'tag') || groups.some((g) => g.params['dubbo.tag'] !== undefined);
        needs.push(['dubbo.tag', 'tag routing', tagged && groups.some((g) => !kept(g.dubbo.version).has('dubbo.tag'))]);
        needs.push(['timestamp', 'warmup', groups.some((g) => g.warmupMs > 0 && !kept(g.dubbo.version).has('timestamp'))]);
        for (const [key, reader, dropped] of needs) {
          if (!dropped) continue;
          out.push({
            kind: 'registry-simplified-drops',
            registry: name,
            consumer: c.application,
            zone: c.zone,
            service,
            key,
            message:
              `${what} is simplified and drops '${key}' from the provider URLs of ${service}, but ${c.application} (${c.zone}) relies on it ` +
              `for ${reader}: ${consequence(key)}. Add it to extraKeys (dubbo.registry.extra-keys) to keep it.`,
          });
        }
      }
    }
  }
  return out;
}

function consequence(key: string): string {
  if (key === 'zone') return 'no provider is in any zone, so zone routing falls back (or finds nothing)';
  if (key === 'dubbo.tag') return 'no provider carries a tag, so tagged calls go to untagged providers or fail when forced';
  return 'every provider is seen without a start time, so none warms up';
}
