/**
 * Sentinel in one simulated world: a Sph (Sentinel's statics) per JVM that loads rules, built from the
 * scenario's `sentinel:` blocks (top level, consumer group, provider group), with the adapter's consumer
 * filter on consumer instances and provider filter on provider processes; the datasource updates of
 * `sentinel` faults; breaker state changes counted as events (`sentinel.<side>.<state>`) and the open
 * breakers of consumer JVMs per zone, which the timeline samples.
 */
import type { Proc } from '../engine/simulation.js';
import type { Rng } from '../engine/random.js';
import type { ConsumerGroupSpec, Scenario, SentinelSpec } from '../model/types.js';
import type { ConsumerInstance } from '../world/consumer.js';
import type { FaultUndo, SentinelFaultAction } from '../world/faults.js';
import type { ProviderInstance } from '../world/provider.js';
import type { World } from '../world/world.js';
import type { Result } from '../dubbo/rpc.js';
import { Sph, type SphScope } from '../sentinel/sph.js';
import { CONTROL_BEHAVIOR_WARM_UP, CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER } from '../sentinel/rules.js';
import type { State } from '../sentinel/degrade/abstract-circuit-breaker.js';
import { classify } from './consumer-stack.js';
import { SentinelAttemptFilter, SentinelConsumerFilter } from './sentinel-consumer-filter.js';
import { SentinelProviderFilter } from './sentinel-provider-filter.js';
import { canonicalResource, effectiveSentinel, hasSentinelRules, loadsSentinel, parseFallback, sentinelFaultTargets, sentinelRules, type Fallback } from './sentinel-resources.js';

/** Whether a scenario uses Sentinel anywhere (a `sentinel:` block with rules, or a `sentinel` fault). */
export function usesSentinel(s: Scenario): boolean {
  return (
    hasSentinelRules(s.sentinel) ||
    s.consumers.some((c) => hasSentinelRules(c.sentinel)) ||
    s.providers.some((p) => hasSentinelRules(p.sentinel)) ||
    s.faults.some((f) => f.action.kind === 'sentinel')
  );
}

/** Every `sentinel:` spec of a scenario: top level, groups, faults (a strategy's is already the top level). */
function allSpecs(s: Scenario): SentinelSpec[] {
  const specs = [s.sentinel, ...s.consumers.map((c) => c.sentinel), ...s.providers.map((p) => p.sentinel)];
  for (const f of s.faults) if (f.action.kind === 'sentinel') specs.push(f.action.rules);
  return specs.filter((x): x is SentinelSpec => x !== undefined);
}

/** What any rule of the scenario can read, for every JVM (`SphScope`). */
function sphScope(s: Scenario): SphScope {
  const specs = allSpecs(s);
  const resources = new Set<string>();
  for (const spec of specs) for (const r of [...(spec.flowRules ?? []), ...(spec.degradeRules ?? []), ...(spec.paramFlowRules ?? [])]) resources.add(canonicalResource(String(r.resource)));
  const warmUp = specs.some((spec) => (spec.flowRules ?? []).some((r) => r.controlBehavior === CONTROL_BEHAVIOR_WARM_UP || r.controlBehavior === CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER));
  return { resources, minuteWindow: warmUp, system: specs.some((spec) => (spec.systemRules ?? []).length > 0) };
}

const STATE_EVENT: Record<State, string> = { OPEN: 'open', HALF_OPEN: 'half-open', CLOSED: 'closed' };

/** The adapter's resource for a call that failed (what Tracer records): any outcome but ok and mock. */
function failed(result: Result): boolean {
  const o = classify(result).outcome;
  return o !== 'ok' && o !== 'mock';
}

/** One JVM that loads Sentinel rules. */
interface Jvm {
  application: string;
  side: 'consumer' | 'provider';
  zone: string;
  spec: SentinelSpec;
  sph: Sph;
  filter: { fallback: Fallback };
}

const NO_ARGUMENTS: readonly unknown[] = Object.freeze([]);

