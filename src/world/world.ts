/**
 * Assembles the simulated infrastructure of one run from a normalized scenario — network,
 * provider groups and instances, the registry, consumer groups and their arrival processes, the
 * fault timeline — runs it and drains the requests still in flight. What a consumer does with a
 * request (the Dubbo stack) and what is measured (the observer) are plugged in from above.
 */
import { RandomStreams } from '../engine/random.js';
import { Simulation } from '../engine/simulation.js';
import type { Proc } from '../engine/simulation.js';
import type { ConsumerGroupSpec, ProviderGroupSpec, ReferenceSpec, Scenario, ServiceSpec } from '../model/types.js';
import { AddressPool } from './addresses.js';
import { cohortPlan } from './cohorts.js';
import { ConsumerGroup, ConsumerInstance, outcomeOfCall, type ConsumerStack } from './consumer.js';
import { Network } from './network.js';
import { answeredWithValue, type WorldObserver } from '../metrics/observer.js';
import type { TraceObserver } from '../metrics/trace-observer.js';
import { ProviderGroup, ProviderInstance, type DownstreamCaller, type ProviderExport } from './provider.js';
import type { ServerContext } from './provider-call.js';
import type { ProviderFilterChain } from './provider-filters.js';
import { MultiRegistry } from './registry-multi.js';
import { StaticRegistry, type RegistryModel } from './registry.js';

/** Dubbo's default protocol port, used by every simulated provider. */
export const PROVIDER_PORT = 20880;

/** The attachment Dubbo's tag router reads (`dubbo.tag`), which `propagation.tag: true` carries on. */
const TAG_ATTACHMENT = 'dubbo.tag';

/** What the layers above plug into a world. */
export interface WorldOptions {
  seed: number;
  observer: WorldObserver;
  /** Receives what simulated traces need (`run --traces`); absent: nothing is traced. */
  tracer?: TraceObserver | null;
  /** Builds the RPC stack of one consumer instance. */
  consumerStack(instance: ConsumerInstance, world: World): ConsumerStack;
  /** The registry model (default: static). */
  makeRegistry?(world: World): RegistryModel;
  /** Schedules the fault timeline. */
  scheduleFaults?(world: World): void;
  /** The provider filter chain of a new provider process (null: no filter is on). */
  providerFilters?(instance: ProviderInstance, world: World): ProviderFilterChain<ProviderExport> | null;
}

/** Performance counters of one run. */
export interface RunStats {
  eventsProcessed: number;
  requestsStarted: number;
  /** Requests still in flight when the drain gave up (0 in a healthy run). */
  inFlight: number;
  /** Registry pushes held off the agenda (`RegistryModel.holdPushes`); each also counts as an event processed. */
  pushesHeld: number;
}

/** The simulated world of one run. */
export class World {
  readonly scenario: Scenario;
  readonly sim = new Simulation();
  readonly streams: RandomStreams;
  readonly network: Network;
  readonly observer: WorldObserver;
  /** The trace observer, or null when nothing is traced (every call site checks). */
  readonly tracer: TraceObserver | null;
  readonly registry: RegistryModel;
  /** The registries by name: the `registries:` entries of a multi-registry scenario, else `default`. */
  readonly registries: ReadonlyMap<string, RegistryModel>;
  readonly providerGroups: ProviderGroup[] = [];
  readonly consumerGroups: ConsumerGroup[] = [];
  readonly addressPools = new Map<string, AddressPool>();
  readonly #options: WorldOptions;
  #downstreamIndex = 0;

