/**
 * Adaptive load balancing by power of two choices: draw two distinct invokers, keep the one with
 * the lower AdaptiveMetrics load (a weighted coin between them on an exact tie), then record the
 * pick (request count, pick time, the `lb_adaptive` attachment and the invocation marks the filter
 * reads). Owns the consumer instance's AdaptiveMetrics; AdaptiveLoadBalanceFilter feeds it with
 * each attempt's outcome. Follows dubbo-cluster `loadbalance/AdaptiveLoadBalance.java`.
 */
import { DEFAULT_TIMEOUT, TIMEOUT_KEY } from '../constants.js';
import type { Invoker, RpcInvocation } from '../rpc.js';
import type { DubboRuntime } from '../runtime.js';
import type { URL } from '../url.js';
import {
  ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY,
  AdaptiveMetrics,
  adaptiveServiceKey,
  setAdaptiveAttributes,
} from './adaptive-metrics.js';
import { AbstractLoadBalance } from './load-balance.js';
import { getMethodName } from './rpc-utils.js';

export class AdaptiveLoadBalance extends AbstractLoadBalance {
  static readonly NAME = 'adaptive';

  readonly #attachmentKey = 'mem,load';
  readonly adaptiveMetrics: AdaptiveMetrics;

  constructor(runtime: DubboRuntime) {
    super(runtime);
    this.adaptiveMetrics = new AdaptiveMetrics(runtime.clock);
  }

  protected doSelect(invokers: Invoker[], _url: URL, invocation: RpcInvocation): Invoker {
    const invoker = this.#selectByP2C(invokers, invocation);
    invocation.setAttachment(ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY, this.#attachmentKey);
    const startTime = this.adaptiveMetrics.currentTimeMillis();
    setAdaptiveAttributes(invocation, { metrics: this.adaptiveMetrics, startTimeMs: startTime });
    const key = adaptiveServiceKey(invoker);
    this.adaptiveMetrics.addConsumerReq(key);
    this.adaptiveMetrics.setPickTime(key, startTime);
    return invoker;
  }

  #selectByP2C(invokers: Invoker[], invocation: RpcInvocation): Invoker {
    const length = invokers.length;
    if (length === 1) return invokers[0]!;
    if (length === 2) return this.#chooseLowLoadInvoker(invokers[0]!, invokers[1]!, invocation);
    const rng = this.random;
    const pos1 = rng.nextInt(length);
    let pos2 = rng.nextInt(length - 1);
    if (pos2 >= pos1) pos2 = pos2 + 1;
    return this.#chooseLowLoadInvoker(invokers[pos1]!, invokers[pos2]!, invocation);
  }

  /** Dubbo `RpcUtils.getTimeout`: the invocation's `timeout` attachment, else the method's positive URL value. */
  #getTimeout(invoker: Invoker, invocation: RpcInvocation): number {
    const fromInvocation = invocation.getAttachment(TIMEOUT_KEY);
    if (fromInvocation !== undefined) {
      const n = Number(fromInvocation);
      // DIVERGENCE: a non-positive timeout would make Dubbo divide by zero; zonesim uses the default.
      if (Number.isFinite(n) && n > 0) return Math.trunc(n);
      return DEFAULT_TIMEOUT;
    }
    const v = invoker.getUrl().getMethodNumber(getMethodName(invocation), TIMEOUT_KEY, DEFAULT_TIMEOUT);
    return v > 0 ? Math.trunc(v) : DEFAULT_TIMEOUT;
  }

  #chooseLowLoadInvoker(invoker1: Invoker, invoker2: Invoker, invocation: RpcInvocation): Invoker {
    const weight1 = this.getWeight(invoker1, invocation);
    const weight2 = this.getWeight(invoker2, invocation);
    const timeout1 = this.#getTimeout(invoker1, invocation);
    const timeout2 = this.#getTimeout(invoker2, invocation);
    const load1 = this.adaptiveMetrics.getLoad(adaptiveServiceKey(invoker1), weight1, timeout1);
    const load2 = this.adaptiveMetrics.getLoad(adaptiveServiceKey(invoker2), weight2, timeout2);
    // Dubbo compares the doubles' bit patterns: Object.is is the same test (0 and -0 differ, NaN equals NaN).
    if (Object.is(load1, load2)) {
      const totalWeight = weight1 + weight2;
      const rng = this.random;
      if (totalWeight > 0) {
        const offset = rng.nextInt(totalWeight);
        return offset < weight1 ? invoker1 : invoker2;
      }
      return rng.nextInt(2) === 0 ? invoker1 : invoker2;
    }
    return load1 > load2 ? invoker2 : invoker1;
  }
}
