/**
 * Offered load on provider thread pools, from the scenario alone (no simulation): for each provider
 * group and each of its pools (the shared one, and each service's own executor), the threads its
 * callers keep busy on average, in each phase of the fault timeline (load-phases.ts: as written,
 * and while `slowdown` and `traffic` faults are in force). threads = Σ executions/s × the time an
 * execution holds its thread (its own service time × slowdown, plus, in a call graph, the time it
 * waits for its downstream calls on that thread). An instance slowed on its own (`instance:
 * NAME#i`) is a pool of its own, offered its share of the group's calls; the group's entry then
 * covers its other instances, so one slow instance never flags its group or another group.
 *
 * Callers are the consumer groups (their rate in the phase, by call weight) and, for call graphs
 * (SPEC 2.10), the provider groups whose methods call other services: every execution upstream,
 * retries included, makes its downstream calls, and each of those makes its own attempts, so
 * amplification multiplies across tiers. A call's attempts: each picks a provider by instances ×
 * weight; it times out when service time + downstream wait + median RTT exceeds the caller's
 * timeout (a timeout never cancels provider work, so the execution keeps its thread); failover
 * (and zoneAwareFailover) retry timed-out attempts up to `retries`. With Q the chance an attempt
 * times out, a call makes Σ_{k≤retries} Q^k attempts, spread over the providers like the first.
 *
 * ExecuteLimitFilter (`executes` of an export or method) caps a method's threads per instance; the
 * calls beyond are refused at once and make no downstream calls.
 *
 * Approximations, said where they are used: random balancing over every provider of the service
 * (no routers, no group/version matching, zoneAwareFailover retries anywhere); a downstream wait
 * counts as its mean (parallel fan-out: the largest mean); instance counts as written (crashes,
 * scale and zoneDown do not move load); calls refused (pool full, `executes`) are not retried;
 * only failover clusters retry (forking and broadcast count one attempt); dynamic isolation,
 * `tps`, queues and the entry pool are not modelled.
 * `check` warns when a pool is offered more threads than it has; `recommend` does not recommend
 * retries for a method whose pool that happens to.
 */
import { sampler, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT } from '../dubbo/constants.js';
import { downstreamConsumerSpec } from '../world/world.js';
import { loadPhaseLabel, loadPhases, type LoadPhase } from '../scenario/load-phases.js';
import { referenceAttribute } from '../model/reference-attribute.js';
import { rttDist } from '../model/rtt-dist.js';
import type { ConsumerGroupSpec, ProviderGroupSpec, ReferenceSpec, Scenario } from '../model/types.js';

/** One caller's and method's share of a pool's load. */
export interface PoolContribution {
  /** The consumer application, or for a call-graph call the calling provider group. */
  consumer: string;
  zone: string;
  /** Set when the caller is a provider group calling downstream (SPEC 2.10). */
  callGraph?: true;
  service: string;
  method: string;
  /** The caller's calls per second times this pool's share of the providers. */
  callsPerSec: number;
  attemptsPerCall: number;
  /** Mean own service time of an execution (slowdown included). */
  meanServiceMs: number;
  /** Mean time an execution also holds its thread waiting for its own downstream calls. */
  downstreamMs: number;
  /** Threads kept busy on average: callsPerSec × attemptsPerCall × (meanServiceMs + downstreamMs), capped by `executes`. */
  threads: number;
  /** Set when ExecuteLimitFilter caps the method's threads: its `executes` per process (the rest is refused). */
  executes?: number;
}

/** The offered load on one pool of one provider group (or of one instance slowed on its own) in one phase. */
export interface PoolLoad {
  group: string;
  /** `shared`, or the service whose own executor this is. */
  pool: string;
  /** `<group>#<i>` for an instance with a slowdown of its own; absent for the group's other instances. */
  instance?: string;
  /** How many instances this entry covers. */
  instances: number;
  /** Threads of the pool over those instances. */
  capacity: number;
  offered: number;
  contributions: PoolContribution[];
}

/** One phase of the timeline with its own load: as written, or while some slowdown/traffic faults are in force. */
export interface PoolPhase {
  label: string;
  /** The first span of the timeline with this load. */
  fromMs: number;
  toMs: number;
  pools: PoolLoad[];
}

const DRAWS = 20_000;

