/**
 * A discovery registry's subscriptions and push delivery. Every change of a list (a service's or an
 * application's) is sent to each subscription of it as the FULL current list, after its own draw
 * of `pushLag` (stream `registry/push`). Deliveries are FIFO per subscription (a push arrives no
 * earlier than the one sent before it, as on one TCP or gRPC stream), so a later list is never
 * overtaken by an earlier one; a delivery older than one already delivered is dropped all the
 * same. Each delivered notification is reported with its bytes (`WorldObserver.push`); at
 * application level the consumer instance's ServiceInstancesChangedListener then fetches the
 * metadata of each revision it has not cached before the list reaches its listeners
 * (`ServiceInstancesChangedListeners`). Subscribing reads the current list at once (Dubbo's `subscribe` notifies synchronously),
 * which is counted as a push too. A push that cannot reach its consumer instance is missed: the
 * subscription reads the current list again when the registry says so (back up, push switch on,
 * zone cut over) or, cut off by a network partition, retries every 5 s (`registry.retry.period`).
 * Which changes make one push, and when a list changes, is the registry's (`DiscoveryRegistry`).
 *
 * Between a push's arrival and the listeners sits the consumer's notifier (`registry-notifier.ts`,
 * Dubbo 3's `delay-notification`, from the subscriber's Dubbo profile): with Nacos at interface level
 * and ZooKeeper at application level, a RegistryNotifier may defer a notification and drop the lists
 * it supersedes (every push that arrives is still counted); with ZooKeeper at interface level, a
 * change fires the subscription's one-shot watch, and the watch event, after its `pushLag`, waits for
 * the consumer's ZooKeeper event thread, reads the current list there (that read is the push counted)
 * and notifies it once the ZookeeperRegistryNotifier's sleep is over. With ZooKeeper at application level and
 * registry servers, a change is a watch event too, and the consumer's ServiceCache thread reads the list for each
 * event, one read at a time (the read counted), before the RegistryNotifier. At application level the
 * ServiceInstancesChangedListener comes after the notifier: a notification, not a push, starts its
 * metadata fetches (pushes are counted when they arrive).
 */
import type { Sampler } from '../engine/distributions.js';
import { URGENT, type Simulation } from '../engine/simulation.js';
import { TimerLane } from '../engine/timer-lane.js';
import { consumerGroupOf, type WorldObserver } from '../metrics/observer.js';
import type { RegistrySpec } from '../model/types.js';
import type { ProviderExport } from './provider.js';
import type { RegistryEntry } from './registry-entry.js';
import { DEFERRED_NOTIFY_SEQ, HeldPushes } from './registry-held-pushes.js';
import {
  RegistryNotifier,
  ZookeeperEventThread,
  ZookeeperRegistryNotifier,
  notificationDelayOf,
} from './registry-notifier.js';
import type { MetadataRevision, PushSizer } from './registry-push-size.js';
import type { Delivery, ServiceCacheThread, ServiceRef, Snapshot, Subscription } from './registry-subscription.js';
import { parseNacosServiceName } from './nacos-service-name.js';
import { ServiceInstancesChangedListeners, type ListenerHost } from './service-instances-changed.js';
import type { Subscriber } from './registry.js';
import { REQUEST_OVERHEAD_BYTES, type RegistryClient, type RegistryServers } from './registry-servers.js';
import { NacosPushAcks } from './nacos-push-acks.js';

/**
 * Bytes of a ZooKeeper watch event besides the service name: 32 (length, reply header, WatcherEvent's type,
 * state and path length) plus the path `/dubbo/<service>/providers` (research-40 §6).
 */
const WATCH_EVENT_BYTES = 32 + '/dubbo/'.length + '/providers'.length;
/**
 * The same at application level, for `/services/<application>`.
 * DIVERGENCE: the ServiceCache's persistent recursive watch names the changed child, `/services/<app>/<ip:port>`
 * (some 20 bytes more).
 */
const APP_WATCH_EVENT_BYTES = 32 + '/services/'.length;

/** Nacos 2.x: a gRPC stream with more than this many bytes queued refuses a push (GrpcConnection, ConnectionBusyException). */
export const NACOS_BUSY_BYTES = 32 * 1024;
/** Nacos 2.x: a failed push to one subscriber is tried again this much later, with the list then (`pushTaskRetryDelay`). */
export const NACOS_PUSH_RETRY_MS = 1000;

