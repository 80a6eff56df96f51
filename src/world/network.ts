/**
 * The network between zones: a round-trip-time distribution per ordered zone pair (each message
 * draws rtt/2), partitions that lose messages in both directions, and RTT changes from faults.
 * It does not know about RPC; callers ask for a one-way delay and get -1 when the message is lost.
 * It also answers how far apart two zones are (`medianRttMs`, the median of the configured RTT
 * distribution), which zone-aware routing ranks zones by.
 */
import { lognormalParams, measuredCdf, quantile, sampler, type DistSpec, type Sampler } from '../engine/distributions.js';
import type { Rng } from '../engine/random.js';
import type { NetworkSpec } from '../model/types.js';

/** One-way delays between zones. */
export class Network {
  readonly #rng: Rng;
  readonly #zones: string[];
  readonly #partitions = new Set<string>();
  // PERF: what `oneWayMs` reads on every message, by zone then zone: no pair key is built per message.
  readonly #links = new Map<string, Map<string, Link>>();
  /** The configured distribution per ordered pair (what `medianRttMs` reads; faults do not change it). */
  readonly #specs = new Map<string, DistSpec>();
  readonly #medians = new Map<string, number>();

  constructor(spec: NetworkSpec, zones: string[], rng: Rng) {
    this.#rng = rng;
    this.#zones = zones;
    for (const a of zones) {
      for (const b of zones) {
        const dist = a === b ? spec.sameZone : spec.default;
        this.#setSampler(a, b, sampler(dist, rng));
        this.#specs.set(pairKey(a, b), dist);
      }
    }
    for (const p of spec.pairs) {
      this.#setSampler(p.from, p.to, sampler(p.dist, rng));
      this.#specs.set(pairKey(p.from, p.to), p.dist);
    }
  }

  /**
   * The median round trip from zone `from` to zone `to` as the scenario configures it, or undefined
   * for a zone the network does not know. It is the topology a deployment's zone-aware routing is
   * configured with: an `rtt` fault changes the draws, not this answer.
   */
  medianRttMs(from: string, to: string): number | undefined {
    const key = pairKey(from, to);
    let m = this.#medians.get(key);
    if (m === undefined) {
      const spec = this.#specs.get(key);
      if (spec === undefined) return undefined;
      this.#medians.set(key, (m = medianOf(spec)));
    }
    return m;
  }

