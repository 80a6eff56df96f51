/**
 * The latency a caller sees from one call into a call graph (SPEC 2.10), for `recommend`: a
 * provider's own service time plus every downstream call it makes on the same thread, each
 * downstream call as Dubbo's failover makes it (every attempt gets the reference's full timeout,
 * a timed-out attempt costs the caller that whole timeout and is retried, and the provider's work
 * is never cancelled), with the downstream timeouts and retries that will be in force. Sequential
 * calls add up; `parallel: true` fan-out takes the slowest. It owns that arithmetic only: which
 * timeouts are in force is the caller's (`recommend.ts`) to say.
 *
 * Approximations, said where they are used: each hop's RTT is drawn from the pair with the highest
 * P99 RTT between the caller's zone and the zones serving the callee (the edge formula's
 * conservative choice), and the callee executes in that zone; queueing for threads, slowdown
 * faults, biz errors and routers are not in the figure (the verification run has them).
 */
import { sampler, type DistSpec, type Sampler } from '../engine/distributions.js';
import type { Rng } from '../engine/random.js';
import { RandomStreams } from '../engine/random.js';
import { rttDist } from '../model/rtt-dist.js';
import type { MethodSpec, Scenario } from '../model/types.js';

/** The timeout and retries a downstream reference will have, by `service.method`. */
export interface InForce {
  timeoutMs: number;
  /** Retries the cluster makes (0 for clusters that do not fail over). */
  retries: number;
}

/** Zones with providers of `service`, in scenario order. */
export function zonesServing(scenario: Scenario, service: string): string[] {
  return [...new Set(scenario.providers.filter((p) => p.services.includes(service) && p.count > 0).map((p) => p.zone))];
}

/** Draws of the whole time one execution of a method holds its thread, for one zone it runs in. */
export class CallGraphLatency {
  readonly #scenario: Scenario;
  readonly #inForce: (service: string, method: string) => InForce;
  readonly #rng: Rng;
  readonly #service = new Map<MethodSpec, Sampler>();
  readonly #rtt = new Map<string, Sampler>();
  readonly #p99Rtt = new Map<string, number>();
  readonly #worstZone = new Map<string, string>();
  /** The quantile function `recommend` uses for RTTs, so both agree on the worst pair. */
  readonly #quantile: (dist: DistSpec, q: number) => number;

  constructor(
    scenario: Scenario,
    inForce: (service: string, method: string) => InForce,
    quantile: (dist: DistSpec, q: number) => number,
    seed = 1,
  ) {
    this.#scenario = scenario;
    this.#inForce = inForce;
    this.#quantile = quantile;
    this.#rng = new RandomStreams(seed).stream('recommend-call-graph');
  }

  /** The zone serving `service` with the highest P99 RTT from `from` (the first in scenario order on ties). */
  worstZone(from: string, service: string): string | undefined {
    const key = `${from}\u0000${service}`;
    if (!this.#worstZone.has(key)) {
      let worst: string | undefined;
      let worstMs = -1;
      for (const z of zonesServing(this.#scenario, service)) {
        const ms = this.p99RttMs(from, z);
        if (ms > worstMs) [worst, worstMs] = [z, ms];
      }
      if (worst !== undefined) this.#worstZone.set(key, worst);
    }
    return this.#worstZone.get(key);
  }

  /** P99 of the RTT between two zones. */
  p99RttMs(from: string, to: string): number {
    const key = `${from}\u0000${to}`;
    let ms = this.#p99Rtt.get(key);
    if (ms === undefined) this.#p99Rtt.set(key, (ms = this.#quantile(rttDist(this.#scenario.network, from, to), 0.99)));
    return ms;
  }

  /** One draw of an execution of `service.method` in `zone`: its service time and its downstream calls. */
  execution(service: string, method: string, zone: string): number {
    const spec = this.#scenario.services[service]!.methods[method]!;
    let serviceDraw = this.#service.get(spec);
    if (serviceDraw === undefined) this.#service.set(spec, (serviceDraw = sampler(spec.serviceTime, this.#rng)));
    let ms = serviceDraw();
    let slowest = 0;
    for (const c of spec.calls) {
      const seen = this.call(c.service, c.method, zone);
      if (spec.parallel) slowest = Math.max(slowest, seen);
      else ms += seen;
    }
    return ms + slowest;
  }

  /** One draw of what a caller in `from` waits for one downstream call, retries included. */
  call(service: string, method: string, from: string): number {
    const to = this.worstZone(from, service);
    const { timeoutMs, retries } = this.#inForce(service, method);
    // No provider anywhere: Dubbo fails the call at once (No provider available).
    if (to === undefined) return 0;
    let waitedMs = 0;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const attemptMs = this.#rttDraw(from, to) + this.execution(service, method, to);
      if (attemptMs <= timeoutMs) return waitedMs + attemptMs;
      waitedMs += timeoutMs;
    }
    return waitedMs;
  }

  /** The q-quantile of `execution` over `draws` seeded draws. */
  executionQuantile(service: string, method: string, zone: string, q: number, draws: number): number {
    const xs = new Float64Array(draws);
    for (let i = 0; i < draws; i++) xs[i] = this.execution(service, method, zone);
    xs.sort();
    return xs[Math.min(draws - 1, Math.floor(q * draws))]!;
  }

  #rttDraw(from: string, to: string): number {
    const key = `${from}\u0000${to}`;
    let draw = this.#rtt.get(key);
    if (draw === undefined) this.#rtt.set(key, (draw = sampler(rttDist(this.#scenario.network, from, to), this.#rng)));
    return draw();
  }
}