/**
 * What a consumer instance's stack gets: the call's arguments (a user id when the scenario has
 * hot-parameter rules), and the 3.x ClusterFilter (`invoke`) or the 2.7 per-attempt filter (`attemptFilter`,
 * for the runtime's consumer filters), whichever its release registers; neither when its JVM loads no rules.
 */
export class ConsumerSentinel {
  readonly #cluster: SentinelConsumerFilter | undefined;
  readonly attemptFilter: SentinelAttemptFilter | undefined;
  readonly #rng: Rng | null;
  readonly #userIds: number;

  constructor(filter: SentinelConsumerFilter | SentinelAttemptFilter | undefined, rng: Rng | null, userIds: number) {
    this.#cluster = filter instanceof SentinelConsumerFilter ? filter : undefined;
    this.attemptFilter = filter instanceof SentinelAttemptFilter ? filter : undefined;
    this.#rng = rng;
    this.#userIds = userIds;
  }

  /** The call's arguments. */
  // DIVERGENCE: zonesim's calls carry no arguments. With hot-parameter rules, argument 0 is a user id
  // drawn uniformly from the group's `userIds` (its own stream, not the draw of `when:` attachments).
  argumentsOf(): readonly unknown[] {
    return this.#rng === null ? NO_ARGUMENTS : [this.#rng.nextInt(this.#userIds)];
  }

  /** The 3.x ClusterFilter around the call `inner` makes; absent under 2.7 or without rules. */
  get invoke(): ((service: string, method: string, args: readonly unknown[], inner: () => Proc<Result>) => Proc<Result>) | undefined {
    const f = this.#cluster;
    return f === undefined ? undefined : (service, method, args, inner) => (f.tracksCall(service, method) ? f.invoke(service, method, args, inner) : inner());
  }
}

/** Sentinel across one world. */
export class SentinelHub {
  readonly #world: World;
  readonly #jvms: Jvm[] = [];
  readonly #openByZone = new Map<string, number>();
  readonly #consumerSpecs: Set<ConsumerGroupSpec>;
  readonly #hotParams: boolean;
  readonly #targeted: Set<string | undefined>;
  #scope: SphScope | undefined;

