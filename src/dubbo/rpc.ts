/**
 * The consumer side's core types: Invocation, Invoker, Result and RpcError. Outcomes are data:
 * an invoke returns `{ kind: 'ok' }` or `{ kind: 'error', error }` with Dubbo's codes, never throws.
 * Asynchrony is a generator process (`Proc`) driven by the engine.
 */
import type { Proc } from '../engine/simulation.js';
import { NO_ATTACHMENTS } from './no-attachments.js';
import { RpcCode } from './constants.js';
import type { URL } from './url.js';

/** A process that ends at once with `result` (a call that ends before any attempt, a check that fails). */
export function* ended(result: Result): Proc<Result> {
  return result;
}

/** Dubbo's RpcException as data. `cause` names the router/rule when a route emptied the list. */
export interface RpcError {
  code: number;
  message: string;
  /** zonesim addition: a short machine-readable cause, e.g. `router:condition`, `registry:empty`. */
  cause?: string;
}

/** The result of one invoke. A `bizException` result is a success at the cluster level (never retried). */
export type Result =
  | {
      kind: 'ok';
      value?: unknown;
      bizException?: string;
      /** The exception in the result is a provider filter's refusal returned as a result (TpsLimitFilter). */
      limited?: 'tps';
      /**
       * The result carries this RpcException instead of a value (Dubbo `AsyncRpcResult.newDefaultAsyncResult(e)`),
       * e.g. TIMEOUT_TERMINATE: the cluster returns it without retrying; `bizException` holds its message.
       */
      rpcException?: RpcError;
      /**
       * The provider's service threw this RpcException (a failed downstream call of its own, rethrown);
       * its ExceptionFilter passes RpcExceptions through unchanged, so the result carries it. zonesim
       * counts it as a biz outcome; `bizException` holds its message.
       */
      remoteRpcException?: RpcError;
      /**
       * An async call (MergeableClusterInvoker's sub-invocations): its future completed exceptionally
       * after the cluster returned, so no cluster retried it; whoever waits on it gets this exception
       * (its message is the cause's `toString`, as ExecutionException's message).
       */
      failedFuture?: RpcError;
      /** MockClusterInvoker answered the call: `<force|fail>:<return|throw|impl>` (the outcome `mock`'s cause). */
      mocked?: string;
      /**
       * zonesim addition: Sentinel's Dubbo adapter blocked the call and its fallback made this result
       * (the outcome `blocked`'s cause, `<consumer|provider>:<flow|degrade|system|param>[:fallback]`).
       */
      sentinelBlocked?: string;
    }
  | { kind: 'error'; error: RpcError };

export const OK: Result = Object.freeze({ kind: 'ok' }) as Result;

/** Builds an error result. */
export function rpcError(code: number, message: string, cause?: string): Result {
  return { kind: 'error', error: cause === undefined ? { code, message } : { code, message, cause } };
}

/** True for code 3 (Dubbo `RpcException.isBiz()`). */
export function isBiz(error: RpcError): boolean {
  return error.code === RpcCode.BIZ_EXCEPTION;
}

// PERF: most invocations have no arguments, and one attempt; neither needs an array of its own (read-only
// shared empties, replaced at the first write).
const NO_ARGUMENTS = Object.freeze([]) as unknown as unknown[];
const NO_INVOKERS = Object.freeze([]) as unknown as Invoker[];

/** One call of one method, with its arguments and attachments (Dubbo `RpcInvocation`). */
export class RpcInvocation {
  methodName: string;
  serviceName: string;
  arguments: unknown[];
  attachments: Map<string, string>;
  /** Invokers tried so far by the cluster (Dubbo `invokedInvokers`). */
  invokedInvokers: Invoker[] = NO_INVOKERS;
  /** Opaque per-request data for the world layer (metrics, call-graph context). */
  context: unknown;

  constructor(init: {
    methodName: string;
    serviceName?: string;
    arguments?: unknown[];
    attachments?: Map<string, string> | Record<string, string>;
    context?: unknown;
  }) {
    this.methodName = init.methodName;
    this.serviceName = init.serviceName ?? '';
    this.arguments = init.arguments ?? NO_ARGUMENTS;
    const a = init.attachments;
    this.attachments = a instanceof Map ? a : new Map(Object.entries(a ?? {}));
    this.context = init.context;
  }

