/**
 * Sentinel's consumer filter of one consumer JVM (`SentinelDubboConsumerFilter`, sync mode), in the two
 * places its adapters register it. The 3.x adapter (sentinel-apache-dubbo3-adapter) makes it a
 * ClusterFilter: once per call, around the reference's cluster invoker (`SentinelConsumerFilter`). The
 * 2.7 adapter (sentinel-apache-dubbo-adapter) registers the same code as a plain consumer Filter, built
 * into each provider invoker's chain: once per attempt, inside failover (`SentinelAttemptFilter`). Either
 * enters the interface resource, then the method resource (with the call's arguments, for hot-parameter
 * rules); a blocked entry ends the call (3.x) or the attempt (2.7) with the fallback's result; the
 * failure (an RpcException thrown, or a result carrying an exception) is traced on both entries; both
 * exit when the call (attempt) returns. A rate limiter's queueing is a wait in simulated time.
 */
// DIVERGENCE: Dubbo 3 builds the ClusterFilter chain inside MockClusterWrapper: a force mock never
// enters Sentinel, and a fail mock answers after Sentinel traced the failure. Here the 3.x filter wraps
// the reference as a whole, mock included.
import type { Proc, Simulation } from '../engine/simulation.js';
import { RpcCode } from '../dubbo/constants.js';
import { ended, type Invoker, type Result, type RpcError, type RpcInvocation } from '../dubbo/rpc.js';
import type { ConsumerFilter } from '../dubbo/runtime.js';
import { EPOCH_MS } from '../world/provider.js';
import type { BlockCause, Entry, Sph } from '../sentinel/sph.js';
import { blockMessage, consumerFallbackResult, interfaceResourceName, methodResourceName, type Fallback } from './sentinel-resources.js';

/** The two entries of a call (or attempt) in progress; null: a resource no rule names, not entered. */
interface Entries {
  iface: Entry | null;
  method: Entry | null;
}

/** An entry a rate limiter queues: wait `waitMs`, then `afterWait`; `stage` says which of the two it is. */
interface Waiting {
  waiting: Entry;
  waitMs: number;
  stage: 'iface' | 'method';
  /** The interface entry taken before (stage `method`), or null. */
  iface: Entry | null;
}

/** What both placements share: entering, tracing and exiting one JVM's two resources. */
abstract class SentinelDubboConsumerFilter {
  readonly sph: Sph;
  fallback: Fallback;
  protected readonly sim: Simulation;
  /** Whether the adapter traces a result as an error: an RpcException thrown, or a result with an exception. */
  readonly #failed: (result: Result) => boolean;

  constructor(sph: Sph, fallback: Fallback, sim: Simulation, failed: (result: Result) => boolean) {
    this.sph = sph;
    this.fallback = fallback;
    this.sim = sim;
    this.#failed = failed;
  }

  /** Whether any rule can see this call (PERF: a call no rule can see skips the filter). */
  tracksCall(service: string, method: string): boolean {
    return this.sph.tracks(interfaceResourceName(service), 'OUT') || this.sph.tracks(methodResourceName(service, method), 'OUT');
  }

  /**
   * Both entries, or the slot that blocked one (only the interface entry exits then, as Java's finally).
   * PERF: made at once when no rate limiter makes the call wait (nearly always); `wait` then goes on as a process.
   */
  protected enterBothNow(service: string, method: string, args: readonly unknown[]): Entries | BlockCause | Waiting {
    const ifaceName = interfaceResourceName(service);
    let iface: Entry | null = null;
    if (this.sph.tracks(ifaceName, 'OUT')) {
      const r = this.#entryNow(ifaceName, []);
      if (r.blocked !== null) return r.blocked;
      if (r.waitMs > 0) return { waiting: r.entry, waitMs: r.waitMs, stage: 'iface', iface: null };
      iface = r.entry;
    }
    return this.#enterMethod(service, method, args, iface);
  }