  constructor(world: World) {
    this.#world = world;
    const s = world.scenario;
    this.#consumerSpecs = new Set(s.consumers);
    this.#hotParams = [s.sentinel, ...s.consumers.map((c) => c.sentinel), ...s.providers.map((p) => p.sentinel), ...s.faults.map((f) => (f.action.kind === 'sentinel' ? f.action.rules : undefined))].some(
      (x) => (x?.paramFlowRules?.length ?? 0) > 0,
    );
    this.#targeted = sentinelFaultTargets(s);
    for (const zone of Object.keys(s.zones)) this.#openByZone.set(zone, 0);
  }

  /** Whether a JVM of `application` with its effective `spec` needs Sentinel at all. */
  #needed(application: string, spec: SentinelSpec): boolean {
    return loadsSentinel(spec, application, this.#targeted);
  }

  #sph(application: string, side: Jvm['side'], zone: string, spec: SentinelSpec): Sph {
    const observer = this.#world.observer;
    const scope = (this.#scope ??= sphScope(this.#world.scenario));
    return new Sph(sentinelRules(spec), (prev, next) => {
      observer.count(`sentinel.${side}.${STATE_EVENT[next]}`);
      if (side !== 'consumer') return;
      // Open breakers: not CLOSED (OPEN or HALF_OPEN).
      const delta = prev === 'CLOSED' ? 1 : next === 'CLOSED' ? -1 : 0;
      if (delta !== 0) this.#openByZone.set(zone, (this.#openByZone.get(zone) ?? 0) + delta);
    }, scope);
  }

  /**
   * The Sentinel side of a consumer instance: its filter as its release registers it (none when its JVM
   * loads no rules) and its calls' arguments; undefined when it has neither, and for a provider's own
   * downstream calls.
   */
  consumerFilter(instance: ConsumerInstance): ConsumerSentinel | undefined {
    const group = instance.group;
    // DIVERGENCE: a provider's own downstream calls go through no Sentinel consumer filter and carry no arguments.
    if (!this.#consumerSpecs.has(group)) return undefined;
    const spec = effectiveSentinel(this.#world.scenario.sentinel, group.sentinel);
    const rng = this.#hotParams ? this.#world.streams.stream(`sentinel/userId/${instance.id}`) : null;
    if (!this.#needed(group.application, spec)) return rng === null ? undefined : new ConsumerSentinel(undefined, rng, group.userIds);
    const sph = this.#sph(group.application, 'consumer', instance.zone, spec);
    const Filter = group.dubbo.version === '2.7' ? SentinelAttemptFilter : SentinelConsumerFilter;
    const filter = new Filter(sph, parseFallback(spec.fallback), this.#world.sim, failed);
    this.#jvms.push({ application: group.application, side: 'consumer', zone: instance.zone, spec, sph, filter });
    return new ConsumerSentinel(filter, rng, group.userIds);
  }

  /** The provider filter of a provider process (undefined: no Sentinel in its JVM). */
  providerFilter(instance: ProviderInstance): SentinelProviderFilter | undefined {
    const group = instance.group.spec;
    const spec = effectiveSentinel(this.#world.scenario.sentinel, group.sentinel);
    if (!this.#needed(group.application, spec)) return undefined;
    const sph = this.#sph(group.application, 'provider', instance.zone, spec);
    const pool = instance.pool;
    const sim = this.#world.sim;
    const filter = new SentinelProviderFilter(sph, parseFallback(spec.fallback), () => ({ load: pool.inUse, cpu: pool.inUse / pool.capacity }), () => sim.now);
    this.#jvms.push({ application: group.application, side: 'provider', zone: instance.zone, spec, sph, filter });
    return filter;
  }

  /** A `sentinel` fault: the kinds given replace those of the targeted JVMs; the undo restores them. */
  apply(action: SentinelFaultAction): FaultUndo {
    const targets = this.#jvms.filter((j) => action.application === undefined || j.application === action.application);
    const before = targets.map((j) => j.spec);
    for (const j of targets) {
      const r = action.rules;
      this.#load(j, {
        ...j.spec,
        ...(r.flowRules !== undefined ? { flowRules: r.flowRules } : {}),
        ...(r.degradeRules !== undefined ? { degradeRules: r.degradeRules } : {}),
        ...(r.systemRules !== undefined ? { systemRules: r.systemRules } : {}),
        ...(r.paramFlowRules !== undefined ? { paramFlowRules: r.paramFlowRules } : {}),
        ...(r.fallback !== undefined ? { fallback: r.fallback } : {}),
      });
    }
    return () => targets.forEach((j, i) => this.#load(j, before[i]!));
  }

  #load(j: Jvm, spec: SentinelSpec): void {
    const openBefore = j.sph.openBreakers();
    j.spec = spec;
    j.sph.loadRules(sentinelRules(spec));
    j.filter.fallback = parseFallback(spec.fallback);
    // Breakers dropped by the update no longer count as open.
    const delta = j.sph.openBreakers() - openBefore;
    if (j.side === 'consumer' && delta !== 0) this.#openByZone.set(j.zone, (this.#openByZone.get(j.zone) ?? 0) + delta);
  }

  /** Open (or half-open) breakers of consumer JVMs, by zone (every zone of the scenario, sorted as declared). */
  openBreakersByZone(): ReadonlyMap<string, number> {
    return this.#openByZone;
  }
}

// A world without Sentinel is kept as `null`: `usesSentinel` reads every consumer and provider group, and the hub is
// asked for once per consumer instance (20,000 consumer groups of 25 instances: 12 of 99 s of the build reading
// the groups 500,000 times).
const hubs = new WeakMap<World, SentinelHub | null>();

/** The world's hub, made on first use; undefined when the scenario uses no Sentinel. */
export function sentinelHubOf(world: World): SentinelHub | undefined {
  let hub = hubs.get(world);
  if (hub === undefined) hubs.set(world, (hub = usesSentinel(world.scenario) ? new SentinelHub(world) : null));
  return hub ?? undefined;
}
