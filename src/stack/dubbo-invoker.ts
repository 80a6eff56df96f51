/**
 * DubboInvoker over the simulated world: the consumer's invoker for one provider instance. It
 * sends the request over the network, waits for the reply or the per-attempt timeout, turns the
 * reply into a Result with Dubbo's codes and messages, and reports the attempt to the observer.
 * Availability is the connection state: a crashed provider refuses connections.
 * Follows dubbo-rpc-dubbo `DubboInvoker.java` and dubbo-remoting `DefaultFuture.java`; the attempt's
 * timeout, with Dubbo 3's timeout countdown, follows dubbo-rpc-api `RpcUtils.calculateTimeout`.
 */
import type { QueueEntry } from '../engine/event-queue.js';
import { FixedDelayTimers } from '../engine/fixed-delay-timers.js';
import type { Proc, SimEvent, Simulation } from '../engine/simulation.js';
import { oneWayMsOn, type Link, type Network } from '../world/network.js';
import type { RequestHandle, WorldObserver } from '../metrics/observer.js';
import type { AttemptResult, TraceObserver } from '../metrics/trace-observer.js';
import type { IncomingCall, Reply } from '../world/provider-call.js';
import { EPOCH_MS, providerStateVersion, type ProviderExport } from '../world/provider.js';
import { ASYNC_KEY, DEFAULT_TIMEOUT, RpcCode, TIMEOUT_KEY } from '../dubbo/constants.js';
import { ENABLE_TIMEOUT_COUNTDOWN_KEY, TIMEOUT_ATTACHMENT_KEY } from '../dubbo/filter/context-filter.js';
import { noTimeLeft } from '../dubbo/filter/consumer-context-filter.js';
import { carriedRpcException } from '../dubbo/filter/rpc-exception-filter.js';
import { ended, InvokerMemoSlots, OK, rpcError, type Invoker, type Result, type RpcInvocation } from '../dubbo/rpc.js';
import type { TimeoutCountDown } from '../dubbo/timeout-count-down.js';
import { DUBBO_3_3, type DubboRelease } from '../dubbo/release.js';
import { HashedWheelTimer } from '../dubbo/hashed-wheel-timer.js';
import { parseJavaInt, ServiceAddressURL, type URL } from '../dubbo/url.js';

/** Per-request data the simulator hangs on `RpcInvocation.context`. */
export interface CallContext {
  request: RequestHandle;
  /**
   * The time budget passed on by ConsumerContextFilter (Dubbo keeps it in the client attachment
   * `timeout-countdown`): each attempt's timeout is what is left of it.
   */
  countdown?: TimeoutCountDown | null;
  /** The calling JVM's DefaultFuture timeout wheel (started by its first request); a fresh one when absent. */
  timer?: HashedWheelTimer;
}

const OK_BIZ: Result = Object.freeze({ kind: 'ok', bizException: 'BizException' }) as Result;

/**
 * One attempt in flight. PERF: it is also the attempt's process, shaped as a generator without being
 * one (one object less per attempt): its first step waits for the reply (`done`), its second returns
 * the result (`DubboInvoker.invokeNow`).
 */
class Attempt implements IncomingCall, Generator<SimEvent<Reply | null>, Result, Reply | null> {
  readonly provider: ProviderExport;
  readonly attachments: ReadonlyMap<string, string>;
  readonly service: string;
  readonly method: string;
  readonly consumerZone: string;
  readonly request: RequestHandle;
  readonly replyLink: Link | undefined;
  readonly done: SimEvent<Reply | null>;
  /** The attempt's timeout (for the timeout message). */
  timeoutMs = 0;
  /** When it was sent, and its request id (for the scan timer's message). */
  startMs = 0;
  requestId = 0;
  /** The consumer's host (the channel's local address in the scan timer's message). */
  localHost = '';
  /** Its timeout is DefaultFuture's wheel task (2.7's sync calls, async calls), not an exact wait. */
  scan = false;
  release: DubboRelease = DUBBO_3_3;
  /** An async call (mergeable's sub-invocations): a failure completes its future, the cluster does not see it. */
  async = false;
  /** The timeout: a handle in `timers` when the timeout is the URL's, else an agenda entry. */
  timer: QueueEntry | null = null;
  timers: FixedDelayTimers | null = null;
  timerHandle = 0;
  timedOut = false;
  /** Simulated traces' observer when this attempt's request may be traced, else null. */
  tracer: TraceObserver | null = null;
  /** The invoker's URL as the consumer sees it (for the result's messages). */
  readonly url: ServiceAddressURL;
  /** The invocation's arguments (Sentinel's hot-parameter rules on the provider read them). */
  arguments: readonly unknown[] | undefined = undefined;
  // Whether the process has taken its first step (the wait).
  #waiting = false;

