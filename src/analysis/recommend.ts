/**
 * Timeout and retry recommendations for every reference of a scenario: each (consumer group,
 * service, method) at the edge, and each downstream reference of a call graph (SPEC 2.10), whose
 * `consumer` is the calling provider group. They are computed from the leaves up, so a caller's
 * timeout covers what it waits for downstream with the downstream recommendations in force, then
 * verified by re-running the scenario with every recommendation applied and judged on the
 * objective (`recommend-verification.ts`, `recommend-verdict.ts`; `--verify-grid`'s sweep around
 * each answer is `recommend-verify-grid.ts`'s). This file derives them. The rule for one reference:
 * - the latency its caller sees is the provider's own service time plus, for a method that calls
 *   other services, every downstream call as failover makes it (`recommend-latency.ts`);
 * - idempotent methods: timeout = P99(that latency) + P99(RTT) + margin, so about 1% of attempts
 *   time out, and enough retries that all attempts timing out is rarer than the target rate;
 * - non-idempotent methods: no retries (a retry is a duplicate write), so the timeout covers the
 *   (1 - target) quantile of that latency instead;
 * - a method whose pool its own retries already help exhaust gets no retries; a method whose
 *   providers the fault timeline takes away (a dark zone, crashes, a partition) keeps at least the
 *   retries it has as written, since they are what rides the fault out.
 * The margin is 10% of the rest, at least 5 ms. Quantiles come from 200,000 seeded draws.
 * A recommendation the re-run finds worse is `rejected`; the alternatives then tried (its retries
 * as written, its timeout as written, both as written) are verified too, and the best is reported.
 */
import { sampler, type DistSpec } from '../engine/distributions.js';
import { RandomStreams } from '../engine/random.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT } from '../dubbo/constants.js';
import { overloadedPools } from './pool-load.js';
import { CallGraphLatency, zonesServing, type InForce } from './recommend-latency.js';
import type { ConsumerGroupSpec, FaultSpec, ReferenceSpec, Scenario } from '../model/types.js';

/** What a reference has as written (Dubbo's defaults where the scenario is silent). */
export interface ReferenceValues {
  timeoutMs: number;
  retries: number;
}

/** One recommendation before verification. */
export interface Advice {
  consumer: string;
  zone: string;
  service: string;
  method: string;
  timeoutMs: number;
  retries: number;
  inputs: {
    /** The quantile of the latency the caller sees (own service time plus downstream calls). */
    p99ServiceMs: number;
    p99RttMs: number;
    marginMs: number;
    serviceQuantile: number;
    idempotent: boolean;
    /** The same quantile of the method's own service time alone (equal to `p99ServiceMs` without calls). */
    ownServiceMs: number;
    /** The longest a provider waits downstream with the recommended timeouts and retries: Σ (or max, parallel) of (retries + 1) × timeout. */
    downstreamBudgetMs: number;
    /**
     * What the timeout covers before RTT and margin: `p99ServiceMs`, or, with calls and no timeout
     * countdown, at least `ownServiceMs + downstreamBudgetMs` (timeout = ⌈coveredMs + p99RttMs + marginMs⌉).
     */
    coveredMs: number;
  };
  reason: string;
  /** The reference as written. */
  asWritten: ReferenceValues;
  /** Downstream references only: the `service.method`s whose `calls:` hold this reference. */
  calledBy?: string[];
}

const DRAWS = 200_000;

/** The q-quantile of a distribution from seeded draws (deterministic). */
export function distQuantile(dist: DistSpec, q: number, seed = 1): number {
  const draw = sampler(dist, new RandomStreams(seed).stream('recommend'));
  const xs = new Float64Array(DRAWS);
  for (let i = 0; i < DRAWS; i++) xs[i] = draw();
  xs.sort();
  return xs[Math.min(DRAWS - 1, Math.floor(q * DRAWS))]!;
}

const round = (x: number) => Math.ceil(x);
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const fmt = (x: number) => x.toFixed(1);

type MethodReference = Omit<ReferenceSpec, 'methods'>;