/** Dubbo's FailbackRegistry retry period (`registry.retry.period`, 5000 ms): re-subscribe after a failure. */
export const REGISTRY_RETRY_PERIOD_MS = 5000;

/**
 * When Dubbo's FailbackRegistry retry timer runs a task added at `atMs`: a HashedWheelTimer whose tick is
 * the retry period fires it at the tick after next, 5 to 10 s later (research-40 §3).
 */
export function failbackRetryAtMs(atMs: number): number {
  return (Math.floor(atMs / REGISTRY_RETRY_PERIOD_MS) + 2) * REGISTRY_RETRY_PERIOD_MS;
}

/**
 * ZooKeeper's client refuses a reply frame (its bytes less the 4-byte length) longer than `jute.maxbuffer`:
 * the 3.3 client (ZooKeeper 3.7) when it is longer than 0xfffff bytes, the 2.7 client (ZooKeeper 3.4.13)
 * when it is 4 MiB or longer (ClientCnxnSocket.readLength; research-40 §2.4).
 */
export function juteRefuses(replyBytes: number, consumer: { version: '2.7' | '3.3' } | undefined, maxBufferBytes: number | undefined): boolean {
  const frame = replyBytes - 4;
  if (consumer?.version === '2.7') return frame >= (maxBufferBytes ?? 4 * 1024 * 1024);
  return frame > (maxBufferBytes ?? 0xfffff);
}

/** What push delivery reads from its registry server (`DiscoveryRegistry`). */
export interface RegistryServer {
  readonly sim: Simulation;
  readonly observer: WorldObserver;
  /** Registered records by the name they are listed under, in registration order. */
  readonly records: ReadonlyMap<string, ReadonlySet<RegistryEntry>>;
  /** True while the registry is frozen by `registryDown`. */
  isDown(): boolean;
  /** True while `zone` is cut off from the registry by `registryPartition`. */
  isCut(zone: string): boolean;
  /** True when messages between `zone` and the registry get through (zone cuts, network partitions). */
  netReachable(zone: string): boolean;
  /** The registry's nodes when it is modeled as a server (`servers` or `capacity`), else null: pushes cost nothing. */
  readonly servers: RegistryServers | null;
}

/** How one registry's pushes are made. */
export interface PushOptions {
  readonly spec: RegistrySpec;
  /** Draws of `pushLag`. */
  readonly lag: Sampler;
  readonly sizer: PushSizer;
  /** Application-level registration: one list per application, one record per process. */
  readonly appLevel: boolean;
  /** Nacos at interface level: one list per (interface, version, group) Nacos service name. */
  readonly perGroup: boolean;
  /** Which notifier a subscription goes through (see the module note). */
  readonly registryType: 'nacos' | 'zookeeper';
  /** Application level: what the consumers' metadata fetches need (none: lists take effect on arrival). */
  readonly metadata?: ListenerHost;
}

/** The Nacos client `sub`'s consumer instance ships (its Dubbo profile; 2.x when it has none). */
function nacosClientOf(sub: Subscription): '1.x' | '2.x' {
  return (sub.subscriber as { group?: { dubbo?: { nacosClient?: '1.x' | '2.x' } } }).group?.dubbo?.nacosClient ?? '2.x';
}

/** The registry client of `sub`'s consumer instance (kept on the subscription: one lookup per subscription). */
function clientOf(sub: Subscription, servers: RegistryServers): RegistryClient {
  return (sub.client ??= servers.clientOf(sub.subscriber, sub.subscriber.zone));
}

/** A node of the cache of union lists (a service exported by several applications). */
interface UnionNode {
  readonly next: WeakMap<readonly ProviderExport[], UnionNode>;
  list?: readonly ProviderExport[];
}

/** A service's part of an application subscription that has delivered nothing yet. */
const NOTHING_YET: readonly ProviderExport[] = Object.freeze([]);

