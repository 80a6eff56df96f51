/**
 * The traffic part of the cost estimate (estimate.ts): requests, attempts and executions tier by
 * tier, counted exactly over the call graph, with the requests in flight and the calls waiting in
 * unbounded provider queues. Nothing is enumerated path by path: the graph of `service.method`
 * nodes is acyclic (the loader refuses cycles, cross-check.ts), so one pass in topological order
 * (callers first) carries each node's calls to its callees, and a fan-out of 2 over 40 tiers costs
 * 80 node visits however many requests it makes (counts are doubles: 2^1000 is fine, beyond that
 * Infinity, which the limits refuse).
 *
 * Per call of a caller (a consumer group, or a provider group's consumer side for its downstream
 * calls, with that side's merged reference as the world builds it): failover-like clusters make
 * Σ_{k≤retries} q^k attempts in the expected case and retries + 1 in the worst, where q is the
 * chance an attempt fails: it times out when service time × slowdown + the mean wait for its own
 * downstream calls + the median RTT exceeds the caller's timeout (each distribution's tail in closed
 * form, dist-figures.ts). `forking` sends min(forks, providers), `broadcast` one per provider,
 * `failfast`, `failsafe`, `available` and `mergeable` one; a timeout of 0 sends nothing. Every
 * attempt executes (a timeout never cancels provider work) and each execution makes the method's
 * downstream calls. The worst case takes every retry at every tier.
 *
 * Overload, in one correction step: a pool offered more threads than it has (executions × the time
 * each holds its thread) fails the excess, and the pass is repeated with that failure chance: with
 * an unbounded queue (`queues < 0`) every attempt to it ends up timing out, and its queue grows by
 * the excess for as long as the overload lasts (drained at the spare capacity afterwards); with a
 * bounded or no queue, the share beyond its capacity is rejected and retried.
 *
 * The fault timeline enters through its load phases (load-phases.ts: `traffic` rates and `slowdown`
 * factors in force), each weighted by the time it is in force; the edge totals themselves are
 * estimate-edge-requests.ts's (rates integrated in time order). Left out, so the figures are high there: the
 * timeout countdown, ExecuteLimitFilter refusals, routers that narrow the providers.
 */
import { DEFAULT_FORKS, DEFAULT_RETRIES, DEFAULT_TIMEOUT } from '../dubbo/constants.js';
import { downstreamConsumerSpec } from '../world/world.js';
import { distMeanMs, distMedianMs, distTail } from './dist-figures.js';
import { loadPhaseSpans, type LoadPhase } from './load-phases.js';
import { referenceAttribute } from '../model/reference-attribute.js';
import { rttDist } from '../model/rtt-dist.js';
import { queueLimit } from '../model/thread-pool.js';
import type { ConsumerGroupSpec, ProviderGroupSpec, Scenario } from '../model/types.js';

/** What the traffic of one simulation costs, over the whole run. */
export interface TrafficCount {
  /** Requests the consumer groups start. */
  edgeRequests: number;
  /** Requests of call graphs' downstream calls, in the expected case. */
  downstreamRequests: number;
  /** Edge plus downstream requests when every call takes all its retries, at every tier. */
  requestsWorstCase: number;
  /** Attempts sent, retries expected from timeouts and overload included. */
  attempts: number;
  /** Attempts when every call takes all its retries, at every tier. */
  attemptsWorstCase: number;
  /** Attempts to services whose providers refuse connections (the `refusing` services). */
  refusedServiceAttempts: number;
  /** Requests in flight (Little's law) in the busiest phase. */
  inFlight: number;
  /** Calls waiting in unbounded provider queues at their longest (summed over pools). */
  queuedCalls: number;
  /** (caller zone, service.method) pairs with calls: the metrics cells. */
  cells: number;
  /** Zones calls start in (consumer groups' and calling provider groups'). */
  callerZones: number;
  /** `service.method`s called. */
  methods: number;
  /** The most retries any call with traffic may take (failover-like clusters). */
  maxRetries: number;
}

/** Who makes calls: a consumer group, or a provider group's consumer side. */
interface Caller {
  key: string;
  zone: string;
  spec: ConsumerGroupSpec;
}

/** Where attempts at a service land: a provider group and its share (instances × weight). */
interface Target {
  group: ProviderGroupSpec;
  share: number;
  pool: string;
}

/** One pool's load in a phase, per simulated ms of it. */
interface PoolRates {
  capacity: number;
  unbounded: boolean;
  /** Threads kept busy: executions/ms × the ms each holds its thread. */
  offered: number;
  /** Executions per ms. */
  executions: number;
}

