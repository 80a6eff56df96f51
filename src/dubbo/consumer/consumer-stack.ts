/**
 * One simulated consumer JVM's Dubbo side: per service, the reference's consumer URL (Dubbo's
 * attribute names and precedence), a registry-fed directory, the router chain and the cluster
 * invoker; it turns each request into an RpcInvocation and the final Result into an outcome.
 * Provider lists pushed by the registry become DubboInvokers. Invokers and the invoker list of each
 * pushed provider list are built once and shared by every instance of the consumer group (their
 * consumer URLs differ only in the host, which no invoker reads); see `SharedInvokers`.
 * With several registries (`registries:`), each registry gets its own directory and cluster, and
 * a `zone-aware` cluster over them picks the registry (Dubbo's ReferenceConfig.createInvoker).
 */
import type { Proc } from '../../engine/simulation.js';
import type { ConsumerInstance, ConsumerStack, ServiceCall } from '../../world/consumer.js';
import type { Outcome } from '../../world/observer.js';
import type { ProviderExport } from '../../world/provider.js';
import type { World } from '../../world/world.js';
import type { RegistryModel } from '../../world/registry.js';
import type { ReferenceSpec, RegistrySpec } from '../../scenario/types.js';
import type { ClusterFactory } from '../cluster/abstract-cluster-invoker.js';
import { REGISTRY_ZONE_PARAM } from '../cluster/zone-aware-cluster-invoker.js';
import { DEFAULT_CLUSTER, PREFERRED_KEY, REGISTRY_SERVICE, RpcCode, WEIGHT_KEY, ZONE_KEY } from '../constants.js';
import { DynamicDirectory, StaticDirectory } from '../directory/directory.js';
import { DubboInvoker, type CallContext, type ProtocolContext } from '../protocol/dubbo-invoker.js';
import { RpcInvocation, type ClusterInvokerLike, type Result } from '../rpc.js';
import type { RouterChainLike } from '../router/router.js';
import type { DubboRuntime } from '../runtime.js';
import { URL } from '../url.js';
import { isMatch } from '../url-utils.js';

/** The cluster over several registries (Dubbo's default for multi-registry references). */
const ZONE_AWARE_CLUSTER = 'zone-aware';

/** How the stack gets its pieces (runtime, routers, clusters) for one instance. */
export interface ConsumerStackDeps {
  runtime: DubboRuntime;
  routerChain(service: string): RouterChainLike;
  cluster(name: string): ClusterFactory;
  /** Extra consumer URL parameters on every reference (e.g. Envoy's local-zone sizes). */
  extraParams?: Record<string, string>;
  /** Invokers shared by the instances of a consumer group (one per world); a private one when absent. */
  shared?: SharedInvokers;
}

/**
 * What every instance of one consumer group shares for one reference and one registry: a
 * DubboInvoker per provider (parsed URL, consumer-first parameter view, timeouts) and, per pushed
 * provider list, the invoker list (filtered by `UrlUtils.isMatch`). A registry pushes one list
 * object per change to every subscriber, so each change is turned into invokers once, not once per
 * consumer instance; directories then hold the same immutable array.
 */
export class ReferenceInvokers {
  readonly consumerUrl: URL;
  readonly #protocol: ProtocolContext;
  /** Per provider its invoker, or null when this reference does not accept it. */
  readonly #invokers = new Map<ProviderExport, DubboInvoker | null>();
  readonly #lists = new WeakMap<readonly ProviderExport[], DubboInvoker[]>();

  constructor(consumerUrl: URL, protocol: ProtocolContext) {
    this.consumerUrl = consumerUrl;
    this.#protocol = protocol;
  }

  /** The invokers of the pushed providers this reference accepts (group/version match), in push order. */
  invokersFor(pushed: readonly ProviderExport[]): DubboInvoker[] {
    let list = this.#lists.get(pushed);
    if (list === undefined) {
      list = [];
      for (const p of pushed) {
        const inv = this.#invoker(p);
        if (inv !== null) list.push(inv);
      }
      this.#lists.set(pushed, list);
    }
    return list;
  }

  #invoker(p: ProviderExport): DubboInvoker | null {
    let inv = this.#invokers.get(p);
    if (inv === undefined) {
      const url = URL.valueOf(p.url);
      // The registry hands each subscriber only the URLs its group/version accept (UrlUtils.isMatch).
      inv = isMatch(this.consumerUrl, url) ? new DubboInvoker(p, url, this.consumerUrl, this.#protocol) : null;
      this.#invokers.set(p, inv);
    }
    return inv;
  }
}

/** The `ReferenceInvokers` of one world, by consumer group, service and registry. */
export class SharedInvokers {
  readonly #byGroup = new WeakMap<object, WeakMap<RegistryModel, Map<string, ReferenceInvokers>>>();

