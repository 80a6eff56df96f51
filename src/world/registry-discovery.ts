/**
 * What Nacos and ZooKeeper models share: the registry server's record of each provider instance,
 * driven by a client-side liveness loop (Nacos heartbeat or gRPC keepalive, ZooKeeper ping), the
 * consumer instances' subscriptions, push delivery, and the registry faults. How a silent
 * instance is detected and dropped is the subclass's (`NacosRegistry`, `ZookeeperRegistry`); what
 * a consumer does with a pushed list is the Dubbo layer's.
 *
 * What the server lists depends on `registration`. Interface level: one record per export (one
 * URL per service of a process), listed under its service; a consumer instance subscribes once per
 * service it references. Application level (Dubbo 3 service discovery): one record per process
 * (a ServiceInstance), listed under its application; a consumer instance subscribes once per
 * application it needs, found by Dubbo's service-name mapping (service → applications exporting
 * it), and every service it references from that application listens on that one subscription.
 * Each delivered application list is split per service (the exports of that service of the listed
 * processes) and handed to that service's listeners.
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
 * Pushes: every change of a list (a service's or an application's) is sent to each subscription
 * of it as the FULL current list, after its own draw of `pushLag` (stream `registry/push`).
 * Deliveries are FIFO per subscription (a push arrives no earlier than the one sent before it, as
 * on one TCP or gRPC stream), so a later list is never overtaken by an earlier one; a delivery
 * older than one already delivered is dropped all the same. Changes found in one server-side scan
 * go out as one push; every other change (a registration, a deregistration) is its own push, as
 * ZooKeeper watches and Nacos change events fire per change. Each delivered notification is
 * reported with its bytes (`WorldObserver.push`); subscribing reads the current list at once
 * (Dubbo's `subscribe` notifies synchronously), which is counted as a push too. At application
 * level, a service whose application the consumer instance already watches gets that
 * subscription's last delivered list at once, which is not a push (Dubbo's
 * `ServiceInstancesChangedListener.addListenerAndNotify` reads its cache, not the registry).
 *
 * Faults: `setZoneCut(z)` loses every message between zone z and the registry (the registry's
 * own `zone` partitioned from z by the network does the same): providers there are not heard,
 * consumers there get no pushes and keep their lists. `setDown` freezes the registry: nothing is
 * heard, nothing detected, nothing pushed; on resume every registered instance's detection clock
 * restarts (a new ZooKeeper leader re-tracks sessions with a fresh timeout; zonesim does the same
 * for Nacos) and each subscription reads the current list (Dubbo re-subscribes on reconnect).
 * `setPushSwitch(false)` stops every push; on again, each subscription gets the current list. A
 * subscription cut off by a network partition retries every 5 s (`registry.retry.period`) and
 * reads the current list once it gets through.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import { sampler, type Sampler } from '../engine/distributions.js';
import type { RandomStreams } from '../engine/random.js';
import { NORMAL, type Simulation } from '../engine/simulation.js';
import { TimerLane } from '../engine/timer-lane.js';
import type { ConsumerGroupSpec, RegistrySpec, Scenario } from '../model/types.js';
import type { Network } from './network.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { ProviderExport, ProviderInstance } from './provider.js';
import { PushSizer, type MetadataRevision } from './registry-push-size.js';
import { nacosServiceName, parseNacosServiceName, subscribedNames } from './nacos-service-name.js';
import type { CatchUp, ProviderListener, RegistryModel, SubscribeQuery, Subscriber } from './registry.js';

/** Held pushes a subscription keeps before it delivers those that have arrived (see `#hold`). */
const HELD_BEFORE_CATCH_UP = 64;

/** Dubbo's FailbackRegistry retry period (`registry.retry.period`, 5000 ms): re-subscribe after a failure. */
export const REGISTRY_RETRY_PERIOD_MS = 5000;

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
  readonly scenario?: Pick<Scenario, 'providers' | 'registries'>;
}

/** How a registry model is named inside one world. */
export interface RegistryOptions {
  /** The registry's name (`registries:` key, or `registry` for the single one). */
  name: string;
  /** Prefix of its random streams: `registry` for the single registry, `registry/<name>` otherwise. */
  streamPrefix: string;
}

/** One registration as the registry server knows it: an export (interface level) or a process (application level). */
export interface RegistryEntry {
  /** The registered export; at application level, the process's first one (the record stands for the process). */
  readonly provider: ProviderExport;
  /** The provider process. */
  readonly instance: ProviderInstance;
  /** The exports this record lists: one at interface level, every export of the process at application level. */
  readonly exports: readonly ProviderExport[];
  /**
   * The name it is listed under: its service (interface level; with Nacos, the service's Nacos
   * name `providers:<iface>:<version>:<group>`) or its application (application level).
   */
  readonly service: string;
  /** The server holds the instance (a Nacos instance, a ZooKeeper ephemeral node). */
  registered: boolean;
  /** The instance is in the lists pushed to consumers (registered and healthy). */
  listed: boolean;
  /** The registry has dropped it from the lists (removed or unhealthy): attempts to it are stale calls. */
  gone: boolean;
  /** Deregistered on purpose (graceful stop): its client never registers it again. */
  left: boolean;
  /** When the server last heard from the client (heartbeat, keepalive, ping, registration). */
  lastHeardMs: number;
}

