/**
 * Builds a consumer instance's runtime (runtime.ts): its clock, random stream, RpcStatus table and
 * filters, and its load balancers by name from the extension table (extensions.ts) or the plugins
 * given, one instance per name as Dubbo's ExtensionLoader keeps them per JVM. Kept apart from
 * runtime.ts so that the balancers and clusters, which read the runtime, do not import the table
 * that imports them.
 */
import type { Simulation } from '../engine/simulation.js';
import type { Rng } from '../engine/random.js';
import { loadBalances, unknownName } from './extensions.js';
import type { LoadBalanceFactory } from './loadbalance/load-balance.js';
import { InvokerMemoSlots, type Clock, type Invoker } from './rpc.js';
import { DUBBO_3_3, type DubboRelease } from './release.js';
import { RpcStatusTable } from './rpc-status.js';
import type { ConsumerFilter, DubboRuntime, EventSink, LoadBalance } from './runtime.js';
import type { ZoneDistance } from './zone-order.js';

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
  /** The release it runs (default 3.3). */
  release?: DubboRelease;
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
    release: init.release ?? DUBBO_3_3,
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
    const anyOf: ActiveFor = (invoker) => {
      // The invoker's own slot, when it has one that no other list of filters took first.
      if (invoker instanceof InvokerMemoSlots && (invoker.anyActiveOf === undefined || invoker.anyActiveOf === anyOf)) {
        if (invoker.anyActiveOf === undefined) {
          invoker.anyActive = predicates.some((p) => p(invoker));
          invoker.anyActiveOf = anyOf;
        }
        return invoker.anyActive;
      }
      let any = memo.get(invoker);
      if (any === undefined) memo.set(invoker, (any = predicates.some((p) => p(invoker))));
      return any;
    };
    node.any = anyOf;
  }
  return node.any;
}
