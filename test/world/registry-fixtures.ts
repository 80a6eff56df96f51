/**
 * Test factories for the registry models: a hand-built normalized Scenario (two zones, one
 * service), an observer that records pushes and attempts, a consumer stack that only logs the
 * lists it is pushed, and a World wired with `createRegistry` (optionally with the real Dubbo
 * consumer stack, without routers).
 */
import type { DistSpec } from '../../src/engine/distributions.js';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import type { Proc } from '../../src/engine/simulation.js';
import { DubboConsumerStack, SharedInvokers } from '../../src/stack/consumer-stack.js';
import { clusters } from '../../src/dubbo/extensions.js';
import { EMPTY_CHAIN } from '../../src/dubbo/router/router.js';
import { createRuntime } from '../../src/dubbo/create-runtime.js';
import type {
  ConsumerGroupSpec,
  ProviderGroupSpec,
  RegistrySpec,
  Scenario,
} from '../../src/model/types.js';
import { outcomeOfCall, type ConsumerInstance, type ConsumerStack, type ServiceCall } from '../../src/world/consumer.js';
import type { Outcome, RequestHandle, WorldObserver } from '../../src/metrics/observer.js';
import { EPOCH_MS, type ProviderInstance } from '../../src/world/provider.js';
import { createRegistry } from '../../src/world/registry-factory.js';
import { World } from '../../src/world/world.js';

export const SERVICE = 'com.example.UserService';
export const METHOD = 'getUserById';

export const constant = (value: number): DistSpec => ({ dist: 'constant', value });

/** A registry spec with SPEC defaults (nacos, push lag uniform 20..300 ms). */
export function registrySpec(over: Partial<RegistrySpec> = {}): RegistrySpec {
  return {
    type: 'nacos',
    pushLag: { dist: 'uniform', min: 20, max: 300 },
    heartbeatMs: 5000,
    unhealthyAfterMs: 15_000,
    removeAfterMs: 30_000,
    sessionTimeoutMs: 40_000,
    emptyProtection: false,
    registration: 'interface',
    registerDelayMs: 0,
    connectionBound: false,
    preferred: false,
    weight: 100,
    ...over,
  };
}

export function providerGroup(over: Partial<ProviderGroupSpec> = {}): ProviderGroupSpec {
  const zone = over.zone ?? 'zoneA';
  const service = over.service ?? SERVICE;
  return {
    name: `users-${zone}`,
    service,
    services: over.services ?? [service],
    exports: {},
    zone,
    count: 2,
    threads: 200,
    queues: 0,
    weight: 100,
    warmupMs: 0,
    application: 'user-provider',
    params: {},
    dubbo: defaultProfile('3.3'),
    ...over,
  };
}

/**
 * A 3.3 consumer profile without `delay-notification`: every change reaches the listeners as its own
 * push (tests about the registry's pushes, not about the consumer's notifier).
 */
export const NO_NOTIFICATION_DELAY = { ...defaultProfile('3.3'), delayNotificationMs: 0 };

export function consumerGroup(over: Partial<ConsumerGroupSpec> = {}): ConsumerGroupSpec {
  return {
    application: 'web',
    zone: 'zoneA',
    instances: 2,
    ratePerSec: 0,
    arrival: 'poisson',
    calls: { [`${SERVICE}.${METHOD}`]: 1 },
    reference: {},
    consumerDefaults: { parameters: {} },
    attachments: {},
    userIds: 1_000_000,
    dubbo: defaultProfile('3.3'),
    ...over,
  };
}

/** A normalized scenario: zoneA and zoneB, one service with a 5 ms method, no faults. */
export function scenario(over: {
  registry?: Partial<RegistrySpec>;
  registries?: Record<string, Partial<RegistrySpec>>;
  providers?: Partial<ProviderGroupSpec>[];
  consumers?: Partial<ConsumerGroupSpec>[];
} = {}): Scenario {
  const registry = registrySpec(over.registry);
  return {
    name: 'registry-test',
    description: '',
    seed: 1,
    durationMs: 600_000,
    warmupMs: 0,
    bucketMs: 1000,
    zones: { zoneA: { cidr: '10.10.0.0/16' }, zoneB: { cidr: '10.20.0.0/16' } },
    network: { sameZone: constant(0.2), default: constant(2), pairs: [] },
    registry,
    registries: Object.fromEntries(
      Object.entries(over.registries ?? {}).map(([n, r]) => [n, { ...registry, ...r }]),
    ),
    services: {
      [SERVICE]: {
        methods: { [METHOD]: { serviceTime: constant(5), idempotent: true, bizErrorRate: 0, calls: [], parallel: false } },
      },
    },
    providers: (over.providers ?? [{}]).map(providerGroup),
    consumers: (over.consumers ?? [{}]).map(consumerGroup),
    routers: [],
    faults: [],
    strategies: {},
  };
}

/** One list delivered to one consumer instance. */
export interface Delivery {
  tMs: number;
  instance: string;
  zone: string;
  addresses: string[];
}

/** Records pushes, attempts and free-form counters. */
export class TestObserver implements WorldObserver {
  readonly pushes: Array<{ instance: string; group: string; bytes: number; level: string }> = [];
  readonly attempts: Array<{ crossZone: boolean; stale: boolean; providerGroup: string }> = [];
  readonly counters = new Map<string, number>();

