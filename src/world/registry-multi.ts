/**
 * Several registries at once (SPEC 2.5 `registries:`, Dubbo's multi-registry set-up): one model
 * per registry, each with its own type, zone and push lag. A provider registers with the
 * registries its group names (`registries:`, default all); registry faults reach every registry.
 * Consumers built by the Dubbo layer subscribe to each registry separately (one directory and
 * cluster per registry, under a `zone-aware` cluster); `subscribe` here serves simpler consumers
 * with the union of the lists of every registry.
 */
import type { ProviderExport, ProviderInstance } from './provider.js';
import type { ProviderListener, RegistryModel, SubscribeQuery, Subscriber } from './registry.js';

/** The registries of a multi-registry world, behind one `RegistryModel`. */
export class MultiRegistry implements RegistryModel {
  /** The member registries by name (`World.registries`). */
  readonly registries: ReadonlyMap<string, RegistryModel>;
  readonly #names: string[];

  constructor(registries: ReadonlyMap<string, RegistryModel>) {
    this.registries = registries;
    this.#names = [...registries.keys()];
  }

  providerStarted(provider: ProviderInstance): void {
    for (const r of this.#targets(provider)) r.providerStarted(provider);
  }

  providerStopped(provider: ProviderInstance, graceful: boolean): void {
    for (const r of this.#targets(provider)) r.providerStopped(provider, graceful);
  }

  subscribe(subscriber: Subscriber, service: string, listener: ProviderListener, query?: SubscribeQuery): void {
    const lists = new Map<string, readonly ProviderExport[]>();
    for (const name of this.#names) {
      this.registries.get(name)!.subscribe(
        subscriber,
        service,
        (providers) => {
          lists.set(name, providers);
          const union = new Set<ProviderExport>();
          for (const n of this.#names) for (const p of lists.get(n) ?? []) union.add(p);
          listener([...union]);
        },
        query,
      );
    }
  }

  /** Gone once every registry it registered with has dropped it. */
  isKnownGone(provider: ProviderExport): boolean {
    const targets = this.#targets(provider.instance);
    return targets.length > 0 && targets.every((r) => r.isKnownGone(provider));
  }

  setZoneCut(zone: string, cut: boolean): void {
    for (const r of this.registries.values()) r.setZoneCut(zone, cut);
  }

  setDown(down: boolean): void {
    for (const r of this.registries.values()) r.setDown(down);
  }

  setPushSwitch(on: boolean): void {
    for (const r of this.registries.values()) r.setPushSwitch(on);
  }

  setRoomDown(zone: string, down: boolean): void {
    for (const r of this.registries.values()) r.setRoomDown(zone, down);
  }

  setServerZoneDown(zone: string, down: boolean): void {
    for (const r of this.registries.values()) r.setServerZoneDown?.(zone, down);
  }

  holdPushes(on: boolean): void {
    for (const r of this.registries.values()) r.holdPushes?.(on);
  }

  catchUpAll(): void {
    for (const r of this.registries.values()) r.catchUpAll?.();
  }

  get pushesHeld(): number {
    let n = 0;
    for (const r of this.registries.values()) n += r.pushesHeld ?? 0;
    return n;
  }

  #targets(provider: ProviderInstance): RegistryModel[] {
    const names = provider.group.spec.registries ?? this.#names;
    const out: RegistryModel[] = [];
    for (const n of names) {
      const r = this.registries.get(n);
      if (r === undefined) throw new Error(`provider group "${provider.group.spec.name}" names unknown registry "${n}"`);
      out.push(r);
    }
    return out;
  }
}
