/**
 * Offered load on provider thread pools, from the scenario alone (no simulation): for each provider
 * group and each of its pools (the shared one, and each service's own executor), the threads its
 * callers keep busy on average: Σ calls/s × attempts per call × mean service time. Attempts count
 * failover retries of attempts that time out (a consumer timeout never cancels provider work, so a
 * timed-out attempt holds its thread for the whole service time). Computed for the scenario as
 * written and for each `slowdown` fault's phase. `check` warns when a pool is offered more threads
 * than it has; `recommend` does not recommend retries for a method whose pool that happens to.
 *
 * Approximations, said where they are used: calls spread over the groups serving a service by
 * instances × weight (random balancing, no routers); consumer-group traffic only (call graphs'
 * downstream calls are not added); dynamic isolation is not modelled here; an attempt times out
 * when service time + median RTT exceeds the timeout.
 */
import { sampler, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT } from '../dubbo/constants.js';
import type { ConsumerGroupSpec, FaultSpec, NetworkSpec, ProviderGroupSpec, ReferenceSpec, Scenario } from './types.js';

/** One method's share of a pool's load. */
export interface PoolContribution {
  consumer: string;
  zone: string;
  service: string;
  method: string;
  /** Calls per second this group of providers gets from that consumer group. */
  callsPerSec: number;
  attemptsPerCall: number;
  meanServiceMs: number;
  /** Threads kept busy on average. */
  threads: number;
}

/** The offered load on one pool of one provider group in one phase. */
export interface PoolLoad {
  group: string;
  /** `shared`, or the service whose own executor this is. */
  pool: string;
  /** Threads of the pool over all instances of the group. */
  capacity: number;
  offered: number;
  contributions: PoolContribution[];
}

/** One phase: the scenario as written, or during one slowdown fault. */
export interface PoolPhase {
  label: string;
  pools: PoolLoad[];
}

const DRAWS = 20_000;

type MethodReference = Omit<ReferenceSpec, 'methods'>;
function attribute<K extends keyof MethodReference>(c: ConsumerGroupSpec, service: string, method: string, key: K): MethodReference[K] {
  const ref = c.reference[service];
  return ref?.methods[method]?.[key] ?? ref?.[key] ?? c.consumerDefaults[key];
}

function rttDist(network: NetworkSpec, from: string, to: string): DistSpec {
  const pair = [...network.pairs].reverse().find((p) => p.from === from && p.to === to);
  if (pair) return pair.dist;
  return from === to ? network.sameZone : network.default;
}

/** Seeded draws of a distribution, sorted (deterministic). */
const drawsCache = new WeakMap<DistSpec, Float64Array>();
function draws(dist: DistSpec): Float64Array {
  let xs = drawsCache.get(dist);
  if (xs === undefined) {
    const draw = sampler(dist, new RandomStreams(1).stream('pool-load'));
    xs = new Float64Array(DRAWS);
    for (let i = 0; i < DRAWS; i++) xs[i] = draw();
    xs.sort();
    drawsCache.set(dist, xs);
  }
  return xs;
}
const mean = (xs: Float64Array) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** P(X > x) from sorted draws. */
function tail(xs: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return (xs.length - lo) / xs.length;
}

// Failover (the default) and zoneAwareFailover retry timed-out attempts; other clusters make one.
function retriesOf(c: ConsumerGroupSpec, service: string, method: string): number {
  const cluster = attribute(c, service, method, 'cluster') ?? 'failover';
  if (cluster !== 'failover' && cluster !== 'zoneAwareFailover') return 0;
  return Math.max(0, attribute(c, service, method, 'retries') ?? DEFAULT_RETRIES);
}

type Slowdown = Extract<FaultSpec['action'], { kind: 'slowdown' }>;