/** How an overloaded pool fails its excess: every attempt times out (an unbounded queue), or a share is rejected. */
interface Failing {
  timedOut: number;
  rejected: number;
}

/** The figures of one phase: counts over all the time it is in force (in flight and pools: per ms of it). */
interface PhaseRates {
  downstream: number;
  requestsWorst: number;
  attempts: number;
  attemptsWorst: number;
  refused: number;
  inFlight: number;
  maxRetries: number;
  cells: Set<string>;
  pools: Map<string, PoolRates>;
}

const nodeOf = (service: string, method: string) => `${service}.${method}`;
function splitNode(node: string): [string, string] {
  const dot = node.lastIndexOf('.');
  return [node.slice(0, dot), node.slice(dot + 1)];
}
// Counts may be Infinity (an absurd fan-out); a share or a time of 0 must still give 0, not NaN.
const times = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : a * b);

/**
 * The `service.method` nodes, callers before callees (Kahn's algorithm: no recursion, so a chain of
 * thousands of tiers is fine), and whether a cycle was left over (the loader refuses those).
 */
export function callGraphOrder(scenario: Scenario): { order: string[]; cyclic: boolean } {
  const indegree = new Map<string, number>();
  const callees = new Map<string, string[]>();
  for (const [s, spec] of Object.entries(scenario.services)) {
    for (const [m, method] of Object.entries(spec.methods)) {
      const from = nodeOf(s, m);
      if (!indegree.has(from)) indegree.set(from, 0);
      const out = method.calls.map((c) => nodeOf(c.service, c.method));
      callees.set(from, out);
      for (const to of out) indegree.set(to, (indegree.get(to) ?? 0) + 1);
    }
  }
  const order = [...indegree].filter(([, n]) => n === 0).map(([node]) => node);
  for (let i = 0; i < order.length; i++) {
    for (const to of callees.get(order[i]!) ?? []) {
      const left = indegree.get(to)! - 1;
      indegree.set(to, left);
      if (left === 0) order.push(to);
    }
  }
  return { order, cyclic: order.length < indegree.size };
}

/** The traffic model of one scenario; `count` runs it over the load phases. */
class TrafficModel {
  readonly #scenario: Scenario;
  readonly #order: string[];
  readonly #refusing: ReadonlySet<string>;
  readonly #targets = new Map<string, Target[]>();
  readonly #callers = new Map<string, Caller | null>();

  constructor(scenario: Scenario, order: string[], refusing: ReadonlySet<string>) {
    this.#scenario = scenario;
    this.#order = order;
    this.#refusing = refusing;
  }

  /**
   * A phase's figures, `edgeCalls[i]` calls of consumer group i over the `ms` it is in force: a first
   * pass, then one more with the failures of the pools it overloads.
   */
  phase(phase: LoadPhase, edgeCalls: readonly number[], ms: number): PhaseRates {
    const first = this.#pass(phase, edgeCalls, ms, new Map());
    const failing = new Map<string, Failing>();
    for (const [key, p] of first.pools) {
      if (!(p.offered > p.capacity)) continue;
      failing.set(key, p.unbounded ? { timedOut: 1, rejected: 0 } : { timedOut: 0, rejected: 1 - p.capacity / p.offered });
    }
    return failing.size === 0 ? first : this.#pass(phase, edgeCalls, ms, failing);
  }