interface Entry extends RegistryEntry {
  /** The client's next liveness tick, while the loop runs. */
  timer: QueueEntry | null;
}

/** One consumer instance's watch on one list: a service (interface level) or an application. */
interface Subscription {
  readonly subscriber: Subscriber;
  /** The list watched: a service name or an application name. */
  readonly key: string;
  /** The listeners it feeds: one at interface level, one per referenced service at application level. */
  readonly refs: ServiceRef[];
  sentSeq: number;
  deliveredSeq: number;
  /** Arrival time of the last push sent (FIFO). */
  lastArrivalMs: number;
  /** A push could not be sent or was lost: the consumer's list may be stale. */
  missed: boolean;
  retrying: boolean;
  /** The last list delivered, or null before the first. */
  delivered: Snapshot | null;
  /**
   * Its pushes may be held (see `#hold`): each of its listeners takes late lists (`ServiceRef.onHeld`)
   * and is fed by this subscription alone, so a list it gets depends on this subscription only.
   */
  holdable: boolean;
  /**
   * Pushes on their way, held off the agenda, `heldHead..heldEnd` in arrival order (slots reused): of
   * the i-th, `heldAt[3i]` its arrival time, `heldAt[3i + 1]` its agenda sequence number (reserved
   * when sent, `Simulation.reserveSeq`), `heldAt[3i + 2]` its push sequence number, and
   * `heldSnapshots[i]` its list.
   */
  // PERF: numbers in one array of doubles, not an object per push: a push reads one cache line.
  readonly heldAt: number[];
  readonly heldSnapshots: (Snapshot | null)[];
  heldHead: number;
  heldEnd: number;
  /** In `#heldSubs`. */
  inHeldSubs: boolean;
  /** Delivering its held pushes (a listener that reads back does not start again). */
  catchingUp: boolean;
}

/** One `subscribe` call: a consumer instance's listener for one service. */
interface ServiceRef {
  readonly subscriber: Subscriber;
  readonly service: string;
  readonly listener: ProviderListener;
  /** What feeds it: its one subscription (interface level), or one per application exporting the service. */
  readonly subs: Subscription[];
  /** Set when the listener takes late lists: told when pushes start being held for it (`subscribe`). */
  readonly onHeld: ((atMs: number) => void) | undefined;
}

/** One list's current content, shared by every push of one change. */
interface Snapshot {
  /** The listed records, in registration order. */
  readonly entries: readonly Entry[];
  readonly bytes: number;
  readonly revisions: readonly MetadataRevision[];
  /** Per service, the exports its listeners get: built once per change and service, then shared. */
  readonly lists: Map<string, readonly ProviderExport[]>;
  /** PERF: the service and list `#listFor` gave last (a push reaches thousands of instances of one service). */
  lastService: string | undefined;
  lastList: readonly ProviderExport[] | undefined;
}

interface Delivery {
  sub: Subscription;
  seq: number;
  snapshot: Snapshot;
}

/** A node of the cache of union lists (a service exported by several applications). */
interface UnionNode {
  readonly next: WeakMap<readonly ProviderExport[], UnionNode>;
  list?: readonly ProviderExport[];
}

/** A service's part of an application subscription that has delivered nothing yet. */
const NOTHING_YET: readonly ProviderExport[] = Object.freeze([]);