function factorOf(g: ProviderGroupSpec, service: string, method: string, slow: Slowdown | undefined): number {
  if (slow === undefined) return 1;
  const s = slow as Slowdown & { group?: string };
  if (s.zone !== undefined && s.zone !== g.zone) return 1;
  if (s.group !== undefined && s.group !== g.name) return 1;
  if (s.service !== undefined && s.service !== service) return 1;
  if (s.method !== undefined && s.method !== method) return 1;
  return s.factor;
}

function phase(scenario: Scenario, label: string, slow: Slowdown | undefined): PoolPhase {
  const pools = new Map<string, PoolLoad>();
  const poolOf = (g: ProviderGroupSpec, service: string): PoolLoad => {
    const executor = g.exports[service]?.executor;
    const name = executor === undefined ? 'shared' : service;
    const key = `${g.name}\u0000${name}`;
    let p = pools.get(key);
    if (p === undefined) {
      p = { group: g.name, pool: name, capacity: g.count * (executor?.threads ?? g.threads), offered: 0, contributions: [] };
      pools.set(key, p);
    }
    return p;
  };
  // Every pool of every group, loaded or not, in scenario order.
  for (const g of scenario.providers) for (const s of g.services) poolOf(g, s);
  for (const c of scenario.consumers) {
    const total = Object.values(c.calls).reduce((s, w) => s + w, 0);
    for (const [key, weight] of Object.entries(c.calls)) {
      const dot = key.lastIndexOf('.');
      const service = key.slice(0, dot);
      const method = key.slice(dot + 1);
      const spec = scenario.services[service]?.methods[method];
      if (spec === undefined) continue;
      const serving = scenario.providers.filter((g) => g.services.includes(service) && g.count > 0);
      const shares = serving.map((g) => g.count * g.weight);
      const sum = shares.reduce((s, x) => s + x, 0);
      if (sum === 0) continue;
      const callsPerSec = (c.ratePerSec * weight) / total;
      const timeoutMs = attribute(c, service, method, 'timeoutMs') ?? DEFAULT_TIMEOUT;
      const retries = retriesOf(c, service, method);
      const xs = draws(spec.serviceTime);
      serving.forEach((g, i) => {
        const f = factorOf(g, service, method, slow);
        const rttMs = draws(rttDist(scenario.network, c.zone, g.zone))[DRAWS >> 1]!;
        // An attempt times out when f·X + RTT > timeout; the next one is one more execution.
        const q = tail(xs, (timeoutMs - rttMs) / f);
        let attempts = 0;
        for (let k = 0; k <= retries; k++) attempts += q ** k;
        const meanServiceMs = mean(xs) * f;
        const calls = (callsPerSec * shares[i]!) / sum;
        const threads = (calls * attempts * meanServiceMs) / 1000;
        const pool = poolOf(g, service);
        pool.offered += threads;
        pool.contributions.push({ consumer: c.application, zone: c.zone, service, method, callsPerSec: calls, attemptsPerCall: attempts, meanServiceMs, threads });
      });
    }
  }
  return { label, pools: [...pools.values()] };
}

/** The offered load of every pool: as written, then during each slowdown fault. */
export function poolLoads(scenario: Scenario): PoolPhase[] {
  const out = [phase(scenario, 'as written', undefined)];
  for (const f of scenario.faults) {
    if (f.action.kind !== 'slowdown') continue;
    out.push(phase(scenario, `during the slowdown at ${f.atMs / 1000} s (${f.label})`, f.action));
  }
  return out;
}

/** Pools offered more threads than they have, in any phase (the worst phase per pool). */
export function overloadedPools(scenario: Scenario): Array<PoolLoad & { phase: string }> {
  const worst = new Map<string, PoolLoad & { phase: string }>();
  for (const ph of poolLoads(scenario)) {
    for (const p of ph.pools) {
      if (p.offered <= p.capacity) continue;
      const key = `${p.group}\u0000${p.pool}`;
      const seen = worst.get(key);
      if (seen === undefined || p.offered > seen.offered) worst.set(key, { ...p, phase: ph.label });
    }
  }
  return [...worst.values()];
}
