/**
 * The extension tables: every load balancer, cluster and router type by its Dubbo (or zonesim)
 * name. Their keys feed scenario validation, `--help` and error messages; plugins add entries at
 * run time under their module path.
 */
import type { ClusterFactory } from './cluster/abstract-cluster-invoker.js';
import { FailfastClusterInvoker } from './cluster/failfast-cluster-invoker.js';
import { AvailableClusterInvoker } from './cluster/available-cluster-invoker.js';
import { BroadcastClusterInvoker } from './cluster/broadcast-cluster-invoker.js';
import { FailbackClusterInvoker } from './cluster/failback-cluster-invoker.js';
import { FailoverClusterInvoker } from './cluster/failover-cluster-invoker.js';
import { FailsafeClusterInvoker } from './cluster/failsafe-cluster-invoker.js';
import { ForkingClusterInvoker } from './cluster/forking-cluster-invoker.js';
import { MergeableClusterInvoker } from './cluster/mergeable-cluster-invoker.js';
import { ZoneAwareClusterInvoker } from './cluster/zone-aware-cluster-invoker.js';
import { ZoneAwareFailoverClusterInvoker } from './cluster/zone-aware-failover-cluster-invoker.js';
import type { LoadBalanceFactory } from './loadbalance/load-balance.js';
import { RandomLoadBalance } from './loadbalance/random-load-balance.js';
import { RoundRobinLoadBalance } from './loadbalance/round-robin-load-balance.js';
import { LeastActiveLoadBalance } from './loadbalance/least-active-load-balance.js';
import { ShortestResponseLoadBalance } from './loadbalance/shortest-response-load-balance.js';
import { ConsistentHashLoadBalance } from './loadbalance/consistent-hash-load-balance.js';
import { AdaptiveLoadBalance } from './loadbalance/adaptive-load-balance.js';
import { ZoneAwareLoadBalance } from './loadbalance/zone-aware-load-balance.js';
import { EnvoyZoneAwareLoadBalance } from './loadbalance/envoy-zone-aware-load-balance.js';

/** Load balancers by SPI name. */
export const loadBalances: Record<string, LoadBalanceFactory> = {
  random: (rt) => new RandomLoadBalance(rt),
  roundrobin: (rt) => new RoundRobinLoadBalance(rt),
  leastactive: (rt) => new LeastActiveLoadBalance(rt),
  shortestresponse: (rt) => new ShortestResponseLoadBalance(rt),
  consistenthash: (rt) => new ConsistentHashLoadBalance(rt),
  adaptive: (rt) => new AdaptiveLoadBalance(rt),
  zoneAware: (rt) => new ZoneAwareLoadBalance(rt),
  envoyZoneAware: (rt) => new EnvoyZoneAwareLoadBalance(rt),
};

/** Cluster strategies by SPI name. */
export const clusters: Record<string, ClusterFactory> = {
  failover: (dir, rt) => new FailoverClusterInvoker(dir, rt),
  failfast: (dir, rt) => new FailfastClusterInvoker(dir, rt),
  failsafe: (dir, rt) => new FailsafeClusterInvoker(dir, rt),
  failback: (dir, rt) => new FailbackClusterInvoker(dir, rt),
  forking: (dir, rt) => new ForkingClusterInvoker(dir, rt),
  broadcast: (dir, rt) => new BroadcastClusterInvoker(dir, rt),
  available: (dir, rt) => new AvailableClusterInvoker(dir, rt),
  mergeable: (dir, rt) => new MergeableClusterInvoker(dir, rt),
  'zone-aware': (dir, rt) => new ZoneAwareClusterInvoker(dir, rt),
  // zonesim extension: failover kept inside the consumer's zone while it has untried providers.
  zoneAwareFailover: (dir, rt) => new ZoneAwareFailoverClusterInvoker(dir, rt),
};

/** An "unknown X" message that lists the valid names. */
export function unknownName(kind: string, name: string, table: Record<string, unknown>): string {
  return `unknown ${kind} "${name}"; valid: ${Object.keys(table).join(', ')} (or a plugin module path such as ./my-${kind}.js)`;
}
