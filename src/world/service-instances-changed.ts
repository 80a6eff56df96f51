/**
 * What a consumer instance does between an application-level push and its directories: Dubbo 3's
 * ServiceInstancesChangedListener with the default `metadata-type=local`. The pushed instance list
 * names a metadata revision per process; before the list takes effect the consumer needs each
 * revision's MetadataInfo (which services, on which port), and for a revision it has not cached it
 * asks the MetadataService of a random provider process of that revision: an RPC over the network to
 * that provider (AbstractServiceDiscovery.getRemoteMetadata, MetadataUtils.getRemoteMetadata). Up to
 * 3 tries, each followed by a 1 s sleep when it fails. The revisions are fetched one after another
 * while the listener waits (doOnEvent is synchronized); a push that arrives meanwhile is handled
 * after. A revision whose fetch failed leaves its processes out of the list; when every revision
 * failed, the notification is dropped (the directories keep their lists). Either way the listener
 * handles its last list again 10 s later (`submitRetryTask`, one retry pending at a time), unless a
 * newer push has been handled without failure since.
 *
 * Timing of one try (DubboProtocol client per fetch, `connections=1`, destroyed after): a live
 * provider answers after two round trips (connect, call); a crashed or stopped one refuses at once
 * (two round trips: the connect of the constructor and the reconnect of `send`, both refused); a
 * black-holed or partitioned one lets both connects wait out `connect.timeout` (3 s each,
 * AbstractClient's constructor swallows the first failure with `check=false`). Round trips are the
 * zone pair's median RTT.
 */
import type { Rng } from '../engine/random.js';
import type { Simulation } from '../engine/simulation.js';
import type { WorldObserver } from '../metrics/observer.js';
import type { Network } from './network.js';
import type { RegistryEntry } from './registry-entry.js';
import type { HeldPushes } from './registry-held-pushes.js';
import type { MetadataRevision, PushSizer } from './registry-push-size.js';
import type { Snapshot, Subscription } from './registry-subscription.js';

/** AbstractServiceDiscovery.getRemoteMetadata: tries per revision. */
export const METADATA_FETCH_TRIES = 3;
/** AbstractServiceDiscovery.getRemoteMetadata: the sleep after a failed try. */
export const METADATA_RETRY_SLEEP_MS = 1000;
/** ServiceInstancesChangedListener.submitRetryTask: the address refresh retry. */
export const ADDRESS_REFRESH_RETRY_MS = 10_000;
/** remoting `Constants.DEFAULT_CONNECT_TIMEOUT`: a connect to a host that does not answer. */
export const CONNECT_TIMEOUT_MS = 3000;

/** One listener's state (a consumer instance's subscription to one application). */
interface ListenerState {
  /** A fetch is under way: pushes wait (doOnEvent is synchronized). */
  busy: boolean;
  /** What waits: the latest push, or a retry (`null` snapshot: the last list again). */
  pending: { snapshot: Snapshot | null } | undefined;
  /** The last list handed in (`allInstances`), and when (`lastRefreshTime`). */
  last: Snapshot | null;
  lastEventMs: number;
  /** The last handling left a revision without metadata. */
  hasEmptyMetadata: boolean;
  /** A retry is scheduled (`retryPermission` taken), submitted at `retrySubmittedMs`. */
  retryPending: boolean;
  retrySubmittedMs: number;
}

/** What the listeners need from the world and the registry's push delivery. */
export interface ListenerHost {
  readonly sim: Simulation;
  readonly observer: WorldObserver;
  readonly network: Pick<Network, 'medianRttMs' | 'isPartitioned'>;
  /** Draws the process asked for a revision (MetadataUtils.selectInstance). */
  readonly random: Rng;
}

// DIVERGENCE: one listener per subscription (a consumer instance and one application). Dubbo has one per
// set of applications a service maps to, and its fetches block the thread that delivers the registry's
// events (Nacos's notifier, ZooKeeper's), so they also delay that consumer's other subscriptions.
// DIVERGENCE: a try's round trips are the zone pair's median RTT, not draws (an `rtt` fault does not
// change them): the fetch must not take draws from the network's stream, which the calls use.
/** The ServiceInstancesChangedListeners of one registry's application-level subscriptions. */
export class ServiceInstancesChangedListeners {
  readonly #host: ListenerHost;
  readonly #sizer: PushSizer;
  readonly #held: HeldPushes;
  /** Hands a list to the subscription's listeners (`notifyAddressChanged`). */
  readonly #apply: (sub: Subscription, snapshot: Snapshot) => void;
  readonly #states = new WeakMap<Subscription, ListenerState>();
  /** The metadata revisions each consumer instance holds (its `metaCacheManager`), by instance id. */
  readonly #cached = new Map<string, Set<string>>();
  /** Per list, the lists without the processes of revisions whose metadata is missing, by those revisions. */
  readonly #partial = new WeakMap<Snapshot, Map<string, Snapshot>>();

