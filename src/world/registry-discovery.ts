/**
 * What Nacos and ZooKeeper models share: the registry server's record of each provider instance,
 * driven by a client-side liveness loop (Nacos heartbeat or gRPC keepalive, ZooKeeper ping), the
 * lists the records are in, and the registry faults. How a silent instance is detected and dropped
 * is the subclass's (`NacosRegistry`, `ZookeeperRegistry`); the consumer instances' subscriptions
 * and push delivery are `PushDelivery`'s (with `HeldPushes`), the application-level service-name
 * mapping is `ServiceNameMapping`'s; what a consumer does with a pushed list is the Dubbo layer's.
 *
 * The server holds two levels of records, each with its own lists and pushes. Interface level: one
 * record per export (one URL per service of a process), listed under its service; a consumer
 * instance subscribes once per service it references. Application level (Dubbo 3 service
 * discovery): one record per process (a ServiceInstance), listed under its application; a consumer
 * instance subscribes once per application it needs, found by Dubbo's service-name mapping (service
 * → applications exporting it), and every service it references from that application listens on
 * that one subscription (`ServiceNameMapping`). A provider registers at the levels its group's
 * profile or the explicit `registration` says (`registerLevels`: 3.3 `register-mode=all` registers
 * both, each record detected on its own); a subscription names its level (`SubscribeQuery.level`,
 * default the explicit `registration`, else interface).
 *
 * Groups and versions at interface level. ZooKeeper keeps every group and version of an interface
 * under one `/dubbo/<iface>/providers` node: one list per interface, and every subscriber of the
 * interface gets every change (the consumer side drops what its group/version do not accept).
 * Nacos names a service `providers:<iface>:<version>:<group>`: one list per (interface, version,
 * group), from each provider URL's `version` and `group`; a subscription with a concrete group and
 * version watches its own name only, so a change in group a pushes nothing to consumers of group
 * b. A subscription with `*` or a comma list watches every existing name it is compatible with
 * (Dubbo's NacosRegistry lists the server's services when it subscribes; names that appear later
 * are not picked up) and hands its listener the union of their lists (`NacosAggregateListener`).
 * The names that exist are those of the scenario's provider groups, plus any registered since.
 *
 * Pushes (`PushDelivery`): every change of a list is sent to each subscription of it as the FULL
 * current list. Changes found in one server-side scan go out as one push; every other change (a
 * registration, a deregistration) is its own push, as ZooKeeper watches and Nacos change events
 * fire per change. A merge rule may hold a list's push back and merge the changes made meanwhile into
 * it (`PushMerger`): `pushRate` windows, or Nacos 2.x's own push delay (`NacosRegistry`).
 *
 * Faults: `setZoneCut(z)` loses every message between zone z and the registry (the registry's
 * own `zone` partitioned from z by the network does the same): providers there are not heard,
 * consumers there get no pushes and keep their lists. `setDown` freezes the registry: nothing is
 * heard, nothing detected, nothing pushed; on resume every registered instance's detection clock
 * restarts (a new ZooKeeper leader re-tracks sessions with a fresh timeout; zonesim does the same
 * for Nacos) and each subscription reads the current list (Dubbo re-subscribes on reconnect).
 * `setPushSwitch(false)` stops every push; on again, each subscription gets the current list. A
 * subscription cut off by a network partition retries every 5 s (`registry.retry.period`) and
 * reads the current list once it gets through. `setRoomDown(z)` (a dark room) cuts zone z off as a
 * zone cut does, through its own set (so that `registryPartition` and `roomDown` do not undo each
 * other), and a registry whose `zone` is z and that has no `servers` goes down as with `registryDown`,
 * through its own flag; when the room is back, its subscriptions (or, the registry back up, all)
 * read the current list.
 */
import { FixedDelayTimers } from '../engine/fixed-delay-timers.js';
import { sampler } from '../engine/distributions.js';
import type { RandomStreams } from '../engine/random.js';
import type { Simulation } from '../engine/simulation.js';
import type { ConsumerGroupSpec, RegistrySpec, Scenario } from '../model/types.js';
import type { Network } from './network.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { RegistryNodeFigures } from '../metrics/registry-server-figures.js';
import type { ProviderExport, ProviderInstance } from './provider.js';
import type { RegistryEntry } from './registry-entry.js';
import { PushDelivery, type RegistryServer } from './registry-push-delivery.js';
import { PushSizer } from './registry-push-size.js';
import { PushMerger, type PushMergeRule } from './registry-push-merge.js';
import { simplifiedUrl } from './registry-simplified-url.js';
import type { ServiceRef } from './registry-subscription.js';
import { ServiceNameMapping } from './service-name-mapping.js';
import { nacosServiceName, subscribedNames } from './nacos-service-name.js';
import type { CatchUp, ProviderListener, RegistryModel, SubscribeQuery, Subscriber } from './registry.js';
import { registerLevels, type DiscoveryLevel } from './discovery-levels.js';
import { RegistryServers, modelsServers, timelineGrid, type RegistryClient } from './registry-servers.js';
import { ServerRequests, type ServerRequestsHost } from './registry-server-requests.js';

