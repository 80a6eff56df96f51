/**
 * The extension tables: every load balancer, cluster and router type by its Dubbo (or zonesim)
 * name. Their keys feed scenario validation, `--help` and error messages; plugins add entries at
 * run time under their module path.
 */
import type { ClusterFactory } from './cluster/abstract-cluster-invoker.js';
import { FailfastClusterInvoker } from './cluster/failfast-cluster-invoker.js';
import { FailoverClusterInvoker } from './cluster/failover-cluster-invoker.js';
import type { LoadBalanceFactory } from './loadbalance/load-balance.js';
import { RandomLoadBalance } from './loadbalance/random-load-balance.js';

/** Load balancers by SPI name. */
export const loadBalances: Record<string, LoadBalanceFactory> = {
  random: (rt) => new RandomLoadBalance(rt),
};

/** Cluster strategies by SPI name. */
export const clusters: Record<string, ClusterFactory> = {
  failover: (dir, rt) => new FailoverClusterInvoker(dir, rt),
  failfast: (dir, rt) => new FailfastClusterInvoker(dir, rt),
};

/** An "unknown X" message that lists the valid names. */
export function unknownName(kind: string, name: string, table: Record<string, unknown>): string {
  return `unknown ${kind} "${name}"; valid: ${Object.keys(table).join(', ')} (or a plugin module path such as ./my-${kind}.js)`;
}
