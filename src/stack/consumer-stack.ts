/**
 * One simulated consumer JVM's Dubbo side: per service, the reference's consumer URL (Dubbo's
 * attribute names and precedence), a registry-fed directory, the router chain and the cluster
 * invoker; it turns each request into an RpcInvocation and the final Result into an outcome.
 * Provider lists pushed by the registry become DubboInvokers. Invokers and the invoker list of each
 * pushed provider list are built once and shared by every instance of the consumer group (their
 * consumer URLs differ only in the host, which no invoker reads); see `SharedInvokers`.
 * Per registry, the reference subscribes the discovery levels its migration step names (the group's
 * Dubbo profile, or the registry's explicit `registration`): one level gets its directory and
 * cluster; both (3.3 APPLICATION_FIRST) get a directory and cluster each under a MigrationInvoker,
 * which calls through the application level whenever it has addresses.
 * With several registries (`registries:`), each registry gets its own invoker, and a `zone-aware`
 * cluster over them picks the registry (Dubbo's ReferenceConfig.createInvoker).
 * A multi-group reference (`group: "*"` or `a,b`) gets the `mergeable` cluster over one cluster
 * invoker per group (RegistryProtocol.refer, RegistryDirectory.toMergeInvokerList). A reference
 * that sets `mock` has each of these clusters (not the zone-aware one over registries, which
 * ReferenceConfig joins unwrapped) wrapped in MockClusterInvoker, as Dubbo's MockClusterWrapper does.
 */
import type { Proc } from '../engine/simulation.js';
import { NO_CALL_ATTACHMENTS, type ConsumerInstance, type ConsumerStack, type ServiceCall } from '../world/consumer.js';
import { EMPTY_RESULT_CAUSE, type Outcome } from '../metrics/observer.js';
import type { ProviderExport } from '../world/provider.js';
import type { World } from '../world/world.js';
import type { RegistryModel } from '../world/registry.js';
import type { ReferenceSpec, RegistrySpec } from '../model/types.js';
import { invokeAtStart, type ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import { mockCauseOf, mockConfigured, MockClusterInvoker } from '../dubbo/cluster/mock-cluster-invoker.js';
import { CLUSTER_KEY, DEFAULT_CLUSTER, PREFERRED_KEY, REGISTRY_SERVICE, RpcCode, WEIGHT_KEY, ZONE_KEY } from '../dubbo/constants.js';
import { DynamicDirectory, StaticDirectory, type Directory } from '../dubbo/directory/directory.js';
import { concurrentHashMapKeyOrder, hashMapKeyOrder, objectsHash, stringHashCode } from '../dubbo/directory/java-hash-order.js';
import { consumerContext } from '../dubbo/filter/consumer-context-filter.js';
import { sentinelBlockOf } from './sentinel-resources.js';
import { HashedWheelTimer } from '../dubbo/hashed-wheel-timer.js';
import { DubboInvoker, type CallContext, type ProtocolContext } from './dubbo-invoker.js';
import { VersionChain } from '../dubbo/per-list.js';
import { NO_ATTACHMENTS } from '../dubbo/no-attachments.js';
import { ended, RpcInvocation, type ClusterInvokerLike, type Invoker, type Result } from '../dubbo/rpc.js';
import type { RouterChainLike } from '../dubbo/router/router.js';
import type { DubboRuntime } from '../dubbo/runtime.js';
import { internParams, ServiceAddressURL, URL } from '../dubbo/url.js';
import { isMatch } from '../dubbo/url-utils.js';
import { MIGRATION_STEP_KEY, MigrationInvoker } from '../dubbo/registry/migration-invoker.js';
import { consumerMigrationStep, subscribedLevels, type DiscoveryLevel } from '../world/discovery-levels.js';

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
  /**
   * Sentinel in this JVM (stack/sentinel-hub.ts): the calls' arguments, and under 3.x its ClusterFilter
   * around the whole reference call (`invoke`); absent when the scenario gives this JVM no Sentinel.
   */
  sentinel?: {
    argumentsOf(): readonly unknown[];
    readonly invoke: ((service: string, method: string, args: readonly unknown[], inner: () => Proc<Result>) => Proc<Result>) | undefined;
  };
}

