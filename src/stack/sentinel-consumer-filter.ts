/**
 * Sentinel's consumer filter of one consumer JVM (sentinel-apache-dubbo3-adapter
 * `SentinelDubboConsumerFilter`, sync mode): a ClusterFilter, so it runs once per call around the
 * reference's cluster invoker, never per attempt. It enters the interface resource, then the method
 * resource (with the call's arguments, for hot-parameter rules); a blocked entry ends the call with
 * the fallback's result; the call's failure (an RpcException thrown, or a result carrying an
 * exception) is traced on both entries; both exit when the call returns. A rate limiter's queueing
 * is a wait in simulated time before the call goes on.
 */
// DIVERGENCE: the 2.7 adapter registers the same class as a plain consumer Filter, built into each
// provider invoker's chain, so it runs per attempt, inside failover (its statistics count attempts, and
// a `throw` fallback's RpcException is retried on another provider). zonesim runs the 3.x placement for
// both releases.
// DIVERGENCE: Dubbo 3 builds the ClusterFilter chain inside MockClusterWrapper: a force mock never
// enters Sentinel, and a fail mock answers after Sentinel traced the failure. Here the filter wraps the
// reference as a whole, mock included.
import type { Proc, Simulation } from '../engine/simulation.js';
import type { Result } from '../dubbo/rpc.js';
import type { BlockCause, Entry, Sph } from '../sentinel/sph.js';
import { consumerFallbackResult, interfaceResourceName, methodResourceName, type Fallback } from './sentinel-resources.js';

/** One consumer JVM's SentinelDubboConsumerFilter. */
export class SentinelConsumerFilter {
  readonly sph: Sph;
  fallback: Fallback;
  readonly #sim: Simulation;
  /** Whether the adapter traces a result as an error: an RpcException thrown, or a result with an exception. */
  readonly #failed: (result: Result) => boolean;

  constructor(sph: Sph, fallback: Fallback, sim: Simulation, failed: (result: Result) => boolean) {
    this.sph = sph;
    this.fallback = fallback;
    this.#sim = sim;
    this.#failed = failed;
  }

  /** `syncInvoke`: the entries, the call `inner` makes, the traces and exits. */
  *invoke(service: string, method: string, args: readonly unknown[], inner: () => Proc<Result>): Proc<Result> {
    const sph = this.sph;
    const iface = yield* this.#enter(interfaceResourceName(service), []);
    if (typeof iface === 'string') return consumerFallbackResult(this.fallback, iface);
    const m = yield* this.#enter(methodResourceName(service, method), args);
    if (typeof m === 'string') {
      // The method entry threw: only the interface entry exits (finally), with no error traced.
      sph.exit(iface, this.#nowMs());
      return consumerFallbackResult(this.fallback, m);
    }
    const result = yield* inner();
    const now = this.#nowMs();
    if (this.#failed(result)) {
      sph.traceEntry(iface, now);
      sph.traceEntry(m, now);
    }
    sph.exit(m, now);
    sph.exit(iface, now);
    return result;
  }

  /** `SphU.entry(resource, COMMON_RPC, OUT, args)`: the entry, or the slot that blocked it. */
  *#enter(resource: string, args: readonly unknown[]): Proc<Entry | BlockCause> {
    const sim = this.#sim;
    const r = this.sph.entry(resource, 'OUT', '', args, this.#nowMs(), Math.round(sim.now * 1e6));
    if (r.blocked !== null) return r.blocked;
    if (r.waitMs > 0) {
      // The rate limiter's sleep: the caller's thread waits, then the rest of the chain runs.
      yield sim.timeout(r.waitMs);
      const blocked = this.sph.afterWait(r.entry, this.#nowMs());
      if (blocked !== null) return blocked;
    }
    return r.entry;
  }

  // TimeUtil.currentTimeMillis: whole milliseconds of the simulated clock.
  #nowMs(): number {
    return Math.floor(this.#sim.now);
  }
}
