/**
 * MigrationInvoker at step APPLICATION_FIRST: a 3.x reference that subscribes both discovery levels
 * holds an interface-level cluster invoker (`invoker`, over a RegistryDirectory) and an
 * application-level one (`serviceDiscoveryInvoker`, over a ServiceDiscoveryRegistryDirectory), and
 * calls through the one `calcPreferredInvoker` prefers: the application level when
 * DefaultMigrationAddressComparator says to migrate, which with the default threshold 0 is whenever
 * the application-level directory holds at least one invoker. Each call re-checks that the preferred
 * application-level invoker is available, else that call goes to the interface level
 * (`decideInvoker`); `migration.promotion` below 100 sends a random share of calls to the interface
 * level. The forced steps hold one level only (`migrateToForceInterfaceInvoker` /
 * `migrateToForceApplicationInvoker` with the other invoker absent), so the stack calls that level's
 * cluster invoker directly and builds no MigrationInvoker. Follows dubbo-registry-api
 * `client/migration/MigrationInvoker.java` and `DefaultMigrationAddressComparator.java` (3.3).
 */
import type { Proc } from '../../engine/simulation.js';
import type { Rng } from '../../engine/random.js';
import type { Directory } from '../directory/directory.js';
import { invokeAtStart } from '../cluster/abstract-cluster-invoker.js';
import type { ClusterInvokerLike, Result, RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';

/** Dubbo's MigrationStep. */
export type MigrationStep = 'FORCE_INTERFACE' | 'APPLICATION_FIRST' | 'FORCE_APPLICATION';

/** Consumer URL key of the migration step (registry `Constants.MIGRATION_STEP_KEY`). */
export const MIGRATION_STEP_KEY = 'migration.step';
/** Consumer URL key of the address-count threshold (`Constants.MIGRATION_THRESHOLD_KEY`). */
export const MIGRATION_THRESHOLD_KEY = 'migration.threshold';
/** Consumer URL key of the share of calls (percent) that may use the application level (`Constants.MIGRATION_PROMOTION_KEY`). */
export const MIGRATION_PROMOTION_KEY = 'migration.promotion';

/** A cluster invoker with the directory it lists (`ClusterInvoker.getDirectory`). */
export interface LevelInvoker<D extends Directory = Directory> {
  readonly invoker: ClusterInvokerLike;
  readonly directory: D;
}

/**
 * DefaultMigrationAddressComparator.shouldMigrate(new, old): no invoker at the new level, stay; none
 * at the old level, migrate; else migrate when new/old address counts reach `threshold`
 * (DefaultMigrationAddressComparator.java:53-64,92-99). `threshold` is the rule's or the consumer
 * URL's `migration.threshold` when ≥ 0, else `dubbo.application.migration.threshold`, default 0.
 */
export function shouldMigrate(newer: Directory, older: Directory, threshold: number): boolean {
  // hasProxyInvokers: !directory.isEmpty(), every invoker the directory holds, valid or not.
  const newSize = newer.getAllInvokers().length;
  if (newSize === 0) return false;
  // PERF: with a threshold of 0 or less every ratio passes, so the old level's list is not read.
  if (threshold <= 0) return true;
  const oldSize = older.getAllInvokers().length;
  if (oldSize === 0) return true;
  // Java compares floats: (float) new / (float) old >= threshold.
  return Math.fround(Math.fround(newSize) / Math.fround(oldSize)) >= Math.fround(threshold);
}

/** Dubbo's MigrationInvoker at step APPLICATION_FIRST, over one registry's two levels. */
export class MigrationInvoker<D extends Directory = Directory> implements ClusterInvokerLike {
  readonly #invoker: LevelInvoker<D>;
  readonly #serviceDiscoveryInvoker: LevelInvoker<D>;
  readonly #threshold: number;
  readonly #promotion: number;
  readonly #random: Rng;
  #current: LevelInvoker<D>;

  /**
   * `consumerUrl` gives `migration.threshold` (default: unset, so 0) and `migration.promotion`
   * (default 100); `random` draws the promotion share (MigrationInvoker.invoke's ThreadLocalRandom).
   */
  constructor(invoker: LevelInvoker<D>, serviceDiscoveryInvoker: LevelInvoker<D>, consumerUrl: URL, random: Rng) {
    this.#invoker = invoker;
    this.#serviceDiscoveryInvoker = serviceDiscoveryInvoker;
    const threshold = Number(consumerUrl.getParameter(MIGRATION_THRESHOLD_KEY) ?? '-1');
    this.#threshold = Number.isFinite(threshold) && threshold >= 0 ? threshold : 0;
    const promotion = Number.parseInt(consumerUrl.getParameter(MIGRATION_PROMOTION_KEY) ?? '100', 10);
    this.#promotion = Number.isFinite(promotion) ? promotion : 100;
    this.#random = random;
    // migrateToApplicationFirstInvoker: both levels subscribed, then calcPreferredInvoker at once.
    this.#current = invoker;
    this.#calcPreferredInvoker();
  }

  // DIVERGENCE: Dubbo runs calcPreferredInvoker when either directory's invokers change (the
  // InvokersChangedListener of MigrationInvoker.java:460-469,484-496); zonesim runs it at each call,
  // from the directories' lists then, which gives the same choice: nothing it reads changes between
  // two notifications, except an interface-level `empty://` (RegistryDirectory fires no change for it)
  // when the threshold is above 0, where Dubbo keeps the choice made with the interface level's old
  // count and zonesim counts 0 (and so prefers the application level).
  #calcPreferredInvoker(): void {
    const sd = this.#serviceDiscoveryInvoker;
    this.#current = shouldMigrate(sd.directory, this.#invoker.directory, this.#threshold) ? sd : this.#invoker;
  }

  /** decideInvoker: the preferred application level only while it is available (MigrationInvoker.java:314-323). */
  #decideInvoker(): ClusterInvokerLike {
    const current = this.#current;
    if (current !== this.#serviceDiscoveryInvoker) return current.invoker;
    const sd = current.invoker;
    return !sd.isDestroyed() && sd.isAvailable() ? sd : this.#invoker.invoker;
  }

  // MigrationInvoker.invoke (:285-297): the promotion share, then decideInvoker.
  #pick(): ClusterInvokerLike {
    this.#calcPreferredInvoker();
    if (this.#promotion < 100 && this.#random.next() * 100 > this.#promotion) return this.#invoker.invoker;
    return this.#decideInvoker();
  }

  *invoke(invocation: RpcInvocation): Proc<Result> {
    return yield* this.#pick().invoke(invocation);
  }

  /** PERF: `invoke` for a caller that takes its first step at once: the chosen cluster's own first step. */
  invokeNow(invocation: RpcInvocation): Proc<Result> {
    return invokeAtStart(this.#pick(), invocation);
  }

  /** The level calls go to now (`getDirectory` follows `currentAvailableInvoker`). */
  getDirectory(): D {
    this.#calcPreferredInvoker();
    return this.#current.directory;
  }

  /** True while the application level is preferred. */
  get serviceDiscoveryPreferred(): boolean {
    this.#calcPreferredInvoker();
    return this.#current === this.#serviceDiscoveryInvoker;
  }

  getUrl(): URL {
    return this.#current.invoker.getUrl();
  }

  getRegistryUrl(): URL {
    return this.#current.invoker.getRegistryUrl();
  }

  isAvailable(): boolean {
    this.#calcPreferredInvoker();
    return this.#current.invoker.isAvailable();
  }

  isDestroyed(): boolean {
    return this.#current.invoker.isDestroyed();
  }
}
