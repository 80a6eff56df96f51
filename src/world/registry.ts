/**
 * The registry as the consumers experience it: providers register and deregister, and each
 * consumer instance's subscription receives the full provider list of a service. This file holds
 * the contract and the `static` registry (every consumer sees the true list at once, with no
 * discovery levels: a subscription's `level` is ignored).
 */
import type { DiscoveryLevel } from './discovery-levels.js';
import type { RegistryNodeFigures } from '../metrics/registry-server-figures.js';
import type { ProviderExport, ProviderInstance } from './provider.js';

/** Receives full provider lists for one service (an empty list is an empty push). */
/**
 * Receives full provider lists for one service (an empty list is an empty push). A list is
 * immutable and may be handed to every subscriber of the same change (consumers share what they
 * build from it, keyed by the list).
 */
export type ProviderListener = (providers: readonly ProviderExport[]) => void;

/** A subscriber: one consumer instance. */
export interface Subscriber {
  readonly id: string;
  readonly zone: string;
  /** The instances it stands for (a cohort's representative, SPEC 2.12); absent: 1. */
  readonly members?: number;
}

/**
 * What one subscription asks for besides the interface: the consumer URL's `group` and `version`
 * (`*` and comma lists allowed). Nacos names a service by them (`providers:<iface>:<version>:<group>`);
 * ZooKeeper lists every group under one node. When it is not given, a discovery registry reads them
 * from the subscriber's reference parameters, when the subscriber is a consumer instance.
 */
export interface SubscribeQuery {
  readonly group?: string;
  readonly version?: string;
  /**
   * The discovery level subscribed to (a 3.3 MigrationInvoker subscribes both, one call each);
   * default: the registry's explicit `registration`, else interface.
   */
  readonly level?: DiscoveryLevel;
}

/** What the world needs from any registry model. */
export interface RegistryModel {
  /** A provider process started: each of its exports registers, possibly after a delay. */
  providerStarted(provider: ProviderInstance): void;
  /** A provider left: `graceful` deregisters at once (scale-in, restart); otherwise it falls silent (crash). */
  providerStopped(provider: ProviderInstance, graceful: boolean): void;
  /**
   * Subscribes one consumer instance to a service (of a group and version, see `SubscribeQuery`).
   * `onHeld`, when given: the listener's lists may reach it late, as long as each one has before the
   * subscriber next reads what the listener built (its directory). The registry may then return a
   * `CatchUp`, and calls `onHeld(atMs)` when it holds pushes for the listener, the first arriving at
   * `atMs`: the subscriber calls the `CatchUp` before its first such read from then on (see `holdPushes`).
   */
  subscribe(subscriber: Subscriber, service: string, listener: ProviderListener, query?: SubscribeQuery, onHeld?: (atMs: number) => void): CatchUp | void;
  /**
   * The provider URL the registry holds at interface level, as consumers see it (`dubbo.registry.simplified`
   * shortens it); absent: the export's own URL.
   */
  registeredUrl?(provider: ProviderExport): string;
  /** True when the registry has already dropped this provider (attempts to it are stale calls). */
  isKnownGone(provider: ProviderExport): boolean;
  /** Fault `registryPartition`: instances in `zone` cannot reach the registry (no heartbeats, no pushes). */
  setZoneCut(zone: string, cut: boolean): void;
  /** Fault `registryDown`: the registry freezes (no changes detected, no pushes), e.g. a ZooKeeper election. */
  setDown(down: boolean): void;
  /** Fault `pushSwitch`: off stops every push to consumers; on sends each consumer the current list. */
  setPushSwitch(on: boolean): void;
  /**
   * Fault `roomDown` / `roomUp`: the room `zone` goes dark (its instances cannot reach the registry, its
   * registry nodes stop) or comes back (its consumers, restarted, read the current lists).
   */
  setRoomDown(zone: string, down: boolean): void;
  /**
   * PERF: while on (the world's run, up to its duration), pushes to `late` listeners may be held off
   * the agenda and delivered when their subscriber next reads, or `catchUpAll` is called, with the
   * effect they would have had at their arrival. Turned off between instants, after the kernel ran
   * every entry due by now: what has arrived by now is delivered, the rest goes on the agenda.
   */
  holdPushes?(on: boolean): void;
  /** Delivers every held push that has arrived before what runs now (before push counts are read). */
  catchUpAll?(): void;
  /** Pushes held off the agenda so far (a performance counter of the run). */
  readonly pushesHeld?: number;
  /** The registry as a server: what each of its nodes did (none when it is not modeled as one). */
  serverFigures?(): RegistryNodeFigures[];
  /**
   * The registry as a server: the nodes in `zone` go down or come back (a room fault); their clients
   * reconnect to other nodes, a ZooKeeper ensemble without a majority up freezes. No effect without servers.
   */
  setServerZoneDown?(zone: string, down: boolean): void;
}

/** Delivers a subscription's held pushes that have arrived before what runs now (see `RegistryModel.subscribe`). */
export type CatchUp = () => void;

/** `type: static`: the true provider list, pushed to everyone at once. */
export class StaticRegistry implements RegistryModel {
  readonly #byService = new Map<string, Set<ProviderExport>>();
  readonly #listeners = new Map<string, ProviderListener[]>();
  /** The current list per service, built once per change. */
  readonly #lists = new Map<string, readonly ProviderExport[]>();

  providerStarted(provider: ProviderInstance): void {
    for (const e of provider.exports) {
      let set = this.#byService.get(e.service);
      if (set === undefined) this.#byService.set(e.service, (set = new Set()));
      set.add(e);
      this.#publish(e.service);
    }
  }

  providerStopped(provider: ProviderInstance, graceful: boolean): void {
    // A crashed provider stays listed: static lists are not health-checked.
    if (!graceful) return;
    for (const e of provider.exports) {
      this.#byService.get(e.service)?.delete(e);
      this.#publish(e.service);
    }
  }

  subscribe(_subscriber: Subscriber, service: string, listener: ProviderListener): void {
    let list = this.#listeners.get(service);
    if (list === undefined) this.#listeners.set(service, (list = []));
    list.push(listener);
    listener(this.#current(service));
  }

  isKnownGone(_provider: ProviderExport): boolean {
    return false;
  }

  // A static list has no registry process: registry faults do not apply to it.
  setZoneCut(): void {}
  setDown(): void {}
  setPushSwitch(): void {}
  setRoomDown(): void {}

  #current(service: string): readonly ProviderExport[] {
    let list = this.#lists.get(service);
    if (list === undefined) this.#lists.set(service, (list = [...(this.#byService.get(service) ?? [])]));
    return list;
  }

  #publish(service: string): void {
    this.#lists.delete(service);
    const listeners = this.#listeners.get(service);
    if (listeners === undefined) return;
    const list = this.#current(service);
    for (const l of listeners) l(list);
  }
}