  constructor(
    provider: ProviderExport,
    method: string,
    consumerZone: string,
    request: RequestHandle,
    done: SimEvent<Reply | null>,
    attachments: ReadonlyMap<string, string>,
    replyLink: Link | undefined,
    url: ServiceAddressURL,
  ) {
    this.url = url;
    this.provider = provider;
    this.replyLink = replyLink;
    this.attachments = attachments;
    this.service = provider.service;
    this.method = method;
    this.consumerZone = consumerZone;
    this.request = request;
    this.done = done;
  }

  /** The `remote.application` attachment: the consumer URL's application. */
  get remoteApplication(): string | undefined {
    return this.url.consumerUrl.getParameter('application');
  }

  get settled(): boolean {
    return this.timedOut || this.request.ended;
  }

  // PERF: called as the last action of the reply's agenda callback (provider.ts), so the waiting
  // attempt may resume at once (succeedLast).
  deliver(reply: Reply): void {
    if (this.done.triggered) return;
    if (this.timers !== null) this.timers.cancel(this.timerHandle);
    else if (this.timer !== null) this.done.sim.cancel(this.timer);
    this.done.succeedLast(reply);
  }

  // The process steps, as the generator `const reply = yield this.done; return resultOf(this, reply)` takes them.
  next(reply?: Reply | null): IteratorResult<SimEvent<Reply | null>, Result> {
    if (!this.#waiting) {
      this.#waiting = true;
      return { value: this.done, done: false };
    }
    if (this.tracer !== null) this.tracer.attemptEnded(this, attemptResult(reply ?? null), this.done.sim.now);
    return { value: resultOf(this, reply ?? null), done: true };
  }

  // What a generator does when `throw` or `return` reaches it at its `yield` (the reply never fails).
  throw(error: unknown): IteratorResult<SimEvent<Reply | null>, Result> {
    throw error;
  }

  return(value: Result): IteratorResult<SimEvent<Reply | null>, Result> {
    return { value, done: true };
  }

  [Symbol.iterator](): this {
    return this;
  }
}

/** What every DubboInvoker of one consumer instance shares. */
export interface ProtocolContext {
  sim: Simulation;
  network: Network;
  observer: WorldObserver;
  consumerZone: string;
  /** True when the registry already knows this provider is gone (for `staleCalls`). */
  isKnownGone(provider: ProviderExport): boolean;
  /** The consumer instance: its requests that ended `lost` when its room went dark (absent for a provider's own calls). */
  consumer?: { readonly lost: WeakSet<RequestHandle> | null };
  /** The release the consumer group runs (default 3.3): how timeouts are read, written and detected. */
  release?: DubboRelease;
  /** Simulated traces' observer (`run --traces`); absent or null: nothing is traced. */
  tracer?: TraceObserver | null;
}

// PERF: the timeouts of one value, per simulation, wait in one FIFO (FixedDelayTimers) instead of one
// agenda entry each: an attempt's timeout is set and cancelled on nearly every call.
const timeoutLanes = new WeakMap<Simulation, Map<number, FixedDelayTimers>>();

function timeoutLane(sim: Simulation, timeoutMs: number): FixedDelayTimers {
  let bySim = timeoutLanes.get(sim);
  if (bySim === undefined) timeoutLanes.set(sim, (bySim = new Map()));
  let lane = bySim.get(timeoutMs);
  if (lane === undefined) bySim.set(timeoutMs, (lane = new FixedDelayTimers(sim, timeoutMs, expire)));
  return lane;
}

/** What an invoker's URL says of one method's timeout. */
interface MethodTimeout {
  readonly timeoutMs: number;
  readonly startsCountdown: boolean;
}

// PERF: a MethodTimeout and a pair of network links are values most of an estate's invokers share (at the
// seed articles' scale, 400,000 invokers held one of each): one object per distinct value.
const methodTimeouts = new Map<string, MethodTimeout>();

