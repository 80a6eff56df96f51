/**
 * Shortest response: estimate each invoker's response as its average successful elapsed time in
 * the current slide window times (active + 1), then pick like least active on the smallest
 * estimate. Owns the per-RpcStatus windows and the window clock (30 s slide period). The counts
 * come from RpcStatus, which only ActiveLimitFilter updates (URLs with `actives`); without it every
 * estimate is 0 and this is weighted random. Follows dubbo-cluster
 * `loadbalance/ShortestResponseLoadBalance.java`; under 2.7 (2.7.13+, `avg × (active + 1)` too) the
 * window never resets.
 */
import type { RpcStatus, RpcStatusTable } from '../rpc-status.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { DubboRuntime } from '../runtime.js';
import type { URL } from '../url.js';
import { AbstractLoadBalance } from './load-balance.js';
import { pickAmongTied } from './weighted-random.js';
import { getMethodName } from './rpc-utils.js';
import { parentList } from '../per-list.js';
import { listWeightedIndex, weightTableOf } from './weight-table.js';

/** Dubbo's default `shortestResponseSlidePeriod`. */
export const DEFAULT_SLIDE_PERIOD_MS = 30_000;

/** One RpcStatus seen through the current window: the offsets are the totals when it opened. */
export class SlideWindowData {
  #succeededOffset = 0;
  #succeededElapsedOffset = 0;
  readonly #rpcStatus: RpcStatus;

  constructor(rpcStatus: RpcStatus) {
    this.#rpcStatus = rpcStatus;
  }

  /** Opens a new window at the current totals. */
  reset(): void {
    this.#succeededOffset = this.#rpcStatus.getSucceeded();
    this.#succeededElapsedOffset = this.#rpcStatus.getSucceededElapsed();
  }

  /** Average successful elapsed ms in the window, truncated as Java's long division; 0 without successes. */
  getSucceededAverageElapsed(): number {
    const succeed = this.#rpcStatus.getSucceeded() - this.#succeededOffset;
    if (succeed === 0) return 0;
    return Math.trunc((this.#rpcStatus.getSucceededElapsed() - this.#succeededElapsedOffset) / succeed);
  }

  /** `average * (active + 1)`. */
  getEstimateResponse(): number {
    return this.getSucceededAverageElapsed() * (this.#rpcStatus.getActive() + 1);
  }
}

export class ShortestResponseLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'shortestresponse';

  readonly #slidePeriodMs: number;
  readonly #methodMap = new Map<RpcStatus, SlideWindowData>();
  #lastUpdateTimeMs: number;
  /**
   * Per method that had never counted a call when it was picked for, the lists picked over since: once
   * a count starts, their windows are created as Dubbo created them at those picks (offsets 0, which
   * every reset since kept, as all counts were 0). This runs before any later pick reads or resets a
   * window, so the windows are exactly Dubbo's.
   */
  readonly #uncounted = new Map<string, { lists: Invoker[][]; seen: WeakSet<Invoker[]> }>();

  /**
   * `slidePeriodMs`: 3.x's `shortestResponseSlidePeriod` (3.3 ShortestResponseLoadBalance.java:50,62-65),
   * by default the runtime's release (`shortestResponseWindowMs`); `Infinity` never resets, which is
   * 2.7's lifetime average (2.7 ShortestResponseLoadBalance.java:63-65 reads RpcStatus itself).
   */
  constructor(runtime: DubboRuntime, slidePeriodMs: number = runtime.release.shortestResponseWindowMs) {
    super(runtime);
    this.#slidePeriodMs = slidePeriodMs;
    this.#lastUpdateTimeMs = runtime.clock.now();
  }

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const methodName = getMethodName(invocation);
    const table = this.runtime.rpcStatus;
    if (this.#uncounted.size > 0) this.#openCountedWindows(table);
    if (!table.hasCounted(methodName)) {
      // PERF: no call of this method was ever counted, so every estimate is 0 and every invoker ties:
      // the pick needs no window. The windows Dubbo would create here all read zeros until a count
      // starts; the list is kept so that they exist (`#openCountedWindows`) before anything can tell.
      let pending = this.#uncounted.get(methodName);
      if (pending === undefined) this.#uncounted.set(methodName, (pending = { lists: [], seen: new WeakSet() }));
      if (!pending.seen.has(invokers)) {
        pending.seen.add(invokers);
        // PERF: a directory's sub-list (providers set aside) holds only invokers of its parent list: once the
        // parent is kept, the sub-list opens no window of its own, and keeping every sub-list of every
        // instance held hundreds of MB through a zone crash.
        const parent = parentList(invokers);
        if (parent === undefined || !pending.seen.has(parent as Invoker[])) pending.lists.push(invokers);
      }
      const nowMs = this.clock.now();
      this.#slide(nowMs);
      // Every invoker ties: a draw over the list's running totals (a sub-list's through its parent's).
      return invokers[listWeightedIndex(invokers, methodName, nowMs, this.random)]!;
    }
    return this.#selectByScan(invokers, methodName);
  }

  #openCountedWindows(table: RpcStatusTable): void {
    for (const [method, pending] of this.#uncounted) {
      if (!table.hasCounted(method)) continue;
      for (const list of pending.lists) for (const invoker of list) this.#windowOf(table.getStatus(invoker.getUrl(), method));
      this.#uncounted.delete(method);
    }
  }

  #windowOf(rpcStatus: RpcStatus): SlideWindowData {
    let slideWindowData = this.#methodMap.get(rpcStatus);
    if (slideWindowData === undefined) {
      slideWindowData = new SlideWindowData(rpcStatus);
      this.#methodMap.set(rpcStatus, slideWindowData);
    }
    return slideWindowData;
  }

  // Every slide period, at a pick, every window opens afresh.
  #slide(nowMs: number): void {
    if (nowMs - this.#lastUpdateTimeMs > this.#slidePeriodMs) {
      // DIVERGENCE: Dubbo resets the windows on a shared executor moments after this select;
      // zonesim resets them at once (the estimates for this select are already taken).
      for (const data of this.#methodMap.values()) data.reset();
      this.#lastUpdateTimeMs = nowMs;
    }
  }

  // Dubbo's loop: every invoker's estimate, the shortest ones and their weights.
  #selectByScan(invokers: Invoker[], methodName: string): Invoker {
    const length = invokers.length;
    let shortestResponse = Infinity;
    let shortestCount = 0;
    const shortestIndexes = new Array<number>(length);
    // PERF: getWeight of every invoker, from the list's shared weight table.
    const weights = weightTableOf(invokers, methodName, this.clock.now()).weights;
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;

    for (let i = 0; i < length; i++) {
      const invoker = invokers[i]!;
      const estimateResponse = this.#windowOf(this.runtime.rpcStatus.getStatus(invoker.getUrl(), methodName)).getEstimateResponse();
      const afterWarmup = weights[i]!;
      if (estimateResponse < shortestResponse) {
        shortestResponse = estimateResponse;
        shortestCount = 1;
        shortestIndexes[0] = i;
        totalWeight = afterWarmup;
        firstWeight = afterWarmup;
        sameWeight = true;
      } else if (estimateResponse === shortestResponse) {
        shortestIndexes[shortestCount++] = i;
        totalWeight += afterWarmup;
        if (sameWeight && i > 0 && afterWarmup !== firstWeight) sameWeight = false;
      }
    }

    this.#slide(this.clock.now());
    return pickAmongTied(invokers, shortestIndexes, shortestCount, weights, totalWeight, sameWeight, this.random);
  }
}