/** What a registry model needs from the world (the `World` satisfies it). */
export interface RegistryHost {
  readonly sim: Simulation;
  readonly streams: RandomStreams;
  readonly observer: WorldObserver;
  readonly network: Network;
  /**
   * The scenario, when there is one: application-level registration reads the service-name
   * mapping (which applications export a service) from its provider groups.
   */
  readonly scenario?: Pick<Scenario, 'providers' | 'registries'> & Partial<Pick<Scenario, 'warmupMs' | 'durationMs' | 'bucketMs'>>;
}

/** How a registry model is named inside one world. */
export interface RegistryOptions {
  /** The registry's name (`registries:` key, or `registry` for the single one). */
  name: string;
  /** Prefix of its random streams: `registry` for the single registry, `registry/<name>` otherwise. */
  streamPrefix: string;
}

// Bits of `Entry.#flags`.
const REGISTERED = 1;
const LISTED = 2;
const HEALTHY = 4;
const GONE = 8;
const LEFT = 16;
const TICKING = 32;
const ABANDONED = 64;

/**
 * A registry record as this server keeps it. PERF: the seed articles' estate keeps 800,000 of them (an
 * export each at interface level) for the whole run: its seven flags share one field, and an interface-level
 * record keeps its one export as is, not in an array of its own (96 bytes a record instead of 200).
 */
class Entry implements RegistryEntry {
  readonly instance: ProviderInstance;
  readonly service: string;
  /** The liveness loop of its client, shared by the process's records at this level. */
  readonly loop: LivenessLoop;
  /** The level it is a record of. */
  readonly level: Level;
  /** Its one export (interface level), or the exports it lists (application level). */
  readonly #exported: ProviderExport | readonly ProviderExport[];
  #flags = HEALTHY | TICKING;
  lastHeardMs: number;
  registeredOrder = 0;
  expiryBucketMs = -1;
  livenessCalls = 0;
  livenessUntilMs = -1;

  constructor(instance: ProviderInstance, exports: readonly ProviderExport[], service: string, loop: LivenessLoop, level: Level, nowMs: number) {
    this.instance = instance;
    this.#exported = exports.length === 1 ? exports[0]! : exports;
    this.service = service;
    this.loop = loop;
    this.level = level;
    this.lastHeardMs = nowMs;
  }

  get provider(): ProviderExport {
    const exported = this.#exported;
    return Array.isArray(exported) ? (exported as readonly ProviderExport[])[0]! : (exported as ProviderExport);
  }

  get exports(): readonly ProviderExport[] {
    const exported = this.#exported;
    return Array.isArray(exported) ? (exported as readonly ProviderExport[]) : [exported as ProviderExport];
  }

