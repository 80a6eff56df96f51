/**
 * What Nacos and ZooKeeper models share: the registry server's record of each provider instance,
 * driven by a client-side liveness loop (Nacos heartbeat or gRPC keepalive, ZooKeeper ping), the
 * consumer instances' subscriptions, push delivery, and the registry faults. How a silent
 * instance is detected and dropped is the subclass's (`NacosRegistry`, `ZookeeperRegistry`); what
 * a consumer does with a pushed list is the Dubbo layer's.
 *
 * Pushes: every change of a service's list is sent to each subscribed consumer instance as the
 * FULL current list, after its own draw of `pushLag` (stream `registry/push`). Deliveries are
 * FIFO per subscription (a push arrives no earlier than the one sent before it, as on one TCP
 * or gRPC stream), so a later list is never overtaken by an earlier one; a delivery older than
 * one already delivered is dropped all the same. Changes found in one server-side scan go out as
 * one push; every other change (a registration, a deregistration) is its own push, as ZooKeeper
 * watches and Nacos change events fire per change. Each delivered notification is reported with
 * its bytes (`WorldObserver.push`); subscribing reads the current list at once (Dubbo's
 * `subscribe` notifies synchronously), which is counted as a push too.
 *
 * Faults: `setZoneCut(z)` loses every message between zone z and the registry (the registry's
 * own `zone` partitioned from z by the network does the same): providers there are not heard,
 * consumers there get no pushes and keep their lists. `setDown` freezes the registry: nothing is
 * heard, nothing detected, nothing pushed; on resume every registered instance's detection clock
 * restarts (a new ZooKeeper leader re-tracks sessions with a fresh timeout; zonesim does the same
 * for Nacos) and each subscriber reads the current list (Dubbo re-subscribes on reconnect).
 * `setPushSwitch(false)` stops every push; on again, each subscriber gets the current list. A
 * consumer cut off by a network partition retries every 5 s (`registry.retry.period`) and reads
 * the current list once it gets through.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import { sampler, type Sampler } from '../engine/distributions.js';
import type { RandomStreams } from '../engine/random.js';
import type { Simulation } from '../engine/simulation.js';
import type { RegistrySpec } from '../scenario/types.js';
import type { Network } from './network.js';
import type { WorldObserver } from './observer.js';
import type { ProviderInstance } from './provider.js';
import { PushSizer, type MetadataRevision } from './registry-push-size.js';
import type { ProviderListener, RegistryModel, Subscriber } from './registry.js';

/** Dubbo's FailbackRegistry retry period (`registry.retry.period`, 5000 ms): re-subscribe after a failure. */
export const REGISTRY_RETRY_PERIOD_MS = 5000;

/** What a registry model needs from the world (the `World` satisfies it). */
export interface RegistryHost {
  readonly sim: Simulation;
  readonly streams: RandomStreams;
  readonly observer: WorldObserver;
  readonly network: Network;
}

/** How a registry model is named inside one world. */
export interface RegistryOptions {
  /** The registry's name (`registries:` key, or `registry` for the single one). */
  name: string;
  /** Prefix of its random streams: `registry` for the single registry, `registry/<name>` otherwise. */
  streamPrefix: string;
}

/** One provider instance as the registry server knows it. */
export interface RegistryEntry {
  readonly provider: ProviderInstance;
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

interface Subscription {
  readonly subscriber: Subscriber;
  readonly service: string;
  readonly listener: ProviderListener;
  sentSeq: number;
  deliveredSeq: number;
  /** Arrival time of the last push sent (FIFO). */
  lastArrivalMs: number;
  /** A push could not be sent or was lost: the consumer's list may be stale. */
  missed: boolean;
  retrying: boolean;
}

/** One service's current list, shared by every push of one change. */
interface Snapshot {
  readonly providers: readonly ProviderInstance[];
  readonly bytes: number;
  readonly revisions: readonly MetadataRevision[];
}

interface Delivery {
  sub: Subscription;
  seq: number;
  snapshot: Snapshot;
}

/** Base of the registries that discover providers over time. */
export abstract class DiscoveryRegistry implements RegistryModel {
  readonly name: string;
  protected readonly spec: RegistrySpec;
  protected readonly sim: Simulation;
  protected readonly observer: WorldObserver;
  readonly #network: Network;
  readonly #lag: Sampler;
  readonly #sizer: PushSizer;
  readonly #entries = new WeakMap<ProviderInstance, Entry>();
  /** Registered entries by service, in registration order. */
  readonly #byService = new Map<string, Set<Entry>>();
  /** Every registered entry (what the server-side scans walk). */
  protected readonly registered = new Set<RegistryEntry>();
  readonly #subs = new Map<string, Subscription[]>();
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #changed = new Set<string>();
  /** Metadata revisions each consumer instance has fetched (application-level registration). */
  readonly #fetched = new Map<string, Set<string>>();
  readonly #cut = new Set<string>();
  #down = false;
  #pushOn = true;
  readonly #deliver = (arg: unknown): void => this.#arrive(arg as Delivery);