function methodTimeout(timeoutMs: number, startsCountdown: boolean): MethodTimeout {
  const key = `${timeoutMs}|${startsCountdown}`;
  let t = methodTimeouts.get(key);
  if (t === undefined) methodTimeouts.set(key, (t = { timeoutMs, startsCountdown }));
  return t;
}

/** The network links from a consumer zone to a provider zone and back. */
interface LinkPair {
  readonly out: Link | undefined;
  readonly back: Link | undefined;
}

const linkPairs = new WeakMap<Network, Map<string, LinkPair>>();

function linkPair(network: Network, consumerZone: string, providerZone: string): LinkPair {
  let byZones = linkPairs.get(network);
  if (byZones === undefined) linkPairs.set(network, (byZones = new Map()));
  const key = `${consumerZone}\n${providerZone}`;
  let pair = byZones.get(key);
  if (pair === undefined) byZones.set(key, (pair = { out: network.link(consumerZone, providerZone), back: network.link(providerZone, consumerZone) }));
  return pair;
}

// Destroyed invokers so far (part of `availabilityVersion`).
let destroyedInvokers = 0;

/** The protocol invoker for one provider instance, as one consumer instance sees it. */

export class DubboInvoker extends InvokerMemoSlots implements Invoker {
  readonly provider: ProviderExport;
  readonly #url: ServiceAddressURL;
  readonly #ctx: ProtocolContext;
  /** Per method: the URL's timeout and `enable-timeout-countdown` (default false). */
  // PERF: made on the first call (most invokers of a large estate are never called by some methods, or at all).
  #methodTimeouts: Map<string, MethodTimeout> | null = null;
  // PERF: the last method's entry, read without the map (an invoker is mostly called for one method in a row).
  #lastMethod: string | undefined;
  #lastTimeout: MethodTimeout | undefined;
  #destroyed = false;
  /** The timeout FIFO this invoker used last. */
  #lane: FixedDelayTimers | null = null;
  /** PERF: the network links to the provider and back (stable objects that faults change in place). */
  #links: LinkPair | null = null;

  constructor(provider: ProviderExport, providerUrl: URL, consumerUrl: URL, ctx: ProtocolContext) {
    super();
    this.provider = provider;
    this.#url = new ServiceAddressURL(providerUrl, consumerUrl);
    this.#ctx = ctx;
  }

  getUrl(): URL {
    return this.#url;
  }

  #linksOf(ctx: ProtocolContext): LinkPair {
    return (this.#links = linkPair(ctx.network, ctx.consumerZone, this.provider.zone));
  }

  isAvailable(): boolean {
    return !this.#destroyed && this.provider.connectable;
  }

