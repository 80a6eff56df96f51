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
  /**
   * No code adds filters after this (no plugin can reach the runtime): `filters` is frozen, and when every
   * filter says where it is active (`activeFor`) the runtime gets `filtersActiveFor`.
   */
  filtersFixed?: boolean;
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
  const filters = init.filters ?? [];
  const activeFor = init.filtersFixed === true ? anyActiveFor(Object.freeze(filters)) : undefined;
  const runtime: DubboRuntime & { counters: Map<string, number> } = {
    sim: init.sim,
    clock: init.clock ?? { now: () => init.sim.now },
    random: init.random,
    rpcStatus: new RpcStatusTable(),
    filters,
    ...(activeFor !== undefined ? { filtersActiveFor: activeFor } : {}),
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

type ActiveFor = (invoker: Invoker) => boolean;
interface ActiveForNode {
  readonly next: WeakMap<ActiveFor, ActiveForNode>;
  any?: ActiveFor;
}
const ACTIVE_FOR_ROOT: ActiveForNode = { next: new WeakMap() };
const NONE_ACTIVE: ActiveFor = () => false;

/**
 * Whether any of `filters` is active for an invoker, memoized per invoker; undefined when a filter does
 * not say (`activeFor`). PERF: one function, and one memo, per list of `activeFor` functions: every
 * consumer instance's runtime gets the same one, so an attempt asks a memo that every instance keeps
 * warm instead of reading its own instance's filter objects, which thousands of instances leave cold.
 */
function anyActiveFor(filters: readonly ConsumerFilter[]): ActiveFor | undefined {
  if (filters.length === 0) return NONE_ACTIVE;
  let node = ACTIVE_FOR_ROOT;
  for (const filter of filters) {
    const f = filter.activeFor;
    if (f === undefined) return undefined;
    let next = node.next.get(f);
    if (next === undefined) node.next.set(f, (next = { next: new WeakMap() }));
    node = next;
  }
  if (node.any === undefined) {
    const predicates = filters.map((f) => f.activeFor!);
    const memo = new WeakMap<Invoker, boolean>();
    node.any = (invoker) => {
      let any = memo.get(invoker);
      if (any === undefined) memo.set(invoker, (any = predicates.some((p) => p(invoker))));
      return any;
    };
  }
  return node.any;
}
