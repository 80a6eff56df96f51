/**
 * Directories: the consumer's list of provider invokers, routed per invocation. `AbstractDirectory`
 * holds the list, the router chain, the forbidden flag and connectivity validation (invalidated
 * invokers re-checked every second); `StaticDirectory` is fixed; `DynamicDirectory` is fed full
 * provider lists by registry notifications, as RegistryDirectory is. Follows dubbo-cluster
 * `directory/AbstractDirectory.java`, `StaticDirectory.java` and dubbo-registry
 * `integration/RegistryDirectory.java`.
 */
import { RpcCode } from '../constants.js';
import type { Invoker, RpcError, RpcInvocation } from '../rpc.js';
import { EMPTY_CHAIN, type RouteTraceEntry, type RouterChainLike } from '../router/router.js';
import { remoteApplication } from '../router/rule-key.js';
import type { DubboRuntime } from '../runtime.js';
import { indexesOf, markSubList, matchInPrevious, membersOf } from '../per-list.js';
import type { URL } from '../url.js';

/** What a cluster invoker needs from its directory. */
export interface Directory {
  /** The directory's own URL (the registry URL for a registry directory). */
  getUrl(): URL;
  /** The reference's consumer URL: where cluster-level parameters are read. */
  getConsumerUrl(): URL;
  getInterface(): string;
  /** Routed invokers for this invocation, or the forbidden error. */
  list(invocation: RpcInvocation): Invoker[] | RpcError;
  getAllInvokers(): Invoker[];
  isDestroyed(): boolean;
  /** Not forbidden and at least one valid invoker is available (Dubbo `Directory.isAvailable`). */
  isAvailable(): boolean;
  /** Connectivity validation: set an unavailable invoker aside until it is available again. */
  addInvalidateInvoker(invoker: Invoker): void;
  /** zonesim addition: the router that emptied the last `list`, if any. */
  lastEmptiedBy(): RouteTraceEntry | undefined;
  toString(): string;
}

const RECONNECT_TASK_PERIOD_MS = 1000;
const RECONNECT_TASK_TRY_COUNT = 10;
/** The set-aside invokers of a directory that never set one aside (never written to). */
const NONE_INVALIDATED: Set<Invoker> = new Set();

// Worked out once per pair of lists: the instances that set invokers aside receive the same pushes, one
// list after another.
const departures = new WeakMap<readonly Invoker[], WeakMap<readonly Invoker[], readonly Invoker[]>>();
/** The invokers of `before` that `after` no longer lists, in order (exported for its differential test). */
export function departedBetween(before: readonly Invoker[], after: readonly Invoker[]): readonly Invoker[] {
  let byAfter = departures.get(before);
  if (byAfter === undefined) departures.set(before, (byAfter = new WeakMap()));
  let departed = byAfter.get(after);
  if (departed === undefined) {
    departed = departedInOrder(before, after) ?? before.filter((inv) => !membersOf(after).has(inv));
    byAfter.set(after, departed);
  }
  return departed;
}

// PERF: two versions of a pushed list hold their common invokers in the same order, give or take a few
// (see `matchInPrevious`): walking both finds what left with a scan of `after` per invoker not found
// where expected. More of those than a few (a reordered list) gives up: undefined, and a set decides.
// A set of every list version, kept as long as the list, was a large share of a rolling restart's heap.
const MAX_SCANS = 4;
function departedInOrder(before: readonly Invoker[], after: readonly Invoker[]): Invoker[] | undefined {
  const departed: Invoker[] = [];
  let scans = 0;
  let from = 0;
  for (const inv of before) {
    const at = matchInPrevious(after, inv, from);
    if (at >= 0) {
      from = at + 1;
      continue;
    }
    if (++scans > MAX_SCANS) return undefined;
    if (!after.includes(inv)) departed.push(inv);
  }
  return departed;
}

// Marks by list index, all 0 between calls of `withoutInvokers`.
let leftOutMarks = new Uint8Array(1024);