  constructor(host: RegistryHost, spec: RegistrySpec, options: RegistryOptions, registryType: 'nacos' | 'zookeeper') {
    this.name = options.name;
    this.spec = spec;
    this.sim = host.sim;
    this.observer = host.observer;
    this.#network = host.network;
    this.#lag = sampler(spec.pushLag, host.streams.stream(`${options.streamPrefix}/push`));
    this.#sizer = new PushSizer(spec.registration, registryType);
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

  providerStarted(provider: ProviderInstance): void {
    const known = this.#entries.get(provider);
    if (known !== undefined) {
      // The same instance comes back (a black hole ends): its client is heard again at once.
      known.left = false;
      if (known.timer !== null) this.sim.cancel(known.timer);
      this.#tick(known);
      return;
    }
    const entry: Entry = {
      provider,
      service: provider.group.spec.service,
      registered: false,
      listed: false,
      gone: false,
      left: false,
      lastHeardMs: this.sim.now,
      timer: null,
    };
    this.#entries.set(provider, entry);
    // The first tick registers; until it succeeds, later ticks retry.
    if (this.spec.registerDelayMs > 0) {
      entry.timer = this.sim.schedule(this.spec.registerDelayMs, () => this.#tick(entry));
    } else this.#tick(entry);
  }

  providerStopped(provider: ProviderInstance, graceful: boolean): void {
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

  subscribe(subscriber: Subscriber, service: string, listener: ProviderListener): void {
    const sub: Subscription = {
      subscriber,
      service,
      listener,
      sentSeq: 0,
      deliveredSeq: 0,
      lastArrivalMs: 0,
      missed: false,
      retrying: false,
    };
    let list = this.#subs.get(service);
    if (list === undefined) this.#subs.set(service, (list = []));
    list.push(sub);
    if (!this.#canPush(subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    sub.sentSeq = sub.deliveredSeq = 1;
    sub.lastArrivalMs = this.sim.now;
    this.#notify(sub, this.#snapshot(service));
  }

  isKnownGone(provider: ProviderInstance): boolean {
    return this.#entries.get(provider)?.gone ?? false;
  }

  setZoneCut(zone: string, cut: boolean): void {
    if (cut) {
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

  // ---- for subclasses and tests -------------------------------------------------------------

  /** The registry's record of `provider` (tests and tools; do not mutate). */
  entryOf(provider: ProviderInstance): Readonly<RegistryEntry> | undefined {
    return this.#entries.get(provider);
  }

  /** The providers a push would carry now for `service`. */
  currentList(service: string): readonly ProviderInstance[] {
    return this.#snapshot(service).providers;
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
      let set = this.#byService.get(entry.service);
      if (set === undefined) this.#byService.set(entry.service, (set = new Set()));
      set.add(entry);
    }
    if (!entry.listed) {
      entry.listed = true;
      entry.gone = false;
      this.#changed.add(entry.service);
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
    this.#byService.get(entry.service)?.delete(entry);
  }

  /** Sends one push per changed service (the full list) to every subscriber of it. */
  protected publish(): void {
    if (this.#changed.size === 0) return;
    const services = [...this.#changed];
    this.#changed.clear();
    for (const service of services) {
      this.#snapshots.delete(service);
      const subs = this.#subs.get(service);
      if (subs === undefined) continue;
      const snapshot = this.#snapshot(service);
      for (const s of subs) this.#send(s, snapshot);
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

  // ---- push delivery ------------------------------------------------------------------------

  #netReachable(zone: string): boolean {
    if (this.#cut.has(zone)) return false;
    const home = this.spec.zone;
    return home === undefined || home === zone || !this.#network.isPartitioned(zone, home);
  }

  #canPush(zone: string): boolean {
    return this.#pushOn && !this.#down && this.#netReachable(zone);
  }

  #snapshot(service: string): Snapshot {
    let snap = this.#snapshots.get(service);
    if (snap === undefined) {
      const providers: ProviderInstance[] = [];
      for (const e of this.#byService.get(service) ?? []) if (e.listed) providers.push(e.provider);
      const revisions = new Map<string, MetadataRevision>();
      for (const p of providers) {
        const r = this.#sizer.revisionOf(p);
        if (r !== undefined) revisions.set(r.revision, r);
      }
      snap = { providers, bytes: this.#sizer.listBytes(service, providers), revisions: [...revisions.values()] };
      this.#snapshots.set(service, snap);
    }
    return snap;
  }

  #send(sub: Subscription, snapshot: Snapshot): void {
    if (!this.#canPush(sub.subscriber.zone)) {
      this.#miss(sub);
      return;
    }
    const now = this.sim.now;
    const seq = ++sub.sentSeq;
    const arrival = Math.max(now + Math.max(0, this.#lag()), sub.lastArrivalMs);
    sub.lastArrivalMs = arrival;
    this.sim.schedule(arrival - now, this.#deliver, undefined, { sub, seq, snapshot } satisfies Delivery);
  }

  #arrive({ sub, seq, snapshot }: Delivery): void {
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
    sub.listener(snapshot.providers);
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

  /** The subscriber reads the current list again (reconnect, push switch on). */
  #resync(sub: Subscription): void {
    sub.missed = false;
    this.#send(sub, this.#snapshot(sub.service));
  }

  #resyncAll(): void {
    for (const subs of this.#subs.values()) for (const s of subs) this.#resync(s);
  }
}