/** Sorted seeded draws of a distribution with their prefix sums (deterministic), cached per spec. */
interface Draws {
  xs: Float64Array;
  /** sums[k] = xs[0] + ... + xs[k-1]. */
  sums: Float64Array;
  mean: number;
}
const drawsCache = new WeakMap<DistSpec, Draws>();
function draws(dist: DistSpec): Draws {
  let d = drawsCache.get(dist);
  if (d === undefined) {
    const draw = sampler(dist, new RandomStreams(1).stream('pool-load'));
    const xs = new Float64Array(DRAWS);
    for (let i = 0; i < DRAWS; i++) xs[i] = draw();
    xs.sort();
    const sums = new Float64Array(DRAWS + 1);
    for (let i = 0; i < DRAWS; i++) sums[i + 1] = sums[i]! + xs[i]!;
    d = { xs, sums, mean: sums[DRAWS]! / DRAWS };
    drawsCache.set(dist, d);
  }
  return d;
}

/** How many sorted draws are <= x. */
function countAtMost(xs: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const medianRtt = (scenario: Scenario, from: string, to: string): number => draws(rttDist(scenario.network, from, to)).xs[DRAWS >> 1]!;

// Failover (the default) and zoneAwareFailover retry timed-out attempts; other clusters make one.
function retriesOf(c: ConsumerGroupSpec, service: string, method: string): number {
  const cluster = referenceAttribute(c, service, method, 'cluster') ?? 'failover';
  if (cluster !== 'failover' && cluster !== 'zoneAwareFailover') return 0;
  return Math.max(0, referenceAttribute(c, service, method, 'retries') ?? DEFAULT_RETRIES);
}

/** Who makes calls: a consumer group, or a provider group's consumer side. */
interface Caller {
  name: string;
  zone: string;
  spec: ConsumerGroupSpec;
  callGraph: boolean;
}

/** Where an attempt can land: a group's instances without own slowdown, or one slowed instance. */
interface Target {
  group: ProviderGroupSpec;
  instance?: number;
  /** The chance an attempt picks it (instances × weight over the service's providers). */
  share: number;
  factor: number;
  pool: PoolLoad;
}

/** What one attempt on a target costs: its timeout chance, the caller's mean wait, the thread time. */
interface Attempt {
  timeoutP: number;
  /** E[min(service × factor + downstream wait + RTT, timeout)]: what the caller waits for this attempt. */
  waitMs: number;
  serviceMs: number;
  downstreamMs: number;
}

/** The `service.method` nodes, callers before callees (call graphs are acyclic: cross-check.ts). */
function callOrder(scenario: Scenario): string[] {
  const done = new Set<string>();
  const post: string[] = [];
  const visit = (node: string): void => {
    if (done.has(node)) return;
    done.add(node);
    const dot = node.lastIndexOf('.');
    for (const d of scenario.services[node.slice(0, dot)]?.methods[node.slice(dot + 1)]?.calls ?? []) visit(`${d.service}.${d.method}`);
    post.push(node);
  };
  for (const [s, spec] of Object.entries(scenario.services)) for (const m of Object.keys(spec.methods)) visit(`${s}.${m}`);
  return post.reverse();
}

/** The offered load of one phase. */
class PhaseLoad {
  readonly #scenario: Scenario;
  readonly #phase: LoadPhase;
  readonly #pools = new Map<string, PoolLoad>();
  readonly #targets = new Map<string, Target[]>();
  readonly #waits = new Map<string, number>();
  readonly #callers = new Map<string, Caller | null>();

  constructor(scenario: Scenario, phase: LoadPhase) {
    this.#scenario = scenario;
    this.#phase = phase;
    // Every pool of every group, loaded or not, in scenario order.
    for (const g of scenario.providers) {
      const slowed = phase.slowedInstances(g);
      for (const s of g.services) {
        if (slowed.length === 0 || slowed.length < g.count) this.#poolOf(g, s);
        for (const i of slowed) this.#poolOf(g, s, i);
      }
    }
  }

  /** Loads every pool from the consumer groups' traffic and, tier by tier, the call graphs'. */
  run(order: readonly string[]): PoolLoad[] {
    const demand = new Map<string, Map<string, { caller: Caller; callsPerSec: number }>>();
    const add = (node: string, key: string, caller: Caller, callsPerSec: number): void => {
      let byCaller = demand.get(node);
      if (byCaller === undefined) demand.set(node, (byCaller = new Map()));
      const seen = byCaller.get(key);
      if (seen === undefined) byCaller.set(key, { caller, callsPerSec });
      else seen.callsPerSec += callsPerSec;
    };
    this.#scenario.consumers.forEach((c, i) => {
      const total = Object.values(c.calls).reduce((s, w) => s + w, 0);
      const caller: Caller = { name: c.application, zone: c.zone, spec: c, callGraph: false };
      for (const [key, weight] of Object.entries(c.calls)) add(key, `consumer ${i}`, caller, (this.#phase.ratePerSec[i]! * weight) / total);
    });
    for (const node of order) {
      const dot = node.lastIndexOf('.');
      const service = node.slice(0, dot);
      const method = node.slice(dot + 1);
      const spec = this.#scenario.services[service]?.methods[method];
      const callers = demand.get(node);
      if (spec === undefined || callers === undefined) continue;
      // Every caller's attempts first: ExecuteLimitFilter caps the method per instance over all of them.
      const byTarget = new Map<Target, Array<{ contribution: PoolContribution; executions: number }>>();
      for (const { caller, callsPerSec } of callers.values()) {
        for (const load of this.#load(caller, service, method, callsPerSec)) {
          const list = byTarget.get(load.target) ?? [];
          list.push(load);
          byTarget.set(load.target, list);
        }
      }
      const executions = new Map<ProviderGroupSpec, number>();
      for (const [t, loads] of byTarget) {
        const scale = this.#executesScale(t, service, method, loads);
        for (const { contribution, executions: e } of loads) {
          t.pool.offered += contribution.threads;
          t.pool.contributions.push(contribution);
          executions.set(t.group, (executions.get(t.group) ?? 0) + e * scale);
        }
      }
      if (spec.calls.length === 0) continue;
      for (const [group, perSec] of executions) {
        const downstream = this.#callerOf(group)!;
        for (const d of spec.calls) add(`${d.service}.${d.method}`, `group ${group.name}`, downstream, perSec);
      }
    }
    return [...this.#pools.values()];
  }

  #poolOf(g: ProviderGroupSpec, service: string, instance?: number): PoolLoad {
    const executor = g.exports[service]?.executor;
    const name = executor === undefined ? 'shared' : service;
    const key = `${g.name}\u0000${instance ?? ''}\u0000${name}`;
    let p = this.#pools.get(key);
    if (p === undefined) {
      const instances = instance !== undefined ? 1 : g.count - this.#phase.slowedInstances(g).length;
      p = {
        group: g.name,
        pool: name,
        ...(instance !== undefined ? { instance: `${g.name}#${instance}` } : {}),
        instances,
        capacity: instances * (executor?.threads ?? g.threads),
        offered: 0,
        contributions: [],
      };
      this.#pools.set(key, p);
    }
    return p;
  }

  /** The provider group's consumer side (null when its methods call nothing). */
  #callerOf(g: ProviderGroupSpec): Caller | null {
    if (!this.#callers.has(g.name)) {
      const spec = downstreamConsumerSpec(g, this.#scenario.services);
      this.#callers.set(g.name, spec === null ? null : { name: g.name, zone: g.zone, spec, callGraph: true });
    }
    return this.#callers.get(g.name)!;
  }

  /** Where attempts at `service.method` land, with their shares (empty when nobody serves it). */
  #targetsOf(service: string, method: string): Target[] {
    const key = `${service}.${method}`;
    let out = this.#targets.get(key);
    if (out !== undefined) return out;
    out = [];
    for (const g of this.#scenario.providers) {
      if (g.count <= 0 || !g.services.includes(service)) continue;
      const slowed = this.#phase.slowedInstances(g);
      const rest = g.count - slowed.length;
      if (rest > 0) out.push({ group: g, share: rest * g.weight, factor: this.#phase.factor(g, service, method), pool: this.#poolOf(g, service) });
      for (const i of slowed) out.push({ group: g, instance: i, share: g.weight, factor: this.#phase.factor(g, service, method, i), pool: this.#poolOf(g, service, i) });
    }
    const sum = out.reduce((s, t) => s + t.share, 0);
    if (sum <= 0) out = [];
    for (const t of out) t.share /= sum;
    this.#targets.set(key, out);
    return out;
  }

  #attempt(caller: Caller, service: string, method: string, t: Target, timeoutMs: number): Attempt {
    const d = draws(this.#scenario.services[service]!.methods[method]!.serviceTime);
    const downstreamMs = this.#downstreamWait(t.group, service, method);
    const fixedMs = downstreamMs + medianRtt(this.#scenario, caller.zone, t.group.zone);
    // min(f·X + fixed, T): draws up to (T - fixed) / f take their own time, the others the timeout.
    const k = countAtMost(d.xs, (timeoutMs - fixedMs) / t.factor);
    const timeoutP = (DRAWS - k) / DRAWS;
    const waitMs = (t.factor * d.sums[k]! + fixedMs * k) / DRAWS + timeoutMs * timeoutP;
    return { timeoutP, waitMs, serviceMs: d.mean * t.factor, downstreamMs };
  }

  /** Per call of `caller`: its attempts, and per target the attempt's figures. */
  #call(caller: Caller, service: string, method: string): { targets: Target[]; attempts: Attempt[]; attemptsPerCall: number } {
    const targets = this.#targetsOf(service, method);
    const timeoutMs = referenceAttribute(caller.spec, service, method, 'timeoutMs') ?? DEFAULT_TIMEOUT;
    const attempts = targets.map((t) => this.#attempt(caller, service, method, t, timeoutMs));
    const q = targets.reduce((s, t, i) => s + t.share * attempts[i]!.timeoutP, 0);
    let attemptsPerCall = 0;
    for (let k = 0; k <= retriesOf(caller.spec, service, method); k++) attemptsPerCall += q ** k;
    return { targets, attempts, attemptsPerCall };
  }

  /** What one execution of `service.method` on group `g` waits for its downstream calls (mean). */
  #downstreamWait(g: ProviderGroupSpec, service: string, method: string): number {
    const spec = this.#scenario.services[service]!.methods[method]!;
    if (spec.calls.length === 0) return 0;
    const key = `${g.name}\u0000${service}.${method}`;
    let ms = this.#waits.get(key);
    if (ms !== undefined) return ms;
    const caller = this.#callerOf(g)!;
    const each = spec.calls.map((d) => {
      const { targets, attempts, attemptsPerCall } = this.#call(caller, d.service, d.method);
      // Every attempt but a successful last one costs its wait; on average, attempts × the mean attempt.
      return attemptsPerCall * targets.reduce((s, t, i) => s + t.share * attempts[i]!.waitMs, 0);
    });
    ms = spec.parallel ? Math.max(0, ...each) : each.reduce((s, x) => s + x, 0);
    this.#waits.set(key, ms);
    return ms;
  }

  /** `caller`'s calls of `service.method`: per target, its share of the pool load and its executions/s. */
  #load(caller: Caller, service: string, method: string, callsPerSec: number): Array<{ target: Target; contribution: PoolContribution; executions: number }> {
    const { targets, attempts, attemptsPerCall } = this.#call(caller, service, method);
    return targets.map((t, i) => {
      const a = attempts[i]!;
      const calls = callsPerSec * t.share;
      const contribution: PoolContribution = {
        consumer: caller.name,
        zone: caller.zone,
        ...(caller.callGraph ? { callGraph: true as const } : {}),
        service,
        method,
        callsPerSec: calls,
        attemptsPerCall,
        meanServiceMs: a.serviceMs,
        downstreamMs: a.downstreamMs,
        threads: (calls * attemptsPerCall * (a.serviceMs + a.downstreamMs)) / 1000,
      };
      return { target: t, contribution, executions: calls * attemptsPerCall };
    });
  }

  /**
   * ExecuteLimitFilter (`executes`, per method and process): a method offered more threads than
   * executes × instances keeps that many, the rest is refused at once (no execution, no downstream
   * calls). Scales the contributions down and returns the share of executions that run.
   */
  #executesScale(t: Target, service: string, method: string, loads: ReadonlyArray<{ contribution: PoolContribution }>): number {
    const exported = t.group.exports[service];
    const executes = exported?.methods[method]?.executes ?? exported?.executes;
    if (executes === undefined || executes <= 0) return 1;
    const threads = loads.reduce((s, l) => s + l.contribution.threads, 0);
    const cap = executes * t.pool.instances;
    if (threads <= cap) return 1;
    const scale = cap / threads;
    for (const { contribution } of loads) {
      contribution.threads *= scale;
      contribution.executes = executes;
    }
    return scale;
  }
}

/** The offered load of every pool in each phase of the timeline with its own load (as written first when it occurs). */
export function poolLoads(scenario: Scenario): PoolPhase[] {
  const order = callOrder(scenario);
  return loadPhases(scenario).map((phase) => ({
    label: loadPhaseLabel(phase),
    fromMs: phase.fromMs,
    toMs: phase.toMs,
    pools: new PhaseLoad(scenario, phase).run(order),
  }));
}

/** A pool offered more threads than it has, in its worst phase. */
export type OverloadedPool = PoolLoad & { phase: string; fromMs: number; toMs: number };

/** Pools offered more threads than they have, in any phase (the worst phase per pool). */
export function overloadedPools(scenario: Scenario): OverloadedPool[] {
  const worst = new Map<string, OverloadedPool>();
  for (const ph of poolLoads(scenario)) {
    for (const p of ph.pools) {
      if (p.offered <= p.capacity) continue;
      const key = `${p.group}\u0000${p.instance ?? ''}\u0000${p.pool}`;
      const seen = worst.get(key);
      if (seen === undefined || p.offered > seen.offered) worst.set(key, { ...p, phase: ph.label, fromMs: ph.fromMs, toMs: ph.toMs });
    }
  }
  return [...worst.values()];
}
