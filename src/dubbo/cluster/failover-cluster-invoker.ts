/**
 * Failover, Dubbo's default cluster: up to `retries + 1` attempts on different providers,
 * re-listing (and so re-routing) before each retry; biz errors are returned at once.
 * Follows dubbo-cluster `support/FailoverClusterInvoker.java`.
 */
import type { Proc, SimEvent } from '../../engine/simulation.js';
import { DEFAULT_RETRIES, RETRIES_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import { isBiz, type Invoker, type Result, type RpcError, type RpcInvocation } from '../rpc.js';
import type { URL } from '../url.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

// How a JS number prints (`String(n)`): what a numeric scenario attachment value arrives as.
const NUMBER_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

// The key of FailoverClusterInvoker's `doInvoke` from the second attempt on, for `FirstAttempt` only.
const RETRIES = Symbol('retries');

// What the first attempt has tried: nothing (never written to).
const NOTHING_INVOKED: Invoker[] = Object.freeze([]) as unknown as Invoker[];

export class FailoverClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME: string = 'failover';
  // PERF: `retries` of the consumer URL, read on every call: kept for the last URL and method (URLs are immutable).
  #retriesUrl: URL | undefined;
  #retriesMethod: string | undefined;
  #retries = 0;

  /**
   * Dubbo's loop; `retry`, when given, is where `doInvokeNow`'s first attempt left it: the loop goes on
   * from the second attempt.
   */
  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance, retry?: Retry): Proc<Result> {
    let copyInvokers = invokers;
    const methodName = invocation.getMethodName();
    const len = retry === undefined ? this.calculateInvokeTimes(methodName, invocation) : retry.len;
    let le: RpcError | null = retry === undefined ? null : retry.error;
    // PERF: Dubbo's `invoked` holds the invokers of the attempts so far, each of which failed (a success or
    // a biz error returns): it is `failed`, made at the first failure, so a call that succeeds at once makes no list.
    let failed: Invoker[] | null = retry === undefined ? null : retry.failed;
    for (let i = retry === undefined ? 0 : 1; i < len; i++) {
      if (i > 0) {
        const destroyed = this.checkWhetherDestroyed();
        if (destroyed) return { kind: 'error', error: destroyed };
        const listed = this.list(invocation);
        if (!Array.isArray(listed)) return { kind: 'error', error: listed };
        copyInvokers = listed;
        const empty = this.checkInvokers(copyInvokers, invocation);
        if (empty) return { kind: 'error', error: empty };
      }
      const invoker = this.selectForAttempt(loadbalance, invocation, copyInvokers, failed ?? NOTHING_INVOKED)!;
      const result = yield* this.invokeWithContextNow(invoker, invocation);
      if (result.kind === 'ok') return result;
      if (isBiz(result.error)) return result;
      le = result.error;
      (failed ??= []).push(invoker);
    }
    return this.#triedAll(le!, failed!, methodName, len, copyInvokers.length);
  }

  /**
   * PERF: most calls succeed at their first attempt, so the first attempt is made now, as `doInvoke`'s
   * first step makes it, and handed over as the process (`FirstAttempt`); `doInvoke`'s generator is made
   * only when that attempt fails, and goes on from the second. One generator less per call, and one level
   * less on every step of the first attempt. A subclass's own `doInvoke` is called as is.
   */
  protected override doInvokeNow(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    if (this.doInvoke !== FailoverClusterInvoker.prototype.doInvoke) return this.doInvoke(invocation, invokers, loadbalance);
    const len = this.calculateInvokeTimes(invocation.getMethodName(), invocation);
    const invoker = this.selectForAttempt(loadbalance, invocation, invokers, NOTHING_INVOKED)!;
    return new FirstAttempt(this, this.invokeWithContextNow(invoker, invocation), invocation, invokers, loadbalance, len, invoker);
  }

  /** `doInvoke` from the second attempt on, for `FirstAttempt` (a module-private key). */
  [RETRIES](invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance, retry: Retry): Proc<Result> {
    return this.doInvoke(invocation, invokers, loadbalance, retry);
  }

  // PERF: the message is built outside the generator, whose object (one per call) then holds fewer registers.
  /** Every attempt failed: Dubbo's RpcException with the last error's code. */
  #triedAll(last: RpcError, failed: Invoker[], methodName: string, len: number, listed: number): Result {
    const providers = new Set(failed.map((inv) => inv.getUrl().getAddress()));
    return this.error(
      last.code,
      `Failed to invoke the method ${methodName} in the service ${this.getInterface()}. Tried ${len} times of the providers ` +
        `[${[...providers].join(', ')}] (${providers.size}/${listed}) from the registry ` +
        `${this.directory.getUrl().getAddress()} on the consumer ${this.runtime.consumerHost} using the dubbo version ` +
        `${this.runtime.release.text}. Last error is: ${last.message}`,
      last.cause,
    );
  }

  /** The pick of one attempt: Dubbo's `select` avoiding the invokers already tried (zone-scoped variants override it). */
  protected selectForAttempt(
    loadbalance: LoadBalance,
    invocation: RpcInvocation,
    invokers: Invoker[],
    invoked: Invoker[],
  ): Invoker | null {
    return this.select(loadbalance, invocation, invokers, invoked);
  }

  /**
   * `calculateInvokeTimes` (FailoverClusterInvoker.java lines 129-142): `retries + 1` from the consumer
   * URL, overridden by a `retries` client attachment only when it is a `java.lang.Number` (its
   * `intValue()`, so 2.7 counts as 2), which is then removed; any other value (a String, even "5") is
   * ignored and left in place. At least 1.
   */
  protected calculateInvokeTimes(methodName: string, invocation: RpcInvocation): number {
    const url = this.getUrl();
    if (url !== this.#retriesUrl || methodName !== this.#retriesMethod) {
      this.#retries = url.getMethodNumber(methodName, RETRIES_KEY, DEFAULT_RETRIES);
      this.#retriesUrl = url;
      this.#retriesMethod = methodName;
    }
    let len = this.#retries + 1;
    const attached = invocation.getAttachment(RETRIES_KEY);
    // DIVERGENCE: zonesim attachments are text (a scenario's `retries: 2` arrives as "2"), so a value
    // that reads as a number stands for Java's Number and anything else for a String. Dubbo removes the
    // Number from the client context only, after ConsumerContextFilter has copied it into the
    // invocation (the provider still receives it, and a downstream tier's failover, which reads its own
    // client context, ignores it); zonesim removes it from the invocation, so it does not travel on.
    if (attached !== undefined && NUMBER_TEXT.test(attached)) {
      invocation.attachments.delete(RETRIES_KEY);
      // `intValue()` of a double: truncated, saturated to the int range.
      len = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(Number(attached)))) + 1;
    }
    return len <= 0 ? 1 : Math.trunc(len);
  }
}