  /** The shared invokers of (group, registry, service), created by `create` on first use. */
  get(group: object, registry: RegistryModel, service: string, create: () => ReferenceInvokers): ReferenceInvokers {
    let byRegistry = this.#byGroup.get(group);
    if (byRegistry === undefined) this.#byGroup.set(group, (byRegistry = new WeakMap()));
    let byService = byRegistry.get(registry);
    if (byService === undefined) byRegistry.set(registry, (byService = new Map()));
    let refs = byService.get(service);
    if (refs === undefined) byService.set(service, (refs = create()));
    return refs;
  }
}

/** One reference (`<dubbo:reference>`) inside one consumer instance. */
export interface ServiceReference {
  service: string;
  consumerUrl: URL;
  /** The registry directory (the first registry's with several registries). */
  directory: DynamicDirectory;
  /** One registry directory per subscribed registry (multi-registry), else `[directory]`. */
  directories: DynamicDirectory[];
  invoker: ClusterInvokerLike;
}

/** Renders reference attributes as consumer URL parameters (Dubbo's names), optionally method-prefixed. */
export function referenceParams(ref: Partial<ReferenceSpec>, prefix = ''): Record<string, string> {
  const p: Record<string, string> = {};
  if (ref.timeoutMs !== undefined) p[`${prefix}timeout`] = String(ref.timeoutMs);
  if (ref.retries !== undefined) p[`${prefix}retries`] = String(ref.retries);
  if (ref.loadbalance !== undefined) p[`${prefix}loadbalance`] = ref.loadbalance;
  if (ref.cluster !== undefined) p[`${prefix}cluster`] = ref.cluster;
  if (ref.forks !== undefined) p[`${prefix}forks`] = String(ref.forks);
  if (ref.sticky !== undefined) p[`${prefix}sticky`] = String(ref.sticky);
  if (ref.actives !== undefined) p[`${prefix}actives`] = String(ref.actives);
  if (ref.tag !== undefined) p[`${prefix}dubbo.tag`] = ref.tag;
  for (const [k, v] of Object.entries(ref.parameters ?? {})) p[`${prefix}${k}`] = String(v);
  return p;
}

/** Maps a final Result to the request's outcome (and a cause for No-provider outcomes). */
export function classify(result: Result): { outcome: Outcome; cause?: string } {
  if (result.kind === 'ok') {
    if (result.limited !== undefined) return { outcome: 'rejected', cause: 'provider:tps' };
    return { outcome: result.bizException !== undefined ? 'biz' : 'ok' };
  }
  const e = result.error;
  switch (e.code) {
    case RpcCode.TIMEOUT_EXCEPTION:
      return { outcome: 'timeout' };
    case RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER:
      return { outcome: 'noProvider', cause: e.cause ?? 'directory:empty' };
    case RpcCode.FORBIDDEN_EXCEPTION:
      return { outcome: 'forbidden', cause: e.cause };
    case RpcCode.BIZ_EXCEPTION:
      return { outcome: 'biz' };
    case RpcCode.NETWORK_EXCEPTION:
      // A full provider pool, or ExecuteLimitFilter's refusal (a SERVICE_ERROR response): rejected.
      if (e.cause === 'threadpool:exhausted') return { outcome: 'rejected', cause: 'provider:threadpool' };
      return e.cause === 'executes:limit' ? { outcome: 'rejected', cause: 'provider:executes' } : { outcome: 'network' };
    case RpcCode.LIMIT_EXCEEDED_EXCEPTION:
      // The consumer's own `actives` limit refused the call: a rejection, on the consumer side.
      return { outcome: 'rejected', cause: 'consumer:actives' };
    default:
      if (e.message.startsWith('No provider available')) {
        return { outcome: 'noProvider', cause: e.cause ?? 'cluster:none-available' };
      }
      return { outcome: 'network' };
  }
}

/** The Dubbo consumer stack of one simulated instance. */
export class DubboConsumerStack implements ConsumerStack {
  readonly instance: ConsumerInstance;
  readonly references = new Map<string, ServiceReference>();
  readonly #world: World;
  readonly #deps: ConsumerStackDeps;
  readonly #protocol: ProtocolContext;