  constructor(scenario: Scenario, options: WorldOptions) {
    this.scenario = scenario;
    this.#options = options;
    this.observer = options.observer;
    this.tracer = options.tracer ?? null;
    this.streams = new RandomStreams(options.seed);
    const zones = Object.keys(scenario.zones);
    for (const z of zones) this.addressPools.set(z, new AddressPool(scenario.zones[z]!.cidr));
    this.network = new Network(scenario.network, zones, this.streams.stream('network'));
    this.registry = options.makeRegistry?.(this) ?? new StaticRegistry();
    this.registries = this.registry instanceof MultiRegistry ? this.registry.registries : new Map([['default', this.registry]]);

    // The estate is running when the run starts: every provider is registered before any reference subscribes,
    // so a provider's own references (call graphs) read whole lists at the start, as the consumer groups' below do.
    // Subscribed as each caller started, every later registration of the estate was pushed to it at t = 0: 50,000
    // callers listed before their 50,000 downstream providers got 2,000,000 pushes that saturated the registry.
    const started: ProviderInstance[] = [];
    for (const spec of scenario.providers) {
      const group = new ProviderGroup(
        spec,
        scenario.services,
        this.streams.stream(`service/${spec.name}`),
        this.streams.stream(`biz/${spec.name}`),
      );
      this.providerGroups.push(group);
      for (let i = 0; i < spec.count; i++) started.push(this.#startProvider(group, false));
    }
    for (const p of started) p.downstream = this.#downstreamFor(p);

    scenario.consumers.forEach((spec, gi) => {
      const pool = this.addressPools.get(spec.zone)!;
      const instances: ConsumerInstance[] = [];
      const plan = cohortPlan(spec, scenario);
      if (plan === null) for (let i = 0; i < spec.instances; i++) instances.push(new ConsumerInstance(spec, i, pool.allocate()));
      else {
        // A cohort: each representative is its first member (index, address); every member still takes an address.
        let index = 0;
        for (const members of plan.members) {
          const inst = new ConsumerInstance(spec, index, pool.allocate());
          inst.members = members;
          for (let i = 1; i < members; i++) pool.allocate();
          instances.push(inst);
          index += members;
        }
      }
      const group = new ConsumerGroup({ sim: this.sim, observer: this.observer, tracer: this.tracer, scenario }, spec, instances, {
        arrival: this.streams.stream(`arrival/${gi}`),
        pick: this.streams.stream(`pick/${gi}`),
        tag: this.streams.stream(`tag/${gi}`),
      });
      for (const inst of instances) {
        inst.stack = options.consumerStack(inst, this);
        for (const service of group.services()) inst.stack.refer(service);
      }
      this.consumerGroups.push(group);
    });
    options.scheduleFaults?.(this);
  }

  /** Starts a new provider instance in `group` now (it registers through the registry model, and its references subscribe). */
  startProvider(group: ProviderGroup): ProviderInstance {
    return this.#startProvider(group, true);
  }

  // `refer`: its references (call graphs) subscribe now; else the caller makes them (`downstream`) later.
  #startProvider(group: ProviderGroup, refer: boolean): ProviderInstance {
    const p = new ProviderInstance({
      group,
      ip: this.addressPools.get(group.spec.zone)!.allocate(),
      port: PROVIDER_PORT,
      startMs: this.sim.now,
      sim: this.sim,
      network: this.network,
      recorder: this.observer,
      tracer: this.tracer,
      application: group.spec.application,
    });
    group.addInstance(p);
    if (refer) p.downstream = this.#downstreamFor(p);
    p.filters = this.#options.providerFilters?.(p, this) ?? null;
    this.registry.providerStarted(p);
    return p;
  }

  /**
   * Call graphs (SPEC 2.10): a provider whose methods call other services gets its own consumer
   * side, like any consumer instance (own directory, routers, load balancer, cluster, registry
   * subscription). Each downstream call is a request of the provider's application in the metrics.
   * What it carries from the incoming call (attachments, time budget) is decided by the stack from
   * the server context; `propagation` (SPEC 2.7; the group's own over the top-level one) adds the
   * tag-carrying filter.
   */
  #downstreamFor(p: ProviderInstance): DownstreamCaller | null {
    let spec = this.#downstreamSpecs.get(p.group);
    if (spec === undefined) this.#downstreamSpecs.set(p.group, (spec = this.#downstreamSpec(p.group)));
    if (spec === null) return null;
    const instance = new ConsumerInstance(spec, this.#downstreamIndex++, p.ip, `${p.group.spec.name}/${p.address}`);
    const stack = this.#options.consumerStack(instance, this);
    instance.stack = stack;
    for (const service of Object.keys(spec.reference)) stack.refer(service);
    const sim = this.sim;
    const observer = this.observer;
    const tracer = this.tracer;
    const services = this.scenario.services;
    const tag = { ...this.scenario.propagation, ...p.group.spec.propagation }.tag;
    const tagFrom = tag === true ? TAG_ATTACHMENT : typeof tag === 'string' ? tag : undefined;
    const application = spec.application;
    return {
      instance,
      *call(service: string, method: string, incoming: ServerContext): Proc<unknown> {
        const request = observer.startRequest({
          consumerGroup: application,
          consumerZone: p.zone,
          service,
          method,
          idempotent: services[service]?.methods[method]?.idempotent ?? true,
          startMs: sim.now,
        });
        if (tracer !== null) tracer.request(request, application, p.address, p.ip, p.zone, service, method, sim.now, incoming.call ?? null);
        const server = tagFrom === undefined ? incoming : { ...incoming, tagFrom };
        const value = yield* stack.call({ service, method, attachments: new Map(), request, server });
        const { outcome, cause } = outcomeOfCall(stack, value);
        observer.endRequest(request, outcome, sim.now, cause);
        if (tracer !== null) tracer.requestEnded(request, outcome, sim.now, cause);
        return answeredWithValue(outcome, cause) ? null : (value ?? outcome);
      },
    };
  }

