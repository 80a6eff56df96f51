/**
 * Strategies (SPEC 2.9): named overrides of the consumers' references, the routers and the
 * registry, applied to a copy of a scenario. When a scenario defines none, `compare` uses the
 * built-in set: Dubbo's defaults and the zone-aware strategies of SPEC 3, each one Dubbo's default
 * routing plus one zone-aware mechanism, so that they differ from each other whatever the scenario's
 * own routers and balancers are.
 */
import type { ReferenceSpec, RouterSpec, Scenario, StrategySpec } from '../model/types.js';
import { resolveProfile } from './dubbo-profiles.js';

/**
 * What every built-in starts from: Dubbo's default routing. No router rules (the scenario's
 * condition, tag, zone and plugin rules are configuration, not Dubbo's default; the tag and mock
 * routers Dubbo always builds stay in the chain and pass everything without a rule), random load
 * balancing and the failover cluster on every reference. Everything else is kept as written:
 * timeouts, retries, `actives` and the other attributes and parameters, method-level settings,
 * providers, registry and faults.
 */
function builtIn(description: string, reference: Partial<ReferenceSpec>, routers: RouterSpec[] = []): StrategySpec {
  return { description, reference: { loadbalance: 'random', cluster: 'failover', ...reference }, routers };
}

/** The built-in strategies, in the order `compare` shows them (each description says what it sets; the rest is as written). */
export const builtInStrategies: Record<string, StrategySpec> = {
  'dubbo-default': builtIn('Dubbo defaults: no routers, random, failover (timeouts and retries as written)', {}),
  'zone-aware-lb': builtIn('no routers, zoneAware load balancer (same zone weight 100, other zones 1), failover', { loadbalance: 'zoneAware' }),
  'zone-router-fallback': builtIn(
    "only a zone router on the consumer's zone, falling back to all providers when the zone has none; random, failover",
    {},
    [{ type: 'zone', fallback: true, zoneFrom: 'local' }],
  ),
  'zone-router-strict': builtIn(
    "only a zone router on the consumer's zone, no fallback (No provider when the zone is empty); random, failover",
    {},
    [{ type: 'zone', fallback: false, zoneFrom: 'local' }],
  ),
  'zone-failover': builtIn('no routers, random, zoneAwareFailover cluster (retries stay in the local zone while it has providers)', { cluster: 'zoneAwareFailover' }),
  'envoy-zone-aware': builtIn('no routers, Envoy-style zone-aware load balancer (min_cluster_size 6, panic threshold 50%), failover', { loadbalance: 'envoyZoneAware' }),
};

/** The strategies `compare` runs: the scenario's own, or the built-in set; `only` filters and orders them. */
export function strategiesFor(scenario: Scenario, only?: string[]): Record<string, StrategySpec> {
  const all = Object.keys(scenario.strategies).length > 0 ? scenario.strategies : builtInStrategies;
  if (!only || only.length === 0) return all;
  const out: Record<string, StrategySpec> = {};
  for (const name of only) {
    const s = all[name] ?? builtInStrategies[name];
    if (s === undefined) {
      throw new Error(
        `unknown strategy "${name}"; valid: ${[...new Set([...Object.keys(all), ...Object.keys(builtInStrategies)])].join(', ')}`,
      );
    }
    out[name] = s;
  }
  return out;
}

function mergeReference(base: ReferenceSpec | undefined, over: Partial<ReferenceSpec>): ReferenceSpec {
  const b: ReferenceSpec = base ?? { parameters: {}, methods: {} };
  const methods = { ...b.methods };
  for (const [m, o] of Object.entries(over.methods ?? {})) methods[m] = { ...(methods[m] ?? { parameters: {} }), ...o };
  return {
    ...b,
    ...over,
    parameters: { ...b.parameters, ...(over.parameters ?? {}) },
    methods,
  };
}

/** A copy of `scenario` with the strategy applied (the scenario's name gets no suffix). */
export function applyStrategy(scenario: Scenario, strategy: StrategySpec): Scenario {
  const copy: Scenario = structuredClone(scenario);
  if (strategy.reference || strategy.referenceByService) {
    for (const group of copy.consumers) {
      const services = new Set(Object.keys(group.calls).map((k) => k.slice(0, k.lastIndexOf('.'))));
      for (const service of services) {
        if (strategy.reference) group.reference[service] = mergeReference(group.reference[service], strategy.reference);
        const own = strategy.referenceByService?.[service];
        if (own) group.reference[service] = mergeReference(group.reference[service], own);
      }
    }
  }
  if (strategy.routers) copy.routers = structuredClone(strategy.routers);
  if (strategy.addRouters) copy.routers = [...copy.routers, ...structuredClone(strategy.addRouters)];
  if (strategy.registry) copy.registry = { ...copy.registry, ...strategy.registry };
  if (strategy.dubbo) {
    for (const group of [...copy.consumers, ...copy.providers]) {
      group.dubbo = resolveProfile(copy.dubbo, group.dubboSettings, strategy.dubbo);
    }
  }
  if (strategy.sentinel !== undefined) copy.sentinel = structuredClone(strategy.sentinel);
  for (const [name, o] of Object.entries(strategy.providers ?? {})) {
    const group = copy.providers.find((p) => p.name === name);
    if (group === undefined) throw new Error(`strategy names unknown provider group "${name}"`);
    if (o.threadpool !== undefined) group.threadpool = o.threadpool;
    if (o.threads !== undefined) group.threads = o.threads;
    if (o.queues !== undefined) group.queues = o.queues;
    if (o.exports !== undefined) group.exports = { ...group.exports, ...structuredClone(o.exports) };
    if (o.isolation !== undefined) {
      if (o.isolation.dynamic === undefined) delete group.isolation;
      else group.isolation = structuredClone(o.isolation);
    }
  }
  copy.strategies = {};
  return copy;
}
