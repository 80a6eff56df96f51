/**
 * Cohorts (SPEC 2.12, docs/cohorts.md): a consumer group's instances differ only in which list versions they
 * hold and when their pushes arrive, so a large group is simulated as a few representative instances, each
 * standing for an equal share of the group's members. A request comes from a uniformly drawn member and runs on
 * that member's representative; every push is counted once per member (counts and bytes exact), and on a
 * registry server a representative's push is its members' pushes queued together, the representative's own
 * delivery being that of a uniformly drawn member among them (`RegistryServers`). This module owns the decision
 * (`cohortPlan`) and the split of members over representatives; it does not simulate anything.
 */
import type { ConsumerGroupSpec, ReferenceSpec, Scenario } from '../model/types.js';

/** `cohorts: auto` turns a group into a cohort from this many instances on. */
export const AUTO_COHORT_INSTANCES = 1000;
/**
 * `cohorts: auto` turns every group larger than its representatives into a cohort (the per-process features
 * aside) when the estate's consumer instances, summed over its groups, reach this many: per instance such an
 * estate costs gigabytes (about 11 KB an instance with two references) and would be refused, however its
 * instances are spread over groups.
 */
export const AUTO_COHORT_ESTATE_INSTANCES = 100_000;
/** Representative instances of a cohort unless the group sets `representatives`. */
export const DEFAULT_REPRESENTATIVES = 32;

/**
 * Load balancers that keep nothing per process: the others (RpcStatus for leastactive and shortestresponse,
 * round-robin weights, adaptive's estimates, a plugin's unknown state) keep `auto` per instance.
 */
const STATELESS_LOAD_BALANCES = new Set(['random', 'consistenthash', 'zoneAware', 'envoyZoneAware']);

/** How a group is simulated: `members[j]` real instances stand behind representative `j`. */
export interface CohortPlan {
  readonly members: readonly number[];
}

/**
 * Why `cohorts: auto` keeps `spec` per instance although it is large enough, or undefined when nothing does:
 * consumer-side per-process state a representative would share among its members (a stateful load balancer,
 * `sticky`, `actives`, an entry pool, Sentinel rules), or a condition rule that matches the consumer's host
 * (it singles out instances).
 */
export function perInstanceReason(spec: ConsumerGroupSpec, scenario: Pick<Scenario, 'routers' | 'faults'>): string | undefined {
  const refs: Array<Omit<ReferenceSpec, 'methods'>> = [spec.consumerDefaults];
  for (const r of Object.values(spec.reference)) refs.push(r, ...Object.values(r.methods));
  for (const r of refs) {
    if (r.loadbalance !== undefined && !STATELESS_LOAD_BALANCES.has(r.loadbalance)) return `loadbalance ${r.loadbalance} keeps state per process`;
    if (r.sticky === true) return 'sticky keeps state per process';
    if (r.actives !== undefined && r.actives > 0) return 'actives (ActiveLimitFilter) counts per process';
  }
  if (spec.threads !== undefined) return 'threads: an entry pool per instance';
  if (spec.sentinel !== undefined) return "Sentinel's statistics are per JVM";
  const rules: unknown[] = [...scenario.routers];
  for (const f of scenario.faults) rules.push(f.action);
  if (rules.some(matchesConsumerHost)) return "a condition rule matches the consumer's host";
  return undefined;
}

/** True when `rule` (a router spec or a fault action) holds a condition rule that reads `host` on the consumer side. */
function matchesConsumerHost(rule: unknown): boolean {
  const text = JSON.stringify(rule);
  return text.includes('"condition"') && /(^|[^.\w])host\s*!?=/.test(text.replace(/\\"/g, ''));
}

/**
 * The cohort plan of `spec`, or null when it is simulated per instance: `off`; `auto` below
 * AUTO_COHORT_INSTANCES in an estate below AUTO_COHORT_ESTATE_INSTANCES consumer instances, or with a
 * `perInstanceReason`; a group no larger than its representatives.
 */
export function cohortPlan(spec: ConsumerGroupSpec, scenario: Pick<Scenario, 'routers' | 'faults' | 'consumers'>): CohortPlan | null {
  const mode = spec.cohorts ?? 'auto';
  if (mode === 'off') return null;
  const k = spec.representatives ?? DEFAULT_REPRESENTATIVES;
  if (spec.instances <= k) return null;
  if (mode === 'auto') {
    if (spec.instances < AUTO_COHORT_INSTANCES && estateInstances(scenario.consumers) < AUTO_COHORT_ESTATE_INSTANCES) return null;
    if (perInstanceReason(spec, scenario) !== undefined) return null;
  }
  return { members: splitMembers(spec.instances, k) };
}

// The sum per consumers list: `cohortPlan` is asked once per group (world build, estimate), so summing every
// time would cost groups² (10,000 groups: 10^8 additions).
const estateSums = new WeakMap<readonly Pick<ConsumerGroupSpec, 'instances'>[], number>();

/** The consumer instances of an estate, summed over its consumer groups. */
function estateInstances(consumers: readonly Pick<ConsumerGroupSpec, 'instances'>[]): number {
  let n = estateSums.get(consumers);
  if (n === undefined) {
    n = 0;
    for (const c of consumers) n += c.instances;
    estateSums.set(consumers, n);
  }
  return n;
}

/** `total` members over `k` representatives: representative `j` holds members [floor(j·total/k), floor((j+1)·total/k)). */
export function splitMembers(total: number, k: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < k; j++) out.push(Math.floor(((j + 1) * total) / k) - Math.floor((j * total) / k));
  return out;
}

/** The representative of member `r` (0-based) when `total` members are split over `k` (`splitMembers`). */
export function representativeOf(r: number, total: number, k: number): number {
  // The last j with floor(j·total/k) <= r, i.e. j·total < (r+1)·k: in integers, exactly.
  return Math.floor(((r + 1) * k - 1) / total);
}