  constructor(instance: ConsumerInstance, world: World, deps: ConsumerStackDeps) {
    this.instance = instance;
    this.#world = world;
    this.#deps = deps;
    this.#protocol = {
      sim: world.sim,
      network: world.network,
      observer: world.observer,
      consumerZone: instance.zone,
      isKnownGone: (p) => world.registry.isKnownGone(p),
    };
  }

  get runtime(): DubboRuntime {
    return this.#deps.runtime;
  }

  refer(service: string): void {
    if (this.references.has(service)) return;
    const group = this.instance.group;
    const ref = group.reference[service];
    // Precedence: method level over interface level over consumer defaults (later keys win).
    const params: Record<string, string> = {
      application: group.application,
      interface: service,
      side: 'consumer',
      zone: this.instance.zone,
      ...this.#deps.extraParams,
      ...referenceParams(group.consumerDefaults),
      ...(ref ? referenceParams(ref) : {}),
    };
    for (const [m, mref] of Object.entries(ref?.methods ?? {})) Object.assign(params, referenceParams(mref, `${m}.`));
    const scenario = this.#world.scenario;
    const registryNames = group.registries ?? Object.keys(scenario.registries);
    // The zone-aware cluster's zone: the consumer's own unless the reference names one.
    if (registryNames.length > 0) params[REGISTRY_ZONE_PARAM] ??= this.instance.zone;
    const consumerUrl = new URL({ protocol: 'consumer', host: this.instance.ip, path: service, params });
    const clusterName = consumerUrl.getParameter('cluster') ?? DEFAULT_CLUSTER;

    if (registryNames.length === 0) {
      const registryUrl = URL.valueOf(
        `registry://registry/org.apache.dubbo.registry.RegistryService?registry=${scenario.registry.type}`,
      );
      const directory = this.#registryDirectory(service, consumerUrl, registryUrl, this.#world.registry, scenario.registry);
      const invoker = this.#deps.cluster(clusterName)(directory, this.runtime);
      this.references.set(service, { service, consumerUrl, directory, directories: [directory], invoker });
      return;
    }

    // Multi-registry (ReferenceConfig.createInvoker): one registry directory and cluster per
    // registry, joined over a StaticDirectory of the last registry URL by the registry URL's
    // cluster, `zone-aware` by default.
    const directories: DynamicDirectory[] = [];
    const perRegistry: ClusterInvokerLike[] = [];
    for (const name of registryNames) {
      const spec = scenario.registries[name];
      const model = this.#world.registries.get(name);
      if (spec === undefined || model === undefined) {
        throw new Error(`consumer group "${group.application}" names unknown registry "${name}"`);
      }
      const registryUrl = new URL({
        protocol: 'registry',
        host: name,
        path: REGISTRY_SERVICE,
        params: {
          registry: spec.type,
          ...(spec.zone !== undefined ? { [ZONE_KEY]: spec.zone } : {}),
          [PREFERRED_KEY]: String(spec.preferred),
          [WEIGHT_KEY]: String(spec.weight),
        },
      });
      const directory = this.#registryDirectory(service, consumerUrl, registryUrl, model, spec);
      directories.push(directory);
      perRegistry.push(this.#deps.cluster(clusterName)(directory, this.runtime));
    }
    const top = new StaticDirectory(this.runtime, directories.at(-1)!.getUrl(), consumerUrl, perRegistry);
    const invoker = this.#deps.cluster(ZONE_AWARE_CLUSTER)(top, this.runtime);
    this.references.set(service, { service, consumerUrl, directory: directories[0]!, directories, invoker });
  }

  // A RegistryDirectory: subscribes to `registry` and turns each pushed list into DubboInvokers.
  #registryDirectory(
    service: string,
    consumerUrl: URL,
    registryUrl: URL,
    registry: RegistryModel,
    spec: RegistrySpec,
  ): DynamicDirectory {
    const directory = new DynamicDirectory(this.runtime, registryUrl, consumerUrl, this.#deps.routerChain(service));
    const protocol: ProtocolContext =
      registry === this.#world.registry ? this.#protocol : { ...this.#protocol, isKnownGone: (p) => registry.isKnownGone(p) };
    const shared = (this.#deps.shared ?? (this.#deps.shared = new SharedInvokers())).get(
      this.instance.group,
      registry,
      service,
      () => new ReferenceInvokers(consumerUrl, protocol),
    );
    const emptyProtection = spec.emptyProtection;
    registry.subscribe(this.instance, service, (pushed) => {
      const invokers = shared.invokersFor(pushed);
      if (invokers.length === 0) {
        // The registry pushes empty:// unless empty protection is on (then an empty list, which is ignored).
        if (!emptyProtection) directory.notifyEmpty();
        return;
      }
      // DIVERGENCE: Dubbo destroys the invoker of a provider that left the list; here invokers are shared
      // by the group's instances, so none is destroyed. A dropped invoker is in no list of this instance,
      // and failover lists again before each retry, so nothing can pick it (its availability follows the
      // provider's connection, as before).
      directory.notify(invokers);
    });
    return directory;
  }

  *call(call: ServiceCall): Proc<{ outcome: Outcome; cause?: string }> {
    const ref = this.references.get(call.service)!;
    const context: CallContext = { request: call.request };
    const invocation = new RpcInvocation({
      methodName: call.method,
      serviceName: call.service,
      attachments: call.attachments,
      context,
    });
    const result = yield* ref.invoker.invoke(invocation);
    return classify(result);
  }
}