  #pass(phase: LoadPhase, edgeCalls: readonly number[], ms: number, failing: ReadonlyMap<string, Failing>): PhaseRates {
    const scenario = this.#scenario;
    const waits = this.#downstreamWaits(phase, failing);
    const out: PhaseRates = { downstream: 0, requestsWorst: 0, attempts: 0, attemptsWorst: 0, refused: 0, inFlight: 0, maxRetries: 0, cells: new Set(), pools: new Map() };
    type Demand = { caller: Caller; calls: number; worst: number };
    const demand = new Map<string, Map<string, Demand>>();
    const add = (node: string, caller: Caller, calls: number, worst: number): void => {
      let byCaller = demand.get(node);
      if (byCaller === undefined) demand.set(node, (byCaller = new Map()));
      const seen = byCaller.get(caller.key);
      if (seen === undefined) byCaller.set(caller.key, { caller, calls, worst });
      else {
        seen.calls += calls;
        seen.worst += worst;
      }
    };
    scenario.consumers.forEach((c, i) => {
      const weights = Object.values(c.calls).reduce((s, w) => s + w, 0);
      const caller: Caller = { key: `consumer ${i}`, zone: c.zone, spec: c };
      for (const [key, w] of Object.entries(c.calls)) {
        const calls = weights > 0 ? times(edgeCalls[i]!, w / weights) : 0;
        add(key, caller, calls, calls);
        out.requestsWorst += calls;
      }
    });
    for (const node of this.#order) {
      const callers = demand.get(node);
      if (callers === undefined) continue;
      const [service, method] = splitNode(node);
      const spec = scenario.services[service]?.methods[method];
      const targets = this.#targetsOf(service);
      const executions = new Map<ProviderGroupSpec, { calls: number; worst: number }>();
      for (const { caller, calls, worst } of callers.values()) {
        if (!(calls > 0) && !(worst > 0)) continue;
        out.cells.add(`${caller.zone}\u0000${node}`);
        const call = this.#call(phase, caller, service, method, targets, waits, failing);
        out.maxRetries = Math.max(out.maxRetries, call.retries);
        out.attempts += times(calls, call.expected);
        out.attemptsWorst += times(worst, call.worst);
        if (this.#refusing.has(service)) out.refused += times(calls, call.expected);
        // Little's law: calls per ms of the phase × attempts × the wait of each.
        out.inFlight += times(times(calls, call.expected), call.waitMs) / ms;
        if (!call.executes) continue;
        for (const t of targets) {
          const e = executions.get(t.group) ?? { calls: 0, worst: 0 };
          e.calls += times(times(calls, call.expected), t.share);
          e.worst += times(times(worst, call.worst), t.share);
          executions.set(t.group, e);
        }
      }
      for (const t of targets) {
        const e = executions.get(t.group);
        if (e === undefined) continue;
        const pool = this.#poolRates(out.pools, t);
        const holdMs = phase.factor(t.group, service, method) * distMeanMs(spec!.serviceTime) + (waits.get(`${t.group.name}\u0000${node}`) ?? 0);
        pool.offered += times(e.calls, holdMs) / ms;
        pool.executions += e.calls / ms;
        if (spec === undefined || spec.calls.length === 0) continue;
        const caller = this.#callerOf(t.group);
        if (caller === null) continue;
        for (const d of spec.calls) {
          add(nodeOf(d.service, d.method), caller, e.calls, e.worst);
          out.downstream += e.calls;
          out.requestsWorst += e.worst;
        }
      }
    }
    return out;
  }