  // PERF: one consumer-group spec per provider group, so the consumer sides of its instances (a restart
  // makes new ones) are one consumer group: they share the invokers of every pushed list (parsed URLs,
  // DubboInvokers) as the instances of a scenario's consumer group do, instead of each building its own.
  readonly #downstreamSpecs = new WeakMap<ProviderGroup, ConsumerGroupSpec | null>();

  /** The consumer side's group spec of a provider group's instances, or null when its methods call nothing. */
  #downstreamSpec(group: ProviderGroup): ConsumerGroupSpec | null {
    return downstreamConsumerSpec(group.spec, this.scenario.services);
  }

  #providersBusy(): boolean {
    for (const g of this.providerGroups) for (const p of g.instances) if (p.busy) return true;
    return false;
  }

  #requestsStarted(): number {
    return this.consumerGroups.reduce((s, g) => s + g.started, 0);
  }

  /** Requests started and not yet ended. */
  inFlight(): number {
    let n = 0;
    for (const g of this.consumerGroups) n += g.inFlight;
    return n;
  }

  /**
   * Runs the scenario: arrivals until `duration`, then drains what is in flight (at most 10 simulated
   * minutes). `onProgress` is called at every 0.5% of the duration with the simulated time and the
   * requests started; it only watches (the events processed are the same with or without it).
   * `holdPushes`: the registry may hold pushes off the agenda until the duration (`RegistryModel.holdPushes`).
   */
  run(onProgress?: (simMs: number, requests: number) => void, holdPushes = true): RunStats {
    const { durationMs } = this.scenario;
    for (const g of this.consumerGroups) g.start(durationMs);
    if (holdPushes) this.registry.holdPushes?.(true);
    if (onProgress !== undefined) {
      const chunks = 200;
      for (let k = 1; k < chunks; k++) {
        this.sim.runDue((durationMs * k) / chunks);
        onProgress(Math.min(this.sim.now, durationMs), this.#requestsStarted());
      }
    }
    this.sim.run({ until: durationMs });
    this.registry.holdPushes?.(false);
    const drainUntil = durationMs + 600_000;
    while (this.inFlight() > 0 && this.sim.peek() <= drainUntil) this.sim.step();
    // Let providers finish what they accepted, so every execution is either used or orphaned. Whether
    // they still are is read between instants, every 256th (a scan of every provider is not free), not
    // between agenda entries: how many entries an instant takes is the kernel's business (it runs some
    // at once, see `Simulation.scheduleLast`), and the run must not depend on it.
    for (let n = 0; this.sim.peek() <= drainUntil; n++) {
      if (n % 256 === 0 && !this.#providersBusy()) break;
      const instant = this.sim.peek();
      while (this.sim.peek() === instant) this.sim.step();
    }
    return {
      eventsProcessed: this.sim.eventsProcessed,
      requestsStarted: this.#requestsStarted(),
      inFlight: this.inFlight(),
      pushesHeld: this.registry.pushesHeld ?? 0,
    };
  }
}

/**
 * The consumer side of a provider group whose methods call other services (SPEC 2.10), as a
 * consumer-group spec: one reference per called service, each called method at method level
 * (a later call of the same method wins), no consumer defaults. Null when its methods call nothing.
 */
export function downstreamConsumerSpec(group: ProviderGroupSpec, services: Record<string, ServiceSpec>): ConsumerGroupSpec | null {
  const calls = group.services.flatMap((svc) => Object.values(services[svc]?.methods ?? {}).flatMap((m) => m.calls));
  if (calls.length === 0) return null;
  const reference: Record<string, ReferenceSpec> = {};
  for (const c of calls) {
    const { methods, ...own } = c.reference;
    const methodLevel = { ...own, ...(methods[c.method] ?? {}), parameters: { ...own.parameters, ...(methods[c.method]?.parameters ?? {}) } };
    const ref = (reference[c.service] ??= { ...own, parameters: { ...own.parameters }, methods: {} });
    ref.methods[c.method] = methodLevel;
  }
  return {
    application: group.application,
    zone: group.zone,
    instances: 1,
    ratePerSec: 0,
    arrival: 'poisson',
    calls: {},
    reference,
    consumerDefaults: { parameters: {} },
    attachments: {},
    userIds: 1,
    // The provider process calls downstream with its own release.
    dubbo: group.dubbo,
  };
}