/** A consumer group's reference attribute: method level over interface level over `consumerDefaults`. */
function edgeAttribute<K extends keyof MethodReference>(c: ConsumerGroupSpec, service: string, method: string, key: K): MethodReference[K] {
  const ref = c.reference[service];
  return ref?.methods[method]?.[key] ?? ref?.[key] ?? c.consumerDefaults[key];
}

/** A downstream reference's attribute: method level over interface level. */
function downstreamAttribute<K extends keyof MethodReference>(ref: ReferenceSpec, method: string, key: K): MethodReference[K] {
  return ref.methods[method]?.[key] ?? ref[key];
}

// Failover (the default) and zoneAwareFailover retry failed attempts; the other clusters make one.
const failsOver = (cluster: string | undefined) => cluster === undefined || cluster === 'failover' || cluster === 'zoneAwareFailover';

const countdownOn = (parameters: Record<string, string> | undefined) => parameters?.['enable-timeout-countdown'] === 'true';

/** A downstream reference of the call graph: who calls it and what it has as written. */
interface DownstreamRef {
  service: string;
  method: string;
  /** `service.method`s whose `calls:` hold it. */
  calledBy: string[];
  /** The provider groups that run those callers (in scenario order). */
  groups: Array<{ name: string; zone: string }>;
  asWritten: ReferenceValues;
  failsOver: boolean;
  countdown: boolean;
}

/** Every downstream reference, by `service.method`, with the groups that call it. */
function downstreamRefs(scenario: Scenario): Map<string, DownstreamRef> {
  const refs = new Map<string, DownstreamRef>();
  for (const [caller, spec] of Object.entries(scenario.services)) {
    for (const [callerMethod, m] of Object.entries(spec.methods)) {
      const groups = scenario.providers.filter((g) => g.services.includes(caller)).map((g) => ({ name: g.name, zone: g.zone }));
      for (const c of m.calls) {
        const key = `${c.service}.${c.method}`;
        let ref = refs.get(key);
        if (ref === undefined) {
          ref = {
            service: c.service,
            method: c.method,
            calledBy: [],
            groups: [],
            asWritten: {
              timeoutMs: downstreamAttribute(c.reference, c.method, 'timeoutMs') ?? DEFAULT_TIMEOUT,
              retries: Math.max(0, downstreamAttribute(c.reference, c.method, 'retries') ?? DEFAULT_RETRIES),
            },
            failsOver: failsOver(downstreamAttribute(c.reference, c.method, 'cluster')),
            countdown: countdownOn(downstreamAttribute(c.reference, c.method, 'parameters')),
          };
          refs.set(key, ref);
        }
        ref.calledBy.push(`${caller}.${callerMethod}`);
        for (const g of groups) if (!ref.groups.some((x) => x.name === g.name)) ref.groups.push(g);
      }
    }
  }
  return refs;
}

/** Faults that take providers of `service` away from a caller in `zone` (the retries ride these out). */
function providerLoss(scenario: Scenario, service: string, zones: string[]): FaultSpec[] {
  const serving = scenario.providers.filter((g) => g.services.includes(service));
  const hits = (t: { zone?: string; service?: string; group?: string; instance?: string }) =>
    serving.some(
      (g) =>
        (t.zone === undefined || t.zone === g.zone) &&
        (t.service === undefined || g.services.includes(t.service) && t.service === service) &&
        (t.group === undefined || t.group === g.name) &&
        (t.instance === undefined || t.instance.slice(0, t.instance.lastIndexOf('#')) === g.name),
    );
  return scenario.faults.filter((f) => {
    const a = f.action;
    switch (a.kind) {
      case 'zoneDown':
      case 'crash':
      case 'restart':
      case 'rollingRestart':
        return hits(a);
      case 'partition': {
        const [x, y] = a.zones;
        return serving.some((g) => zones.some((z) => (z === x && g.zone === y) || (z === y && g.zone === x)));
      }
      default:
        return false;
    }
  });
}

const faultWords = (f: FaultSpec) => `${f.label} (${f.action.kind} at ${f.atMs / 1000} s)`;