  /**
   * What one execution of each node on each provider group waits for its downstream calls (mean),
   * keyed `group \0 node`: callees first, so each caller finds its callees' waits.
   */
  #downstreamWaits(phase: LoadPhase, failing: ReadonlyMap<string, Failing>): Map<string, number> {
    const waits = new Map<string, number>();
    for (let i = this.#order.length - 1; i >= 0; i--) {
      const node = this.#order[i]!;
      const [service, method] = splitNode(node);
      const spec = this.#scenario.services[service]?.methods[method];
      if (spec === undefined || spec.calls.length === 0) continue;
      for (const t of this.#targetsOf(service)) {
        const caller = this.#callerOf(t.group);
        if (caller === null) continue;
        const each = spec.calls.map((d) => {
          const call = this.#call(phase, caller, d.service, d.method, this.#targetsOf(d.service), waits, failing);
          return call.waitMs * call.expected;
        });
        waits.set(`${t.group.name}\u0000${node}`, spec.parallel ? Math.max(0, ...each) : each.reduce((s, x) => s + x, 0));
      }
    }
    return waits;
  }

  /** Per call of `caller`: attempts (expected, worst), whether they execute, and the mean wait of one attempt. */
  #call(
    phase: LoadPhase,
    caller: Caller,
    service: string,
    method: string,
    targets: readonly Target[],
    waits: ReadonlyMap<string, number>,
    failing: ReadonlyMap<string, Failing>,
  ): { expected: number; worst: number; retries: number; executes: boolean; waitMs: number } {
    const ref = (key: 'cluster' | 'timeoutMs' | 'retries' | 'forks') => referenceAttribute(caller.spec, service, method, key);
    const timeoutMs = (ref('timeoutMs') as number | undefined) ?? DEFAULT_TIMEOUT;
    // DubboInvoker returns a call with no time left at once: nothing sent, not retried.
    if (!(timeoutMs > 0)) return { expected: 1, worst: 1, retries: 0, executes: false, waitMs: 0 };
    const serviceTime = this.#scenario.services[service]?.methods[method]?.serviceTime;
    let q = 0;
    let waitMs = 0;
    for (const t of targets) {
      const factor = phase.factor(t.group, service, method);
      const rttMs = distMedianMs(rttDist(this.#scenario.network, caller.zone, t.group.zone));
      const fixedMs = (waits.get(`${t.group.name}\u0000${nodeOf(service, method)}`) ?? 0) + rttMs;
      const meanMs = serviceTime === undefined ? 0 : factor * distMeanMs(serviceTime);
      // P(factor × S + fixed > timeout), or 1 behind an overloaded unbounded queue.
      const tail = serviceTime === undefined ? 0 : fixedMs >= timeoutMs ? 1 : factor > 0 ? distTail(serviceTime, (timeoutMs - fixedMs) / factor) : 0;
      const overload = failing.get(this.#poolKey(t));
      const timedOut = Math.max(tail, overload?.timedOut ?? 0);
      // A rejected attempt fails after a round trip. Its execution is still counted (and its downstream
      // calls): the count stays an upper bound, since the rejected share is not carried to the next tiers.
      const rejected = overload?.rejected ?? 0;
      q += t.share * (rejected + (1 - rejected) * timedOut);
      waitMs += t.share * (rejected * rttMs + (1 - rejected) * ((1 - timedOut) * Math.min(meanMs + fixedMs, timeoutMs) + timedOut * timeoutMs));
    }
    const providers = targets.reduce((s, t) => s + t.group.count, 0);
    const cluster = (ref('cluster') as string | undefined) ?? 'failover';
    let expected: number;
    let worst: number;
    let retries = 0;
    if (cluster === 'forking') expected = worst = Math.max(1, Math.min((ref('forks') as number | undefined) ?? DEFAULT_FORKS, Math.max(1, providers)));
    else if (cluster === 'broadcast') expected = worst = Math.max(1, providers);
    else if (cluster === 'failfast' || cluster === 'failsafe' || cluster === 'available' || cluster === 'mergeable') expected = worst = 1;
    else {
      retries = Math.max(0, (ref('retries') as number | undefined) ?? DEFAULT_RETRIES);
      worst = retries + 1;
      // Σ_{k=0..retries} q^k, without a loop over (possibly millions of) retries.
      expected = q >= 1 ? worst : (1 - Math.pow(q, worst)) / (1 - q);
    }
    return { expected, worst, retries, executes: targets.length > 0, waitMs };
  }

  /** Where attempts at `service` land, with their shares (empty when nobody serves it). */
  #targetsOf(service: string): Target[] {
    let out = this.#targets.get(service);
    if (out !== undefined) return out;
    if (this.#targets.size === 0) {
      // Every service's targets in one pass over the groups (a scan per service is quadratic in a thousand tiers).
      for (const g of this.#scenario.providers) {
        if (!(g.count > 0 && g.weight > 0)) continue;
        for (const svc of new Set(g.services)) {
          let list = this.#targets.get(svc);
          if (list === undefined) this.#targets.set(svc, (list = []));
          list.push({ group: g, share: g.count * g.weight, pool: g.exports[svc]?.executor === undefined ? 'shared' : svc });
        }
      }
      for (const list of this.#targets.values()) {
        const sum = list.reduce((s, t) => s + t.share, 0);
        for (const t of list) t.share /= sum;
      }
    }
    return this.#targets.get(service) ?? [];
  }

  #poolKey(t: Target): string {
    return `${t.group.name}\u0000${t.pool}`;
  }

  #poolRates(pools: Map<string, PoolRates>, t: Target): PoolRates {
    const key = this.#poolKey(t);
    let p = pools.get(key);
    if (p === undefined) {
      const executor = t.pool === 'shared' ? undefined : t.group.exports[t.pool]?.executor;
      // An isolated executor is a fixed pool; the shared one is the group's `threadpool` (eager: always bounded).
      const queues = executor === undefined ? queueLimit(t.group.threadpool, t.group.queues) : executor.queues;
      pools.set(key, (p = { capacity: t.group.count * (executor?.threads ?? t.group.threads), unbounded: queues < 0, offered: 0, executions: 0 }));
    }
    return p;
  }

  /** The provider group's consumer side (null when its methods call nothing). */
  #callerOf(g: ProviderGroupSpec): Caller | null {
    if (!this.#callers.has(g.name)) {
      const spec = downstreamConsumerSpec(g, this.#scenario.services);
      this.#callers.set(g.name, spec === null ? null : { key: `group ${g.name}`, zone: g.zone, spec });
    }
    return this.#callers.get(g.name)!;
  }
}