  constructor(host: ListenerHost, sizer: PushSizer, held: HeldPushes, apply: (sub: Subscription, snapshot: Snapshot) => void) {
    this.#host = host;
    this.#sizer = sizer;
    this.#held = held;
    this.#apply = apply;
  }

  /**
   * Whether a push of `snapshot` to `sub` must go through the agenda rather than be held: it brings a
   * revision the consumer instance has not cached, or the listener is fetching or has a retry pending
   * (what it then does depends on when the push arrives).
   */
  mustQueue(sub: Subscription, snapshot: Snapshot): boolean {
    const state = this.#states.get(sub);
    if (state !== undefined && (state.busy || state.retryPending)) return true;
    return this.#missing(sub, snapshot).length > 0;
  }

  /**
   * A push arrived (`onEvent`). `atSubscribe`: the read of `subscribe` itself, whose fetches take no
   * simulated time.
   */
  // DIVERGENCE: Dubbo fetches the metadata of the subscribe-time list while the reference is being
  // created, before the consumer serves; zonesim's consumers serve from their start, so that fetch
  // takes no time (its tries still fail against dead providers, with the same outcome).
  onEvent(sub: Subscription, snapshot: Snapshot, atSubscribe = false): void {
    const state = this.#stateOf(sub);
    if (state.busy) {
      // DIVERGENCE: pushes that wait for a fetch are merged into the latest (Dubbo handles each in
      // turn, every one ending with the latest list).
      state.pending = { snapshot };
      return;
    }
    this.#handle(sub, state, snapshot, atSubscribe);
  }

