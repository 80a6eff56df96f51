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
 */
import type { Sampler } from '../engine/distributions.js';
import type { Simulation } from '../engine/simulation.js';
import { TimerLane } from '../engine/timer-lane.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { RegistrySpec } from '../model/types.js';
import type { ProviderExport } from './provider.js';
import type { RegistryEntry } from './registry-entry.js';
import { HeldPushes } from './registry-held-pushes.js';
import type { MetadataRevision, PushSizer } from './registry-push-size.js';
import type { Delivery, ServiceRef, Snapshot, Subscription } from './registry-subscription.js';
import { parseNacosServiceName } from './nacos-service-name.js';
import { ServiceInstancesChangedListeners, type ListenerHost } from './service-instances-changed.js';
import type { Subscriber } from './registry.js';

/** Dubbo's FailbackRegistry retry period (`registry.retry.period`, 5000 ms): re-subscribe after a failure. */
export const REGISTRY_RETRY_PERIOD_MS = 5000;

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
  /** Application level: what the consumers' metadata fetches need (none: lists take effect on arrival). */
  readonly metadata?: ListenerHost;
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
  readonly #subs = new Map<string, Subscription[]>();
  readonly #snapshots = new Map<string, Snapshot>();
  /** Application level: the consumers' ServiceInstancesChangedListeners, which fetch metadata before a list takes effect. */
  readonly #listeners: ServiceInstancesChangedListeners | undefined;
  readonly #unions: UnionNode = { next: new WeakMap() };
  #pushOn = true;
  readonly #deliver = (arg: unknown): void => {
    const { sub, seq, snapshot } = arg as Delivery;
    this.#arrive(sub, seq, snapshot);
  };

  constructor(server: RegistryServer, options: PushOptions) {
    this.#server = server;
    this.#sim = server.sim;
    this.#observer = server.observer;
    this.#lag = options.lag;
    this.#sizer = options.sizer;
    this.#appLevel = options.appLevel;
    this.#perGroup = options.perGroup;
    this.held = new HeldPushes(server.sim, options.spec, options.appLevel, (sub, seq, snapshot) => this.#arrive(sub, seq, snapshot), this.#deliver);
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
      const lane = new TimerLane(this.#sim, (sub, seq) => this.#arrive(sub as Subscription, seq, snapshot));
      for (const s of subs) this.#send(s, snapshot, lane);
      lane.start();
    }
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
  firstRead(sub: Subscription): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    sub.sentSeq = sub.deliveredSeq = 1;
    sub.lastArrivalMs = this.#sim.now;
    this.#notify(sub, this.#snapshot(sub.key), true);
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

  /** Sends `snapshot` to `sub`, through `lane` when given (the same order as the agenda). */
  #send(sub: Subscription, snapshot: Snapshot, lane?: TimerLane): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    const now = this.#sim.now;
    const seq = ++sub.sentSeq;
    const arrival = Math.max(now + Math.max(0, this.#lag()), sub.lastArrivalMs);
    sub.lastArrivalMs = arrival;
    // The agenda time `schedule` would give it, to the last bit. A push that starts a metadata fetch, or
    // reaches a listener that is fetching, goes through the agenda: its effect depends on when it arrives.
    if (this.held.holding && sub.holdable && !(this.#listeners?.mustQueue(sub, snapshot) ?? false)) {
      this.held.hold(sub, now + (arrival - now), seq, snapshot);
    }
    else if (lane === undefined) this.#sim.schedule(arrival - now, this.#deliver, undefined, { sub, seq, snapshot } satisfies Delivery);
    else lane.add(arrival - now, sub, seq);
  }

  #arrive(sub: Subscription, seq: number, snapshot: Snapshot): void {
    // At application level a subscription may hold some pushes and not others: those that arrived first go first.
    if (this.#listeners !== undefined && sub.heldHead !== sub.heldEnd) this.held.catchUp(sub);
    // Ordering guarantee: never replace a newer list with an older one.
    if (seq <= sub.deliveredSeq) return;
    if (!this.#server.netReachable(sub.subscriber.zone)) {
      // Cut off while the push was on its way: lost.
      this.#miss(sub);
      return;
    }
    sub.deliveredSeq = seq;
    this.#notify(sub, snapshot);
  }

  /** A notification reached the consumer instance (`atSubscribe`: the read of `subscribe`). */
  #notify(sub: Subscription, snapshot: Snapshot, atSubscribe = false): void {
    this.#observer.push(sub.subscriber.id, snapshot.bytes, this.#appLevel ? 'application' : 'interface');
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
