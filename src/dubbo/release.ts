/**
 * Which Dubbo release the port behaves as, for the behaviours that differ between 2.7.23 and 3.3
 * (SPEC 2.11). The port reads these switches from its runtime (`DubboRuntime.release`); the
 * simulation fills them from the scenario's `dubbo:` profile (stack/). Each field names the Java
 * class whose behaviour it selects.
 */

/** The two releases zonesim models: `'2.7'` is 2.7.23, `'3.3'` is 3.3 (branch 3.3, 324c625). */
export type DubboVersion = '2.7' | '3.3';

/** The behaviours of the port that depend on the release. */
export interface DubboRelease {
  readonly version: DubboVersion;
  /** `Version.getVersion()` as messages print it ("use dubbo version 3.3.2"). */
  readonly text: string;
  /**
   * Condition rules, a key the URL does not carry: `fail` (3.3 `AbstractConditionMatcher.isMatch`: no
   * value, no match) or `pass` (2.7 `ConditionRouter.matchCondition`: a condition with only mismatch
   * patterns passes).
   */
  readonly conditionMissingKey: 'fail' | 'pass';
  /** `AbstractClusterInvoker.reselect`: `sample` draws `reselectCount` (10) indexes (3.x); `all` scans every invoker (2.7). */
  readonly reselect: 'sample' | 'all';
  /**
   * ShortestResponseLoadBalance: the window after which every invoker's figures reset (3.x:
   * `shortestResponseSlidePeriod`, 30 s); `Infinity` is 2.7's lifetime average.
   */
  readonly shortestResponseWindowMs: number;
  /** RpcExceptionFilter (3.2.5+): a returned RpcException counts as an error for ActiveLimitFilter and adaptive. */
  readonly rpcExceptionFilter: boolean;
  /**
   * A failover retry's timeout: `first` (3.x DubboInvoker writes the attempt's timeout into the
   * `timeout` attachment, which the next attempt reads first) or `each` (2.7 writes it into the
   * invocation's attributes: every attempt reads the URL).
   */
  readonly retryTimeout: 'first' | 'each';
  /**
   * How a sync call's timeout is detected: `exact` (3.x DefaultFuture's per-call timeout task) or
   * `timer` (2.7: the 30 ms HashedWheelTimer scan, so timeouts land 0–30 ms late, with the scan-timer message).
   */
  readonly timeoutDetection: 'exact' | 'timer';
  /** TpsLimitFilter's refusal: `returned` (3.2.5+: not retried) or `thrown` (2.7: a SERVICE_ERROR reply, retried by failover). */
  readonly tpsLimit: 'returned' | 'thrown';
  /**
   * ConsistentHashLoadBalance: `ring` (3.3: the ring's node for the key) or `bounded` (2.7.15+, #8916:
   * a node whose picks reach 1.5x the selector's average passes the key to the next node on the ring).
   */
  readonly consistentHash: 'ring' | 'bounded';
}

/** Dubbo 3.3 (branch 3.3). */
export const DUBBO_3_3: DubboRelease = Object.freeze({
  version: '3.3',
  text: '3.3.2',
  conditionMissingKey: 'fail',
  reselect: 'sample',
  shortestResponseWindowMs: 30_000,
  rpcExceptionFilter: true,
  retryTimeout: 'first',
  timeoutDetection: 'exact',
  tpsLimit: 'returned',
  consistentHash: 'ring',
});

/** Dubbo 2.7.23 (tag dubbo-2.7.23). */
export const DUBBO_2_7: DubboRelease = Object.freeze({
  version: '2.7',
  text: '2.7.23',
  conditionMissingKey: 'pass',
  reselect: 'all',
  shortestResponseWindowMs: Infinity,
  rpcExceptionFilter: false,
  retryTimeout: 'each',
  timeoutDetection: 'timer',
  tpsLimit: 'thrown',
  consistentHash: 'bounded',
});

/** The release defaults of a version. */
export function dubboRelease(version: DubboVersion): DubboRelease {
  return version === '2.7' ? DUBBO_2_7 : DUBBO_3_3;
}