/** The cluster of a multi-group reference (RegistryProtocol's `MERGEABLE_CLUSTER_NAME`). */
const MERGEABLE_CLUSTER = 'mergeable';

/**
 * Which Dubbo directory turns a pushed list into invokers: `RegistryDirectory` (interface-level
 * discovery) or `ServiceDiscoveryRegistryDirectory` (application level). They order the list differently.
 */
export type DirectoryKind = DiscoveryLevel;

/**
 * What every instance of one consumer group shares for one reference and one registry: a
 * DubboInvoker per provider (parsed URL, consumer-first parameter view, timeouts) and, per pushed
 * provider list, the invoker list (filtered by `UrlUtils.isMatch`, in the directory's order) and,
 * for a multi-group reference, its split by group. A registry pushes one list object per change to
 * every subscriber, so each change is turned into invokers once, not once per consumer instance;
 * directories then hold the same immutable arrays.
 */
export class ReferenceInvokers {
  readonly consumerUrl: URL;
  readonly #protocol: ProtocolContext;
  readonly #kind: DirectoryKind;
  /** Per provider its invoker, or null when this reference does not accept it. */
  readonly #invokers = new Map<ProviderExport, DubboInvoker | null>();
  /** Per invoker, the hash of its key in the directory's invoker map (application level). */
  readonly #keyHashes = new Map<DubboInvoker, number>();
  readonly #lists = new WeakMap<readonly ProviderExport[], DubboInvoker[]>();
  readonly #groups = new WeakMap<readonly ProviderExport[], DubboInvoker[][]>();
  /** The invoker lists built last, each linked to the one before (see `VersionChain`). */
  readonly #versions = new VersionChain();

  /** The provider URL the registry hands out (a simplified registry's is shorter than the export's). */
  readonly #urlOf: (p: ProviderExport) => string;

  constructor(consumerUrl: URL, protocol: ProtocolContext, kind: DirectoryKind = 'interface', urlOf: (p: ProviderExport) => string = (p) => p.url) {
    this.consumerUrl = consumerUrl;
    this.#protocol = protocol;
    this.#kind = kind;
    this.#urlOf = urlOf;
  }

