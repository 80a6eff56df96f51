/**
 * What the Dubbo port needs from its surroundings, as small interfaces: a clock and scheduler
 * (the engine's Simulation), a random stream, the per-JVM RpcStatus table, consumer filters and
 * a counter sink. One runtime per simulated consumer instance (one JVM); create-runtime.ts builds it.
 */
import type { Simulation } from '../engine/simulation.js';
import type { Rng } from '../engine/random.js';
import type { Proc } from '../engine/simulation.js';
import type { Clock, Invoker, Result, RpcError, RpcInvocation } from './rpc.js';
import type { DubboRelease } from './release.js';
import type { RpcStatusTable } from './rpc-status.js';
import type { URL } from './url.js';
import type { ZoneDistance } from './zone-order.js';

/**
 * Picks one invoker for one invocation (Dubbo's `LoadBalance` SPI). Declared here, beside the runtime
 * that hands instances out by name, so that the runtime needs nothing of the balancers;
 * loadbalance/load-balance.ts re-exports it with `AbstractLoadBalance`.
 */
export interface LoadBalance {
  select(invokers: Invoker[], url: URL, invocation: RpcInvocation): Invoker | null;
}

/** A consumer-side filter around each provider invoke (Dubbo's consumer Filter chain, simplified). */
export interface ConsumerFilter {
  /** Optional: called once by `createRuntime` (create-runtime.ts) with the runtime the filter serves (e.g. its RpcStatus). */
  attach?(runtime: DubboRuntime): void;
  /**
   * Optional gate before anything else: may wait (simulated time) and may refuse the attempt with an
   * error, which then becomes the attempt's result without reaching the provider (ActiveLimitFilter).
   */
  admit?(invoker: Invoker, invocation: RpcInvocation): Proc<RpcError | null>;
  /**
   * Optional, with `admit`: true when the attempt passes the gate at once (whatever `admit` would count
   * is counted); false sends it through `admit`, which must then give the same answer as without this.
   */
  admitNow?(invoker: Invoker, invocation: RpcInvocation): boolean;
  /** Runs before the attempt is sent. */
  before(invoker: Invoker, invocation: RpcInvocation, nowMs: number): void;
  /** Runs when the attempt's result is known. */
  after(invoker: Invoker, invocation: RpcInvocation, result: Result, elapsedMs: number, nowMs: number): void;
  /**
   * Optional: whether Dubbo builds this filter into the invoker's chain (its `@Activate` on the invoker's
   * URL). False promises that `admit`, `before` and `after` do nothing for attempts on that invoker. The
   * same function for every instance of a filter class (see `filtersActiveFor`).
   */
  readonly activeFor?: (invoker: Invoker) => boolean;
}

/** Counters for events Dubbo only logs (e.g. "route result is empty and force execute"). */
export interface EventSink {
  count(name: string, by?: number): void;
}

/** The consumer instance's environment. */
export interface DubboRuntime {
  /** Scheduler for timers and processes (simulated ms since the run started). */
  readonly sim: Simulation;
  /** Epoch-like clock for what Dubbo reads from System.currentTimeMillis (warmup against `timestamp`). */
  readonly clock: Clock;
  /** The instance's random stream for load balancing and routing draws. */
  readonly random: Rng;
  /** Per-instance RpcStatus (static in a Dubbo JVM). */
  readonly rpcStatus: RpcStatusTable;
  /** Consumer filters run around every attempt, in order. */
  readonly filters: ConsumerFilter[];
  /**
   * Optional: false when no filter of `filters` is active for the invoker (Dubbo left every one out of
   * its chain), so that an attempt on it may skip them. Only a runtime whose `filters` never change has it.
   */
  readonly filtersActiveFor?: (invoker: Invoker) => boolean;
  /** The consumer's host, for messages. */
  readonly consumerHost: string;
  /** The Dubbo release this consumer runs (SPEC 2.11): the behaviours that differ between 2.7 and 3.3. */
  readonly release: DubboRelease;
  readonly events: EventSink;
  /**
   * How far apart two zones are (median RTT), for zonesim's zone extensions (nearest-zone
   * fallback, cross-zone ranks); absent outside a simulation.
   */
  readonly zoneDistance?: ZoneDistance;
  /** The instance's load balancer by name (one instance per name, so state is per JVM as in Dubbo). */
  getLoadBalance(name: string): LoadBalance;
}
