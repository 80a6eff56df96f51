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
import type { Invoker, Result, RpcError, RpcInvocation } from '../dubbo/rpc.js';
import type { ConsumerFilter } from '../dubbo/runtime.js';
import type { BlockCause, Entry, Sph } from '../sentinel/sph.js';
import { blockMessage, consumerFallbackResult, interfaceResourceName, methodResourceName, type Fallback } from './sentinel-resources.js';

/** The two entries of a call (or attempt) in progress. */
interface Entries {
  iface: Entry;
  method: Entry;
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

  /** Both entries, or the slot that blocked one (only the interface entry exits then, as Java's finally). */
  protected *enterBoth(service: string, method: string, args: readonly unknown[]): Proc<Entries | BlockCause> {
    const iface = yield* this.#enter(interfaceResourceName(service), []);
    if (typeof iface === 'string') return iface;
    const m = yield* this.#enter(methodResourceName(service, method), args);
    if (typeof m === 'string') {
      this.sph.exit(iface, this.nowMs());
      return m;
    }
    return { iface, method: m };
  }

  /** The call (attempt) returned `result`: trace its failure, exit both entries. */
  protected exitBoth(e: Entries, result: Result): void {
    const now = this.nowMs();
    if (this.#failed(result)) {
      this.sph.traceEntry(e.iface, now);
      this.sph.traceEntry(e.method, now);
    }
    this.sph.exit(e.method, now);
    this.sph.exit(e.iface, now);
  }

  /** `SphU.entry(resource, COMMON_RPC, OUT, args)`: the entry, or the slot that blocked it. */
  *#enter(resource: string, args: readonly unknown[]): Proc<Entry | BlockCause> {
    const sim = this.sim;
    const r = this.sph.entry(resource, 'OUT', '', args, this.nowMs(), Math.round(sim.now * 1e6));
    if (r.blocked !== null) return r.blocked;
    if (r.waitMs > 0) {
      // The rate limiter's sleep: the caller's thread waits, then the rest of the chain runs.
      yield sim.timeout(r.waitMs);
      const blocked = this.sph.afterWait(r.entry, this.nowMs());
      if (blocked !== null) return blocked;
    }
    return r.entry;
  }

  // TimeUtil.currentTimeMillis: whole milliseconds of the simulated clock.
  protected nowMs(): number {
    return Math.floor(this.sim.now);
  }
}

/** The 3.x adapter's ClusterFilter: once per call, outside the cluster. */
export class SentinelConsumerFilter extends SentinelDubboConsumerFilter {
  /** `syncInvoke`: the entries, the call `inner` makes, the traces and exits. */
  *invoke(service: string, method: string, args: readonly unknown[], inner: () => Proc<Result>): Proc<Result> {
    const e = yield* this.enterBoth(service, method, args);
    if (typeof e === 'string') return consumerFallbackResult(this.fallback, e);
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