/**
 * Counts the traffic of one simulation: `edgeTotals[i]` requests of consumer group i over the run
 * (estimate-edge-requests.ts integrates them), spread over time as the load phases' rates are; `refusing`: the
 * services whose providers refuse connections in a `crash`-mode fault.
 */
export function countTraffic(scenario: Scenario, edgeTotals: readonly number[], refusing: ReadonlySet<string>): TrafficCount {
  const edgeRequests = edgeTotals.reduce((s, n) => s + n, 0);
  const spans = loadPhaseSpans(scenario);
  const { order, cyclic } = callGraphOrder(scenario);
  // Each phase's time in force, and each group's calls in it: the group's total spread as its rate
  // × time is over the phases (a single phase gets the total exactly, so counts stay whole).
  const phaseMs = new Map<LoadPhase, number>();
  for (const sp of spans) phaseMs.set(sp.phase, (phaseMs.get(sp.phase) ?? 0) + (sp.toMs - sp.fromMs));
  const edgeCalls = new Map<LoadPhase, number[]>();
  scenario.consumers.forEach((_, i) => {
    const weight = (p: LoadPhase) => times(p.ratePerSec[i]!, phaseMs.get(p)!);
    const integral = [...phaseMs.keys()].reduce((s, p) => s + weight(p), 0);
    for (const p of phaseMs.keys()) {
      let calls = edgeCalls.get(p);
      if (calls === undefined) edgeCalls.set(p, (calls = []));
      calls[i] = integral > 0 ? (weight(p) === integral ? edgeTotals[i]! : times(edgeTotals[i]!, weight(p) / integral)) : 0;
    }
  });
  const model = new TrafficModel(scenario, order, refusing);
  const rates = new Map<LoadPhase, PhaseRates>();
  for (const [p, ms] of phaseMs) if (ms > 0) rates.set(p, model.phase(p, edgeCalls.get(p)!, ms));
  const out: TrafficCount = {
    edgeRequests,
    downstreamRequests: 0,
    requestsWorstCase: 0,
    attempts: 0,
    attemptsWorstCase: 0,
    refusedServiceAttempts: 0,
    inFlight: 0,
    queuedCalls: 0,
    cells: 0,
    callerZones: 0,
    methods: 0,
    maxRetries: 0,
  };
  for (const r of rates.values()) {
    out.downstreamRequests += r.downstream;
    out.requestsWorstCase += r.requestsWorst;
    out.attempts += r.attempts;
    out.attemptsWorstCase += r.attemptsWorst;
    out.refusedServiceAttempts += r.refused;
    out.inFlight = Math.max(out.inFlight, r.inFlight);
    out.maxRetries = Math.max(out.maxRetries, r.maxRetries);
  }
  const cells = new Set<string>();
  const queued = new Map<string, { now: number; peak: number; holdMs: number }>();
  for (const span of spans) {
    const r = rates.get(span.phase);
    if (r === undefined) continue;
    const ms = span.toMs - span.fromMs;
    for (const c of r.cells) cells.add(c);
    // Unbounded queues, in time order: they grow by the excess while overloaded and drain at the spare capacity.
    for (const [key, p] of r.pools) {
      if (!p.unbounded) continue;
      const q = queued.get(key) ?? { now: 0, peak: 0, holdMs: 0 };
      if (p.executions > 0) q.holdMs = p.offered / p.executions;
      const perMs = p.offered > p.capacity ? p.executions * (1 - p.capacity / p.offered) : q.holdMs > 0 ? -(p.capacity - p.offered) / q.holdMs : 0;
      q.now = Math.max(0, q.now + times(perMs, ms));
      q.peak = Math.max(q.peak, q.now);
      queued.set(key, q);
    }
  }
  out.queuedCalls = [...queued.values()].reduce((s, q) => s + q.peak, 0);
  // Little's law over a phase says nothing of a run shorter than its requests' lives: no more can be in flight than start.
  out.inFlight = Math.min(out.inFlight, edgeRequests + out.downstreamRequests);
  out.cells = cells.size;
  const pairs = [...cells].map((c) => c.split('\u0000'));
  out.callerZones = new Set(pairs.map((p) => p[0])).size;
  out.methods = new Set(pairs.map((p) => p[1])).size;
  if (cyclic) {
    // The loader refuses call-graph cycles; a scenario that has one anyway cannot be bounded.
    out.downstreamRequests = out.requestsWorstCase = out.attempts = out.attemptsWorstCase = Infinity;
  }
  return out;
}