/** Where a failed first attempt leaves failover's loop. */
interface Retry {
  /** Attempts in all (`calculateInvokeTimes`). */
  readonly len: number;
  /** The first attempt's error. */
  readonly error: RpcError;
  /** The invokers tried so far: the first attempt's. */
  readonly failed: Invoker[];
}

/**
 * A failover call's process from its first attempt on, as `doInvoke`'s generator takes its steps: the
 * attempt's steps; a success or a biz error is the call's result; any other error goes on in
 * `doInvoke`'s loop from the second attempt.
 */
class FirstAttempt implements Proc<Result> {
  // PERF: the call's state in fields, not in a closure over it (a context and a function more per call).
  #inner: Proc<Result>;
  #owner: FailoverClusterInvoker | null;
  readonly #invocation: RpcInvocation;
  readonly #invokers: Invoker[];
  readonly #loadbalance: LoadBalance;
  readonly #len: number;
  readonly #invoker: Invoker;

  constructor(
    owner: FailoverClusterInvoker,
    attempt: Proc<Result>,
    invocation: RpcInvocation,
    invokers: Invoker[],
    loadbalance: LoadBalance,
    len: number,
    invoker: Invoker,
  ) {
    this.#inner = attempt;
    this.#owner = owner;
    this.#invocation = invocation;
    this.#invokers = invokers;
    this.#loadbalance = loadbalance;
    this.#len = len;
    this.#invoker = invoker;
  }

  next(value?: unknown): IteratorResult<SimEvent, Result> {
    return this.#went(this.#inner.next(value));
  }

  // `yield*` passes a throw to the step it waits in; so does this.
  throw(error: unknown): IteratorResult<SimEvent, Result> {
    return this.#went(this.#inner.throw(error));
  }

  return(value: Result): IteratorResult<SimEvent, Result> {
    return this.#inner.return(value);
  }

  [Symbol.iterator](): this {
    return this;
  }

  #went(step: IteratorResult<SimEvent, Result>): IteratorResult<SimEvent, Result> {
    const owner = this.#owner;
    if (!step.done || owner === null) return step;
    const result = step.value;
    if (result.kind === 'ok' || isBiz(result.error)) return step;
    this.#owner = null;
    const retry: Retry = { len: this.#len, error: result.error, failed: [this.#invoker] };
    this.#inner = owner[RETRIES](this.#invocation, this.#invokers, this.#loadbalance, retry);
    return this.#inner.next();
  }
}
