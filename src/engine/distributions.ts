/**
 * Distributions of SPEC 2.1 as samplers over a seeded stream. Values are in milliseconds (or any
 * unit the caller chooses); parsing units from text belongs to the scenario layer.
 */
import type { Rng } from './random.js';

/** A parsed distribution. */
export type DistSpec =
  | { dist: 'constant'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  | { dist: 'exponential'; mean: number }
  | { dist: 'normal'; mean: number; stddev: number }
  | { dist: 'lognormal'; p50: number; p99: number }
  | { dist: 'lognormal'; mu: number; sigma: number }
  | { dist: 'pareto'; scale: number; shape: number }
  | { dist: 'empirical'; min?: number; p50: number; p90: number; p99: number; p999: number; max: number }
  | { dist: 'mixture'; components: Array<{ weight: number } & DistSpec> };

/** Draws one value per call. */
export type Sampler = () => number;

/** z such that Phi(z) = 0.99. */
export const Z99 = 2.3263478740408408;

/** (mu, sigma) of the underlying normal for a lognormal given by its median and 99th percentile. */
export function lognormalParams(spec: { p50: number; p99: number }): { mu: number; sigma: number } {
  const mu = Math.log(spec.p50);
  return { mu, sigma: Math.max(0, (Math.log(spec.p99) - mu) / Z99) };
}

/** A standard normal draw (Box-Muller, one of the pair). */
export function standardNormal(rng: Rng): number {
  let u = rng.next();
  while (u === 0) u = rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Builds a sampler for `spec` drawing from `rng`. */
export function sampler(spec: DistSpec, rng: Rng): Sampler {
  switch (spec.dist) {
    case 'constant': {
      const v = spec.value;
      return () => v;
    }
    case 'uniform': {
      const { min, max } = spec;
      return () => min + (max - min) * rng.next();
    }
    case 'exponential': {
      const mean = spec.mean;
      return () => -mean * Math.log(1 - rng.next());
    }
    case 'normal': {
      const { mean, stddev } = spec;
      return () => {
        // Truncated at 0 by rejection; a distribution mostly below 0 degrades to 0 after 64 tries.
        for (let i = 0; i < 64; i++) {
          const x = mean + stddev * standardNormal(rng);
          if (x >= 0) return x;
        }
        return 0;
      };
    }
    case 'lognormal': {
      const { mu, sigma } = 'p50' in spec ? lognormalParams(spec) : spec;
      return () => Math.exp(mu + sigma * standardNormal(rng));
    }
    case 'pareto': {
      const { scale, shape } = spec;
      return () => scale / Math.pow(1 - rng.next(), 1 / shape);
    }
    case 'empirical': {
      const qs = [0, 0.5, 0.9, 0.99, 0.999, 1];
      const vs = [spec.min ?? 0, spec.p50, spec.p90, spec.p99, spec.p999, spec.max];
      return () => {
        const u = rng.next();
        let i = 1;
        while (i < qs.length - 1 && u > qs[i]!) i++;
        const q0 = qs[i - 1]!;
        const q1 = qs[i]!;
        return vs[i - 1]! + ((vs[i]! - vs[i - 1]!) * (u - q0)) / (q1 - q0);
      };
    }
    case 'mixture': {
      const parts = spec.components.map((c) => ({ weight: c.weight, draw: sampler(c, rng) }));
      const total = parts.reduce((s, p) => s + p.weight, 0);
      return () => {
        let r = rng.next() * total;
        for (const p of parts) {
          r -= p.weight;
          if (r < 0) return p.draw();
        }
        return parts[parts.length - 1]!.draw();
      };
    }
  }
}

/** The exact q-quantile where it has a closed form, otherwise undefined. */
export function quantile(spec: DistSpec, q: number): number | undefined {
  switch (spec.dist) {
    case 'constant':
      return spec.value;
    case 'uniform':
      return spec.min + (spec.max - spec.min) * q;
    case 'exponential':
      return -spec.mean * Math.log(1 - q);
    case 'pareto':
      return spec.scale / Math.pow(1 - q, 1 / spec.shape);
    default:
      return undefined;
  }
}