  get registered(): boolean {
    return (this.#flags & REGISTERED) !== 0;
  }
  set registered(on: boolean) {
    this.#set(REGISTERED, on);
  }
  get listed(): boolean {
    return (this.#flags & LISTED) !== 0;
  }
  set listed(on: boolean) {
    this.#set(LISTED, on);
  }
  get healthy(): boolean {
    return (this.#flags & HEALTHY) !== 0;
  }
  set healthy(on: boolean) {
    this.#set(HEALTHY, on);
  }
  get gone(): boolean {
    return (this.#flags & GONE) !== 0;
  }
  set gone(on: boolean) {
    if (on !== this.gone) this.level.goneCount += on ? 1 : -1;
    this.#set(GONE, on);
  }
  get left(): boolean {
    return (this.#flags & LEFT) !== 0;
  }
  set left(on: boolean) {
    this.#set(LEFT, on);
  }
  /** Its loop ticks it at the loop's next tick (it is new, or it was due again when it last ticked). */
  get ticking(): boolean {
    return (this.#flags & TICKING) !== 0;
  }
  set ticking(on: boolean) {
    this.#set(TICKING, on);
  }
  get abandoned(): boolean {
    return (this.#flags & ABANDONED) !== 0;
  }
  set abandoned(on: boolean) {
    this.#set(ABANDONED, on);
  }

  #set(bit: number, on: boolean): void {
    this.#flags = on ? this.#flags | bit : this.#flags & ~bit;
  }
}

/**
 * The liveness loop of one provider process at one level: its client's ticks (a ZooKeeper session's
 * pings, a Nacos connection's keepalives or its per-instance beats), which every record it holds
 * there (one per export at interface level, one at application level) follows, in registration order.
 */
interface LivenessLoop {
  readonly entries: Entry[];
  /** The loop's next tick (a handle of `timerLane`), while it runs. */
  timer: number;
  /** The lane `timer` waits in (the first tick's or the loop's), or null when no tick is due. */
  timerLane: FixedDelayTimers | null;
}

/**
 * A level's records by export (interface level: one per export; application level: the process's, under
 * each of its exports). PERF: the seed articles' estate keeps 800,000 interface-level records, and a weak
 * map of them (34 MB) was probed at every ping and attempt. The export (interface level) or its process
 * (application level) keeps the record of the first level of any registry that records it, in its own
 * `registryRecord`; a level that finds that slot taken by another registry's (several registries) keeps
 * its records in a weak map.
 */
class RecordsByExport {
  readonly #kind: DiscoveryLevel;
  readonly #others = new WeakMap<ProviderExport, Entry>();

  constructor(kind: DiscoveryLevel) {
    this.#kind = kind;
  }

  get(e: ProviderExport): Entry | undefined {
    const slot = (this.#kind === 'interface' ? e : e.instance).registryRecord as Entry | null;
    if (slot !== null && slot.level.entries === this) return slot;
    return this.#others.get(e);
  }

  set(e: ProviderExport, entry: Entry): void {
    const holder = this.#kind === 'interface' ? e : e.instance;
    const slot = holder.registryRecord as Entry | null;
    if (slot === null || slot.level.entries === this) holder.registryRecord = entry;
    else this.#others.set(e, entry);
  }
}

/** One discovery level of the server: its records, the lists they are in, and their pushes. */
interface Level {
  readonly kind: DiscoveryLevel;
  readonly entries: RecordsByExport;
  /** How many of its records are gone (PERF: none, and `isKnownGone` need not look one up). */
  goneCount: number;
  /** Registered records by the name they are listed under, in registration order. */
  readonly byKey: Map<string, Set<Entry>>;
  /** Lists changed since the last publish. */
  readonly changed: Set<string>;
  readonly pushes: PushDelivery;
  /** The server's delay-and-merge rule for this level's pushes (`pushRate`, Nacos's push delay), if any. */
  merger: PushMerger | null;
}

/** Base of the registries that discover providers over time. */
export abstract class DiscoveryRegistry implements RegistryModel {
  readonly name: string;
  protected readonly spec: RegistrySpec;
  protected readonly sim: Simulation;
  protected readonly observer: WorldObserver;
  readonly #network: Network;
  /** Interface level: one record per export, listed under its service (with Nacos, its Nacos service name). */
  readonly #interface: Level;
  /** Application level: one record per process, listed under its application. */
  readonly #application: Level;
  /** The level of a subscription that names none: the explicit `registration`, else interface. */
  readonly #defaultLevel: Level;
  readonly #both: readonly Level[];
  /** Nacos at interface level: one list per (interface, version, group) Nacos service name. */
  readonly #perGroup: boolean;
  /** Nacos at interface level: the Nacos service names that exist, per interface (first seen first). */
  readonly #namesOf = new Map<string, string[]>();
  /** Every registered record, both levels (what the server-side scans walk). */
  protected readonly registered = new Set<RegistryEntry>();
  /** Application level: the service-name mapping and the application subscriptions. */
  readonly #mapping: ServiceNameMapping;
  readonly #cut = new Set<string>();
  /** `simplified`: each export's simplified URL, built once. */
  readonly #simplified = new WeakMap<ProviderExport, string>();
  /** Dark rooms (`roomDown`): cut off like `#cut`, kept apart so that the two faults do not undo each other. */
  readonly #darkRooms = new Set<string>();
  /** Frozen: by `registryDown`, by a lost quorum or by its own room going dark (`#faultDown || #quorumLost || #roomDark`). */
  #down = false;
  #faultDown = false;
  #quorumLost = false;
  /** The registry's own room is dark (`roomDown` of its `zone`, no `servers`): down as with `registryDown`. */
  #roomDark = false;
  /** The registry's nodes when it is modeled as a server (`servers` or `capacity` set), else null. */
  readonly servers: RegistryServers | null;
  /** With registry servers: the provider clients' requests to their nodes. */
  readonly #requests: ServerRequests | null;
  /** Records taken in so far (`registeredOrder`). */
  #registrations = 0;
  /** The clients' liveness ticks, and their first ticks after `registerDelay` (made on first use). */
  #ticks: FixedDelayTimers | null = null;
  #firstTicks: FixedDelayTimers | null = null;

  constructor(host: RegistryHost, spec: RegistrySpec, options: RegistryOptions, registryType: 'nacos' | 'zookeeper') {
    this.name = options.name;
    this.spec = spec;
    this.sim = host.sim;
    this.observer = host.observer;
    this.#network = host.network;
    // One push-lag stream for both levels: with one level in use, its draws are those of a single-level registry.
    const lag = sampler(spec.pushLag, host.streams.stream(`${options.streamPrefix}/push`));
    this.#perGroup = registryType === 'nacos';
    const multi = host.scenario !== undefined && Object.keys(host.scenario.registries).length > 0;
    this.servers = modelsServers(spec)
      ? new RegistryServers(spec, {
          network: host.network,
          rng: host.streams.stream(`${options.streamPrefix}/servers`),
          cohortRng: host.streams.stream(`${options.streamPrefix}/cohorts`),
          grid: timelineGrid(host.scenario),
          namePrefix: multi ? `${options.name}/` : '',
        })
      : null;
    this.#requests = this.servers === null ? null : new ServerRequests(this.#requestsHost(this.servers));
    const level = (kind: DiscoveryLevel): Level => {
      const byKey = new Map<string, Set<Entry>>();
      const server: RegistryServer = {
        sim: this.sim,
        observer: this.observer,
        records: byKey,
        isDown: () => this.down,
        isCut: (zone) => this.#cut.has(zone) || this.#darkRooms.has(zone),
        netReachable: (zone) => this.#netReachable(zone),
        servers: this.servers,
      };
      const appLevel = kind === 'application';
      const sizer = new PushSizer(kind, registryType, (p) => this.registeredUrl(p));
      // Application level: consumers fetch metadata from providers (their own random stream).
      const metadata = appLevel
        ? { sim: this.sim, observer: this.observer, network: host.network, random: host.streams.stream(`${options.streamPrefix}/metadata`) }
        : undefined;
      const pushes = new PushDelivery(server, { spec, lag, sizer, appLevel, perGroup: !appLevel && this.#perGroup, registryType, metadata });
      return { kind, entries: new RecordsByExport(kind), goneCount: 0, byKey, changed: new Set(), pushes, merger: null };
    };
    this.#interface = level('interface');
    this.#application = level('application');
    this.#both = [this.#interface, this.#application];
    this.#defaultLevel = spec.registration === 'application' ? this.#application : this.#interface;
    if (spec.pushRate !== undefined) this.#mergePushes({ kind: 'window', intervalMs: spec.pushRate.intervalMs });
    // The provider groups of this registry that register at each level.
    const groups = (host.scenario?.providers ?? []).filter((g) => !multi || g.registries === undefined || g.registries.includes(this.name));
    if (this.#perGroup) {
      // The services the Nacos server lists (`getServicesOfServer`): every provider group's, as a
      // server that has seen these deployments before holds them, even before they register again.
      for (const g of groups) {
        if (!registerLevels(spec, g.dubbo).interface) continue;
        for (const service of g.services) {
          const params: Record<string, string | number | boolean> = { ...g.params, ...g.exports?.[service]?.params };
          this.#knowName(service, nacosServiceName(service, paramText(params.version), paramText(params.group)));
        }
      }
    }
    this.#mapping = new ServiceNameMapping(
      this.#application.pushes,
      groups.filter((g) => registerLevels(spec, g.dubbo).application),
    );
  }

  /**
   * The server's own delay-and-merge of pushes (Nacos 2.x's PushDelayTaskExecuteEngine), for both
   * levels. `pushRate`, when set, is the rule instead: the server's own delay is then not added.
   */
  protected delayPushes(rule: PushMergeRule): void {
    if (this.spec.pushRate === undefined) this.#mergePushes(rule);
  }

  #mergePushes(rule: PushMergeRule): void {
    for (const level of this.#both) {
      const pushes = level.pushes;
      level.merger = new PushMerger(this.sim, this.observer, rule, {
        publish: (keys) => pushes.publish(keys),
        pushMerged: (key) => pushes.pushMerged(key),
      });
    }
  }

  /** How often a live client makes itself heard (heartbeat, keepalive, ping). */
  protected abstract tickIntervalMs(): number;

  /** A client tick that was not heard (dead, black-holed or cut off); the default does nothing. */
  protected onSilentTick(_entry: RegistryEntry): void {}

  /** The server has taken record `entry` in (it was not registered); the default does nothing. */
  protected onRegistered(_entry: RegistryEntry): void {}

  /** The provider process stopped without deregistering (crash, black hole); the default does nothing. */
  protected onCrash(_entry: RegistryEntry): void {}

  /**
   * The registry as a server: whether a client's liveness message speaks for its whole process (a
   * ZooKeeper session's ping, a Nacos 2.x connection's keepalive: one request per tick however many
   * records the process has) or for one record (a Nacos 1.x beat per instance). Default: the process.
   */
  protected livenessPerProcess(_entry: RegistryEntry): boolean {
    return true;
  }

  /** The registry as a server: false while `instance`'s client has no connection (its messages are not sent). Default: always. */
  protected clientConnected(_client: RegistryClient, _instance: ProviderInstance): boolean {
    return true;
  }

  /** The registry as a server: false while `client` may not register on its own (it waits for a retry). Default: never. */
  protected registrationHeld(_client: RegistryClient): boolean {
    return false;
  }

  /** The registry as a server: a registration of `instance` failed (its connection was lost); the default does nothing. */
  protected onRegistrationFailed(_client: RegistryClient, _instance: ProviderInstance): void {}

  /**
   * The registry as a server: whether a processed request of `entry`'s client (`registration`: carrying its
   * URL) touches the record. Default: always; ZooKeeper: not a record its client's current session does not own.
   */
  protected touches(_entry: RegistryEntry, _registration: boolean): boolean {
    return true;
  }

  /** The registry as a server: a reply to `client` leaves its node now and arrives at `backMs`. */
  protected onReplied(_client: RegistryClient, _backMs: number): void {}

  /** The registry as a server: bytes of a liveness message and of its answer. */
  protected abstract livenessBytes(entry: RegistryEntry): { readonly request: number; readonly reply: number };

  /**
   * The registry as a server: how long a client's liveness call waits for its answer when it makes no other
   * until then (a synchronous call), or null when it sends each at its time. Default: null.
   */
  protected livenessCallTimeoutMs(_entry: RegistryEntry): number | null {
    return null;
  }

  /** What the provider clients' requests need of this registry (its hooks bound late: a subclass overrides them). */
  #requestsHost(servers: RegistryServers): ServerRequestsHost {
    return {
      sim: this.sim,
      servers,
      heard: (entry, registration) => {
        // A request processed now: heard, unless the client left or the registry froze meanwhile.
        if (!entry.left && !this.#down && this.touches(entry, registration)) this.#heard(entry as Entry);
      },
      silent: (entry) => this.onSilentTick(entry),
      connected: (client, instance) => this.clientConnected(client, instance),
      registrationHeld: (client) => this.registrationHeld(client),
      replied: (client, backMs) => this.onReplied(client, backMs),
      registrationFailed: (client, instance) => this.onRegistrationFailed(client, instance),
      livenessPerProcess: (entry) => this.livenessPerProcess(entry),
      livenessBytes: (entry) => this.livenessBytes(entry),
      livenessCallTimeoutMs: (entry) => this.livenessCallTimeoutMs(entry),
    };
  }

  /** The registry is back after `registryDown`: detection clocks restart now. */
  protected onResume(): void {
    for (const e of this.registered) e.lastHeardMs = this.sim.now;
  }

  // ---- RegistryModel ------------------------------------------------------------------------

  providerStarted(instance: ProviderInstance): void {
    const levels = registerLevels(this.spec, instance.group.spec.dubbo);
    if (levels.interface) this.#started(instance, instance.exports.map((e) => [e]), (e) => this.#listKey(e), this.#interface);
    // Application level: Dubbo 3 registers one ServiceInstance per process, whatever it exports.
    if (levels.application) this.#started(instance, [instance.exports], () => instance.group.spec.application, this.#application);
  }

  /** The list an interface-level export is in: its service, or with Nacos its Nacos service name. */
  #listKey(e: ProviderExport): string {
    if (!this.#perGroup) return e.service;
    const name = nacosServiceName(e.service, urlParam(e.url, 'version'), urlParam(e.url, 'group'));
    this.#knowName(e.service, name);
    return name;
  }

  #knowName(service: string, name: string): void {
    let names = this.#namesOf.get(service);
    if (names === undefined) this.#namesOf.set(service, (names = []));
    if (!names.includes(name)) names.push(name);
  }

  /** A process's records at `level` (each the exports it lists, named by `keyOf` its first) start their liveness loop. */
  #started(
    instance: ProviderInstance,
    records: readonly (readonly ProviderExport[])[],
    keyOf: (first: ProviderExport) => string,
    level: Level,
  ): void {
    // A process that exports nothing (not from a scenario: a group lists at least one service) keeps no record.
    const first = records[0]?.[0];
    if (first === undefined) return;
    const known = level.entries.get(first);
    if (known !== undefined) {
      // The same instance comes back (a black hole ends): its client is heard again at once.
      const loop = known.loop;
      for (const e of loop.entries) {
        e.left = false;
        e.ticking = true;
      }
      this.#cancelTick(loop);
      this.#tick(loop);
      return;
    }
    const loop: LivenessLoop = { entries: [], timer: -1, timerLane: null };
    for (const exports of records) {
      const entry = new Entry(instance, exports, keyOf(exports[0]!), loop, level, this.sim.now);
      for (const e of exports) level.entries.set(e, entry);
      loop.entries.push(entry);
    }
    // The first tick registers; until it succeeds, later ticks retry.
    if (this.spec.registerDelayMs > 0) {
      this.#firstTicks ??= new FixedDelayTimers(this.sim, this.spec.registerDelayMs, (l) => this.#tick(l as LivenessLoop));
      loop.timerLane = this.#firstTicks;
      loop.timer = this.#firstTicks.add(loop);
    } else this.#tick(loop);
  }

  providerStopped(instance: ProviderInstance, graceful: boolean): void {
    for (const e of instance.exports) this.#stopped(this.#interface.entries.get(e), graceful);
    this.#stopped(this.#application.entries.get(instance.exports[0]!), graceful);
  }

  #stopped(entry: Entry | undefined, graceful: boolean): void {
    if (entry === undefined) return;
    if (!graceful) {
      this.onCrash(entry);
      return;
    }
    entry.left = true;
    entry.ticking = false;
    // The process stops every record of the loop: the last one stops the loop.
    if (!entry.loop.entries.some((e) => e.ticking)) this.#cancelTick(entry.loop);
    // A deregistration that cannot reach the registry is lost: the instance just falls silent.
    if (!entry.registered || !this.reachable(entry.provider.zone)) return;
    const drop = (): void => {
      this.remove(entry);
      this.publish();
    };
    if (this.#requests === null) drop();
    else this.#requests.deregister(entry, drop);
  }

  subscribe(
    subscriber: Subscriber,
    service: string,
    listener: ProviderListener,
    query?: SubscribeQuery,
    onHeld?: (atMs: number) => void,
  ): CatchUp | void {
    const level = query?.level === undefined ? this.#defaultLevel : this.#levelOf(query.level);
    const ref: ServiceRef = { subscriber, service, listener, subs: [], onHeld };
    if (level === this.#application) return this.#mapping.subscribe(ref);
    // Nacos: one subscription per Nacos service name watched (none when a `*` or list matches
    // nothing yet: no list ever arrives, as in Dubbo); ZooKeeper: the interface's node.
    const keys = this.#perGroup
      ? subscribedNames(service, query?.group !== undefined || query?.version !== undefined ? query : referenceQuery(subscriber, service), this.#namesOf.get(service) ?? [])
      : [service];
    const pushes = level.pushes;
    // DIVERGENCE: a `*`/list subscription's union keeps the order of its names (first seen first);
    // Dubbo's NacosAggregateListener concatenates a ConcurrentHashMap's values (hash order).
    for (const key of keys) {
      const sub = pushes.newSubscription(subscriber, key);
      sub.refs.push(ref);
      ref.subs.push(sub);
    }
    for (const sub of ref.subs) pushes.held.refreshHoldable(sub);
    for (const sub of ref.subs) pushes.firstRead(sub);
    return pushes.held.catchUpOf(ref);
  }

  #levelOf(kind: DiscoveryLevel): Level {
    return kind === 'application' ? this.#application : this.#interface;
  }

  /**
   * The URL the registry holds for `p` at interface level, which is what consumers build their invokers
   * from: with `simplified`, only the keys Dubbo keeps for the provider's release (`simplifiedUrl`).
   * Application level is unaffected: its records are `ip:port` plus instance metadata, and consumers read
   * the service parameters from the MetadataInfo, which the simplification does not touch.
   */
  registeredUrl(p: ProviderExport): string {
    if (this.spec.simplified !== true) return p.url;
    let url = this.#simplified.get(p);
    if (url === undefined) this.#simplified.set(p, (url = simplifiedUrl(p.url, p.group.spec.dubbo.version, this.spec.extraKeys)));
    return url;
  }

  /** Gone once the registry has dropped any record of it (the levels it registered at are detected alike). */
  isKnownGone(provider: ProviderExport | ProviderInstance): boolean {
    // PERF: asked at every attempt (for `staleCalls`), of maps of up to 800,000 records: a level none of
    // whose records is gone (the application level under interface-level registration) is not asked.
    const e = 'exports' in provider ? provider.exports[0]! : provider;
    const int = this.#interface;
    const app = this.#application;
    return (int.goneCount > 0 && (int.entries.get(e)?.gone ?? false)) || (app.goneCount > 0 && (app.entries.get(e)?.gone ?? false));
  }

  setZoneCut(zone: string, cut: boolean): void {
    if (cut) {
      // A held push to the zone, still on its way, is lost when it arrives (`PushDelivery`): from now on
      // the arrivals of pushes on their way go through the agenda.
      for (const l of this.#levels()) l.pushes.held.queueAllHeld();
      this.#cut.add(zone);
      return;
    }
    if (!this.#cut.delete(zone)) return;
    for (const l of this.#levels()) l.pushes.resyncZone(zone);
  }

  setDown(down: boolean): void {
    this.#faultDown = down;
    this.#updateDown();
  }

  /**
   * The registry as a server: the nodes of `zone` go down or come back. Their clients lose their
   * connection and reconnect to another node they can reach; a ZooKeeper ensemble without a majority of
   * its nodes up freezes as `registryDown` does (`quorumLost`) until it has one again.
   */
  setServerZoneDown(zone: string, down: boolean): void {
    const servers = this.servers;
    if (servers === null) return;
    for (const n of servers.nodes) if (n.zone === zone) n.up = !down;
    this.#quorumLost = this.quorumLost(servers);
    this.#updateDown();
  }

  /** The registry as a server: true when its nodes cannot accept writes. Default: never (Nacos nodes serve on their own). */
  protected quorumLost(_servers: RegistryServers): boolean {
    return false;
  }

  #updateDown(): void {
    const down = this.#faultDown || this.#quorumLost;
    if (down === this.#down) return;
    this.#down = down;
    if (!this.down) this.#resume();
  }

  // Up again after `registryDown` or its room's outage: detection clocks restart, every subscription reads the current list.
  #resume(): void {
    this.onResume();
    for (const l of this.#levels()) l.pushes.resyncAll();
  }

  setRoomDown(zone: string, down: boolean): void {
    if (down) {
      if (this.#darkRooms.has(zone)) return;
      for (const l of this.#levels()) l.pushes.held.queueAllHeld();
      this.#darkRooms.add(zone);
      if (this.spec.zone === zone && this.servers === null) this.#roomDark = true;
      this.setServerZoneDown(zone, true);
      return;
    }
    if (!this.#darkRooms.delete(zone)) return;
    this.setServerZoneDown(zone, false);
    if (this.#roomDark && this.spec.zone === zone) {
      this.#roomDark = false;
      if (!this.#down) this.#resume();
      return;
    }
    // The room's consumer processes start again: each subscription reads the current list (unless still cut).
    if (!this.#cut.has(zone)) for (const l of this.#levels()) l.pushes.resyncZone(zone);
  }

  setPushSwitch(on: boolean): void {
    for (const l of this.#levels()) l.pushes.setPushSwitch(on);
  }

  holdPushes(on: boolean): void {
    for (const l of this.#levels()) l.pushes.held.holdPushes(on);
  }

  get pushesHeld(): number {
    return this.#interface.pushes.held.pushesHeld + this.#application.pushes.held.pushesHeld;
  }

  catchUpAll(): void {
    for (const l of this.#levels()) l.pushes.held.catchUpAll();
  }

  serverFigures(): RegistryNodeFigures[] {
    return this.servers?.figures() ?? [];
  }

  /** Both levels, interface first (the order every registry-wide step takes). */
  #levels(): readonly Level[] {
    return this.#both;
  }

  // ---- for subclasses and tests -------------------------------------------------------------

  /**
   * The registry's record of `provider` at `level` (tests and tools; do not mutate). Without a level:
   * at the default level (the explicit `registration`, else interface), else at the other one.
   */
  entryOf(provider: ProviderInstance | ProviderExport, level?: DiscoveryLevel): Readonly<RegistryEntry> | undefined {
    const e = 'exports' in provider ? provider.exports[0]! : provider;
    if (level !== undefined) return this.#levelOf(level).entries.get(e);
    const other = this.#defaultLevel === this.#interface ? this.#application : this.#interface;
    return this.#defaultLevel.entries.get(e) ?? other.entries.get(e);
  }

  /**
   * The exports of `service` a push at `level` (default: the explicit `registration`, else interface)
   * would carry now (at application level, over every application exporting it).
   */
  currentList(service: string, level?: DiscoveryLevel): readonly ProviderExport[] {
    const l = level === undefined ? this.#defaultLevel : this.#levelOf(level);
    if (l === this.#application) return this.applicationsOf(service).flatMap((app) => l.pushes.currentList(app, service));
    if (this.#perGroup) return (this.#namesOf.get(service) ?? []).flatMap((name) => l.pushes.currentList(name, service));
    return l.pushes.currentList(service, service);
  }

  /** Application level: the applications a consumer of `service` watches (Dubbo's service-name mapping). */
  applicationsOf(service: string): readonly string[] {
    return this.#mapping.applicationsOf(service);
  }

  /** True while the registry is frozen by `registryDown` or by its own room's outage. */
  get down(): boolean {
    return this.#down || this.#roomDark;
  }

  /** True when messages between `zone` and the registry get through (and the registry is up). */
  protected reachable(zone: string): boolean {
    return !this.down && this.#netReachable(zone);
  }

  /**
   * True when messages between `zone` and the registry get through: no zone cut, no network partition
   * (with registry servers: some node is up and not partitioned from the zone).
   */
  #netReachable(zone: string): boolean {
    if (this.#cut.size > 0 && this.#cut.has(zone)) return false;
    if (this.#darkRooms.size > 0 && this.#darkRooms.has(zone)) return false;
    if (this.servers !== null) return this.servers.anyReachable(zone);
    const home = this.spec.zone;
    return home === undefined || home === zone || !this.#network.isPartitioned(zone, home);
  }

  /** The server (re)admits the instance: registered, healthy, listed. */
  protected register(e: RegistryEntry): void {
    const entry = e as Entry;
    entry.lastHeardMs = this.sim.now;
    const level = entry.level;
    if (!entry.healthy) {
      // Nacos 1.x ClientBeatProcessor: healthy again, pushed as a changed instance (the list keeps it).
      entry.healthy = true;
      level.changed.add(entry.service);
    }
    if (!entry.registered) {
      entry.registered = true;
      entry.registeredOrder = this.#registrations++;
      this.registered.add(entry);
      this.onRegistered(entry);
      let set = level.byKey.get(entry.service);
      if (set === undefined) level.byKey.set(entry.service, (set = new Set()));
      set.add(entry);
    }
    if (!entry.listed) {
      entry.listed = true;
      entry.gone = false;
      level.changed.add(entry.service);
      if (level === this.#application) this.#mapping.learn(entry);
    }
  }

  /**
   * Nacos 1.x: the server marks the instance unhealthy and pushes the change (ClientBeatCheckTask); the
   * pushed list still holds it, and Dubbo keeps it: NacosRegistry filters on `enabled` only
   * (`filterEnabledInstances`, 3.3 NacosRegistry.java:692,751-752; 2.7 :562-570,632-633), and
   * NacosServiceDiscovery maps every instance.
   */
  protected markUnhealthy(e: RegistryEntry): void {
    if (!e.healthy) return;
    e.healthy = false;
    (e as Entry).level.changed.add(e.service);
  }

  /** The server drops the instance (deregistered, deleted, session expired, connection closed). */
  protected remove(e: RegistryEntry): void {
    const entry = e as Entry;
    if (!entry.registered) return;
    if (entry.listed) {
      entry.listed = false;
      entry.level.changed.add(entry.service);
    }
    entry.registered = false;
    entry.gone = true;
    this.registered.delete(entry);
    entry.level.byKey.get(entry.service)?.delete(entry);
  }

  /**
   * Sends one push per changed list (the full list) to every subscription of it, interface level first;
   * with a merge rule (`pushRate`, Nacos's push delay), when the rule says.
   */
  protected publish(): void {
    for (const level of this.#levels()) {
      if (level.changed.size === 0) continue;
      const keys = [...level.changed];
      level.changed.clear();
      if (level.merger === null) level.pushes.publish(keys);
      // The running estate's registrations, made while the world is built (before the kernel's first entry):
      // the lists the consumers read when they subscribe, not a change for a merger to push to them later.
      else if (!this.sim.building) level.merger.changed(keys);
    }
  }

  // ---- client liveness loop -----------------------------------------------------------------

  /** A tick of a process's liveness loop: each of its records due ticks, in registration order. */
  #tick(loop: LivenessLoop): void {
    loop.timerLane = null;
    let again = false;
    for (const entry of loop.entries) {
      if (!entry.ticking) continue;
      entry.ticking = false;
      if (entry.left) continue;
      const p = entry.provider;
      if (p.state === 'up' && this.reachable(p.zone)) {
        if (this.#requests === null) this.#heard(entry);
        else this.#requests.tick(entry);
      } else this.onSilentTick(entry);
      // A dead process whose record is gone has nothing left to tell the registry.
      if (p.state === 'up' || p.state === 'blackhole' || entry.registered) {
        entry.ticking = true;
        if (again) continue;
        again = true;
        // PERF: one tick per process and level, not per record (eight exports: an eighth of the agenda
        // entries), and every loop's ticks wait in one FIFO (one interval): one agenda entry for them all;
        // the ticks of the loops that started together (the whole estate at time 0) run one after another.
        this.#ticks ??= new FixedDelayTimers(this.sim, this.tickIntervalMs(), (l) => this.#tick(l as LivenessLoop));
        loop.timerLane = this.#ticks;
        loop.timer = this.#ticks.add(loop);
      }
    }
  }

  #cancelTick(loop: LivenessLoop): void {
    loop.timerLane?.cancel(loop.timer);
    loop.timerLane = null;
  }

  /**
   * Heard: a heartbeat / keepalive / ping; an instance the server lost registers again (Nacos answers a
   * beat for an unknown instance with 20404 and the client re-registers; Dubbo's ZooKeeper registry
   * recovers its nodes on a new session; Nacos 2.x redoes them on reconnect).
   */
  #heard(entry: Entry): void {
    entry.lastHeardMs = this.sim.now;
    if (!entry.listed || !entry.healthy) {
      this.register(entry);
      this.publish();
    }
  }

  /** The discovery level `entry` is a record of. */
  protected levelOf(entry: RegistryEntry): DiscoveryLevel {
    return (entry as Entry).level.kind;
  }

  /** The records of a provider process at both levels (interface first). */
  protected recordsOf(instance: ProviderInstance): RegistryEntry[] {
    const out: RegistryEntry[] = [];
    for (const e of instance.exports) {
      const entry = this.#interface.entries.get(e);
      if (entry !== undefined) out.push(entry);
    }
    const app = this.#application.entries.get(instance.exports[0]!);
    if (app !== undefined) out.push(app);
    return out;
  }

  /**
   * The registry as a server: the records of `instance` that are not listed (and those `also` names)
   * register again now, each a request to its client's node (Dubbo's `FailbackRegistry.recover` run by
   * the retry timer); returns how many.
   */
  protected registerAgain(instance: ProviderInstance, also?: (e: RegistryEntry) => boolean): number {
    if (this.#requests === null) return 0;
    let n = 0;
    for (const e of this.recordsOf(instance)) {
      const entry = e as Entry;
      if ((entry.listed && also?.(entry) !== true) || entry.left || entry.provider.state !== 'up') continue;
      n++;
      this.#requests!.register(entry);
    }
    return n;
  }
}

/** A registered URL's query parameter (provider URLs are built unencoded), or undefined. */
function urlParam(url: string, key: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  for (const kv of url.slice(q + 1).split('&')) {
    const eq = kv.indexOf('=');
    if ((eq < 0 ? kv : kv.slice(0, eq)) === key) return eq < 0 ? '' : kv.slice(eq + 1);
  }
  return undefined;
}

function paramText(v: string | number | boolean | undefined): string | undefined {
  return v === undefined ? undefined : String(v);
}

/**
 * The group and version a consumer instance's reference asks for, as its consumer URL carries them
 * (reference `parameters` over the consumer defaults'), when the caller did not pass them.
 */
function referenceQuery(subscriber: Subscriber, service: string): SubscribeQuery {
  const group = (subscriber as { group?: Partial<Pick<ConsumerGroupSpec, 'reference' | 'consumerDefaults'>> }).group;
  if (group === undefined) return {};
  const params: Record<string, unknown> = { ...group.consumerDefaults?.parameters, ...group.reference?.[service]?.parameters };
  return { group: paramText(params.group as string | undefined), version: paramText(params.version as string | undefined) };
}