  /** The method entry after the interface one (`iface`, null when not entered). */
  #enterMethod(service: string, method: string, args: readonly unknown[], iface: Entry | null): Entries | BlockCause | Waiting {
    const methodName = methodResourceName(service, method);
    if (!this.sph.tracks(methodName, 'OUT')) return { iface, method: null };
    const r = this.#entryNow(methodName, args);
    if (r.blocked !== null) {
      if (iface !== null) this.sph.exit(iface, this.nowMs());
      return r.blocked;
    }
    if (r.waitMs > 0) return { waiting: r.entry, waitMs: r.waitMs, stage: 'method', iface };
    return { iface, method: r.entry };
  }

  /** `enterBothNow`, waiting out each rate limiter's queueing (the caller's thread sleeps) as it comes. */
  protected *enterBoth(service: string, method: string, args: readonly unknown[]): Proc<Entries | BlockCause> {
    return yield* this.waitOut(service, method, args, this.enterBothNow(service, method, args));
  }

  /** Goes on from `e`: each wait, then the rest of that entry's chain, then the method entry. */
  protected *waitOut(service: string, method: string, args: readonly unknown[], e: Entries | BlockCause | Waiting): Proc<Entries | BlockCause> {
    while (typeof e !== 'string' && 'waiting' in e) {
      yield this.sim.timeout(e.waitMs);
      const blocked = this.sph.afterWait(e.waiting, this.nowMs());
      if (e.stage === 'iface') {
        if (blocked !== null) return blocked;
        e = this.#enterMethod(service, method, args, e.waiting);
      } else {
        if (blocked !== null) {
          if (e.iface !== null) this.sph.exit(e.iface, this.nowMs());
          return blocked;
        }
        e = { iface: e.iface, method: e.waiting };
      }
    }
    return e;
  }

  #entryNow(resource: string, args: readonly unknown[]): ReturnType<Sph['entry']> {
    return this.sph.entry(resource, 'OUT', '', args, this.nowMs(), Math.round(this.sim.now * 1e6));
  }

  /** The call (attempt) returned `result`: trace its failure, exit both entries. */
  protected exitBoth(e: Entries, result: Result): void {
    const now = this.nowMs();
    const failed = this.#failed(result);
    for (const entry of [e.method, e.iface]) {
      if (entry === null) continue;
      if (failed) this.sph.traceEntry(entry, now);
      this.sph.exit(entry, now);
    }
  }

  // TimeUtil.currentTimeMillis: whole milliseconds of the simulated epoch clock (a warm-up starts cold, as
  // its first refill is counted from 0, and no window reaches before 0).
  protected nowMs(): number {
    return Math.floor(EPOCH_MS + this.sim.now);
  }
}

/** The 3.x adapter's ClusterFilter: once per call, outside the cluster. */
export class SentinelConsumerFilter extends SentinelDubboConsumerFilter {
  /** `syncInvoke`: the entries, the call `inner` makes, the traces and exits. */
  invoke(service: string, method: string, args: readonly unknown[], inner: () => Proc<Result>): Proc<Result> {
    const e = this.enterBothNow(service, method, args);
    if (typeof e === 'string') return ended(consumerFallbackResult(this.fallback, e));
    if ('waiting' in e) return this.#invokeAfterWait(service, method, args, e, inner);
    return this.#around(e, inner);
  }

  *#invokeAfterWait(service: string, method: string, args: readonly unknown[], waiting: Waiting, inner: () => Proc<Result>): Proc<Result> {
    const e = yield* this.waitOut(service, method, args, waiting);
    if (typeof e === 'string') return consumerFallbackResult(this.fallback, e);
    return yield* this.#around(e, inner);
  }

  *#around(e: Entries, inner: () => Proc<Result>): Proc<Result> {
    const result = yield* inner();
    this.exitBoth(e, result);
    return result;
  }
}

/**
 * The 2.7 adapter's consumer Filter: around each attempt. A blocked attempt never reaches the provider;
 * what the fallback makes of it is the attempt's result, which failover retries only when it is an
 * RpcException (`fallback: throw`): DefaultDubboFallback's result carrying the exception, or a value,
 * ends the call (both carried as a business-coded error, which failover returns at once).
 */
export class SentinelAttemptFilter extends SentinelDubboConsumerFilter implements ConsumerFilter {
  readonly #entries = new WeakMap<RpcInvocation, Entries>();

  *admit(_invoker: Invoker, invocation: RpcInvocation): Proc<RpcError | null> {
    const e = yield* this.enterBoth(invocation.serviceName, invocation.methodName, invocation.arguments);
    if (typeof e === 'string') return this.#blocked(e);
    this.#entries.set(invocation, e);
    return null;
  }

  before(): void {}

  after(_invoker: Invoker, invocation: RpcInvocation, result: Result): void {
    const e = this.#entries.get(invocation);
    if (e === undefined) return;
    this.#entries.delete(invocation);
    this.exitBoth(e, result);
  }

  #blocked(cause: BlockCause): RpcError {
    const tag = `consumer:${cause}`;
    switch (this.fallback.kind) {
      case 'throw':
        return { code: RpcCode.UNKNOWN_EXCEPTION, message: blockMessage(cause), cause: `sentinel:${tag}` };
      case 'return':
        // DIVERGENCE: the value itself is not carried (the caller's outcome is answered, cause …:fallback).
        return { code: RpcCode.BIZ_EXCEPTION, message: blockMessage(cause), cause: `sentinel:${tag}:fallback` };
      default:
        return { code: RpcCode.BIZ_EXCEPTION, message: `java.lang.RuntimeException: ${blockMessage(cause)}`, cause: `sentinel:${tag}` };
    }
  }
}