  /**
   * The invokers of the pushed providers this reference accepts (group/version match), in the
   * directory's order: `new ArrayList<>(newUrlInvokerMap.values())` of the ConcurrentHashMap that
   * `toInvokers` fills in push order.
   */
  invokersFor(pushed: readonly ProviderExport[]): DubboInvoker[] {
    let list = this.#lists.get(pushed);
    if (list === undefined) {
      list = [];
      for (const p of pushed) {
        const inv = this.#invoker(p);
        if (inv !== null) list.push(inv);
      }
      if (this.#kind === 'application' && list.length > 1) {
        // ServiceDiscoveryRegistryDirectory.toInvokers: new ConcurrentHashMap<>((int) (urls.size() / 0.75f + 1))
        // keyed by ProtocolServiceKeyWithAddress, whose hash is made of strings only, so Java's order is reproducible.
        // DIVERGENCE: keys sharing a bin keep the push order; Dubbo's input order is the revisions in sorted order,
        // then the registry's instance order (ServiceInstancesChangedListener.getServiceUrlsCache).
        const capacity = Math.trunc(Math.fround(Math.fround(list.length / 0.75) + 1));
        list = concurrentHashMapKeyOrder(list, (inv) => this.#keyHashes.get(inv)!, capacity);
      }
      // DIVERGENCE: interface level keeps the push order. RegistryDirectory.toInvokers keys its
      // ConcurrentHashMap by the provider URL, whose hashCode folds in URLParam.hashCode: the
      // indexes of DynamicParamTable's keys (sorted by System.identityHashCode when the process
      // starts) and of each parameter value (numbered in the order that process first saw it). The
      // order is therefore fixed within one consumer process but not a function of the URLs: it
      // cannot be computed, and two consumer processes may disagree. What depends on it: the
      // provider that gets every call under `available` (here the first pushed, the same for every
      // instance; in Dubbo each process's own first), broadcast's call order, round robin's cycle
      // at equal weights and which provider a random or least-active draw maps to.
      this.#lists.set(pushed, list);
      this.#versions.add(list);
    }
    return list;
  }

  /**
   * RegistryDirectory.toMergeInvokerList's split of `invokersFor(pushed)` by the provider's group:
   * a `HashMap<String, List<Invoker>>` filled with `computeIfAbsent` in list order, iterated by
   * `values()` (each group's invokers keep the list order).
   */
  groupsFor(pushed: readonly ProviderExport[]): DubboInvoker[][] {
    let groups = this.#groups.get(pushed);
    if (groups === undefined) {
      const byGroup = new Map<string, DubboInvoker[]>();
      for (const inv of this.invokersFor(pushed)) {
        const group = inv.getUrl().getParameter('group') ?? '';
        let list = byGroup.get(group);
        if (list === undefined) byGroup.set(group, (list = []));
        list.push(inv);
      }
      const order = hashMapKeyOrder([...byGroup.keys()], stringHashCode, { insertion: 'computeIfAbsent' });
      groups = order.map((g) => byGroup.get(g)!);
      this.#groups.set(pushed, groups);
    }
    return groups;
  }

  #invoker(p: ProviderExport): DubboInvoker | null {
    let inv = this.#invokers.get(p);
    if (inv === undefined) {
      const url = parsedUrlOf(p, this.#urlOf(p));
      // The registry hands each subscriber only the URLs its group/version accept (UrlUtils.isMatch).
      inv = isMatch(this.consumerUrl, url) ? new DubboInvoker(p, url, this.consumerUrl, this.#protocol) : null;
      this.#invokers.set(p, inv);
      if (inv !== null && this.#kind === 'application') {
        // ProtocolServiceKeyWithAddress.hashCode: Objects.hash(Objects.hash(Objects.hash(interface, group,
        // version), protocol), address), address = ServiceInstance.getAddress() = host:port.
        const serviceKey = objectsHash(url.getServiceInterface(), url.getParameter('group'), url.getParameter('version'));
        const address = url.port > 0 ? `${url.host}:${url.port}` : url.host;
        this.#keyHashes.set(inv, objectsHash(objectsHash(serviceKey, url.protocol), address));
      }
    }
    return inv;
  }
}

/**
 * RegistryProtocol.refer's test for a multi-group reference: `group` is `*`, or splits on commas
 * (`COMMA_SPLIT_PATTERN`, Java's `split`, which drops trailing empty strings) into more than one part.
 */
export function isMergeableGroup(group: string | undefined): boolean {
  if (group === undefined || group === '') return false;
  if (group === '*') return true;
  const parts = group.split(/\s*[,]+\s*/);
  while (parts.length > 0 && parts.at(-1) === '') parts.pop();
  return parts.length > 1;
}

// The parsed provider URL of each export, with the text it was parsed from (a simplified registry's differs), or
// null for the export's own URL (PERF: which the export keeps in parts, not whole).
// Kept on the export (`ProviderExport.parsedUrl`, not a weak map: see there).
interface ParsedUrl {
  text: string | null;
  url: URL;
}
// Per provider group, one parameter map per provider URL query text: the group's processes share them.
const paramsByGroup = new WeakMap<object, Map<string, ReadonlyMap<string, string>>>();

/**
 * The URL `text` of export `p`, parsed once for every reference that lists `p` (URLs are immutable). PERF: at the
 * seed articles' scale each consumer group parsing its own copy of every provider URL it lists was a large share of
 * the heap (a parameter map of some forty entries per URL).
 */
function parsedUrlOf(p: ProviderExport, text: string): URL {
  // (An export built outside a world, as tests do, may have no slot, and has no group: its URL keeps its own parameters.)
  const known = p.parsedUrl as ParsedUrl | null | undefined;
  if (known != null && (known.text ?? p.url) === text) return known.url;
  const group: object | undefined = p.group;
  let params = group === undefined ? undefined : paramsByGroup.get(group);
  if (group !== undefined && params === undefined) paramsByGroup.set(group, (params = new Map()));
  const url = URL.valueOf(text, params);
  p.parsedUrl = { text: text === p.url ? null : text, url } satisfies ParsedUrl;
  return url;
}

/** The `ReferenceInvokers` of one world, by consumer group, service and registry. */
export class SharedInvokers {
  readonly #byGroup = new WeakMap<object, WeakMap<RegistryModel, Map<string, ReferenceInvokers>>>();
  /** Consumer URL parameter maps by content (`internParams`). */
  readonly params = new Map<string, ReadonlyMap<string, string>>();
  readonly #urls = new Map<string, URL>();

  /** One immutable URL per text for every instance (the registry URLs of their directories), made by `make` on first use. */
  url(text: string, make: () => URL = () => URL.valueOf(text)): URL {
    let url = this.#urls.get(text);
    if (url === undefined) this.#urls.set(text, (url = make()));
    return url;
  }

  /** The shared invokers of (group, registry, service, discovery level), created by `create` on first use. */
  get(group: object, registry: RegistryModel, service: string, create: () => ReferenceInvokers, level: DiscoveryLevel = 'interface'): ReferenceInvokers {
    let byRegistry = this.#byGroup.get(group);
    if (byRegistry === undefined) this.#byGroup.set(group, (byRegistry = new WeakMap()));
    let byService = byRegistry.get(registry);
    if (byService === undefined) byRegistry.set(registry, (byService = new Map()));
    const key = level === 'interface' ? service : `${service}\u0000${level}`;
    let refs = byService.get(key);
    if (refs === undefined) byService.set(key, (refs = create()));
    return refs;
  }
}

/** One reference (`<dubbo:reference>`) inside one consumer instance. */
export interface ServiceReference {
  service: string;
  consumerUrl: URL;
  /**
   * The registry directory calls go through now (the first registry's with several registries; with
   * both discovery levels, the one the MigrationInvoker prefers).
   */
  readonly directory: DynamicDirectory;
  /** Every registry directory: per subscribed registry, one per discovery level it reads. */
  directories: DynamicDirectory[];
  invoker: ClusterInvokerLike;
  /**
   * With `mock` set: the MockClusterInvoker that answers a call ConsumerContextFilter ended before the
   * cluster (the reference's own, or the first registry's with several registries).
   */
  mock?: MockClusterInvoker;
}

/** One registry's part of a reference: its invoker and the directory (or directories, one per level) under it. */
interface RegistryInvoker {
  invoker: ClusterInvokerLike;
  /** With `mock` set: the MockClusterInvoker of its first level. */
  mock?: MockClusterInvoker;
  /** The directory calls go through now: its only level's, or the one its MigrationInvoker prefers. */
  directoryFrom: DynamicDirectory | MigrationInvoker<DynamicDirectory>;
  directories: DynamicDirectory[];
}

/** The directory calls of `from` go through now. */
function currentDirectory(from: DynamicDirectory | MigrationInvoker<DynamicDirectory>): DynamicDirectory {
  return from instanceof MigrationInvoker ? from.getDirectory() : from;
}

/**
 * PERF: a class, not an object literal with a getter and a spread (V8 kept those in dictionary mode, 470
 * bytes of properties each): a cohort estate holds 64,000 references.
 */
class Reference implements ServiceReference {
  readonly service: string;
  readonly consumerUrl: URL;
  readonly directories: DynamicDirectory[];
  readonly invoker: ClusterInvokerLike;
  readonly mock: MockClusterInvoker | undefined;
  readonly #directoryFrom: DynamicDirectory | MigrationInvoker<DynamicDirectory>;

  constructor(service: string, consumerUrl: URL, from: RegistryInvoker, directories: DynamicDirectory[], invoker: ClusterInvokerLike) {
    this.service = service;
    this.consumerUrl = consumerUrl;
    this.directories = directories;
    this.invoker = invoker;
    this.mock = from.mock;
    this.#directoryFrom = from.directoryFrom;
  }

  get directory(): DynamicDirectory {
    return currentDirectory(this.#directoryFrom);
  }
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
  if (ref.mock !== undefined) p[`${prefix}mock`] = ref.mock;
  for (const [k, v] of Object.entries(ref.parameters ?? {})) p[`${prefix}${k}`] = String(v);
  return p;
}

// PERF: the outcomes without a cause, one frozen object each (one per request otherwise).
const OK_OUTCOME = Object.freeze({ outcome: 'ok' as Outcome });
const BIZ_OUTCOME = Object.freeze({ outcome: 'biz' as Outcome });
const TIMEOUT_OUTCOME = Object.freeze({ outcome: 'timeout' as Outcome });

/** Maps a final Result to the request's outcome (and a cause for No-provider, rejected and mock outcomes). */
export function classify(result: Result): { readonly outcome: Outcome; readonly cause?: string } {
  const mocked = mockCauseOf(result);
  if (mocked !== undefined) return { outcome: 'mock', cause: mocked };
  const blocked = sentinelBlockOf(result);
  if (blocked !== undefined) return { outcome: 'blocked', cause: blocked };
  if (result.kind === 'ok') {
    if (result.rpcException !== undefined) return classify({ kind: 'error', error: result.rpcException });
    if (result.failedFuture !== undefined) return classify({ kind: 'error', error: result.failedFuture });
    if (result.limited !== undefined) return { outcome: 'rejected', cause: 'provider:tps' };
    if (result.bizException !== undefined) return BIZ_OUTCOME;
    // Dubbo's empty result (null, also as a merged value): the one ok that may come without an attempt.
    const empty = result.value === null || (Array.isArray(result.value) && result.value.includes(null));
    return empty ? { outcome: 'ok', cause: EMPTY_RESULT_CAUSE } : OK_OUTCOME;
  }
  const e = result.error;
  switch (e.code) {
    case RpcCode.TIMEOUT_EXCEPTION:
    case RpcCode.TIMEOUT_TERMINATE:
      // TIMEOUT_TERMINATE: the call's time budget ran out before it was sent (timeout countdown).
      return TIMEOUT_OUTCOME;
    case RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER:
      return { outcome: 'noProvider', cause: e.cause ?? 'directory:empty' };
    case RpcCode.FORBIDDEN_EXCEPTION:
      return { outcome: 'forbidden', cause: e.cause };
    case RpcCode.BIZ_EXCEPTION:
      return BIZ_OUTCOME;
    case RpcCode.NETWORK_EXCEPTION:
      // A full provider pool, or a provider filter's thrown refusal (a SERVICE_ERROR response): rejected.
      return providerRefusal(e.cause) ?? { outcome: 'network' };
    case RpcCode.LIMIT_EXCEEDED_EXCEPTION:
      // The consumer's own `actives` limit refused the call: a rejection, on the consumer side.
      return { outcome: 'rejected', cause: 'consumer:actives' };
    default:
      if (e.message.startsWith('No provider available')) {
        return { outcome: 'noProvider', cause: e.cause ?? 'cluster:none-available' };
      }
      // Code 0 wrapping another failure (MergeableClusterInvoker's "Failed to invoke service", a group's
      // failed future): the failure it wraps.
      if (e.cause === 'timeout') return TIMEOUT_OUTCOME;
      return providerRefusal(e.cause) ?? { outcome: 'network' };
  }
}

/** A provider's refusal by its cause: pool exhausted, ExecuteLimitFilter, TpsLimitFilter (thrown, 2.7). */
function providerRefusal(cause: string | undefined): { outcome: Outcome; cause: string } | undefined {
  switch (cause) {
    case 'threadpool:exhausted':
      return { outcome: 'rejected', cause: 'provider:threadpool' };
    case 'executes:limit':
      return { outcome: 'rejected', cause: 'provider:executes' };
    case 'tps:limit':
      return { outcome: 'rejected', cause: 'provider:tps' };
    default:
      return undefined;
  }
}

/** The Dubbo consumer stack of one simulated instance. */
export class DubboConsumerStack implements ConsumerStack {
  readonly instance: ConsumerInstance;
  readonly references = new Map<string, ServiceReference>();
  // PERF: the reference called last, so a call usually reads no map (with thousands of instances each
  // read of an instance's own map is a cache miss). `refer` clears it.
  #lastRef: ServiceReference | undefined;
  readonly #world: World;
  readonly #deps: ConsumerStackDeps;
  readonly #protocol: ProtocolContext;
  /** The JVM's DefaultFuture timeout wheel. */
  readonly #timer: HashedWheelTimer;

  constructor(instance: ConsumerInstance, world: World, deps: ConsumerStackDeps) {
    this.instance = instance;
    this.#world = world;
    this.#deps = deps;
    this.#timer = new HashedWheelTimer(instance.ip);
    this.#protocol = {
      sim: world.sim,
      network: world.network,
      observer: world.observer,
      consumerZone: instance.zone,
      isKnownGone: (p) => world.registry.isKnownGone(p),
      consumer: instance,
      release: deps.runtime.release,
      tracer: world.tracer,
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
    // The zone-aware cluster's zone is the call's `registry_zone` attachment (or a reference's
    // `registry.zone`, standing for a ZoneDetector): Dubbo sets none from where the consumer runs.
    // The group's instances have equal reference parameters: one map, and one set of lookup memos, for all.
    const consumerUrl = new URL({ protocol: 'consumer', host: this.instance.ip, path: service, params: internParams(this.#shared().params, params) });
    // RegistryProtocol.refer: group="a,b" or group="*" joins the registry directory with the mergeable cluster.
    const clusterName = isMergeableGroup(consumerUrl.getParameter('group'))
      ? MERGEABLE_CLUSTER
      : (consumerUrl.getParameter(CLUSTER_KEY) ?? DEFAULT_CLUSTER);

    const mock = mockConfigured(consumerUrl);
    if (registryNames.length === 0) {
      const registryUrl = this.#shared().url(`registry://registry/org.apache.dubbo.registry.RegistryService?registry=${scenario.registry.type}`);
      const one = this.#registryInvoker(service, consumerUrl, registryUrl, this.#world.registry, scenario.registry, clusterName, mock);
      this.references.set(service, new Reference(service, consumerUrl, one, one.directories, one.invoker));
      this.#lastRef = undefined;
      return;
    }

    // Multi-registry (ReferenceConfig.createInvoker): one registry invoker per registry, joined over a
    // StaticDirectory of the last registry URL by the registry URL's cluster, `zone-aware` by default.
    const directories: DynamicDirectory[] = [];
    const perRegistry: RegistryInvoker[] = [];
    for (const name of registryNames) {
      const spec = scenario.registries[name];
      const model = this.#world.registries.get(name);
      if (spec === undefined || model === undefined) {
        throw new Error(`consumer group "${group.application}" names unknown registry "${name}"`);
      }
      const params: Record<string, string> = {
        registry: spec.type,
        ...(spec.zone !== undefined ? { [ZONE_KEY]: spec.zone } : {}),
        [PREFERRED_KEY]: String(spec.preferred),
        [WEIGHT_KEY]: String(spec.weight),
      };
      const registryUrl = this.#shared().url(JSON.stringify([name, params]), () => new URL({ protocol: 'registry', host: name, path: REGISTRY_SERVICE, params }));
      const one = this.#registryInvoker(service, consumerUrl, registryUrl, model, spec, clusterName, mock);
      directories.push(...one.directories);
      perRegistry.push(one);
    }
    const top = new StaticDirectory(this.runtime, directories.at(-1)!.getUrl(), consumerUrl, perRegistry.map((r) => r.invoker));
    // ReferenceConfig.createInvoker: Cluster.getCluster(..., cluster, false), no MockClusterWrapper.
    const invoker = this.#deps.cluster(ZONE_AWARE_CLUSTER)(top, this.runtime);
    const first = perRegistry[0]!;
    this.references.set(service, new Reference(service, consumerUrl, first, directories, invoker));
    this.#lastRef = undefined;
  }

  /**
   * `cluster.join(directory)` through Dubbo's MockClusterWrapper: the cluster invoker in a
   * MockClusterInvoker when the reference sets `mock` (without it the wrapper only passes calls on).
   */
  #join(clusterName: string, directory: Directory, mock: boolean): ClusterInvokerLike {
    const invoker = this.#deps.cluster(clusterName)(directory, this.runtime);
    return mock ? new MockClusterInvoker(directory, invoker, this.runtime) : invoker;
  }

  /**
   * One registry's invoker (RegistryProtocol.doRefer → InterfaceCompatibleRegistryProtocol's
   * MigrationInvoker): the levels of the reference's migration step, each a registry directory with
   * its cluster (joined through MockClusterWrapper); with both levels (APPLICATION_FIRST), a
   * MigrationInvoker over them (not wrapped: RegistryProtocol's interceptor makes it, not a Cluster).
   */
  #registryInvoker(
    service: string,
    consumerUrl: URL,
    registryUrl: URL,
    registry: RegistryModel,
    spec: RegistrySpec,
    clusterName: string,
    mock: boolean,
  ): RegistryInvoker {
    const step = consumerMigrationStep(spec, this.instance.group.dubbo, consumerUrl.getParameter(MIGRATION_STEP_KEY));
    const levels = subscribedLevels(step).map((level) => {
      const directory = this.#registryDirectory(service, consumerUrl, registryUrl, registry, spec, level, mock);
      return { invoker: this.#join(clusterName, directory, mock), directory };
    });
    // A call ConsumerContextFilter ends before any cluster is answered by the first level's mock (every
    // level's MockClusterInvoker reads the same consumer URL).
    const { mock: firstMock } = mockOf(levels[0]!.invoker);
    const withMock = firstMock !== undefined ? { mock: firstMock } : {};
    if (levels.length === 1) {
      const only = levels[0]!;
      return { invoker: only.invoker, directoryFrom: only.directory, directories: [only.directory], ...withMock };
    }
    const [iface, app] = levels as [(typeof levels)[number], (typeof levels)[number]];
    const migration = new MigrationInvoker(iface, app, consumerUrl, this.runtime.random);
    return { invoker: migration, directoryFrom: migration, directories: [iface.directory, app.directory], ...withMock };
  }

  // A registry directory of one discovery level (RegistryDirectory, ServiceDiscoveryRegistryDirectory):
  // subscribes to `registry` at that level and turns each pushed list into DubboInvokers.
  #registryDirectory(
    service: string,
    consumerUrl: URL,
    registryUrl: URL,
    registry: RegistryModel,
    spec: RegistrySpec,
    level: DiscoveryLevel,
    mock: boolean,
  ): DynamicDirectory {
    const directory = new DynamicDirectory(this.runtime, registryUrl, consumerUrl, this.#deps.routerChain(service));
    const protocol: ProtocolContext =
      registry === this.#world.registry ? this.#protocol : { ...this.#protocol, isKnownGone: (p) => registry.isKnownGone(p) };
    const shared = this.#shared().get(
      this.instance.group,
      registry,
      service,
      () => new ReferenceInvokers(consumerUrl, protocol, level, level === 'interface' && registry.registeredUrl !== undefined ? (p) => registry.registeredUrl!(p) : undefined),
      level,
    );
    const emptyProtection = spec.emptyProtection;
    // A multi-group directory builds cluster invokers from each list: it takes every list when it arrives.
    const onHeld = directory.multiGroup ? undefined : (atMs: number) => directory.markHeld(atMs);
    const listener = (pushed: readonly ProviderExport[]): void => {
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
      directory.notify(directory.multiGroup ? this.#toMergeInvokerList(service, shared.groupsFor(pushed), mock) : invokers);
    };
    // The group and version the registry reads from the consumer URL (Nacos names), and the level.
    const query = { group: consumerUrl.getParameter('group'), version: consumerUrl.getParameter('version'), level };
    const catchUp = registry.subscribe(this.instance, service, listener, query, onHeld);
    if (catchUp) directory.setCatchUp(catchUp);
    return directory;
  }

  /**
   * RegistryDirectory.toMergeInvokerList: with one group, that group's invokers themselves; with
   * several, per group (in Java's HashMap order) a StaticDirectory with its own router chain,
   * joined by the cluster its first invoker's URL names (`Cluster$Adaptive`: `cluster`, consumer
   * value first, default failover). Rebuilt on every push, as Dubbo rebuilds them on every refresh.
   */
  #toMergeInvokerList(service: string, groups: DubboInvoker[][], mock: boolean): Invoker[] {
    if (groups.length === 1) return groups[0]!;
    return groups.map((invokers) => {
      const url = invokers[0]!.getUrl() as ServiceAddressURL;
      // AbstractDirectory's consumer URL for a URL without `refer`: the first invoker's URL with protocol
      // `consumer` and port 0 (its host stays the provider's), still read consumer value first.
      const provider = url.providerUrl;
      const consumerView = new URL({ protocol: 'consumer', host: provider.host, port: 0, path: provider.path, params: provider.params });
      const consumerUrl = new ServiceAddressURL(consumerView, url.consumerUrl);
      // DIVERGENCE: the group's chain is built from the scenario's `routers:`; a `rule` fault changes the
      // chains of the reference's registry directories only, not these per-group chains.
      const directory = new StaticDirectory(this.runtime, url, consumerUrl, invokers, this.#deps.routerChain(service));
      // Cluster$Adaptive.join: the extension with its wrappers, MockClusterWrapper among them.
      return this.#join(url.getParameter(CLUSTER_KEY) ?? DEFAULT_CLUSTER, directory, mock);
    });
  }

  // What the instances of a run share (invokers, consumer URL parameters); a stack built alone gets its own.
  #shared(): SharedInvokers {
    return this.#deps.shared ?? (this.#deps.shared = new SharedInvokers());
  }

  // PERF: the reference's invoke itself is the request's process, not a generator around it: every step of
  // a call (sending, each response) resumes each generator it is nested in, and a thousand instances'
  // requests leave those objects cold in memory in between. The outcome is classified as it ends (`outcomeOf`).
  // Called as the process starts (ConsumerStack.call), so the cluster invoker's own checks and list run now
  // too, and its `doInvoke` is the process (`invokeAtStart`).
  call(call: ServiceCall): Proc<Result> {
    const sentinel = this.#deps.sentinel;
    if (sentinel === undefined) return this.#call(call);
    const args = sentinel.argumentsOf();
    const invoke = sentinel.invoke;
    return invoke === undefined ? this.#call(call, args) : invoke(call.service, call.method, args, () => this.#call(call, args));
  }

  #call(call: ServiceCall, args?: readonly unknown[]): Proc<Result> {
    let ref = this.#lastRef;
    if (ref === undefined || ref.service !== call.service) this.#lastRef = ref = this.references.get(call.service)!;
    const invocation = this.#invocationOf(call, ref, args);
    if (!(invocation instanceof RpcInvocation)) {
      // ConsumerContextFilter, a ClusterFilter, runs inside MockClusterInvoker in Dubbo: the mock sees its result.
      if (ref.mock === undefined) return ended(invocation);
      const plain = new RpcInvocation({ methodName: call.method, serviceName: call.service, attachments: NO_ATTACHMENTS, context: { request: call.request } });
      return ref.mock.invokeEnded(plain, invocation);
    }
    return invokeAtStart(ref.invoker, invocation);
  }

  outcomeOf(value: unknown): { outcome: Outcome; cause?: string } {
    return classify(value as Result);
  }

  /** The call's invocation, or its result when ConsumerContextFilter ends it first. */
  #invocationOf(call: ServiceCall, ref: ServiceReference, args?: readonly unknown[]): RpcInvocation | Result {
    const context: CallContext = { request: call.request, timer: this.#timer };
    // The world's shared empty map becomes the port's read-only one, which an invocation copies on write.
    let attachments = call.attachments === NO_CALL_ATTACHMENTS ? NO_ATTACHMENTS : call.attachments;
    if (call.server !== undefined) {
      // A call made while a provider executes: ConsumerContextFilter (server attachment, countdown).
      const c = consumerContext(call.server, call.attachments, ref.consumerUrl, call.service, call.method, this.#world.sim.now);
      if (c.kind === 'terminate') return { kind: 'ok', bizException: c.error.message, rpcException: c.error };
      attachments = c.attachments;
      context.countdown = c.countdown;
    }
    return new RpcInvocation({
      methodName: call.method,
      serviceName: call.service,
      attachments,
      context,
      ...(args !== undefined && args.length > 0 ? { arguments: [...args] } : {}),
    });
  }
}

/** The reference's `mock` field: its MockClusterInvoker, when `invoker` is one. */
function mockOf(invoker: ClusterInvokerLike): { mock?: MockClusterInvoker } {
  return invoker instanceof MockClusterInvoker ? { mock: invoker } : {};
}
