/**
 * A plain reference of Dubbo's `ShortestResponseLoadBalance.doSelect` for differential tests: `getWeight` per invoker on
 * every pick, no caches. The balancer in src/ must pick exactly what this picks for the same draws.
 */
import type { RpcStatus } from '../../../../src/dubbo/rpc-status.js';
import type { Invoker, RpcInvocation } from '../../../../src/dubbo/rpc.js';
import type { DubboRuntime } from '../../../../src/dubbo/runtime.js';
import type { URL } from '../../../../src/dubbo/url.js';
import { AbstractLoadBalance } from '../../../../src/dubbo/loadbalance/load-balance.js';
import { pickAmongTied } from '../../../../src/dubbo/loadbalance/weighted-random.js';
import { getMethodName } from '../../../../src/dubbo/loadbalance/rpc-utils.js';
// The slide windows are not what the differential test checks (weights are): the product's class is reused.
import { SlideWindowData } from '../../../../src/dubbo/loadbalance/shortest-response-load-balance.js';

export class ReferenceShortestResponseLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'shortestresponse';

  readonly #slidePeriodMs: number;
  readonly #methodMap = new Map<RpcStatus, SlideWindowData>();
  #lastUpdateTimeMs: number;

  constructor(runtime: DubboRuntime, slidePeriodMs: number = runtime.release.shortestResponseWindowMs) {
    super(runtime);
    this.#slidePeriodMs = slidePeriodMs;
    this.#lastUpdateTimeMs = runtime.clock.now();
  }

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    const methodName = getMethodName(invocation);
    let shortestResponse = Infinity;
    let shortestCount = 0;
    const shortestIndexes = new Array<number>(length);
    const weights = new Array<number>(length);
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;

    for (let i = 0; i < length; i++) {
      const invoker = invokers[i]!;
      const rpcStatus = this.runtime.rpcStatus.getStatus(invoker.getUrl(), methodName);
      let slideWindowData = this.#methodMap.get(rpcStatus);
      if (slideWindowData === undefined) {
        slideWindowData = new SlideWindowData(rpcStatus);
        this.#methodMap.set(rpcStatus, slideWindowData);
      }
      const estimateResponse = slideWindowData.getEstimateResponse();
      const afterWarmup = this.getWeight(invoker, invocation);
      weights[i] = afterWarmup;
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

    const nowMs = this.runtime.clock.now();
    if (nowMs - this.#lastUpdateTimeMs > this.#slidePeriodMs) {
      // DIVERGENCE: Dubbo resets the windows on a shared executor moments after this select;
      // zonesim resets them at once (the estimates for this select are already taken).
      for (const data of this.#methodMap.values()) data.reset();
      this.#lastUpdateTimeMs = nowMs;
    }

    return pickAmongTied(invokers, shortestIndexes, shortestCount, weights, totalWeight, sameWeight, this.runtime.random);
  }
}