/** Base of the registries that discover providers over time. */
export abstract class DiscoveryRegistry implements RegistryModel {
  readonly name: string;
  protected readonly spec: RegistrySpec;
  protected readonly sim: Simulation;
  protected readonly observer: WorldObserver;
  readonly #network: Network;
  readonly #lag: Sampler;
  readonly #sizer: PushSizer;
  readonly #appLevel: boolean;
  /** Nacos at interface level: one list per (interface, version, group) Nacos service name. */
  readonly #perGroup: boolean;
  /** Nacos at interface level: the Nacos service names that exist, per interface (first seen first). */
  readonly #namesOf = new Map<string, string[]>();
  readonly #entries = new WeakMap<ProviderExport, Entry>();
  /** Registered records by the name they are listed under, in registration order. */
  readonly #byKey = new Map<string, Set<Entry>>();
  /** Every registered record (what the server-side scans walk). */
  protected readonly registered = new Set<RegistryEntry>();
  readonly #subs = new Map<string, Subscription[]>();
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #changed = new Set<string>();
  /** Metadata revisions each consumer instance has fetched (application-level registration). */
  readonly #fetched = new Map<string, Set<string>>();
  /** Application level: service-name mapping, service → applications exporting it (first seen first). */
  readonly #appsOf = new Map<string, string[]>();
  /** Application level: each consumer instance's subscription per application. */
  readonly #appSubs = new WeakMap<Subscriber, Map<string, Subscription>>();
  /** Application level: the listeners of each service, to attach when the mapping learns an application. */
  readonly #refsOf = new Map<string, ServiceRef[]>();
  readonly #unions: UnionNode = { next: new WeakMap() };
  readonly #cut = new Set<string>();
  #down = false;
  #pushOn = true;
  /**
   * PERF: pushes to holdable subscriptions wait in the subscription instead of on the agenda (see
   * `holdPushes`). A rolling restart sends every change to thousands of consumer instances, each of
   * which reads its list a few times a second: an agenda entry per push cost more than the rest of
   * the restart, and most pushes are replaced by the next one before the instance reads.
   */
  #holding = false;
  /** Subscriptions that may hold pushes (some may have delivered them all since). */
  readonly #heldSubs: Subscription[] = [];
  #pushesHeld = 0;
  readonly #deliver = (arg: unknown): void => {
    const { sub, seq, snapshot } = arg as Delivery;
    this.#arrive(sub, seq, snapshot);
  };

  constructor(host: RegistryHost, spec: RegistrySpec, options: RegistryOptions, registryType: 'nacos' | 'zookeeper') {
    this.name = options.name;
    this.spec = spec;
    this.sim = host.sim;
    this.observer = host.observer;
    this.#network = host.network;
    this.#lag = sampler(spec.pushLag, host.streams.stream(`${options.streamPrefix}/push`));
    this.#sizer = new PushSizer(spec.registration ?? 'interface', registryType);
    this.#appLevel = spec.registration === 'application';
    this.#perGroup = registryType === 'nacos' && !this.#appLevel;
    if (this.#perGroup && host.scenario !== undefined) {
      // The services the Nacos server lists (`getServicesOfServer`): every provider group's, as a
      // server that has seen these deployments before holds them, even before they register again.
      const multi = Object.keys(host.scenario.registries).length > 0;
      for (const g of host.scenario.providers) {
        if (multi && g.registries !== undefined && !g.registries.includes(this.name)) continue;
        for (const service of g.services) {
          const params: Record<string, string | number | boolean> = { ...g.params, ...g.exports?.[service]?.params };
          this.#knowName(service, nacosServiceName(service, paramText(params.version), paramText(params.group)));
        }
      }
    }
    if (this.#appLevel && host.scenario !== undefined) {
      // The service-name mapping as the metadata center holds it once every provider group has
      // exported: each group names its application and services. Read up front, it lets a consumer
      // that subscribes before any provider registered (registerDelay, a late scale-out) watch the
      // right application at once, as a Dubbo consumer reading a populated mapping does.
      const multi = Object.keys(host.scenario.registries).length > 0;
      for (const g of host.scenario.providers) {
        if (multi && g.registries !== undefined && !g.registries.includes(this.name)) continue;
        for (const service of g.services) this.#mapService(service, g.application);
      }
    }
  }

  /** How often a live client makes itself heard (heartbeat, keepalive, ping). */
  protected abstract tickIntervalMs(): number;

  /** A client tick that was not heard (dead, black-holed or cut off); the default does nothing. */
  protected onSilentTick(_entry: RegistryEntry): void {}

  /** The provider process stopped without deregistering (crash, black hole); the default does nothing. */
  protected onCrash(_entry: RegistryEntry): void {}

  /** The registry is back after `registryDown`: detection clocks restart now. */
  protected onResume(): void {
    for (const e of this.registered) e.lastHeardMs = this.sim.now;
  }

  // ---- RegistryModel ------------------------------------------------------------------------

  providerStarted(instance: ProviderInstance): void {
    // Application level: Dubbo 3 registers one ServiceInstance per process, whatever it exports.
    if (this.#appLevel) this.#started(instance, instance.exports, instance.group.spec.application);
    else for (const e of instance.exports) this.#started(instance, [e], this.#listKey(e));
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

  #started(instance: ProviderInstance, exports: readonly ProviderExport[], key: string): void {
    const known = this.#entries.get(exports[0]!);
    if (known !== undefined) {
      // The same instance comes back (a black hole ends): its client is heard again at once.
      known.left = false;
      if (known.timer !== null) this.sim.cancel(known.timer);
      this.#tick(known);
      return;
    }
    const entry: Entry = {
      provider: exports[0]!,
      instance,
      exports,
      service: key,
      registered: false,
      listed: false,
      gone: false,
      left: false,
      lastHeardMs: this.sim.now,
      timer: null,
    };
    for (const e of exports) this.#entries.set(e, entry);
    // The first tick registers; until it succeeds, later ticks retry.
    if (this.spec.registerDelayMs > 0) {
      entry.timer = this.sim.schedule(this.spec.registerDelayMs, () => this.#tick(entry));
    } else this.#tick(entry);
  }

  providerStopped(instance: ProviderInstance, graceful: boolean): void {
    if (this.#appLevel) this.#stopped(instance.exports[0]!, graceful);
    else for (const e of instance.exports) this.#stopped(e, graceful);
  }

  #stopped(provider: ProviderExport, graceful: boolean): void {
    const entry = this.#entries.get(provider);
    if (entry === undefined) return;
    if (!graceful) {
      this.onCrash(entry);
      return;
    }
    entry.left = true;
    if (entry.timer !== null) {
      this.sim.cancel(entry.timer);
      entry.timer = null;
    }
    // A deregistration that cannot reach the registry is lost: the instance just falls silent.
    if (entry.registered && this.reachable(provider.zone)) {
      this.remove(entry);
      this.publish();
    }
  }

  subscribe(
    subscriber: Subscriber,
    service: string,
    listener: ProviderListener,
    query?: SubscribeQuery,
    onHeld?: (atMs: number) => void,
  ): CatchUp | void {
    if (!this.#appLevel) {
      // Nacos: one subscription per Nacos service name watched (none when a `*` or list matches
      // nothing yet: no list ever arrives, as in Dubbo); ZooKeeper: the interface's node.
      const keys = this.#perGroup
        ? subscribedNames(service, query ?? referenceQuery(subscriber, service), this.#namesOf.get(service) ?? [])
        : [service];
      const ref: ServiceRef = { subscriber, service, listener, subs: [], onHeld };
      // DIVERGENCE: a `*`/list subscription's union keeps the order of its names (first seen first);
      // Dubbo's NacosAggregateListener concatenates a ConcurrentHashMap's values (hash order).
      for (const key of keys) {
        const sub = this.#newSubscription(subscriber, key);
        sub.refs.push(ref);
        ref.subs.push(sub);
      }
      for (const sub of ref.subs) this.#refreshHoldable(sub);
      for (const sub of ref.subs) this.#firstRead(sub);
      return this.#catchUpOf(ref);
    }
    const ref: ServiceRef = { subscriber, service, listener, subs: [], onHeld };
    let refs = this.#refsOf.get(service);
    if (refs === undefined) this.#refsOf.set(service, (refs = []));
    refs.push(ref);
    // An unmapped service (no scenario, nothing registered yet) waits: the first registration of
    // an application exporting it attaches this listener (`#learnMapping`), and that change's push
    // is its first list.
    const fresh: Subscription[] = [];
    for (const app of this.#appsOf.get(service) ?? []) {
      const [sub, created] = this.#attach(ref, app);
      if (created) fresh.push(sub);
    }
    for (const sub of fresh) this.#firstRead(sub);
    // Every application already watched: its last list, at once and not as a push.
    if (fresh.length === 0 && ref.subs.some((s) => s.delivered !== null)) ref.listener(this.#listOf(ref));
    return this.#catchUpOf(ref);
  }

  isKnownGone(provider: ProviderExport | ProviderInstance): boolean {
    return this.#entries.get('exports' in provider ? provider.exports[0]! : provider)?.gone ?? false;
  }

  setZoneCut(zone: string, cut: boolean): void {
    if (cut) {
      // A held push to the zone, still on its way, is lost when it arrives (`#arrive`): from now on
      // the arrivals of pushes on their way go through the agenda.
      this.#queueAllHeld();
      this.#cut.add(zone);
      return;
    }
    if (!this.#cut.delete(zone)) return;
    for (const subs of this.#subs.values()) for (const s of subs) if (s.subscriber.zone === zone) this.#resync(s);
  }

  setDown(down: boolean): void {
    if (down === this.#down) return;
    this.#down = down;
    if (down) return;
    this.onResume();
    this.#resyncAll();
  }

  setPushSwitch(on: boolean): void {
    if (on === this.#pushOn) return;
    this.#pushOn = on;
    if (on) this.#resyncAll();
  }

  holdPushes(on: boolean): void {
    if (on) {
      // With a `zone`, whether a push arrives depends on network partitions, which the registry is not
      // told of when they start: every push then goes through the agenda.
      this.#holding = this.spec.zone === undefined;
      return;
    }
    this.#holding = false;
    // Between instants, after the kernel ran every entry due by now: what has arrived is delivered.
    const now = this.sim.now;
    for (const sub of this.#heldSubs) {
      while (sub.heldHead < sub.heldEnd && sub.heldAt[3 * sub.heldHead]! <= now) this.#deliverHeld(sub);
    }
    this.#queueEveryHeld();
  }

  get pushesHeld(): number {
    return this.#pushesHeld;
  }

  catchUpAll(): void {
    const subs = this.#heldSubs;
    const n = subs.length;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const sub = subs[i]!;
      this.#catchUp(sub);
      if (sub.heldHead !== sub.heldEnd) subs[kept++] = sub;
      else sub.inHeldSubs = false;
    }
    for (let i = n; i < subs.length; i++) subs[kept++] = subs[i]!;
    subs.length = kept;
  }

  // ---- for subclasses and tests -------------------------------------------------------------

  /** The registry's record of `provider` (tests and tools; do not mutate). */
  entryOf(provider: ProviderInstance | ProviderExport): Readonly<RegistryEntry> | undefined {
    return this.#entries.get('exports' in provider ? provider.exports[0]! : provider);
  }

  /** The exports of `service` a push would carry now (at application level, over every application exporting it). */
  currentList(service: string): readonly ProviderExport[] {
    if (this.#perGroup) return (this.#namesOf.get(service) ?? []).flatMap((name) => this.#listFor(this.#snapshot(name), service));
    if (!this.#appLevel) return this.#listFor(this.#snapshot(service), service);
    return (this.#appsOf.get(service) ?? []).flatMap((app) => this.#listFor(this.#snapshot(app), service));
  }

  /** Application level: the applications a consumer of `service` watches (Dubbo's service-name mapping). */
  applicationsOf(service: string): readonly string[] {
    return this.#appsOf.get(service) ?? [];
  }

  /** True while the registry is frozen by `registryDown`. */
  get down(): boolean {
    return this.#down;
  }

  /** True when messages between `zone` and the registry get through (and the registry is up). */
  protected reachable(zone: string): boolean {
    return !this.#down && this.#netReachable(zone);
  }

  /** The server (re)admits the instance: registered, healthy, listed. */
  protected register(e: RegistryEntry): void {
    const entry = e as Entry;
    entry.lastHeardMs = this.sim.now;
    if (!entry.registered) {
      entry.registered = true;
      this.registered.add(entry);
      let set = this.#byKey.get(entry.service);
      if (set === undefined) this.#byKey.set(entry.service, (set = new Set()));
      set.add(entry);
    }
    if (!entry.listed) {
      entry.listed = true;
      entry.gone = false;
      this.#changed.add(entry.service);
      if (this.#appLevel) this.#learnMapping(entry);
    }
  }

  /** The server keeps the instance but stops listing it (Nacos unhealthy). */
  protected unlist(e: RegistryEntry): void {
    if (!e.listed) return;
    e.listed = false;
    e.gone = true;
    this.#changed.add(e.service);
  }

  /** The server drops the instance (deregistered, deleted, session expired, connection closed). */
  protected remove(e: RegistryEntry): void {
    const entry = e as Entry;
    if (!entry.registered) return;
    this.unlist(entry);
    entry.registered = false;
    entry.gone = true;
    this.registered.delete(entry);
    this.#byKey.get(entry.service)?.delete(entry);
  }

  /** Sends one push per changed list (the full list) to every subscription of it. */
  protected publish(): void {
    if (this.#changed.size === 0) return;
    const keys = [...this.#changed];
    this.#changed.clear();
    for (const key of keys) {
      this.#snapshots.delete(key);
      const subs = this.#subs.get(key);
      if (subs === undefined) continue;
      const snapshot = this.#snapshot(key);
      // PERF: one lane per push: thousands of deliveries, one agenda entry at a time, same order; each
      // timer carries its subscription and sequence number, the lane the snapshot they all deliver.
      const lane = new TimerLane(this.sim, (sub, seq) => this.#arrive(sub as Subscription, seq, snapshot));
      for (const s of subs) this.#send(s, snapshot, lane);
      lane.start();
    }
  }

  // ---- client liveness loop -----------------------------------------------------------------

  #tick(entry: Entry): void {
    entry.timer = null;
    if (entry.left) return;
    const p = entry.provider;
    if (p.state === 'up' && this.reachable(p.zone)) {
      // Heard: a heartbeat / keepalive / ping; an instance the server lost registers again
      // (Nacos answers a beat for an unknown instance with 20404 and the client re-registers;
      // Dubbo's ZooKeeper registry recovers its nodes on a new session; Nacos 2.x redoes them on reconnect).
      entry.lastHeardMs = this.sim.now;
      if (!entry.listed) {
        this.register(entry);
        this.publish();
      }
    } else this.onSilentTick(entry);
    // A dead process whose record is gone has nothing left to tell the registry.
    if (p.state === 'up' || p.state === 'blackhole' || entry.registered) {
      entry.timer = this.sim.schedule(this.tickIntervalMs(), () => this.#tick(entry));
    }
  }

  // ---- service-name mapping (application level) ----------------------------------------------

  #mapService(service: string, app: string): boolean {
    let apps = this.#appsOf.get(service);
    if (apps === undefined) this.#appsOf.set(service, (apps = []));
    if (apps.includes(app)) return false;
    apps.push(app);
    return true;
  }

  // A process of an application the mapping did not know for one of its services (no scenario, or
  // a service first exported now): Dubbo's MappingListener sees the new application and the
  // consumer starts watching it. Subscriptions created here have read nothing yet, so the push of
  // the change that follows (`publish`) is their first list.
  #learnMapping(entry: Entry): void {
    for (const e of entry.exports) {
      if (!this.#mapService(e.service, entry.service)) continue;
      for (const ref of this.#refsOf.get(e.service) ?? []) this.#attach(ref, entry.service);
    }
  }

  /** Adds `ref` to its consumer instance's subscription of `app`, creating it (unread) if needed; true if created. */
  #attach(ref: ServiceRef, app: string): [Subscription, boolean] {
    let byApp = this.#appSubs.get(ref.subscriber);
    if (byApp === undefined) this.#appSubs.set(ref.subscriber, (byApp = new Map()));
    let sub = byApp.get(app);
    const created = sub === undefined;
    // What has arrived reaches the listeners it would have reached, before they change.
    for (const s of ref.subs) this.#catchUp(s);
    if (sub === undefined) byApp.set(app, (sub = this.#newSubscription(ref.subscriber, app)));
    else this.#catchUp(sub);
    sub.refs.push(ref);
    ref.subs.push(sub);
    for (const s of ref.subs) this.#refreshHoldable(s);
    return [sub, created];
  }

  // ---- push delivery ------------------------------------------------------------------------

  #newSubscription(subscriber: Subscriber, key: string): Subscription {
    const sub: Subscription = {
      subscriber,
      key,
      refs: [],
      sentSeq: 0,
      deliveredSeq: 0,
      lastArrivalMs: 0,
      missed: false,
      retrying: false,
      delivered: null,
      holdable: false,
      heldAt: [],
      heldSnapshots: [],
      heldHead: 0,
      heldEnd: 0,
      inHeldSubs: false,
      catchingUp: false,
    };
    let list = this.#subs.get(key);
    if (list === undefined) this.#subs.set(key, (list = []));
    list.push(sub);
    return sub;
  }

  /** Dubbo's `subscribe` reads the current list synchronously (counted as a push). */
  #firstRead(sub: Subscription): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    sub.sentSeq = sub.deliveredSeq = 1;
    sub.lastArrivalMs = this.sim.now;
    this.#notify(sub, this.#snapshot(sub.key));
  }

  #netReachable(zone: string): boolean {
    if (this.#cut.size > 0 && this.#cut.has(zone)) return false;
    const home = this.spec.zone;
    return home === undefined || home === zone || !this.#network.isPartitioned(zone, home);
  }

  #canPush(zone: string): boolean {
    return this.#pushOn && !this.#down && this.#netReachable(zone);
  }

  #snapshot(key: string): Snapshot {
    let snap = this.#snapshots.get(key);
    if (snap === undefined) {
      const entries: Entry[] = [];
      for (const e of this.#byKey.get(key) ?? []) if (e.listed) entries.push(e);
      const lists = new Map<string, readonly ProviderExport[]>();
      let bytes: number;
      const revisions = new Map<string, MetadataRevision>();
      if (this.#appLevel) {
        // One record per process: the envelope, then `ip:port` and instance metadata per process.
        const instances = entries.map((e) => e.instance);
        bytes = this.#sizer.instanceListBytes(key, instances);
        for (const p of instances) {
          const r = this.#sizer.revisionOf(p)!;
          revisions.set(r.revision, r);
        }
      } else {
        const providers = entries.map((e) => e.provider);
        // With Nacos the key is the Nacos name: the envelope carries it, the list is its interface's.
        const service = this.#perGroup ? (parseNacosServiceName(key)?.service ?? key) : key;
        lists.set(service, providers);
        bytes = this.#sizer.listBytes(service, providers, this.#perGroup ? key : undefined);
      }
      snap = { entries, bytes, revisions: [...revisions.values()], lists, lastService: undefined, lastList: undefined };
      this.#snapshots.set(key, snap);
    }
    return snap;
  }

  /** The exports of `service` in `snapshot`: one list object per change and service. */
  #listFor(snapshot: Snapshot, service: string): readonly ProviderExport[] {
    if (snapshot.lastService === service) return snapshot.lastList!;
    let list = snapshot.lists.get(service);
    if (list === undefined) {
      const out: ProviderExport[] = [];
      for (const e of snapshot.entries) for (const x of e.exports) if (x.service === service) out.push(x);
      snapshot.lists.set(service, (list = out));
    }
    snapshot.lastService = service;
    snapshot.lastList = list;
    return list;
  }

  /** What `ref`'s listener gets: its subscriptions' last lists for its service. */
  #listOf(ref: ServiceRef): readonly ProviderExport[] {
    if (ref.subs.length === 1) return this.#listFor(ref.subs[0]!.delivered!, ref.service);
    // A service exported by several applications: the union of their lists, cached by its parts so
    // that every consumer instance holding the same parts gets the same list object.
    let node = this.#unions;
    for (const s of ref.subs) {
      const part = s.delivered === null ? NOTHING_YET : this.#listFor(s.delivered, ref.service);
      let next = node.next.get(part);
      if (next === undefined) node.next.set(part, (next = { next: new WeakMap() }));
      node = next;
    }
    return (node.list ??= ref.subs.flatMap((s) => (s.delivered === null ? [] : this.#listFor(s.delivered, ref.service))));
  }

  /** Sends `snapshot` to `sub`, through `lane` when given (the same order as the agenda). */
  #send(sub: Subscription, snapshot: Snapshot, lane?: TimerLane): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    const now = this.sim.now;
    const seq = ++sub.sentSeq;
    const arrival = Math.max(now + Math.max(0, this.#lag()), sub.lastArrivalMs);
    sub.lastArrivalMs = arrival;
    // The agenda time `schedule` would give it, to the last bit.
    if (this.#holding && sub.holdable) this.#hold(sub, now + (arrival - now), seq, snapshot);
    else if (lane === undefined) this.sim.schedule(arrival - now, this.#deliver, undefined, { sub, seq, snapshot } satisfies Delivery);
    else lane.add(arrival - now, sub, seq);
  }

  // ---- held pushes (see `#holding`) ----------------------------------------------------------

  /** Holds a push to `sub` arriving at `timeMs`, at the agenda place a timer set now would take. */
  #hold(sub: Subscription, timeMs: number, seq: number, snapshot: Snapshot): void {
    // A subscriber that does not read (no traffic), in a run without timeline samples, would hold every
    // push: from 64 on, what has arrived is delivered first, so that it holds what is on its way.
    if (sub.heldEnd - sub.heldHead >= HELD_BEFORE_CATCH_UP) this.#catchUp(sub);
    // Slots before the first held push are free again once the arrays are full.
    if (sub.heldHead > 0 && 3 * sub.heldEnd >= sub.heldAt.length) compactHeld(sub);
    const agendaSeq = this.sim.reserveSeq();
    this.#pushesHeld++;
    const i = sub.heldEnd++;
    if (i === sub.heldHead) this.#tellHeld(sub, timeMs);
    const at = sub.heldAt;
    if (3 * i < at.length) {
      at[3 * i] = timeMs;
      at[3 * i + 1] = agendaSeq;
      at[3 * i + 2] = seq;
      sub.heldSnapshots[i] = snapshot;
    } else {
      at.push(timeMs, agendaSeq, seq);
      sub.heldSnapshots.push(snapshot);
    }
    if (!sub.inHeldSubs) {
      sub.inHeldSubs = true;
      this.#heldSubs.push(sub);
    }
  }

  /**
   * Delivers `sub`'s held pushes whose agenda place is before what runs now, in order, as the kernel
   * would have at their arrival: what they do reads and writes only the subscription, its
   * listeners' state (read by the subscriber through a `CatchUp` first) and push counts (read after
   * `catchUpAll`); whether one arrives (`#netReachable`) changes only after `#queueAllHeld`.
   */
  #catchUp(sub: Subscription): void {
    if (sub.heldHead === sub.heldEnd || sub.catchingUp) return;
    sub.catchingUp = true;
    try {
      const at = sub.heldAt;
      while (sub.heldHead < sub.heldEnd) {
        const i = 3 * sub.heldHead;
        if (!this.sim.hasFired(at[i]!, at[i + 1]!, NORMAL)) break;
        this.#deliverHeld(sub);
      }
    } finally {
      sub.catchingUp = false;
    }
    if (sub.heldHead === sub.heldEnd) sub.heldHead = sub.heldEnd = 0;
    // Some have not arrived yet: the listeners' subscriber catches up again once the first has.
    else this.#tellHeld(sub, sub.heldAt[3 * sub.heldHead]!);
  }

  #tellHeld(sub: Subscription, atMs: number): void {
    for (const ref of sub.refs) ref.onHeld!(atMs);
  }

  /** Delivers `sub`'s first held push (counted as the agenda entry it stands for). */
  #deliverHeld(sub: Subscription): void {
    const i = sub.heldHead++;
    const snapshot = sub.heldSnapshots[i]!;
    sub.heldSnapshots[i] = null;
    this.sim.eventsProcessed++;
    this.#arrive(sub, sub.heldAt[3 * i + 2]!, snapshot);
  }

  /** Puts `sub`'s held pushes on the agenda, each at the place it was held for. */
  #queueHeld(sub: Subscription): void {
    const at = sub.heldAt;
    for (let i = sub.heldHead; i < sub.heldEnd; i++) {
      const delivery: Delivery = { sub, seq: at[3 * i + 2]!, snapshot: sub.heldSnapshots[i]! };
      sub.heldSnapshots[i] = null;
      this.sim.scheduleReserved(at[3 * i]!, at[3 * i + 1]!, this.#deliver, NORMAL, delivery);
    }
    sub.heldHead = sub.heldEnd = 0;
  }

  /** Delivers what has arrived, puts every other held push on the agenda. */
  #queueAllHeld(): void {
    this.catchUpAll();
    this.#queueEveryHeld();
  }

  /** Puts every held push on the agenda. */
  #queueEveryHeld(): void {
    for (const sub of this.#heldSubs) {
      sub.inHeldSubs = false;
      this.#queueHeld(sub);
    }
    this.#heldSubs.length = 0;
  }

  /** Whether `sub` may hold pushes; one that no longer may puts those it holds on the agenda. */
  #refreshHoldable(sub: Subscription): void {
    const holdable = sub.refs.every((r) => r.onHeld !== undefined && r.subs.length === 1);
    if (sub.holdable && !holdable) this.#queueHeld(sub);
    sub.holdable = holdable;
  }

  /** What `ref`'s subscriber calls before reading what its listener built, when the listener takes late lists. */
  #catchUpOf(ref: ServiceRef): CatchUp | undefined {
    if (ref.onHeld === undefined) return undefined;
    // At interface level a listener's subscriptions are those it got when it subscribed.
    if (!this.#appLevel && ref.subs.length === 1) {
      const sub = ref.subs[0]!;
      return () => this.#catchUp(sub);
    }
    return () => {
      const subs = ref.subs;
      for (let i = 0; i < subs.length; i++) {
        const sub = subs[i]!;
        if (sub.heldHead !== sub.heldEnd) this.#catchUp(sub);
      }
    };
  }

  #arrive(sub: Subscription, seq: number, snapshot: Snapshot): void {
    // Ordering guarantee: never replace a newer list with an older one.
    if (seq <= sub.deliveredSeq) return;
    if (!this.#netReachable(sub.subscriber.zone)) {
      // Cut off while the push was on its way: lost.
      this.#miss(sub);
      return;
    }
    sub.deliveredSeq = seq;
    this.#notify(sub, snapshot);
  }

  #notify(sub: Subscription, snapshot: Snapshot): void {
    let bytes = snapshot.bytes;
    if (snapshot.revisions.length > 0) {
      // Application level: the consumer fetches the metadata of each revision it has not seen.
      let seen = this.#fetched.get(sub.subscriber.id);
      if (seen === undefined) this.#fetched.set(sub.subscriber.id, (seen = new Set()));
      for (const r of snapshot.revisions) {
        if (seen.has(r.revision)) continue;
        seen.add(r.revision);
        bytes += r.bytes;
        this.observer.count('registry.metadataFetches');
      }
    }
    this.observer.push(sub.subscriber.id, bytes);
    sub.delivered = snapshot;
    // One push, every service listening on it: each gets its own service's list.
    for (const ref of sub.refs) ref.listener(this.#listOf(ref));
  }

  #miss(sub: Subscription): void {
    sub.missed = true;
    // Registry down, push switch off and zone cuts end with an explicit resync; a network
    // partition does not say when it heals, so the consumer retries.
    if (sub.retrying || this.#down || !this.#pushOn || this.#cut.has(sub.subscriber.zone)) return;
    sub.retrying = true;
    this.sim.schedule(REGISTRY_RETRY_PERIOD_MS, () => {
      sub.retrying = false;
      if (!sub.missed) return;
      if (this.#canPush(sub.subscriber.zone)) this.#resync(sub);
      else this.#miss(sub);
    });
  }

  /** The subscription reads the current list again (reconnect, push switch on). */
  #resync(sub: Subscription): void {
    sub.missed = false;
    this.#send(sub, this.#snapshot(sub.key));
  }

  #resyncAll(): void {
    for (const subs of this.#subs.values()) for (const s of subs) this.#resync(s);
  }
}

/** Moves `sub`'s held pushes to the front of its arrays. */
function compactHeld(sub: Subscription): void {
  const at = sub.heldAt;
  const snapshots = sub.heldSnapshots;
  const head = sub.heldHead;
  const n = sub.heldEnd - head;
  for (let i = 0; i < n; i++) {
    at[3 * i] = at[3 * (head + i)]!;
    at[3 * i + 1] = at[3 * (head + i) + 1]!;
    at[3 * i + 2] = at[3 * (head + i) + 2]!;
    snapshots[i] = snapshots[head + i]!;
  }
  for (let i = n; i < sub.heldEnd; i++) snapshots[i] = null;
  sub.heldHead = 0;
  sub.heldEnd = n;
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