  startRequest(): RequestHandle {
    return { ended: false };
  }
  attempt(_req: RequestHandle, info: { crossZone: boolean; stale: boolean; providerGroup: string }): void {
    this.attempts.push(info);
  }
  execution(): void {}
  rejected(): void {}
  orphaned(): void {}
  endRequest(): void {}
  push(consumerInstance: string, consumerGroup: string, bytes: number, level = 'interface'): void {
    this.pushes.push({ instance: consumerInstance, group: consumerGroup, bytes, level });
  }
  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }
  marker(): void {}

  get pushBytes(): number {
    return this.pushes.reduce((s, p) => s + p.bytes, 0);
  }
}

/** A consumer stack that only logs the lists it is pushed. */
class ListStack implements ConsumerStack {
  constructor(
    readonly instance: ConsumerInstance,
    readonly world: World,
    readonly log: Delivery[],
  ) {}

  refer(service: string): void {
    this.world.registry.subscribe(this.instance, service, (providers) => {
      this.log.push({
        tMs: this.world.sim.now,
        instance: this.instance.id,
        zone: this.instance.zone,
        addresses: providers.map((p) => p.address),
      });
    });
  }

  *call(_call: ServiceCall): Proc<{ outcome: Outcome }> {
    return { outcome: 'ok' };
  }
}

export interface TestWorld {
  world: World;
  observer: TestObserver;
  /** Lists delivered to ListStack consumers, in delivery order. */
  log: Delivery[];
}

/** A world with `createRegistry`; `stack: 'dubbo'` plugs in the real consumer stack (no routers). */
export function makeWorld(s: Scenario, options: { seed?: number; stack?: 'list' | 'dubbo' } = {}): TestWorld {
  const observer = new TestObserver();
  const log: Delivery[] = [];
  // As in a run: the instances of the world share invokers and registry URLs.
  const shared = new SharedInvokers();
  const world = new World(s, {
    seed: options.seed ?? 1,
    observer,
    makeRegistry: (w) => createRegistry(w),
    consumerStack: (instance, w) => {
      if (options.stack !== 'dubbo') return new ListStack(instance, w, log);
      const runtime = createRuntime({
        sim: w.sim,
        random: w.streams.stream(`lb/${instance.id}`),
        consumerHost: instance.ip,
        clock: { now: () => EPOCH_MS + w.sim.now },
      });
      return new DubboConsumerStack(instance, w, {
        runtime,
        routerChain: () => EMPTY_CHAIN,
        cluster: (name) => clusters[name]!,
        shared,
      });
    },
  });
  return { world, observer, log };
}

/** Every provider instance of the world, in group then start order. */
export function providers(world: World): ProviderInstance[] {
  return world.providerGroups.flatMap((g) => g.instances);
}

/** Runs `fn` at simulated time `atMs`. */
export function at(world: World, atMs: number, fn: () => void): void {
  world.sim.schedule(atMs - world.sim.now, fn);
}

/**
 * Starts one more provider of the first group at 1.25 s, 2.25 s, ... (`count` of them), so that their
 * liveness ticks are out of step; the returned list fills as they start.
 */
export function startStaggered(world: World, count: number): Array<{ p: ProviderInstance; startMs: number }> {
  const group = world.providerGroups[0]!;
  const late: Array<{ p: ProviderInstance; startMs: number }> = [];
  for (let i = 1; i <= count; i++) {
    const startMs = i * 1000 + 250;
    at(world, startMs, () => late.push({ p: world.startProvider(group), startMs }));
  }
  return late;
}

/** The last list each consumer instance got at or before `tMs`. */
export function listsAt(log: Delivery[], tMs: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of log) if (d.tMs <= tMs) out.set(d.instance, d.addresses);
  return out;
}

/** Per consumer instance: the first delivery time after `fromMs` whose list satisfies `pred`. */
export function firstDelivery(log: Delivery[], fromMs: number, pred: (addresses: string[]) => boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of log) if (d.tMs > fromMs && !out.has(d.instance) && pred(d.addresses)) out.set(d.instance, d.tMs);
  return out;
}

/** Runs one call (with `attachments`) through a consumer instance's stack to its end; returns the outcome. */
export function callOnce(world: World, instance: ConsumerInstance, attachments: Record<string, string> = {}): { outcome?: Outcome; cause?: string } {
  const out: { outcome?: Outcome; cause?: string } = {};
  const stack = instance.stack;
  world.sim.process(
    (function* () {
      const r = yield* stack.call({ service: SERVICE, method: METHOD, attachments: new Map(Object.entries(attachments)), request: { ended: false } });
      Object.assign(out, outcomeOfCall(stack, r));
    })(),
  );
  world.sim.run({ until: world.sim.now + 10_000 });
  return out;
}

/** The black-hole fault as the fault timeline applies it. */
export function blackhole(world: World, p: ProviderInstance): void {
  p.state = 'blackhole';
  world.registry.providerStopped(p, false);
}

/** The crash fault as the fault timeline applies it. */
export function crash(world: World, p: ProviderInstance): void {
  p.state = 'crashed';
  world.registry.providerStopped(p, false);
}