/**
 * `invokers.filter((i) => !left.has(i))`, marked as a sub-list of `invokers` (exported for its
 * differential test). PERF: with providers set aside, an instance filters every list version it reads (a
 * rolling restart pushes one every few ms, and after a zone crash hundreds are set aside): the set-aside
 * ones are looked up in the list's index (shared by every instance) and marked, the marks read in list
 * order, and the stretches between them copied, instead of a set lookup per invoker and a sort. The indexes
 * left out are kept with the sub-list for the load balancer (`excludedOf`), which would otherwise walk both
 * lists again. A list that holds an invoker twice is filtered as above.
 */
export function withoutInvokers(invokers: readonly Invoker[], left: ReadonlySet<Invoker>): Invoker[] {
  const at = indexesOf(invokers);
  const length = invokers.length;
  if (at.size !== length) {
    const kept = invokers.filter((i) => !left.has(i));
    markSubList(kept, invokers);
    return kept;
  }
  if (leftOutMarks.length < length) leftOutMarks = new Uint8Array(2 * length);
  const marks = leftOutMarks;
  let n = 0;
  for (const inv of left) {
    const i = at.get(inv);
    if (i === undefined) continue;
    marks[i] = 1;
    n++;
  }
  // A plain array: a typed one is allocated outside the heap, at several times the cost (see `numbers`).
  const drop = new Array<number>(n);
  for (let i = 0, d = 0; d < n; i++) {
    if (marks[i] === 0) continue;
    marks[i] = 0;
    drop[d++] = i;
  }
  const out = new Array<Invoker>(length - n);
  let k = 0;
  let from = 0;
  for (let m = 0; m < n; m++) {
    const d = drop[m]!;
    for (let i = from; i < d; i++) out[k++] = invokers[i]!;
    from = d + 1;
  }
  for (let i = from; i < length; i++) out[k++] = invokers[i]!;
  markSubList(out, invokers, drop);
  return out;
}

/** Shared directory behaviour. */
export abstract class AbstractDirectory implements Directory {
  protected readonly runtime: DubboRuntime;
  readonly #url: URL;
  readonly #consumerUrl: URL;
  #routerChain: RouterChainLike;
  #invokers: Invoker[] = [];
  #validInvokers: Invoker[] = [];
  // PERF: one directory per reference per consumer instance; a set of its own once something is set aside.
  #invalidated: Set<Invoker> = NONE_INVALIDATED;
  #reconnectScheduled = false;
  #destroyed = false;
  #lastEmptiedBy: RouteTraceEntry | undefined;
  protected forbidden = false;
  #version = 0;
  /** A list arrived while invokers were set aside: the valid list is worked out when next read. */
  #validStale = false;

  constructor(runtime: DubboRuntime, url: URL, consumerUrl: URL, routerChain: RouterChainLike = EMPTY_CHAIN) {
    this.runtime = runtime;
    this.#url = url;
    this.#consumerUrl = consumerUrl;
    this.#routerChain = routerChain;
  }