/** The subscriptions of one discovery registry and the pushes it sends them. */
export class PushDelivery {
  /** Pushes held off the agenda while the world runs. */
  readonly held: HeldPushes;
  readonly #server: RegistryServer;
  readonly #sim: Simulation;
  readonly #observer: WorldObserver;
  readonly #lag: Sampler;
  readonly #sizer: PushSizer;
  readonly #appLevel: boolean;
  readonly #perGroup: boolean;
  readonly #registryType: 'nacos' | 'zookeeper';
  /** ZooKeeper's `jute.maxbuffer` is enforced (registry servers modeled, or `juteMaxBuffer` set); its explicit value. */
  readonly #jute: boolean;
  readonly #juteMaxBufferBytes: number | undefined;
  readonly #subs = new Map<string, Subscription[]>();
  /** ZooKeeper at interface level: each consumer process's event thread for this registry. */
  readonly #zkThreads = new Map<Subscriber, ZookeeperEventThread<Subscription>>();
  readonly #snapshots = new Map<string, Snapshot>();
  /** Application level: the consumers' ServiceInstancesChangedListeners, which fetch metadata before a list takes effect. */
  readonly #listeners: ServiceInstancesChangedListeners | undefined;
  readonly #unions: UnionNode = { next: new WeakMap() };
  /** Nacos with registry servers: the ack timeouts and the 1.x clients' queries (`nacos-push-acks.ts`), else null. */
  readonly #nacos: NacosPushAcks | null;
  #pushOn = true;
  readonly #deliver = (arg: unknown): void => {
    const { sub, seq, snapshot } = arg as Delivery;
    this.#arrive(sub, seq, snapshot, this.#sim.now);
  };
  /** The agenda callback of a deferred notification (`RegistryNotifier`). */
  readonly #deferredFire = (arg: unknown): void => this.#runDeferred(arg as Subscription);

  constructor(server: RegistryServer, options: PushOptions) {
    this.#server = server;
    this.#sim = server.sim;
    this.#observer = server.observer;
    this.#lag = options.lag;
    this.#sizer = options.sizer;
    this.#appLevel = options.appLevel;
    this.#perGroup = options.perGroup;
    this.#registryType = options.registryType;
    this.#juteMaxBufferBytes = options.spec.juteMaxBufferBytes;
    this.#jute = options.registryType === 'zookeeper' && (server.servers !== null || options.spec.juteMaxBufferBytes !== undefined);
    this.held = new HeldPushes(server.sim, options.spec, options.appLevel, {
      arrive: (sub, seq, snapshot, atMs) => this.#arrive(sub, seq, snapshot, atMs),
      deliver: this.#deliver,
      runDeferred: (sub) => this.#runDeferred(sub),
      deferredFire: this.#deferredFire,
    });
    const servers = server.servers;
    this.#nacos =
      options.registryType === 'nacos' && servers !== null
        ? new NacosPushAcks({
            sim: server.sim,
            observer: server.observer,
            servers,
            canReach: (zone) => !server.isDown() && server.netReachable(zone),
            snapshot: (key) => this.#snapshot(key),
            retry: (sub, delayMs) => this.#readAgainAt(sub, delayMs),
            arrive: (sub, seq, snapshot) => this.#arrive(sub, seq, snapshot, this.#sim.now),
          })
        : null;
    this.#listeners =
      options.appLevel && options.metadata !== undefined
        ? new ServiceInstancesChangedListeners(options.metadata, this.#sizer, this.held, (sub, snapshot) => this.#hand(sub, snapshot))
        : undefined;
  }

  /** Sends one push per changed list (the full list) to every subscription of it, the lists in `keys` order. */
  publish(keys: readonly string[]): void {
    for (const key of keys) {
      this.#snapshots.delete(key);
      const subs = this.#subs.get(key);
      if (subs === undefined) continue;
      const snapshot = this.#snapshot(key);
      // PERF: one lane per push: thousands of deliveries, one agenda entry at a time, same order; each
      // timer carries its subscription and sequence number, the lane the snapshot they all deliver.
      const lane = new TimerLane(this.#sim, (sub, seq) => this.#arrive(sub as Subscription, seq, snapshot, this.#sim.now));
      for (const s of subs) this.#send(s, snapshot, lane);
      lane.start();
    }
  }

  /**
   * A push of the list `key` was merged into a later one (push rate control, Nacos's push delay): one
   * push saved per subscribed instance, counted on each subscriber's node when the registry is a server.
   * Returns the number of subscribed instances (a cohort's representative counts its members).
   */
  pushMerged(key: string): number {
    const subs = this.#subs.get(key);
    if (subs === undefined) return 0;
    const servers = this.#server.servers;
    let members = 0;
    for (const sub of subs) {
      members += sub.members;
      if (servers !== null) servers.nodeOf(clientOf(sub, servers)).pushesMerged += sub.members;
    }
    return members;
  }

  /** Fault `pushSwitch`: off stops every push; on, each subscription reads the current list. */
  setPushSwitch(on: boolean): void {
    if (on === this.#pushOn) return;
    this.#pushOn = on;
    if (on) this.resyncAll();
  }

  /** The subscriptions of consumer instances in `zone` read the current list again (its zone cut is over). */
  resyncZone(zone: string): void {
    for (const subs of this.#subs.values()) for (const s of subs) if (s.subscriber.zone === zone) this.#resync(s);
  }

  /** The exports of `service` in the list `key` as a push would carry it now. */
  currentList(key: string, service: string): readonly ProviderExport[] {
    return this.#listFor(this.#snapshot(key), service);
  }

  /** A new subscription of `subscriber` to the list `key`, with no listener and nothing read yet. */
  newSubscription(subscriber: Subscriber, key: string): Subscription {
    // The consumer's notifier (see the module note): none without `delay-notification` (Dubbo 2.7),
    // none for Nacos at application level (NacosServiceDiscovery notifies directly).
    const delayMs = notificationDelayOf(subscriber);
    const zookeeper = this.#registryType === 'zookeeper';
    const zk = delayMs > 0 && zookeeper && !this.#appLevel ? new ZookeeperRegistryNotifier(delayMs, this.#zkThread(subscriber)) : null;
    const notifier = delayMs > 0 && zk === null && (zookeeper || !this.#appLevel) ? new RegistryNotifier<Snapshot>(delayMs) : null;
    // ZooKeeper at application level through a server: changes are watch events, each read by the ServiceCache.
    const cache = zookeeper && this.#appLevel && this.#server.servers !== null ? { firedAtMs: [], head: 0, ready: 0, reading: false } : null;
    const sub: Subscription = {
      subscriber,
      members: subscriber.members ?? 1,
      key,
      refs: [],
      sentSeq: 0,
      deliveredSeq: 0,
      lastArrivalMs: 0,
      missed: false,
      retrying: false,
      delivered: null,
      notifier,
      zk,
      cache,
      holdable: false,
      heldAt: [],
      heldSnapshots: [],
      heldHead: 0,
      heldEnd: 0,
      inHeldSubs: false,
      heldDueMs: Infinity,
      catchingUp: false,
      chained: false,
      client: null,
    };
    let list = this.#subs.get(key);
    if (list === undefined) this.#subs.set(key, (list = []));
    list.push(sub);
    // A Nacos 1.x client queries every service it subscribes to (HostReactor.UpdateTask).
    if (this.#nacos !== null && nacosClientOf(sub) === '1.x') this.#nacos.subscribed(sub, clientOf(sub, this.#server.servers!));
    return sub;
  }

  /** The ZooKeeper event thread of `subscriber`'s client of this registry. */
  #zkThread(subscriber: Subscriber): ZookeeperEventThread<Subscription> {
    let thread = this.#zkThreads.get(subscriber);
    if (thread === undefined) this.#zkThreads.set(subscriber, (thread = new ZookeeperEventThread()));
    return thread;
  }

  /**
   * Dubbo's `subscribe` reads the current list synchronously (counted as a push); the read bypasses
   * the notifier (NacosRegistry.doSubscribe, ZookeeperRegistry.doSubscribe notify directly) and, with
   * ZooKeeper, sets the child watch.
   */
  firstRead(sub: Subscription): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    const snapshot = this.#snapshot(sub.key);
    const servers = this.#server.servers;
    if (servers !== null) {
      // DIVERGENCE: the read of `subscribe` is answered at once (the consumer's references are built before
      // its traffic starts); its request and reply still load the node, as if both went through at once.
      // The running estate's reads, made while the world is built, came before the run: they load no node (at
      // seed scale, 10^6 reads of 54 KB lists would otherwise fill five 1 Gbps cards for 86 s before anything happened).
      const client = clientOf(sub, servers);
      const deployed = this.#sim.building;
      const node = deployed ? servers.connect(client) : servers.request(client, this.#sim.now, REQUEST_OVERHEAD_BYTES + sub.key.length, sub.members);
      if (node === null) {
        this.#miss(sub);
        return;
      }
      if (!deployed) servers.reply(node, this.#sim.now, snapshot.bytes, sub.members);
    }
    if (this.#refuses(sub, snapshot)) return;
    this.#nacos?.sent(sub, snapshot);
    sub.sentSeq = sub.deliveredSeq = 1;
    sub.lastArrivalMs = this.#sim.now;
    this.#received(sub, snapshot);
    this.#refresh(sub, snapshot, true);
  }

  #canPush(zone: string): boolean {
    return this.#pushOn && !this.#server.isDown() && this.#server.netReachable(zone);
  }

  #snapshot(key: string): Snapshot {
    let snap = this.#snapshots.get(key);
    if (snap === undefined) {
      const entries: RegistryEntry[] = [];
      for (const e of this.#server.records.get(key) ?? []) if (e.listed) entries.push(e);
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
  listOf(ref: ServiceRef): readonly ProviderExport[] {
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

  /**
   * Sends `snapshot` to `sub`, through `lane` when given (the same order as the agenda). With a
   * ZooKeeper notifier, what is sent is a watch event (push sequence number 0), if the watch is set.
   */
  #send(sub: Subscription, snapshot: Snapshot, lane?: TimerLane): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    // DIVERGENCE: without a notification delay (2.7) every ZooKeeper change is its own push; ZooKeeper's
    // one-shot watch would merge the changes made before the consumer re-reads the children.
    const zk = sub.zk;
    if (zk !== null) {
      // One-shot: the changes until the event is processed make no further event.
      if (!zk.armed) return;
      zk.armed = false;
    }
    const now = this.#sim.now;
    // The registry as a server: the push (a watch event) leaves the subscriber's node once its out NIC
    // has sent everything queued before it. DIVERGENCE: a ZooKeeper consumer's read timeout is not modeled
    // (it would need each consumer's pings on the agenda): more than 2/3 of a session queued for it would
    // drop its connection and the backlog, and it would read its lists again on reconnecting.
    const servers = this.#server.servers;
    let leftMs = now;
    if (servers !== null) {
      const client = clientOf(sub, servers);
      if (this.#registryType === 'nacos' && servers.unsentBytes(client, now) > NACOS_BUSY_BYTES && nacosClientOf(sub) === '2.x') {
        this.#busy(sub);
        return;
      }
      const event = zk !== null ? WATCH_EVENT_BYTES : sub.cache !== null ? APP_WATCH_EVENT_BYTES : -1;
      const bytes = event >= 0 ? event + sub.key.length : snapshot.bytes;
      const done = servers.push(client, now, bytes, sub.members);
      if (done === undefined) {
        if (zk !== null) zk.armed = true;
        this.#miss(sub);
        return;
      }
      leftMs = done;
      if (zk !== null) zk.firedAtMs = now;
      if (sub.cache !== null) sub.cache.firedAtMs.push(now);
    }
    const watchEvent = zk !== null || sub.cache !== null;
    const seq = watchEvent ? 0 : ++sub.sentSeq;
    const arrival = Math.max(leftMs + Math.max(0, this.#lag()), sub.lastArrivalMs);
    sub.lastArrivalMs = arrival;
    if (servers !== null && !watchEvent) this.#observer.registryPushLag?.(arrival - now, now);
    if (this.#nacos !== null) this.#nacos.pushed(sub, clientOf(sub, servers!), nacosClientOf(sub), snapshot, snapshot.bytes, leftMs, arrival);
    // The agenda time `schedule` would give it, to the last bit. A push that starts a metadata fetch, or
    // reaches a listener that is fetching, goes through the agenda: its effect depends on when it arrives.
    if (this.held.holding && sub.holdable && !this.#mustQueue(sub, snapshot)) {
      this.held.hold(sub, now + (arrival - now), seq, snapshot);
    }
    else if (lane === undefined) this.#sim.schedule(arrival - now, this.#deliver, undefined, { sub, seq, snapshot } satisfies Delivery);
    else lane.add(arrival - now, sub, seq);
  }

  /**
   * Whether a push of `snapshot` to `sub` must go through the agenda rather than be held: at application
   * level, when its listener would start a metadata fetch or is fetching, or when a deferred notification
   * is pending (the push replaces its list, which may then need a fetch at the notification's time).
   */
  #mustQueue(sub: Subscription, snapshot: Snapshot): boolean {
    const listeners = this.#listeners;
    if (listeners === undefined) return false;
    return (sub.notifier !== null && sub.notifier.pending !== null) || listeners.mustQueue(sub, snapshot);
  }

  /** A push to `sub` arrives at `atMs` (now, or for a held push delivered later, when it arrived). */
  #arrive(sub: Subscription, seq: number, snapshot: Snapshot, atMs: number): void {
    const zk = sub.zk;
    if (zk !== null) {
      this.#watchEvent(sub, zk);
      return;
    }
    if (sub.cache !== null) {
      this.#cacheEvent(sub, sub.cache);
      return;
    }
    this.#take(sub, seq, snapshot, atMs);
  }

  /** `snapshot` (push number `seq`) reaches `sub`'s consumer instance at `atMs`: counted, then its notifier. */
  #take(sub: Subscription, seq: number, snapshot: Snapshot, atMs: number): void {
    // At application level a subscription may hold some pushes (and a deferred notification) and not
    // others: those due first go first.
    if (this.#listeners !== undefined && !sub.catchingUp) this.held.catchUp(sub);
    // Ordering guarantee: never replace a newer list with an older one.
    if (seq <= sub.deliveredSeq) return;
    if (!this.#server.netReachable(sub.subscriber.zone)) {
      // Cut off while the push was on its way: lost.
      this.#miss(sub);
      return;
    }
    if (this.#refuses(sub, snapshot)) return;
    sub.deliveredSeq = seq;
    this.#received(sub, snapshot);
    const notifier = sub.notifier;
    if (notifier === null) {
      this.#refresh(sub, snapshot);
      return;
    }
    const decision = notifier.event(atMs, snapshot);
    if (decision === 'now') {
      this.#refresh(sub, snapshot);
      return;
    }
    if (decision === 'superseded') {
      this.#observer.count('registry.notificationsSuperseded', sub.members);
      // The new list needs a metadata fetch when the notification runs: it runs from the agenda.
      if (notifier.entry === null && this.#listeners?.mustQueue(sub, snapshot) === true) this.held.release(sub);
      return;
    }
    this.#observer.count('registry.notificationsDeferred', sub.members);
    // Deferred notifications run before anything else at their instant (see DEFERRED_NOTIFY_SEQ); one
    // whose list starts a metadata fetch runs from the agenda.
    if (this.held.holding && sub.holdable && !(this.#listeners?.mustQueue(sub, snapshot) ?? false)) this.held.holdDeferred(sub);
    else notifier.entry = this.#sim.scheduleReserved(notifier.pendingAtMs, DEFERRED_NOTIFY_SEQ, this.#deferredFire, URGENT, sub);
  }

  /** `sub`'s deferred notification runs: its latest list (RegistryNotifier's NotificationTask). */
  #runDeferred(sub: Subscription): void {
    this.#refresh(sub, sub.notifier!.takePending());
  }

  /**
   * ZooKeeper at application level through a server: a watch event of `sub` arrives at its consumer's
   * ServiceCache, whose thread reads the list for it once the reads before it are back.
   */
  #cacheEvent(sub: Subscription, cache: ServiceCacheThread): void {
    cache.ready++;
    // An event that arrives cut off is lost with the connection: its read finds the zone unreachable and
    // misses; the cache reads the list again when the client reconnects (a resync).
    if (!cache.reading) this.#readForCache(sub, cache);
  }

  /**
   * The ServiceCache thread's `cacheChanged` for its next waiting event: `getInstances` through the consumer's
   * node (request, then the list's bytes on the node's out NIC, read when the node processes the request;
   * the read is the push counted), then the RegistryNotifier as for a push (ZookeeperServiceDiscoveryChangeWatcher
   * .java:85-94, 3.3). The thread waits for the reply (Curator's calls are blocking), then goes on.
   * DIVERGENCE: `getInstances` is a getChildren of /services/<app> and then one getData per instance, one
   * round trip each (Curator ServiceDiscoveryImpl.queryForInstances): modeled as one request whose reply
   * carries every instance; the cache's own getData of the changed child is left out.
   */
  #readForCache(sub: Subscription, cache: ServiceCacheThread): void {
    const servers = this.#server.servers!;
    while (cache.head < cache.ready) {
      const firedAtMs = cache.firedAtMs[cache.head++]!;
      if (cache.head === cache.firedAtMs.length) cache.firedAtMs.length = cache.head = cache.ready = 0;
      if (!this.#canPush(sub.subscriber.zone)) {
        this.#miss(sub);
        continue;
      }
      const now = this.#sim.now;
      const node = servers.request(clientOf(sub, servers), now, REQUEST_OVERHEAD_BYTES + sub.key.length, sub.members);
      if (node === null) {
        this.#miss(sub);
        continue;
      }
      cache.reading = true;
      this.#sim.schedule(servers.processedAtMs - now, () => {
        const at = this.#sim.now;
        const snapshot = this.#snapshot(sub.key);
        const back = servers.reply(node, at, snapshot.bytes, sub.members);
        this.#observer.registryPushLag?.(back - firedAtMs, at);
        this.#sim.schedule(back - at, () => {
          cache.reading = false;
          if (!this.#refuses(sub, snapshot)) this.#take(sub, ++sub.sentSeq, snapshot, this.#sim.now);
          this.#readForCache(sub, cache);
        });
      });
      return;
    }
  }

  /** A watch event of `sub` arrives at its consumer's ZooKeeper client: it waits for the event thread. */
  #watchEvent(sub: Subscription, zk: ZookeeperRegistryNotifier<Subscription>): void {
    if (!this.#server.netReachable(sub.subscriber.zone)) {
      // Lost with the connection: the client sets its watches again when it reconnects (a resync).
      zk.armed = true;
      this.#miss(sub);
      return;
    }
    zk.thread.add(sub);
    if (!zk.thread.busy) this.#runEventThread(zk.thread);
  }

  /**
   * Processes the watch events waiting on a ZooKeeper event thread, one at a time: each reads the
   * current list and sets its watch again (Curator5ZookeeperClient.java:468-469, the read counted as a
   * push), then its notifier sleeps on the thread (ZookeeperRegistry.java:463-472) and notifies the
   * list it read; the next event waits for the sleep.
   */
  #runEventThread(thread: ZookeeperEventThread<Subscription>): void {
    for (let sub = thread.next(); sub !== undefined; sub = thread.next()) {
      sub.zk!.armed = true;
      if (!this.#canPush(sub.subscriber.zone)) {
        this.#miss(sub);
        continue;
      }
      const servers = this.#server.servers;
      if (servers !== null ? this.#readThroughServer(thread, sub, servers) : this.#readList(thread, sub, this.#snapshot(sub.key))) return;
    }
  }

  /**
   * The event thread has read `snapshot` for `sub`'s watch event (the read counted as a push): true when
   * the notifier then sleeps on the thread (the thread goes on after it), false when it notified at once.
   */
  #readList(thread: ZookeeperEventThread<Subscription>, sub: Subscription, snapshot: Snapshot): boolean {
    if (this.#refuses(sub, snapshot)) {
      sub.zk!.armed = false;
      return false;
    }
    this.#received(sub, snapshot);
    const now = this.#sim.now;
    const at = sub.zk!.executeAt(now);
    if (at === now) {
      this.#refresh(sub, snapshot);
      return false;
    }
    thread.busy = true;
    this.#sim.schedule(at - now, () => {
      thread.busy = false;
      this.#refresh(sub, snapshot);
      this.#runEventThread(thread);
    });
    return true;
  }

  /**
   * The registry as a server: the event thread's `getChildren` is a request to the consumer's node, and
   * the thread waits for its reply (Curator's call is synchronous). The node reads the list when it
   * processes the request; the reply is that list's bytes on its out NIC. True when the thread waits;
   * false when the read could not be sent (missed) or was answered at once (then read as without a server).
   */
  #readThroughServer(thread: ZookeeperEventThread<Subscription>, sub: Subscription, servers: RegistryServers): boolean {
    const now = this.#sim.now;
    const node = servers.request(clientOf(sub, servers), now, REQUEST_OVERHEAD_BYTES + sub.key.length, sub.members);
    if (node === null) {
      this.#miss(sub);
      return false;
    }
    const firedAtMs = sub.zk!.firedAtMs;
    const answer = (): boolean => {
      const at = this.#sim.now;
      const snapshot = this.#snapshot(sub.key);
      const back = servers.reply(node, at, snapshot.bytes, sub.members);
      this.#observer.registryPushLag?.(back - firedAtMs, at);
      if (back === at) return this.#readList(thread, sub, snapshot);
      thread.busy = true;
      this.#sim.schedule(back - at, () => {
        thread.busy = false;
        if (!this.#readList(thread, sub, snapshot)) this.#runEventThread(thread);
      });
      return true;
    };
    const processed = servers.processedAtMs;
    if (processed === now) return answer();
    thread.busy = true;
    this.#sim.schedule(processed - now, () => {
      thread.busy = false;
      if (!answer()) this.#runEventThread(thread);
    });
    return true;
  }

  /** A push (or a ZooKeeper read) reached `sub`'s consumer instance: counted with its bytes, at arrival. */
  #received(sub: Subscription, snapshot: Snapshot): void {
    this.#observer.push(sub.subscriber.id, consumerGroupOf(sub.subscriber), snapshot.bytes, this.#appLevel ? 'application' : 'interface', sub.members);
  }

  /**
   * `sub`'s notification (after its notifier): at application level the ServiceInstancesChangedListener
   * handles it (metadata first), else the list takes effect (`atSubscribe`: the read of `subscribe`).
   */
  #refresh(sub: Subscription, snapshot: Snapshot, atSubscribe = false): void {
    if (this.#listeners !== undefined) this.#listeners.onEvent(sub, snapshot, atSubscribe);
    else this.#hand(sub, snapshot);
  }

  /** The list takes effect: one push, every service listening on it, each gets its own service's list. */
  #hand(sub: Subscription, snapshot: Snapshot): void {
    sub.delivered = snapshot;
    for (const ref of sub.refs) ref.listener(this.listOf(ref));
  }

  #miss(sub: Subscription): void {
    sub.missed = true;
    // Registry down, push switch off and zone cuts end with an explicit resync; a network
    // partition does not say when it heals, so the consumer retries.
    if (sub.retrying || this.#server.isDown() || !this.#pushOn || this.#server.isCut(sub.subscriber.zone)) return;
    sub.retrying = true;
    this.#sim.schedule(REGISTRY_RETRY_PERIOD_MS, () => {
      sub.retrying = false;
      if (!sub.missed) return;
      if (this.#canPush(sub.subscriber.zone)) this.#resync(sub);
      else this.#miss(sub);
    });
  }

  /**
   * ZooKeeper: true when `sub`'s client refuses the list's reply for its `jute.maxbuffer`. Its consumer keeps
   * its last list: the read fails ("Packet len N is out of range!", a connection loss Curator recovers
   * from), the watch is not set again, and Dubbo's FailbackRegistry subscribes again from its retry timer,
   * every time (3.3 retries without end; each retry is another read of the whole list).
   */
  #refuses(sub: Subscription, snapshot: Snapshot): boolean {
    if (!this.#jute) return false;
    const consumer = (sub.subscriber as { group?: { dubbo?: { version: '2.7' | '3.3' } } }).group?.dubbo;
    if (!juteRefuses(snapshot.bytes, consumer, this.#juteMaxBufferBytes)) return false;
    this.#observer.count('registry.juteMaxBufferExceeded', sub.members);
    const now = this.#sim.now;
    this.#readAgainAt(sub, failbackRetryAtMs(now) - now);
    return true;
  }

  /** `sub` missed a list: it reads the current one `delayMs` from now (one retry pending at a time). */
  #readAgainAt(sub: Subscription, delayMs: number): void {
    sub.missed = true;
    if (sub.retrying) return;
    sub.retrying = true;
    this.#sim.schedule(delayMs, () => {
      sub.retrying = false;
      if (sub.zk !== null) sub.zk.armed = true;
      if (this.#canPush(sub.subscriber.zone)) this.#resync(sub);
      else this.#miss(sub);
    });
  }

  /**
   * Nacos 2.x with registry servers: the consumer's connection has more than 32 KB queued, so the push
   * fails at once (ConnectionBusyException) and the server pushes the then current list to this subscriber
   * 1 s later (PushExecuteTask, `pushTaskRetryDelay`), again and again while the connection stays busy.
   * This bounds what waits for one consumer instance on its node's NIC to about one list.
   */
  #busy(sub: Subscription): void {
    this.#observer.count('registry.pushBusy', sub.members);
    this.#readAgainAt(sub, NACOS_PUSH_RETRY_MS);
  }

  /** The subscription reads the current list again (reconnect, push switch on). */
  #resync(sub: Subscription): void {
    sub.missed = false;
    this.#send(sub, this.#snapshot(sub.key));
  }

  /** Every subscription reads the current list again (registry back up, push switch on). */
  resyncAll(): void {
    for (const subs of this.#subs.values()) for (const s of subs) this.#resync(s);
  }
}