/** Computes the recommendations (without verification runs), edges first, then downstream references leaves first. */
export function recommendations(scenario: Scenario, targetTimeoutRate: number): Advice[] {
  const overloaded = overloadedPools(scenario);
  const refs = downstreamRefs(scenario);
  // Downstream recommendations by `service.method`, computed on first use (leaves first: a
  // reference's own latency needs its callees' recommendations).
  const downstream = new Map<string, Omit<Advice, 'consumer' | 'zone'>>();
  const order: string[] = [];
  const formulaRetries = Math.max(0, Math.ceil(Math.log(targetTimeoutRate) / Math.log(0.01)) - 1);
  const inForce = (service: string, method: string): InForce => {
    const d = downstreamAdvice(`${service}.${method}`);
    return { timeoutMs: d.timeoutMs, retries: refs.get(`${service}.${method}`)!.failsOver ? d.retries : 0 };
  };
  const latency = new CallGraphLatency(scenario, inForce, (d, q) => distQuantile(d, q));

  /** The common part: the quantile the caller sees, the RTT, the margin, the retries and the words. */
  function advise(
    service: string,
    method: string,
    callerZones: string[],
    asWritten: ReferenceValues,
    exhausted: (typeof overloaded)[number] | undefined,
    countdown: boolean,
  ): Omit<Advice, 'consumer' | 'zone' | 'asWritten' | 'calledBy'> {
    const spec = scenario.services[service]!.methods[method]!;
    const serviceQuantile = spec.idempotent ? 0.99 : 1 - targetTimeoutRate;
    const ownServiceMs = distQuantile(spec.serviceTime, serviceQuantile);
    const providerZones = zonesServing(scenario, service);
    const p99RttMs = Math.max(0, ...callerZones.flatMap((from) => providerZones.map((to) => latency.p99RttMs(from, to))));
    let seenMs = ownServiceMs;
    let downstreamBudgetMs = 0;
    const downstreamWords: string[] = [];
    if (spec.calls.length > 0) {
      // The slowest zone that serves it: the draws of what one execution there holds its thread for.
      seenMs = Math.max(ownServiceMs, ...providerZones.map((z) => latency.executionQuantile(service, method, z, serviceQuantile, DRAWS)));
      const budgets = spec.calls.map((c) => {
        const f = inForce(c.service, c.method);
        downstreamWords.push(`${c.service}.${c.method} (${f.timeoutMs} ms × ${f.retries + 1} ${f.retries === 0 ? 'attempt' : 'attempts'})`);
        return f.timeoutMs * (f.retries + 1);
      });
      downstreamBudgetMs = spec.parallel ? Math.max(...budgets) : budgets.reduce((s, x) => s + x, 0);
    }
    // Without timeout countdown a downstream attempt runs its own full timeout whatever the caller
    // has left, so the caller's timeout covers its own time plus the whole downstream budget: it
    // never gives up (and retries, while the first execution keeps working) before downstream has
    // answered or timed out. With countdown the caller's timeout caps downstream, so it needs only
    // the quantile of what a call waits for.
    const coveredMs = countdown ? seenMs : Math.max(seenMs, ownServiceMs + downstreamBudgetMs);
    const marginMs = Math.max(5, 0.1 * (coveredMs + p99RttMs));
    const timeoutMs = round(coveredMs + p99RttMs + marginMs);
    const losses = exhausted === undefined ? providerLoss(scenario, service, callerZones) : [];
    // The formula's retries for this method: none for a write (a retry of an attempt that timed out
    // on a live provider is a duplicate write) or for a pool its retries help exhaust.
    const ownRetries = !spec.idempotent || exhausted !== undefined ? 0 : formulaRetries;
    // Retries that ride out a fault are kept, writes included: an attempt to a dark provider never
    // executes, so its retry duplicates nothing, while cutting it fails the call.
    const keepRetries = losses.length > 0 && asWritten.retries > ownRetries;
    const retries = keepRetries ? asWritten.retries : ownRetries;

    const q = `${(serviceQuantile * 100).toFixed(serviceQuantile === 0.99 ? 0 : 2)}th percentile`;
    const seen =
      spec.calls.length === 0
        ? `the ${q} of the service time ${fmt(seenMs)} ms`
        : `the ${q} of what a call waits for ${fmt(seenMs)} ms (own service time ${fmt(ownServiceMs)} ms at that percentile, plus ` +
          `${spec.parallel ? 'the slowest of the parallel calls' : 'the downstream calls'} ${downstreamWords.join(spec.parallel ? ', ' : ' + ')} ` +
          `with their recommended timeouts and retries, each retry waiting the full timeout)`;
    const covered =
      coveredMs > seenMs
        ? `its own service time ${fmt(ownServiceMs)} ms + the downstream budget ${fmt(downstreamBudgetMs)} ms ` +
          `(${downstreamWords.join(spec.parallel ? ', the slowest of ' : ' + ')}: each attempt may wait its full timeout, and ` +
          `the ${q} of what a call waits for is only ${fmt(seenMs)} ms)`
        : seen;
    const sum = `${covered} + P99 RTT ${fmt(p99RttMs)} ms + margin ${fmt(marginMs)} ms`;
    const Sum = sum[0]!.toUpperCase() + sum.slice(1);
    let reason: string;
    if (!spec.idempotent && keepRetries) {
      reason =
        `not idempotent, so the timeout covers ${sum}; keeps the ${asWritten.retries} ${asWritten.retries === 1 ? 'retry' : 'retries'} it has ` +
        `as written (a write alone would get none): ${losses.map(faultWords).join(', ')} ${losses.length === 1 ? 'takes' : 'take'} ` +
        `providers away, an attempt to a dark provider never executes (its retry duplicates nothing), and cutting the retries ` +
        `would fail those calls; a duplicate write needs an attempt on a live provider to time out, which this timeout makes rare ` +
        `(see dup writes below).`;
    } else if (!spec.idempotent) {
      reason = `not idempotent: no retries (a retry would be a duplicate write), so the timeout covers ${sum}.`;
    } else if (exhausted !== undefined) {
      reason =
        `${Sum}. No retries: ${exhausted.pool === 'shared' ? 'the shared pool' : `the ${exhausted.pool} executor`} of provider group ` +
        `${exhausted.group} is offered ${exhausted.offered.toFixed(0)} threads of its ${exhausted.capacity} ${exhausted.phase}, ` +
        `and this method's retries are part of that load (a timed-out attempt keeps its thread), so retries would keep the pool ` +
        `exhausted and get every call on it rejected.`;
    } else if (keepRetries) {
      reason =
        `${Sum}; keeps the ${asWritten.retries} retries it has as written (the formula alone gives ${formulaRetries}): ` +
        `${losses.map(faultWords).join(', ')} ${losses.length === 1 ? 'takes' : 'take'} providers away, and until the registry ` +
        `drops them each retry is another chance at a live provider.`;
    } else {
      reason =
        `${Sum}; ~1% of attempts time out, so ${retries} ${retries === 1 ? 'retry keeps' : 'retries keep'} the timeout rate under ${targetTimeoutRate}.`;
    }
    if (countdown) {
      reason +=
        ` Timeout countdown is on: each downstream attempt waits at most what is left of this call's ${timeoutMs} ms, ` +
        `and a downstream retry with nothing left ends at once (TIMEOUT_TERMINATE), so the downstream timeouts are caps within it` +
        (downstreamBudgetMs > timeoutMs ? ` and this timeout need not cover their ${fmt(downstreamBudgetMs)} ms budget.` : '.');
    }
    return {
      service,
      method,
      timeoutMs,
      retries,
      inputs: {
        p99ServiceMs: round3(seenMs),
        p99RttMs: round3(p99RttMs),
        marginMs: round3(marginMs),
        serviceQuantile,
        idempotent: spec.idempotent,
        ownServiceMs: round3(ownServiceMs),
        downstreamBudgetMs: round3(downstreamBudgetMs),
        coveredMs: round3(coveredMs),
      },
      reason,
    };
  }

  function downstreamAdvice(key: string): Omit<Advice, 'consumer' | 'zone'> {
    let d = downstream.get(key);
    if (d === undefined) {
      const ref = refs.get(key)!;
      const names = new Set(ref.groups.flatMap((g) => [g.name, scenario.providers.find((p) => p.name === g.name)!.application]));
      const exhausted = exhaustedBy(overloaded, (c) => names.has(c.consumer), ref.service, ref.method);
      d = {
        ...advise(ref.service, ref.method, [...new Set(ref.groups.map((g) => g.zone))], ref.asWritten, exhausted, ref.countdown),
        asWritten: ref.asWritten,
        calledBy: ref.calledBy,
      };
      if (ref.groups.length > 1) d.reason += ` One setting for ${ref.groups.map((g) => g.name).join(', ')} (the reference is the calling method's).`;
      downstream.set(key, d);
      order.push(key);
    }
    return d;
  }

  const out: Advice[] = [];
  const seen = new Set<string>();
  for (const group of scenario.consumers) {
    for (const key of Object.keys(group.calls)) {
      const dot = key.lastIndexOf('.');
      const service = key.slice(0, dot);
      const method = key.slice(dot + 1);
      const id = `${group.application}\u0000${group.zone}\u0000${key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const asWritten = {
        timeoutMs: edgeAttribute(group, service, method, 'timeoutMs') ?? DEFAULT_TIMEOUT,
        retries: Math.max(0, edgeAttribute(group, service, method, 'retries') ?? DEFAULT_RETRIES),
      };
      const spec = scenario.services[service]!.methods[method]!;
      // A pool this method's own retries already help exhaust (as written): more attempts only make it worse.
      const exhausted = spec.idempotent
        ? exhaustedBy(overloaded, (c) => c.consumer === group.application && c.zone === group.zone, service, method)
        : undefined;
      const countdown = countdownOn(edgeAttribute(group, service, method, 'parameters'));
      out.push({ consumer: group.application, zone: group.zone, ...advise(service, method, [group.zone], asWritten, exhausted, countdown), asWritten });
    }
  }
  for (const key of refs.keys()) downstreamAdvice(key);
  for (const key of order) {
    const d = downstream.get(key)!;
    for (const g of refs.get(key)!.groups) out.push({ consumer: g.name, zone: g.zone, ...d });
  }
  return out;
}

function exhaustedBy(
  overloaded: ReturnType<typeof overloadedPools>,
  mine: (c: { consumer: string; zone: string }) => boolean,
  service: string,
  method: string,
): ReturnType<typeof overloadedPools>[number] | undefined {
  // One instance slowed on its own is not fed by retries: failover's reselect sends them to the others.
  return overloaded.find(
    (p) => p.instance === undefined && p.contributions.some((c) => mine(c) && c.service === service && c.method === method && c.attemptsPerCall > 1 + 1e-9),
  );
}

/** A copy of the scenario with every recommendation applied at method level (downstream ones on the calling methods' `calls:`). */
export function applyRecommendations(scenario: Scenario, recs: Array<Pick<Advice, 'consumer' | 'zone' | 'service' | 'method' | 'timeoutMs' | 'retries' | 'calledBy'>>): Scenario {
  const copy: Scenario = structuredClone(scenario);
  for (const rec of recs) {
    if (rec.calledBy !== undefined) {
      for (const caller of rec.calledBy) {
        const dot = caller.lastIndexOf('.');
        const spec = copy.services[caller.slice(0, dot)]!.methods[caller.slice(dot + 1)]!;
        for (const c of spec.calls) {
          if (c.service !== rec.service || c.method !== rec.method) continue;
          const m = (c.reference.methods[rec.method] ??= { parameters: {} });
          m.timeoutMs = rec.timeoutMs;
          m.retries = rec.retries;
        }
      }
      continue;
    }
    for (const group of copy.consumers) {
      if (group.application !== rec.consumer || group.zone !== rec.zone) continue;
      const ref = (group.reference[rec.service] ??= { parameters: {}, methods: {} });
      const m = (ref.methods[rec.method] ??= { parameters: {} });
      m.timeoutMs = rec.timeoutMs;
      m.retries = rec.retries;
    }
  }
  return copy;
}
