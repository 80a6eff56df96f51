/**
 * Builds a world's registry model from its scenario (SPEC 2.5): `static`, `nacos` or `zookeeper`
 * for `registry:`, or one model per `registries:` entry behind a `MultiRegistry`. Random streams
 * are `registry/push` and `registry/phase` for the single registry, `registry/<name>/...` for each
 * of several.
 */
import type { RegistrySpec, Scenario } from '../model/types.js';
import type { RegistryHost } from './registry-discovery.js';
import { MultiRegistry } from './registry-multi.js';
import { NacosRegistry } from './registry-nacos.js';
import { ZookeeperRegistry } from './registry-zookeeper.js';
import { StaticRegistry, type RegistryModel } from './registry.js';

/** The registry of a world (`WorldOptions.makeRegistry`). */
export function createRegistry(world: RegistryHost & { readonly scenario: Scenario }): RegistryModel {
  const named = Object.entries(world.scenario.registries);
  if (named.length === 0) return createOne(world, world.scenario.registry, 'registry', 'registry');
  return new MultiRegistry(new Map(named.map(([name, spec]) => [name, createOne(world, spec, name, `registry/${name}`)])));
}

function createOne(host: RegistryHost, spec: RegistrySpec, name: string, streamPrefix: string): RegistryModel {
  switch (spec.type) {
    case 'static':
      return new StaticRegistry();
    case 'nacos':
      return new NacosRegistry(host, spec, { name, streamPrefix });
    case 'zookeeper':
      return new ZookeeperRegistry(host, spec, { name, streamPrefix });
  }
}
