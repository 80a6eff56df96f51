/**
 * What a discovery registry's push delivery works on: a consumer instance's subscription to one
 * list (a service at interface level, an application at application level), the listeners it feeds
 * (one `ServiceRef` per `subscribe` call), its consumer-side notifier (`registry-notifier.ts`), and
 * the list content one change pushes (`Snapshot`). Plain records: `PushDelivery` sends and
 * delivers, `HeldPushes` keeps pushes off the agenda, `ServiceNameMapping` attaches listeners to
 * application subscriptions.
 */
import type { RegistryEntry } from './registry-entry.js';
import type { RegistryNotifier, ZookeeperRegistryNotifier } from './registry-notifier.js';
import type { ProviderExport } from './provider.js';
import type { MetadataRevision } from './registry-push-size.js';
import type { ProviderListener, Subscriber } from './registry.js';
import type { RegistryClient } from './registry-servers.js';

/** One consumer instance's watch on one list: a service (interface level) or an application. */
export interface Subscription {
  readonly subscriber: Subscriber;
  /** The consumer instances the subscriber stands for (a cohort's representative: its members; else 1). */
  readonly members: number;
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
  /** The last list notified to its listeners, or null before the first. */
  delivered: Snapshot | null;
  /**
   * Dubbo 3's RegistryNotifier between a push's arrival and the listeners (Nacos interface level,
   * ZooKeeper application level, with `delay-notification` > 0), or null.
   */
  readonly notifier: RegistryNotifier<Snapshot> | null;
  /**
   * ZooKeeper interface level with `delay-notification` > 0: pushes are watch events whose list is
   * read when the consumer's ZooKeeper event thread processes them (ZookeeperRegistryNotifier), or null.
   */
  readonly zk: ZookeeperRegistryNotifier<Subscription> | null;
  /**
   * ZooKeeper at application level with registry servers: the consumer's Curator ServiceCache of the
   * application, whose thread reads the whole list once per watch event (see `ServiceCacheThread`), or null.
   */
  readonly cache: ServiceCacheThread | null;
  /**
   * Its pushes may be held (see `HeldPushes.hold`): each of its listeners takes late lists (`ServiceRef.onHeld`)
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
  /** In the list of subscriptions that may hold pushes (`HeldPushes`). */
  inHeldSubs: boolean;
  /**
   * The earliest time it is filed under in `HeldPushes`' due order (no later than its first held push or held
   * deferred notification), or Infinity when it is not filed.
   */
  heldDueMs: number;
  /** Delivering its held pushes (a listener that reads back does not start again). */
  catchingUp: boolean;
  /**
   * Its held pushes enter the agenda one at a time, each when the one before it is delivered (`HeldPushes`
   * once holding stops): the first of them is on the agenda, the others wait in `heldAt`.
   */
  chained: boolean;
  /** The registry as a server: its consumer instance's registry client (found on first use). */
  client: RegistryClient | null;
}

/**
 * 3.3 ZookeeperServiceDiscoveryChangeWatcher on a Curator ServiceCache (one per consumer process and
 * application, with its own single thread): every child event calls `cacheChanged`, which reads the
 * instances (`getInstances`, blocking) and hands them to the RegistryNotifier. Events wait while a read
 * is on its way; each makes its own read (a persistent watch: nothing merges them).
 */
export interface ServiceCacheThread {
  /**
   * When each event sent and not yet read left the server, `firedAtMs[head..]` in order (the push lag of its
   * read); those before `firedAtMs[ready]` have arrived (events arrive in the order they are sent).
   */
  readonly firedAtMs: number[];
  head: number;
  ready: number;
  /** A read is on its way: the thread waits for its reply. */
  reading: boolean;
}

/** One `subscribe` call: a consumer instance's listener for one service. */
export interface ServiceRef {
  readonly subscriber: Subscriber;
  readonly service: string;
  readonly listener: ProviderListener;
  /** What feeds it: its one subscription (interface level), or one per application exporting the service. */
  readonly subs: Subscription[];
  /** Set when the listener takes late lists: told when pushes start being held for it (`subscribe`). */
  readonly onHeld: ((atMs: number) => void) | undefined;
}

/** One list's current content, shared by every push of one change. */
export interface Snapshot {
  /** The listed records, in registration order. */
  readonly entries: readonly RegistryEntry[];
  readonly bytes: number;
  readonly revisions: readonly MetadataRevision[];
  /** Per service, the exports its listeners get: built once per change and service, then shared. */
  readonly lists: Map<string, readonly ProviderExport[]>;
  /** PERF: the service and list `PushDelivery`'s `listFor` gave last (a push reaches thousands of instances of one service). */
  lastService: string | undefined;
  lastList: readonly ProviderExport[] | undefined;
}

/** One push on the agenda: its subscription, its push sequence number, its list. */
export interface Delivery {
  sub: Subscription;
  seq: number;
  snapshot: Snapshot;
}