  getMethodName(): string {
    return this.methodName;
  }

  getAttachment(key: string): string | undefined {
    return this.attachments.get(key);
  }

  setAttachment(key: string, value: string): void {
    // A request without attachments holds the shared empty map: the first write gets a map of its own.
    if (this.attachments === NO_ATTACHMENTS) this.attachments = new Map();
    this.attachments.set(key, value);
  }

  addInvokedInvoker(invoker: Invoker): void {
    if (this.invokedInvokers === NO_INVOKERS) this.invokedInvokers = [invoker];
    else this.invokedInvokers.push(invoker);
  }

  /** A copy with its own attachments (broadcast and forking copy invocations). */
  copy(): RpcInvocation {
    return new RpcInvocation({
      methodName: this.methodName,
      serviceName: this.serviceName,
      arguments: this.arguments,
      attachments: new Map(this.attachments),
      context: this.context,
    });
  }
}

/**
 * Values derived from one protocol invoker's URL alone, kept on the invoker itself. PERF: the seed articles'
 * estate holds 400,000 invokers, and every attempt asks which consumer filters are active for its invoker:
 * weak maps keyed by the invoker cost a cold hash-table probe each, and some 40 bytes an entry per map. A
 * class that extends this one carries the slots (DubboInvoker, and the what-if tools' UrlInvoker); any other
 * invoker (a cluster invoker, a test's scripted one) is memoized in the weak maps as before.
 */
export class InvokerMemoSlots {
  /** The consumer filters' `activeFor` memo whose answer `anyActive` holds (the first one asked: see create-runtime.ts). */
  anyActiveOf: ((invoker: Invoker) => boolean) | undefined = undefined;
  anyActive = false;
  /** Whether AdaptiveLoadBalanceFilter is in its chain, once asked. */
  adaptiveFilterActive: boolean | undefined = undefined;
  /** Whether ActiveLimitFilter is in its chain, once asked. */
  activeLimitFilterActive: boolean | undefined = undefined;
  /** Its weight inputs (see `weightInputsOf` in loadbalance/load-balance.ts), once asked. */
  weightInputs: object | undefined = undefined;
}

/** Anything that can be invoked: a remote provider, or a cluster over a directory. */
export interface Invoker {
  /** For a provider: its URL as the consumer sees it (consumer-first merge). */
  getUrl(): URL;
  isAvailable(): boolean;
  invoke(invocation: RpcInvocation): Proc<Result>;
  /**
   * Optional PERF: `invoke` for a caller that takes the process's first step at once (a `yield*` right
   * away, `Simulation.processLastFrom`): what comes before the first `yield` is done now, with the same
   * effects and result as `invoke` stepped then, and a subclass's own `invoke` is still called.
   */
  invokeNow?(invocation: RpcInvocation): Proc<Result>;
  destroy?(): void;
  /**
   * Optional: the cluster invoker invoked this provider, but the consumer's own filter chain refused
   * the call before it was sent (ActiveLimitFilter's LIMIT_EXCEEDED). In Dubbo the filter chain wraps
   * the provider's invoker, so this is still one invoke of the provider (an attempt), never an execution.
   */
  refusedByFilter?(invocation: RpcInvocation): void;
}

/** A cluster invoker also exposes its registry URL (multi-registry weights, zone-aware). */
export interface ClusterInvokerLike extends Invoker {
  getRegistryUrl(): URL;
  isDestroyed(): boolean;
}

/** Distinguishes cluster invokers from provider invokers (Dubbo `instanceof ClusterInvoker`). */
export function isClusterInvoker(invoker: Invoker): invoker is ClusterInvokerLike {
  return typeof (invoker as Partial<ClusterInvokerLike>).getRegistryUrl === 'function';
}

/** The clock the Dubbo port reads (System.currentTimeMillis in Dubbo). */
export interface Clock {
  now(): number;
}
