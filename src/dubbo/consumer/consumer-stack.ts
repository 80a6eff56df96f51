/**
 * One simulated consumer JVM's Dubbo side: per service, the reference's consumer URL (Dubbo's
 * attribute names and precedence), a registry-fed directory, the router chain and the cluster
 * invoker; it turns each request into an RpcInvocation and the final Result into an outcome.
 * Provider lists pushed by the registry become DubboInvokers, reused while the provider stays.
 * With several registries (`registries:`), each registry gets its own directory and cluster, and
 * a `zone-aware` cluster over them picks the registry (Dubbo's ReferenceConfig.createInvoker).
 */
import type { Proc } from '../../engine/simulation.js';
import type { ConsumerInstance, ConsumerStack, ServiceCall } from '../../world/consumer.js';
import type { Outcome } from '../../world/observer.js';
import type { ProviderInstance } from '../../world/provider.js';
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
  if (result.kind === 'ok') return { outcome: result.bizException !== undefined ? 'biz' : 'ok' };
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
      return { outcome: e.cause === 'threadpool:exhausted' ? 'rejected' : 'network' };
    case RpcCode.LIMIT_EXCEEDED_EXCEPTION:
      // The consumer's own `actives` limit refused the call: a rejection, on the consumer side.
      return { outcome: 'rejected' };
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
    const invokers = new Map<ProviderInstance, DubboInvoker>();
    const emptyProtection = spec.emptyProtection;
    const accepted = new Map<ProviderInstance, boolean>();
    registry.subscribe(this.instance, service, (pushed) => {
      // The registry hands each subscriber only the URLs its group/version accept (UrlUtils.isMatch).
      const providers = pushed.filter((p) => {
        let ok = accepted.get(p);
        if (ok === undefined) accepted.set(p, (ok = isMatch(consumerUrl, URL.valueOf(p.url))));
        return ok;
      });
      if (providers.length === 0) {
        // The registry pushes empty:// unless empty protection is on (then an empty list, which is ignored).
        if (!emptyProtection) {
          for (const inv of invokers.values()) inv.destroy();
          invokers.clear();
          directory.notifyEmpty();
        }
        return;
      }
      const next: DubboInvoker[] = [];
      const keep = new Set<ProviderInstance>();
      for (const p of providers) {
        keep.add(p);
        let inv = invokers.get(p);
        if (inv === undefined) {
          inv = new DubboInvoker(p, URL.valueOf(p.url), consumerUrl, protocol);
          invokers.set(p, inv);
        }
        next.push(inv);
      }
      for (const [p, inv] of invokers) {
        if (!keep.has(p)) {
          inv.destroy();
          invokers.delete(p);
        }
      }
      directory.notify(next);
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