  getUrl(): URL {
    return this.#url;
  }
  getConsumerUrl(): URL {
    return this.#consumerUrl;
  }
  getInterface(): string {
    return this.#consumerUrl.getServiceInterface();
  }
  getAllInvokers(): Invoker[] {
    return this.#invokers;
  }
  /** Invokers minus those set aside by connectivity validation. */
  getValidInvokers(): Invoker[] {
    if (this.#validStale) this.#filterValid();
    return this.#validInvokers;
  }
  /** Bumped whenever the valid list changes. */
  get version(): number {
    return this.#version;
  }
  isDestroyed(): boolean {
    return this.#destroyed;
  }
  isAvailable(): boolean {
    if (this.#destroyed || this.forbidden) return false;
    for (const inv of this.getValidInvokers()) if (inv.isAvailable()) return true;
    return false;
  }
  isForbidden(): boolean {
    return this.forbidden;
  }
  lastEmptiedBy(): RouteTraceEntry | undefined {
    return this.#lastEmptiedBy;
  }
  /** The list last set (no subclass bookkeeping first). */
  protected appliedInvokers(): Invoker[] {
    return this.#invokers;
  }
  /** Some invoker is set aside by connectivity validation. */
  protected hasInvalidated(): boolean {
    return this.#invalidated.size > 0;
  }
  getRouterChain(): RouterChainLike {
    return this.#routerChain;
  }
  setRouterChain(chain: RouterChainLike): void {
    this.#routerChain = chain;
    chain.setInvokers(this.#invokers);
    this.#version++;
  }

  destroy(): void {
    this.#destroyed = true;
  }

  list(invocation: RpcInvocation): Invoker[] | RpcError {
    if (this.forbidden) {
      return {
        code: RpcCode.FORBIDDEN_EXCEPTION,
        message:
          `No provider available from registry ${this.#url.getAddress()} for service ${this.#consumerUrl.getServiceKey()} ` +
          `on consumer ${this.runtime.consumerHost} use dubbo version ${this.runtime.release.text}, please check status of providers` +
          `(disabled, not registered or in blocklist).`,
        cause: 'registry:forbidden',
      };
    }
    const routed = this.#routerChain.route(this.#consumerUrl, this.getValidInvokers(), invocation);
    this.#lastEmptiedBy = routed.invokers.length === 0 ? routed.emptiedBy : undefined;
    return routed.invokers;
  }

  /** Replaces the invoker list (full replace, as a registry notification does). */
  protected setInvokers(invokers: Invoker[]): void {
    // Set-aside invokers that left the list are forgotten (Dubbo's refreshInvokerInternal retains only those still listed).
    // PERF: every set-aside invoker is on the list it replaces, so only the invokers that left it can go (deleting
    // keeps the others' order); with a whole zone set aside, checking each of them at every push was a scan per
    // instance and push.
    if (this.#invalidated.size > 0) for (const inv of departedBetween(this.#invokers, invokers)) this.#invalidated.delete(inv);
    this.#invokers = invokers;
    this.#version++;
    // PERF: a push reaches every consumer instance, and an instance often gets several before its
    // next call: with invokers set aside, the filtered copy is made when the list is next read.
    this.#validStale = this.#invalidated.size > 0;
    if (!this.#validStale) this.#validInvokers = invokers;
    this.#routerChain.setInvokers(invokers);
  }

  addInvalidateInvoker(invoker: Invoker): void {
    const listed = indexesOf(this.#invokers);
    if (!listed.has(invoker) || this.#invalidated.has(invoker)) return;
    if (this.#invalidated === NONE_INVALIDATED) this.#invalidated = new Set();
    this.#invalidated.add(invoker);
    this.#scheduleReconnect();
    // A list that holds an invoker twice, with the valid list up to date: the first of the two leaves it.
    const at = listed.size === this.#invokers.length || this.#validStale ? -1 : this.#validInvokers.indexOf(invoker);
    if (at < 0) {
      this.#refreshValid();
      return;
    }
    const valid = this.#validInvokers.slice();
    valid.splice(at, 1);
    this.#validInvokers = valid;
    markSubList(valid, this.#invokers);
    this.#version++;
  }

  // PERF: the valid list is worked out when next read (see `withoutInvokers`), as after a push. After a zone
  // crash an instance sets aside one provider after another, several in one call (failover's reselect
  // draws), and a copy of the list at each was most of such a run's allocation. Exact for a list without
  // an invoker twice; one with (see `addInvalidateInvoker`) is filtered now, as the next set-aside may splice.
  #refreshValid(): void {
    this.#version++;
    if (indexesOf(this.#invokers).size === this.#invokers.length) this.#validStale = true;
    else this.#filterValid();
  }

  #filterValid(): void {
    this.#validStale = false;
    this.#validInvokers = this.#invalidated.size === 0 ? this.#invokers : withoutInvokers(this.#invokers, this.#invalidated);
  }

  #scheduleReconnect(): void {
    if (this.#reconnectScheduled) return;
    this.#reconnectScheduled = true;
    this.runtime.sim.schedule(RECONNECT_TASK_PERIOD_MS, () => this.#reconnectTask());
  }

  /** What a subclass has deferred is done before the directory's own timer reads it (see `DynamicDirectory`). */
  protected settle(): void {}

  // AbstractDirectory.checkConnectivity (lines 333-345): every set-aside invoker while there are fewer
  // than reconnectTaskTryCount (10), otherwise 10 random draws with replacement (so from exactly 10
  // on, some may be missed); available ones go back, departed ones are dropped.
  #reconnectTask(): void {
    this.#reconnectScheduled = false;
    this.settle();
    if (this.#destroyed || this.#invalidated.size === 0) return;
    const pending = [...this.#invalidated];
    const tries = Math.min(RECONNECT_TASK_TRY_COUNT, pending.length);
    let changed = false;
    for (let i = 0; i < tries; i++) {
      const idx = pending.length < RECONNECT_TASK_TRY_COUNT ? i : this.runtime.random.nextInt(pending.length);
      const inv = pending[idx]!;
      if (!this.#invalidated.has(inv)) continue;
      if (!this.#invokers.includes(inv) || inv.isAvailable()) {
        this.#invalidated.delete(inv);
        changed = true;
      }
    }
    if (changed) this.#refreshValid();
    if (this.#invalidated.size > 0) this.#scheduleReconnect();
  }

  toString(): string {
    return this.#url.toString();
  }
}

/**
 * A fixed list of invokers (direct URLs, the per-registry clusters of a multi-registry reference,
 * or one group's providers of a multi-group reference).
 */
export class StaticDirectory extends AbstractDirectory {
  constructor(runtime: DubboRuntime, url: URL, consumerUrl: URL, invokers: Invoker[], routerChain?: RouterChainLike) {
    super(runtime, url, consumerUrl, routerChain);
    this.setInvokers(invokers);
  }

  /** StaticDirectory.isAvailable: any valid invoker available; each unavailable one is set aside on the way. */
  override isAvailable(): boolean {
    if (this.isDestroyed()) return false;
    for (const inv of this.getValidInvokers()) {
      if (inv.isAvailable()) return true;
      this.addInvalidateInvoker(inv);
    }
    return false;
  }
}

/**
 * A directory fed by registry notifications: `notify` takes the full current provider list
 * (already turned into invokers) and replaces the old one; `notifyEmpty` is the `empty://` push.
 */
export class DynamicDirectory extends AbstractDirectory {
  /**
   * The reference's `group` is `*` or a list (`a,b`): the directory holds one cluster invoker per
   * group (see `toMergeInvokerList` in consumer-stack.ts) and `list` returns them all, unrouted
   * (Dubbo `DynamicDirectory` constructor and `doList`).
   */
  readonly multiGroup: boolean;

  constructor(runtime: DubboRuntime, url: URL, consumerUrl: URL, routerChain?: RouterChainLike) {
    super(runtime, url, consumerUrl, routerChain);
    const group = consumerUrl.getParameter('group') ?? '';
    this.multiGroup = group === '*' || group.includes(',');
    this.#clock = runtime.sim;
    super.getRouterChain().onBeforeChange?.(this.#applyPendingHook);
  }

  // PERF: a registry push reaches every consumer instance, and an instance often gets several before it
  // next reads its directory: a list is set when the directory is next read, and one that a later list
  // replaces before then is never set, whenever that changes nothing (`#deferrable`). Every read below
  // sets the pending list first.
  #pending: Invoker[] | null = null;
  /** A pending list or held pushes (`#heldAtMs`): a read settles them first. */
  #unsettled = false;
  // What delivers the registry's pushes that have arrived and are still held (see `setCatchUp`).
  #catchUp: (() => void) | null = null;
  /** When the first push the registry holds for this directory arrives, or Infinity. */
  #heldAtMs = Infinity;
  // The runtime's clock, read at every read of the list while pushes are held.
  readonly #clock: { readonly now: number };

  /**
   * PERF: after `markHeld(atMs)`, `catchUp` runs before the first read of this directory (the same
   * places as the pending list) from `atMs` on: the registry may hold pushes off the agenda and deliver
   * them (`notify`) when the list is next read, with the effect they would have had when they arrived
   * (`RegistryModel.subscribe`).
   */
  setCatchUp(catchUp: () => void): void {
    this.#catchUp = catchUp;
  }

  /** The registry holds pushes for this directory, the first arriving at `atMs` (see `setCatchUp`). */
  markHeld(atMs: number): void {
    if (atMs < this.#heldAtMs) this.#heldAtMs = atMs;
    this.#unsettled = true;
  }

  override list(invocation: RpcInvocation): Invoker[] | RpcError {
    this.#applyPending();
    // Past the forbidden check, a multi-group directory hands back every invoker: no router, no connectivity filter.
    if (this.multiGroup && !this.forbidden) return this.getAllInvokers();
    return super.list(invocation);
  }

  override getAllInvokers(): Invoker[] {
    this.#applyPending();
    return super.getAllInvokers();
  }
  override getValidInvokers(): Invoker[] {
    this.#applyPending();
    return super.getValidInvokers();
  }
  override get version(): number {
    this.#applyPending();
    return super.version;
  }
  override isAvailable(): boolean {
    this.#applyPending();
    return super.isAvailable();
  }
  override isForbidden(): boolean {
    this.#applyPending();
    return super.isForbidden();
  }
  override getRouterChain(): RouterChainLike {
    this.#applyPending();
    return super.getRouterChain();
  }
  override setRouterChain(chain: RouterChainLike): void {
    this.#applyPending();
    super.getRouterChain().onBeforeChange?.(null);
    super.setRouterChain(chain);
    chain.onBeforeChange?.(this.#applyPendingHook);
  }
  override addInvalidateInvoker(invoker: Invoker): void {
    this.#applyPending();
    super.addInvalidateInvoker(invoker);
  }
  // The reconnect task reads the list and the set-aside invokers: held pushes that have arrived first.
  protected override settle(): void {
    this.#applyPending();
  }

  /** A full list: replaces the old list; an empty list without `empty://` keeps the old one (empty protection). */
  notify(invokers: Invoker[]): void {
    if (invokers.length === 0) return;
    if (this.#deferrable(invokers)) {
      this.#pending = invokers;
      this.#unsettled = true;
      return;
    }
    this.#pending = null;
    this.forbidden = false;
    this.setInvokers(invokers);
  }

  /** An `empty://` push: forbids the directory and destroys every invoker. */
  notifyEmpty(): void {
    this.#pending = null;
    this.forbidden = true;
    this.setInvokers([]);
  }

  // What the chain runs before its routers change (a rule at run time): a router added then must be
  // notified of the list the directory would have set by now.
  readonly #applyPendingHook = (): void => this.#applyPending();

  // PERF: every read starts here; one field says whether there is anything to do.
  #applyPending(): void {
    if (this.#unsettled) this.#settle();
  }

  #settle(): void {
    if (this.#heldAtMs <= this.#clock.now) {
      this.#heldAtMs = Infinity;
      this.#catchUp!();
    }
    const pending = this.#pending;
    if (pending !== null) {
      this.#pending = null;
      this.forbidden = false;
      this.setInvokers(pending);
    }
    this.#unsettled = this.#heldAtMs !== Infinity;
  }

  // Setting `invokers` later, or never if another list replaces it first, gives the same directory and
  // routers as setting it now: the directory is not forbidden (a list would lift that), no invoker is set
  // aside (the set-aside ones that leave a list are forgotten list by list), it is not a multi-group
  // directory (each list builds cluster invokers), the chain's routers keep only the last list, and the
  // list's providers are of the application of the list set now (routers re-read it from the first one).
  #deferrable(invokers: Invoker[]): boolean {
    if (this.forbidden || this.multiGroup || this.hasInvalidated()) return false;
    if (super.getRouterChain().notifyCollapsible?.() !== true) return false;
    const applied = this.appliedInvokers();
    if (applied.length === 0) return false;
    const url = invokers[0]!.getUrl();
    const appliedUrl = applied[0]!.getUrl();
    const app = this.#applicationOf(url);
    // PERF: most lists start with the provider the applied one starts with (URLs are immutable).
    return app !== undefined && (url === appliedUrl || app === this.#applicationOf(appliedUrl));
  }

  // The providers' application of the URL read last, kept for the next push (nearly always the same URL).
  #lastUrl: URL | undefined;
  #lastApplication: string | undefined;

  #applicationOf(url: URL): string | undefined {
    if (url !== this.#lastUrl) {
      this.#lastUrl = url;
      this.#lastApplication = remoteApplication(url);
    }
    return this.#lastApplication;
  }
}