  /** A one-way delay in ms for a message from zone `from` to zone `to` (rtt/2 of one draw), or -1 if lost. */
  oneWayMs(from: string, to: string): number {
    const link = this.#links.get(from)?.get(to);
    if (link === undefined) {
      if (this.#partitions.has(pairKey(from, to))) return -1;
      throw new Error(`no RTT for ${from}->${to}`);
    }
    return oneWayMsOn(link);
  }

  /**
   * The link from zone `from` to zone `to`, for a caller that sends on it often: `oneWayMsOn(link)`
   * then draws what `oneWayMs(from, to)` would, without the lookups. Undefined for a pair the
   * network does not know (use `oneWayMs`).
   */
  link(from: string, to: string): Link | undefined {
    return this.#links.get(from)?.get(to);
  }

  /** True when messages between the zones are lost. */
  isPartitioned(a: string, b: string): boolean {
    return this.#partitions.has(pairKey(a, b));
  }

  /** Loses every message between `a` and `b`, both directions. */
  partition(a: string, b: string): void {
    this.#partitions.add(pairKey(a, b));
    this.#partitions.add(pairKey(b, a));
    this.#setCut(a, b, true);
  }

  /** Undoes `partition`. */
  heal(a: string, b: string): void {
    this.#partitions.delete(pairKey(a, b));
    this.#partitions.delete(pairKey(b, a));
    this.#setCut(a, b, false);
  }

  /** Replaces the RTT distribution between `a` and `b` (both directions); returns a function that restores the old ones. */
  setRtt(a: string, b: string, dist: DistSpec): () => void {
    const ab = this.#links.get(a)!.get(b)!.sample;
    const ba = this.#links.get(b)!.get(a)!.sample;
    const s = sampler(dist, this.#rng);
    this.#setSampler(a, b, s);
    this.#setSampler(b, a, s);
    return () => {
      this.#setSampler(a, b, ab);
      this.#setSampler(b, a, ba);
    };
  }

  #setSampler(from: string, to: string, sample: Sampler): void {
    let byTo = this.#links.get(from);
    if (byTo === undefined) this.#links.set(from, (byTo = new Map()));
    const link = byTo.get(to);
    if (link !== undefined) link.sample = sample;
    else byTo.set(to, { sample, partitioned: this.#partitions.has(pairKey(from, to)) });
  }

  // Partitions cut both directions, as the partition set records them.
  #setCut(a: string, b: string, cut: boolean): void {
    for (const [from, to] of [[a, b], [b, a]] as const) {
      const link = this.#links.get(from)?.get(to);
      if (link !== undefined) link.partitioned = cut;
    }
  }

  get zones(): readonly string[] {
    return this.#zones;
  }
}

/**
 * One ordered zone pair as `oneWayMs` reads it: its current sampler and whether it is cut. Faults
 * change it in place, so a holder (`Network.link`) sees them.
 */
export interface Link {
  sample: Sampler;
  partitioned: boolean;
}

function pairKey(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

/** The median of a distribution: closed form where there is one, else bisection on its CDF (no draws). */
export function medianOf(spec: DistSpec): number {
  switch (spec.dist) {
    case 'constant':
      return spec.value;
    case 'uniform':
      return (spec.min + spec.max) / 2;
    case 'exponential':
      return spec.mean * Math.LN2;
    case 'pareto':
      return spec.scale * Math.pow(2, 1 / spec.shape);
    case 'lognormal':
      return 'p50' in spec ? spec.p50 : Math.exp(spec.mu);
    case 'empirical':
      return spec.p50;
    case 'normal':
    case 'mixture': {
      const cdf = cdfOf(spec);
      let hi = 1;
      for (let i = 0; i < 200 && cdf(hi) < 0.5; i++) hi *= 2;
      let lo = 0;
      for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
        const mid = (lo + hi) / 2;
        if (cdf(mid) < 0.5) lo = mid;
        else hi = mid;
      }
      return hi;
    }
    case 'samples':
    case 'histogram':
      return quantile(spec, 0.5)!;
  }
}

// P(X <= x) of what the sampler draws (the normal is truncated at 0 as the sampler truncates it).
function cdfOf(spec: DistSpec): (x: number) => number {
  switch (spec.dist) {
    case 'constant':
      return (x) => (x >= spec.value ? 1 : 0);
    case 'uniform':
      return (x) => (x >= spec.max ? 1 : x <= spec.min ? 0 : (x - spec.min) / (spec.max - spec.min));
    case 'exponential':
      return (x) => (x <= 0 ? 0 : 1 - Math.exp(-x / spec.mean));
    case 'pareto':
      return (x) => (x < spec.scale ? 0 : 1 - Math.pow(spec.scale / x, spec.shape));
    case 'lognormal': {
      const { mu, sigma } = 'p50' in spec ? lognormalParams(spec) : spec;
      return (x) => (x <= 0 ? 0 : sigma === 0 ? (Math.log(x) >= mu ? 1 : 0) : phi((Math.log(x) - mu) / sigma));
    }
    case 'empirical': {
      const qs = [0, 0.5, 0.9, 0.99, 0.999, 1];
      const vs = [spec.min ?? 0, spec.p50, spec.p90, spec.p99, spec.p999, spec.max];
      return (x) => {
        if (x < vs[0]!) return 0;
        for (let i = 1; i < vs.length; i++) {
          if (x < vs[i]!) return qs[i - 1]! + ((qs[i]! - qs[i - 1]!) * (x - vs[i - 1]!)) / (vs[i]! - vs[i - 1]!);
        }
        return 1;
      };
    }
    case 'normal': {
      const { mean, stddev } = spec;
      if (stddev <= 0) return (x) => (x >= Math.max(0, mean) ? 1 : 0);
      const below = phi(-mean / stddev);
      // Mostly below 0: the sampler ends at 0 after its tries.
      if (1 - below < 1e-12) return (x) => (x >= 0 ? 1 : 0);
      return (x) => (x < 0 ? 0 : (phi((x - mean) / stddev) - below) / (1 - below));
    }
    case 'samples':
    case 'histogram':
      return measuredCdf(spec);
    case 'mixture': {
      const parts = spec.components.map((c) => ({ weight: c.weight, cdf: cdfOf(c) }));
      const total = parts.reduce((s, p) => s + p.weight, 0);
      return (x) => parts.reduce((s, p) => s + p.weight * p.cdf(x), 0) / total;
    }
  }
}

// The standard normal CDF, from erfc (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7).
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x - 1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
        t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** `Network.oneWayMs` on a link from `Network.link`: one way in ms, or -1 when messages are lost. */
export function oneWayMsOn(link: Link): number {
  return link.partitioned ? -1 : link.sample() / 2;
}
