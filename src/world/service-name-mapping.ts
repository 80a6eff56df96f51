/**
 * Dubbo 3's service-name mapping as an application-level discovery registry uses it: which
 * applications export a service, and the consumer instances' subscriptions to those applications.
 * A consumer instance subscribes once per application it needs and every service it references
 * from that application listens on that one subscription; each delivered application list is split
 * per service (the exports of that service of the listed processes) and handed to that service's
 * listeners. The mapping is read up front from the scenario's provider groups and learns an
 * application it did not know when one of its processes registers. A service whose application the
 * consumer instance already watches gets that subscription's last delivered list at once, which is
 * not a push (Dubbo's `ServiceInstancesChangedListener.addListenerAndNotify` reads its cache, not
 * the registry).
 */
import type { ProviderGroupSpec } from '../model/types.js';
import type { PushDelivery } from './registry-push-delivery.js';
import type { RegistryEntry } from './registry-entry.js';
import type { ServiceRef, Subscription } from './registry-subscription.js';
import type { CatchUp, Subscriber } from './registry.js';

/** Application level: service → applications exporting it, and the application subscriptions that follow. */
export class ServiceNameMapping {
  readonly #pushes: PushDelivery;
  /** Service-name mapping, service → applications exporting it (first seen first). */
  readonly #appsOf = new Map<string, string[]>();
  /** Each consumer instance's subscription per application. */
  readonly #appSubs = new WeakMap<Subscriber, Map<string, Subscription>>();
  /** The listeners of each service, to attach when the mapping learns an application. */
  readonly #refsOf = new Map<string, ServiceRef[]>();

  /**
   * `groups`: the scenario's provider groups that register at application level with this registry.
   * The service-name mapping as the metadata center holds it once every one of them has exported:
   * each group names its application and services. Read up front, it lets a consumer that subscribes
   * before any provider registered (registerDelay, a late scale-out) watch the right application at
   * once, as a Dubbo consumer reading a populated mapping does.
   */
  // DIVERGENCE: a 3.3 provider registering at interface level only (`register-mode=interface`) still
  // publishes its mapping in Dubbo (ServiceConfig.exported maps every service); its application then
  // lists no instance. zonesim maps only what registers at application level: such a consumer reads
  // no (empty) application list, which changes nothing it calls.
  constructor(pushes: PushDelivery, groups: readonly Pick<ProviderGroupSpec, 'services' | 'application'>[]) {
    this.#pushes = pushes;
    for (const g of groups) for (const service of g.services) this.#mapService(service, g.application);
  }

  /** The applications a consumer of `service` watches. */
  applicationsOf(service: string): readonly string[] {
    return this.#appsOf.get(service) ?? [];
  }

  /** Subscribes `ref` (a new listener) to every application exporting its service. */
  subscribe(ref: ServiceRef): CatchUp | undefined {
    let refs = this.#refsOf.get(ref.service);
    if (refs === undefined) this.#refsOf.set(ref.service, (refs = []));
    refs.push(ref);
    // An unmapped service (no scenario, nothing registered yet) waits: the first registration of
    // an application exporting it attaches this listener (`learn`), and that change's push
    // is its first list.
    const fresh: Subscription[] = [];
    for (const app of this.#appsOf.get(ref.service) ?? []) {
      const [sub, created] = this.#attach(ref, app);
      if (created) fresh.push(sub);
    }
    for (const sub of fresh) this.#pushes.firstRead(sub);
    // Every application already watched: its last list, at once and not as a push.
    if (fresh.length === 0 && ref.subs.some((s) => s.delivered !== null)) ref.listener(this.#pushes.listOf(ref));
    return this.#pushes.held.catchUpOf(ref);
  }

  /** Records that `app` exports `service`; true if the mapping did not know it. */
  #mapService(service: string, app: string): boolean {
    let apps = this.#appsOf.get(service);
    if (apps === undefined) this.#appsOf.set(service, (apps = []));
    if (apps.includes(app)) return false;
    apps.push(app);
    return true;
  }

  /**
   * A process of an application the mapping did not know for one of its services (no scenario, or
   * a service first exported now): Dubbo's MappingListener sees the new application and the
   * consumer starts watching it. Subscriptions created here have read nothing yet, so the push of
   * the change that follows (`publish`) is their first list.
   */
  learn(entry: RegistryEntry): void {
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
    for (const s of ref.subs) this.#pushes.held.catchUp(s);
    if (sub === undefined) byApp.set(app, (sub = this.#pushes.newSubscription(ref.subscriber, app)));
    else this.#pushes.held.catchUp(sub);
    sub.refs.push(ref);
    ref.subs.push(sub);
    for (const s of ref.subs) this.#pushes.held.refreshHoldable(s);
    return [sub, created];
  }
}