  destroy(): void {
    if (!this.#destroyed) destroyedInvokers++;
    this.#destroyed = true;
  }

  /**
   * A number that changes whenever `isAvailable()` may have changed for any DubboInvoker of this thread
   * (a provider changed state, an invoker was destroyed): balancers keep what they derive from
   * availability until it does.
   */
  availabilityVersion(): number {
    return providerStateVersion() + destroyedInvokers;
  }

  /**
   * Per-attempt timeout (`RpcUtils.getTimeout`): the `timeout` attachment as is, else the method/interface
   * value, consumer first, where 0 or less means the default 1000 ms (3.3 RpcUtils.java:280,
   * `getMethodPositiveParameter`, URL.java:896-902; 2.7 RpcUtils.java:273 alike).
   */
  timeoutMs(invocation: RpcInvocation): number {
    const attached = invocation.getAttachment(TIMEOUT_KEY);
    if (attached !== undefined) return attachedTimeout(attached, this.#release);
    return this.#timeoutOf(invocation.getMethodName()).timeoutMs;
  }

  get #release(): DubboRelease {
    return this.#ctx.release ?? DUBBO_3_3;
  }

  #timeoutOf(method: string): MethodTimeout {
    if (method === this.#lastMethod) return this.#lastTimeout!;
    // PERF: the map only once a second method is called (most invokers see one: a map each was a
    // share of the heap at the seed articles' scale).
    let t = this.#methodTimeouts?.get(method);
    if (t === undefined) {
      const urlTimeout = this.#url.getMethodNumber(method, TIMEOUT_KEY, DEFAULT_TIMEOUT);
      t = methodTimeout(urlTimeout <= 0 ? DEFAULT_TIMEOUT : urlTimeout, this.#url.getMethodBoolean(method, ENABLE_TIMEOUT_COUNTDOWN_KEY, false));
      if (this.#lastMethod !== undefined) {
        this.#methodTimeouts ??= new Map([[this.#lastMethod, this.#lastTimeout!]]);
        this.#methodTimeouts.set(method, t);
      }
    }
    this.#lastMethod = method;
    this.#lastTimeout = t;
    return t;
  }

  /**
   * `RpcUtils.calculateTimeout` (Dubbo 3.3 lines 285-306): with a countdown passed on, the attempt's
   * timeout is what is left of it, whatever this reference's own timeout (not the smaller of the
   * two); without one, the usual per-attempt timeout. Either way the value goes to the provider as
   * `_TO` when a countdown runs or this URL has `enable-timeout-countdown=true`.
   */
  calculateTimeout(invocation: RpcInvocation, nowMs: number): number {
    const countdown = (invocation.context as CallContext | undefined)?.countdown;
    const method = invocation.getMethodName();
    if (countdown === undefined || countdown === null) {
      const timeout = this.timeoutMs(invocation);
      if (this.#timeoutOf(method).startsCountdown) invocation.setAttachment(TIMEOUT_ATTACHMENT_KEY, String(Math.trunc(timeout)));
      return timeout;
    }
    const timeout = countdown.timeRemainingMs(nowMs);
    invocation.setAttachment(TIMEOUT_ATTACHMENT_KEY, String(timeout));
    return timeout;
  }

  /**
   * A call the consumer's ActiveLimitFilter refused before it reached this invoker: an attempt on this
   * provider (its zone for crossZoneRatio, its registry state for staleCalls), never an execution.
   */
  refusedByFilter(invocation: RpcInvocation): void {
    const request = (invocation.context as CallContext).request;
    this.#recordAttempt(request);
    this.#traceImmediate(request, invocation, this.timeoutMs(invocation), 'actives');
  }

  // An attempt that ended before anything was sent, for a traced request.
  #traceImmediate(request: RequestHandle, invocation: RpcInvocation, timeoutMs: number, result: AttemptResult): void {
    const tracer = this.#ctx.tracer;
    if (tracer == null) return;
    const p = this.provider;
    tracer.attempt(request, null, p, p.service, invocation.getMethodName(), timeoutMs, p.zone !== this.#ctx.consumerZone, this.#ctx.sim.now, result);
  }

  #recordAttempt(request: RequestHandle): void {
    const ctx = this.#ctx;
    const provider = this.provider;
    ctx.observer.attempt(request, {
      crossZone: provider.zone !== ctx.consumerZone,
      stale: ctx.isKnownGone(provider),
      providerGroup: provider.group.spec.name,
      providerZone: provider.zone,
    });
  }

  *invoke(invocation: RpcInvocation): Proc<Result> {
    return yield* this.#start(invocation);
  }

  /**
   * PERF: `invoke` for a caller that takes its first step at once (Invoker.invokeNow): sends now and
   * returns the attempt as the process (or one that ends with the result when nothing is sent). A
   * subclass's own `invoke` is called as is.
   */
  invokeNow(invocation: RpcInvocation): Proc<Result> {
    return this.invoke === DubboInvoker.prototype.invoke ? this.#start(invocation) : this.invoke(invocation);
  }

  #start(invocation: RpcInvocation): Proc<Result> {
    const sent = this.#send(invocation);
    return sent instanceof Attempt ? sent : ended(sent);
  }

  /** Sends the attempt (timeout armed), or the result when nothing is sent. */
  #send(invocation: RpcInvocation): Attempt | Result {
    const ctx = this.#ctx;
    const sim = ctx.sim;
    const request = (invocation.context as CallContext).request;
    const lost = ctx.consumer?.lost;
    // The request ended `lost` with its dark room: the process is gone, so a retry (failover, failback)
    // of it sends nothing and is no attempt. Its result is never read.
    if (lost != null && lost.has(request)) return rpcError(RpcCode.NETWORK_EXCEPTION, 'the consumer process is gone: its room went dark', 'room:dark');
    const method = invocation.getMethodName();
    const provider = this.provider;
    let timeoutMs = this.calculateTimeout(invocation, sim.now);
    // The cluster invoked this provider's invoker: an attempt, even when nothing is sent (as an
    // `actives` refusal is one), so attempts per request stay the cluster's invokes.
    this.#recordAttempt(request);
    const release = this.#release;
    const countdown = (invocation.context as CallContext).countdown;
    // 3.3 DubboInvoker.java:108-115 checks every attempt's timeout; 2.7 has no such check in DubboInvoker
    // (DubboInvoker.java:99-100), only ConsumerContextFilter's per-attempt check of an expired countdown.
    if (timeoutMs <= 0 && (release.version !== '2.7' || countdown != null)) {
      // The exception is returned as a result: failover does not retry it, and nothing is sent (no execution).
      // DIVERGENCE: 2.7's ConsumerContextFilter (order -10000) returns it outside ActiveLimitFilter, which
      // then counts nothing; here ActiveLimitFilter has counted the attempt (a 0 ms success under 2.7).
      const error = noTimeLeft(invocation.serviceName, method);
      this.#traceImmediate(request, invocation, timeoutMs, 'noTimeLeft');
      return { kind: 'ok', bizException: error.message, rpcException: error };
    }
    // 2.7 DefaultFuture.java:81: a timeout of 0 or less becomes the channel URL's `timeout` (interface
    // level, positive, default 1000 ms).
    if (timeoutMs <= 0) timeoutMs = positive(this.#url.getNumber(TIMEOUT_KEY, DEFAULT_TIMEOUT));
    // 3.3 DubboInvoker.java:117: the attempt's timeout goes into the invocation's `timeout` attachment,
    // which a failover retry (the same invocation) reads before its own URL (RpcUtils.java:272-278).
    // 2.7 writes an invocation attribute instead (DubboInvoker.java:100): each attempt reads its URL.
    if (release.retryTimeout === 'first') invocation.setAttachment(TIMEOUT_KEY, String(Math.trunc(timeoutMs)));
    if (!provider.connectable) {
      this.#traceImmediate(request, invocation, timeoutMs, 'closed');
      // DIVERGENCE: Dubbo fails at once with "channel is closed" when the connection is gone and
      // reconnects in the background; zonesim fails the same way without modelling reconnects.
      return rpcError(
        RpcCode.NETWORK_EXCEPTION,
        `Failed to invoke remote method: ${method}, provider: ${this.#url}, cause: message can not send, because channel is closed . url:${this.#url}`,
        'network:refused',
      );
    }
    const done = sim.event<Reply | null>();
    // The provider reads `_TO` when its thread starts the call; a retry sets another one meanwhile.
    const attachments = invocation.attachments.has(TIMEOUT_ATTACHMENT_KEY) ? new Map(invocation.attachments) : invocation.attachments;
    const links = this.#links ?? this.#linksOf(ctx);
    const attempt = new Attempt(provider, method, ctx.consumerZone, request, done, attachments, links.back, this.#url);
    attempt.timeoutMs = timeoutMs;
    if (invocation.arguments.length > 0) attempt.arguments = invocation.arguments;
    const timer = (invocation.context as CallContext).timer ?? new HashedWheelTimer('127.0.0.1');
    attempt.requestId = timer.sent(sim.now);
    attempt.startMs = sim.now;
    attempt.localHost = timer.host;
    attempt.release = release;
    // RpcUtils.isAsync: the `async` attachment MergeableClusterInvoker sets on its sub-invocations.
    attempt.async = invocation.getAttachment(ASYNC_KEY) === 'true';
    // 3.3 waits for a sync result to the exact deadline (AbstractInvoker.java:290-293, AsyncRpcResult.java:211-235);
    // 2.7 waits without a deadline (AsyncToSyncInvoker.java:61), and an async call never waits: DefaultFuture's
    // task on the JVM's 30 ms wheel ends them (DefaultFuture.java:55-58, 94).
    attempt.scan = attempt.async || release.timeoutDetection === 'timer';
    if (attempt.scan) attempt.timer = sim.schedule(timer.expiryMs(sim.now, timeoutMs) - sim.now, expire, undefined, attempt);
    else if (countdown == null) {
      // The URL's or the attachment's timeout: a few values per run, each one FIFO of timers.
      // PERF: an invoker's timeout rarely changes: its last lane first (one simulation per invoker).
      let lane = this.#lane;
      if (lane === null || lane.delayMs !== timeoutMs) this.#lane = lane = timeoutLane(sim, timeoutMs);
      attempt.timers = lane;
      attempt.timerHandle = lane.add(attempt);
    } else attempt.timer = sim.schedule(timeoutMs, expire, undefined, attempt);
    const delay = links.out !== undefined ? oneWayMsOn(links.out) : ctx.network.oneWayMs(ctx.consumerZone, provider.zone);
    const tracer = ctx.tracer;
    if (tracer != null) {
      attempt.tracer = tracer;
      tracer.attempt(request, attempt, provider, provider.service, method, timeoutMs, provider.zone !== ctx.consumerZone, sim.now);
      if (delay < 0) tracer.notExecuted(attempt);
    }
    // PERF: sending is the step's last action before it waits: with zero RTT the provider may receive
    // the call at once (`scheduleLast`).
    if (delay >= 0) sim.scheduleLast(delay, deliverRequest, attempt);
    return attempt;
  }
}

/**
 * A `timeout` attachment's value (`RpcUtils.convertToNumber`: `Long.parseLong`, then the `(int)` cast of
 * `calculateTimeout`). Text that does not parse gives the default 1000 ms in 3.3 (RpcUtils.java:308-327)
 * and 0 in 2.7 (its convertToNumber starts from 0 and ignores the exception, RpcUtils.java:279-292). A
 * value of 0 or less stays as is.
 */
export function attachedTimeout(text: string, release: DubboRelease): number {
  let n: number;
  try {
    n = parseJavaInt(text, 64);
  } catch {
    return release.version === '2.7' ? 0 : DEFAULT_TIMEOUT;
  }
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : Number(BigInt.asIntN(32, BigInt(text.replace(/^\+/, ''))));
}

/** How an attempt ended, for its trace span (null: the timeout fired first). */
function attemptResult(reply: Reply | null): AttemptResult {
  if (reply === null) return 'timeout';
  return reply.kind === 'ok' ? (reply.biz || reply.thrown !== undefined ? 'biz' : 'ok') : reply.kind;
}

/** The attempt's result from the provider's reply (null: the timeout fired first). */
function resultOf(attempt: Attempt, reply: Reply | null): Result {
  const { provider } = attempt;
  if (reply === null) return failure(attempt, RpcCode.TIMEOUT_EXCEPTION, timeoutCause(attempt), 'timeout');
  switch (reply.kind) {
    case 'ok':
      if (reply.thrown !== undefined) return rethrown(reply.thrown);
      return reply.biz ? OK_BIZ : OK;
    case 'refused':
      return failure(attempt, RpcCode.NETWORK_EXCEPTION, `Connection refused: /${provider.address}`, 'network:refused');
    case 'exhausted':
      // An error response (3.3 WrappedChannelHandler.java:88-89, status 100) completes DefaultFuture with a
      // RemotingException, whose `toString` the caller reads (3.3 AbstractInvoker.java:308-313).
      return failure(attempt, RpcCode.NETWORK_EXCEPTION, REMOTING_EXCEPTION + reply.detail, 'threadpool:exhausted');
    case 'limited':
      if (reply.filter === 'executes' || reply.thrown === true) {
        // ExecuteLimitFilter throws (and 2.7's TpsLimitFilter): the provider answers SERVICE_ERROR, which the
        // consumer's DefaultFuture turns into a RemotingException, hence code NETWORK_EXCEPTION (retried by failover).
        const cause = reply.filter === 'executes' ? 'executes:limit' : 'tps:limit';
        return failure(attempt, RpcCode.NETWORK_EXCEPTION, REMOTING_EXCEPTION + reply.detail, cause);
      }
      // TpsLimitFilter returns a result carrying the RpcException: a normal response whose value is the
      // exception, so the cluster sees a result, not a failure (failover does not retry it).
      return { kind: 'ok', bizException: reply.detail, limited: 'tps' };
    case 'blocked':
      // Sentinel's provider fallback threw (a SERVICE_ERROR response, retried by failover as a RemotingException),
      // or returned a result: carrying the block exception (ExceptionFilter wraps it), or a value.
      if (reply.thrown === true) return failure(attempt, RpcCode.NETWORK_EXCEPTION, REMOTING_EXCEPTION + reply.detail, `sentinel:${reply.cause}`);
      if (reply.answered === true) return { kind: 'ok', value: reply.value, sentinelBlocked: `${reply.cause}:fallback` };
      return { kind: 'ok', bizException: reply.detail, sentinelBlocked: reply.cause };
  }
}

/** `RemotingException.toString()`'s prefix: how an error response's message reaches the caller. */
const REMOTING_EXCEPTION = 'org.apache.dubbo.remoting.RemotingException: ';

/**
 * A failed attempt. Sync: the RpcException AbstractInvoker (3.3 AbstractInvoker.java:308-332) or
 * AsyncToSyncInvoker (2.7 AsyncToSyncInvoker.java:69-74) throws, whose message ends with the cause's
 * text. Async: the call's future completed exceptionally, after the cluster returned its result; what
 * waits on it gets the cause (`failedFuture`).
 */
function failure(attempt: Attempt, code: number, causeText: string, cause: string): Result {
  if (attempt.async) return { kind: 'ok', failedFuture: { code, message: causeText, cause } };
  const lead = code === RpcCode.TIMEOUT_EXCEPTION ? 'Invoke remote method timeout. method: ' : 'Failed to invoke remote method: ';
  return rpcError(code, `${lead}${attempt.method}, provider: ${attempt.url}, cause: ${causeText}`, cause);
}

/**
 * Why a timeout ended the attempt: 3.3's exact wait throws `TimeoutException("Timeout after <t>ms waiting
 * for result.")` (AsyncRpcResult.java:222-223, 231-232); DefaultFuture's wheel task answers with its
 * scan-timer message (`getTimeoutMessage(true)`: 2.7 DefaultFuture.java:245-256, 3.3 :293-308), which
 * reaches the caller as the RemotingException's `toString`.
 */
function timeoutCause(attempt: Attempt): string {
  if (!attempt.scan) return `Timeout after ${attempt.timeoutMs}ms waiting for result.`;
  const v27 = attempt.release.version === '2.7';
  const startMs = Math.floor(EPOCH_MS + attempt.startMs);
  const endMs = Math.floor(EPOCH_MS + attempt.done.sim.now);
  // DIVERGENCE: the channel's local address has no port (zonesim does not model ephemeral ports), the dates
  // are UTC (Java: the JVM's zone), and the request id counts this JVM's requests only (Dubbo's also counts
  // heartbeats).
  const request = v27
    ? `Request [id=${attempt.requestId}, version=2.0.2, twoway=true, event=false, broken=false, data=null]`
    : `Request [id=${attempt.requestId}, version=2.0.2, twoWay=true, event=false, broken=false, mPayload=0, data=null]`;
  return (
    `org.apache.dubbo.remoting.TimeoutException: Waiting server-side response timeout by scan timer. ` +
    `start time: ${javaDate(startMs)}, end time: ${javaDate(endMs)}, client elapsed: 0 ms, server elapsed: ${endMs - startMs} ms, ` +
    `timeout: ${attempt.timeoutMs} ms, request: ${request}, channel: /${attempt.localHost} -> /${attempt.provider.address}`
  );
}

/** `new SimpleDateFormat("yyyy-MM-dd HH:mm:ss.SSS").format(new Date(ms))`, in UTC. */
function javaDate(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('T', ' ').slice(0, 23);
}

/** Dubbo `getPositiveParameter`: 0 or less is the default. */
function positive(timeoutMs: number): number {
  return timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT;
}

/**
 * The result of a provider whose service rethrew its failed downstream call's exception. An
 * RpcException (the downstream call failed, or returned one) travels as is: the provider's
 * ExceptionFilter passes RpcExceptions through, so the result carries it (`remoteRpcException`,
 * which RpcExceptionFilter rethrows on a 3.3 consumer). Anything else was the downstream
 * provider's own biz exception: a plain biz result.
 */
function rethrown(failure: unknown): Result {
  // A stack other than Dubbo's (a test's) may give anything: only a Result carries an exception.
  const downstream = failure as Result | { kind?: undefined };
  if (downstream.kind === 'error') {
    return { kind: 'ok', bizException: downstream.error.message, remoteRpcException: downstream.error };
  }
  const carried = downstream.kind === 'ok' ? carriedRpcException(downstream) : undefined;
  return carried === undefined ? OK_BIZ : { kind: 'ok', bizException: carried.message, remoteRpcException: carried };
}

function deliverRequest(arg: unknown): void {
  const attempt = arg as Attempt;
  attempt.provider.receive(attempt);
}

function expire(arg: unknown): void {
  const attempt = arg as Attempt;
  if (attempt.done.triggered) return;
  attempt.timedOut = true;
  // PERF: the timer's last action (see Attempt.deliver).
  attempt.done.succeedLast(null);
}
