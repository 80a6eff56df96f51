/**
 * What the Dubbo port needs from its surroundings, as small interfaces: a clock and scheduler
 * (the engine's Simulation), a random stream, the per-JVM RpcStatus table, consumer filters and
 * a counter sink. One runtime per simulated consumer instance (one JVM).
 */
import type { Simulation } from '../engine/simulation.js';
import type { Rng } from '../engine/random.js';
import type { Proc } from '../engine/simulation.js';
import type { Clock, Invoker, Result, RpcError, RpcInvocation } from './rpc.js';
import { RpcStatusTable } from './rpc-status.js';
import { loadBalances, unknownName } from './extensions.js';
import type { LoadBalance, LoadBalanceFactory } from './loadbalance/load-balance.js';
import type { ZoneDistance } from './zone-order.js';

/** A consumer-side filter around each provider invoke (Dubbo's consumer Filter chain, simplified). */
export interface ConsumerFilter {
  /** Optional: called once by `createRuntime` with the runtime the filter serves (e.g. its RpcStatus). */
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
  /** The consumer's host, for messages. */
  readonly consumerHost: string;
  readonly events: EventSink;
  /**
   * How far apart two zones are (median RTT), for zonesim's zone extensions (nearest-zone
   * fallback, cross-zone ranks); absent outside a simulation.
   */
  readonly zoneDistance?: ZoneDistance;
  /** The instance's load balancer by name (one instance per name, so state is per JVM as in Dubbo). */
  getLoadBalance(name: string): LoadBalance;
}

/** A runtime for tests and tools: no filters, counters kept in a map. */
export function createRuntime(init: {
  sim: Simulation;
  random: Rng;
  consumerHost?: string;
  clock?: Clock;
  filters?: ConsumerFilter[];
  events?: EventSink;
  /** Extra load balancers (plugins) by name. */
  plugins?: Record<string, LoadBalanceFactory>;
  /** Zone distances (the world's network). */
  zoneDistance?: ZoneDistance;
}): DubboRuntime & {
  counters: Map<string, number>;
} {
  const counters = new Map<string, number>();
  const lbs = new Map<string, LoadBalance>();
  const runtime: DubboRuntime & { counters: Map<string, number> } = {
    sim: init.sim,
    clock: init.clock ?? { now: () => init.sim.now },
    random: init.random,
    rpcStatus: new RpcStatusTable(),
    filters: init.filters ?? [],
    consumerHost: init.consumerHost ?? '127.0.0.1',
    counters,
    events: init.events ?? { count: (name, by = 1) => counters.set(name, (counters.get(name) ?? 0) + by) },
    ...(init.zoneDistance !== undefined ? { zoneDistance: init.zoneDistance } : {}),
    getLoadBalance(name: string): LoadBalance {
      let lb = lbs.get(name);
      if (lb === undefined) {
        const factory = init.plugins?.[name] ?? loadBalances[name];
        if (factory === undefined) throw new Error(unknownName('loadbalance', name, loadBalances));
        lb = factory(runtime);
        lbs.set(name, lb);
      }
      return lb;
    },
  };
  for (const filter of runtime.filters) filter.attach?.(runtime);
  return runtime;
}