  #stateOf(sub: Subscription): ListenerState {
    let state = this.#states.get(sub);
    if (state === undefined) {
      state = { busy: false, pending: undefined, last: null, lastEventMs: -Infinity, hasEmptyMetadata: false, retryPending: false, retrySubmittedMs: 0 };
      this.#states.set(sub, state);
    }
    return state;
  }

  #cacheOf(sub: Subscription): Set<string> {
    let cache = this.#cached.get(sub.subscriber.id);
    if (cache === undefined) this.#cached.set(sub.subscriber.id, (cache = new Set()));
    return cache;
  }

  #missing(sub: Subscription, snapshot: Snapshot): readonly MetadataRevision[] {
    if (snapshot.revisions.length === 0) return snapshot.revisions;
    const cache = this.#cached.get(sub.subscriber.id);
    if (cache === undefined) return snapshot.revisions;
    let missing: MetadataRevision[] | undefined;
    for (const r of snapshot.revisions) if (!cache.has(r.revision)) (missing ??= []).push(r);
    return missing ?? [];
  }

  /** doOnEvent: a new list (`snapshot`), or the last one again (a retry, `null`). */
  #handle(sub: Subscription, state: ListenerState, snapshot: Snapshot | null, atSubscribe: boolean): void {
    if (snapshot !== null) {
      // refreshInstance: a push (not a retry) replaces the instances and is the last refresh.
      state.last = snapshot;
      state.lastEventMs = this.#host.sim.now;
    }
    const list = state.last;
    if (list === null) return;
    const missing = this.#missing(sub, list);
    if (missing.length === 0) {
      state.hasEmptyMetadata = false;
      this.#apply(sub, list);
      return;
    }
    const failed: string[] = [];
    if (atSubscribe) {
      for (const r of missing) if (!this.#fetchNow(sub, list, r)) failed.push(r.revision);
      this.#finish(sub, state, list, failed);
      return;
    }
    // The listener waits for the fetches: what is held for it goes through the agenda from now on.
    state.busy = true;
    this.#held.release(sub);
    let i = 0;
    const next = (): void => {
      if (i === missing.length) {
        state.busy = false;
        this.#finish(sub, state, list, failed);
        const pending = state.pending;
        state.pending = undefined;
        if (pending !== undefined) this.#handle(sub, state, pending.snapshot, false);
        return;
      }
      const r = missing[i++]!;
      this.#fetch(sub, list, r, 0, (ok) => {
        if (!ok) failed.push(r.revision);
        next();
      });
    };
    next();
  }

  /** After the fetches: the list without the revisions that failed, or nothing when all did; then the retry. */
  #finish(sub: Subscription, state: ListenerState, list: Snapshot, failed: readonly string[]): void {
    state.hasEmptyMetadata = failed.length > 0;
    // ServiceInstancesChangedListener.java:184-199: every revision empty, the notification does not take effect.
    if (failed.length < list.revisions.length) this.#apply(sub, failed.length === 0 ? list : this.#without(list, failed));
    if (failed.length > 0) this.#submitRetry(sub, state);
  }

  /** submitRetryTask: one retry at a time, 10 s on; dropped if a push was handled cleanly since it was submitted. */
  #submitRetry(sub: Subscription, state: ListenerState): void {
    if (state.retryPending) return;
    state.retryPending = true;
    state.retrySubmittedMs = this.#host.sim.now;
    this.#host.sim.schedule(ADDRESS_REFRESH_RETRY_MS, () => {
      // What arrived for the listener before the retry was handled before it.
      this.#held.catchUp(sub);
      state.retryPending = false;
      // isRetryAndExpired: a newer push handled without a missing revision makes the retry moot.
      if (state.retrySubmittedMs < state.lastEventMs && !state.hasEmptyMetadata) return;
      if (state.busy) state.pending ??= { snapshot: null };
      else this.#handle(sub, state, null, false);
    });
  }

  /** One revision's fetch, try `attempt` (0-based), then `done(ok)`. */
  #fetch(sub: Subscription, list: Snapshot, r: MetadataRevision, attempt: number, done: (ok: boolean) => void): void {
    const { ok, ms } = this.#try(sub, list, r);
    this.#host.sim.schedule(ms, () => {
      if (ok) {
        this.#fetched(sub, r);
        done(true);
        return;
      }
      this.#host.observer.count('registry.metadataFetchFailures', sub.members);
      // The sleep after every failed try, the last one too (AbstractServiceDiscovery.java:250-271).
      this.#host.sim.schedule(METADATA_RETRY_SLEEP_MS, () => {
        if (attempt + 1 < METADATA_FETCH_TRIES) this.#fetch(sub, list, r, attempt + 1, done);
        else done(false);
      });
    });
  }

  /** The subscribe-time fetch: the tries' outcomes, no time. */
  #fetchNow(sub: Subscription, list: Snapshot, r: MetadataRevision): boolean {
    for (let attempt = 0; attempt < METADATA_FETCH_TRIES; attempt++) {
      if (this.#try(sub, list, r).ok) {
        this.#fetched(sub, r);
        return true;
      }
      this.#host.observer.count('registry.metadataFetchFailures', sub.members);
    }
    return false;
  }

  #fetched(sub: Subscription, r: MetadataRevision): void {
    this.#cacheOf(sub).add(r.revision);
    // A cohort's representative fetches for each of its members (SPEC 2.12).
    this.#host.observer.count('registry.metadataFetches', sub.members);
    // The MetadataInfo travels from the provider to the consumer, not through the registry.
    this.#host.observer.count('registry.metadataBytes', r.bytes * sub.members);
  }

  /** One try against a random process of revision `r` in `list`: whether it answers, and after how long. */
  #try(sub: Subscription, list: Snapshot, r: MetadataRevision): { ok: boolean; ms: number } {
    const of: RegistryEntry[] = [];
    for (const e of list.entries) if (this.#sizer.revisionOf(e.instance)?.revision === r.revision) of.push(e);
    // MetadataUtils.selectInstance: the only one, else a random one.
    const e = of.length === 1 ? of[0]! : of[this.#host.random.nextInt(of.length)]!;
    const from = sub.subscriber.zone;
    const to = e.provider.zone;
    const rtt = this.#host.network.medianRttMs(from, to) ?? 0;
    const state = e.instance.state;
    if (this.#host.network.isPartitioned(from, to) || state === 'blackhole') return { ok: false, ms: 2 * CONNECT_TIMEOUT_MS };
    return { ok: state === 'up', ms: 2 * rtt };
  }

  /** `list` without the processes of the `failed` revisions (one list object per list and failed set). */
  #without(list: Snapshot, failed: readonly string[]): Snapshot {
    let byFailed = this.#partial.get(list);
    if (byFailed === undefined) this.#partial.set(list, (byFailed = new Map()));
    const key = [...failed].sort().join(',');
    let partial = byFailed.get(key);
    if (partial === undefined) {
      const out = new Set(failed);
      partial = {
        entries: list.entries.filter((e) => !out.has(this.#sizer.revisionOf(e.instance)!.revision)),
        bytes: list.bytes,
        revisions: list.revisions.filter((r) => !out.has(r.revision)),
        lists: new Map(),
        lastService: undefined,
        lastList: undefined,
      };
      byFailed.set(key, partial);
    }
    return partial;
  }
}
