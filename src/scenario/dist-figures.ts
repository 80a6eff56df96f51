/**
 * Closed-form figures of a service-time or RTT distribution for the cost estimate (estimate.ts,
 * estimate-call-graph.ts): its mean, its median and its tail P(X > x), without drawing anything,
 * so that estimating a scenario of a thousand methods (or a sweep of thousands of cells) stays
 * cheap. Each follows what the simulator's sampler draws (engine/distributions.ts): a normal is
 * cut at 0 by rejection, measured data are linear between order statistics or uniform within a
 * bucket. It owns no cost model.
 */
import { errorFunction } from 'simple-statistics';
import type { DistSpec } from '../engine/distributions.js';
import { lognormalParams, measuredCdf, measuredMean, quantile } from '../engine/distributions.js';

/** A distribution this model does not know (added later) counts as this constant (ms). */
const UNKNOWN_MS = 20;

/** The quantiles of an `empirical` distribution, with its values in the same order. */
function empiricalPoints(d: Extract<DistSpec, { dist: 'empirical' }>): { qs: number[]; vs: number[] } {
  return { qs: [0, 0.5, 0.9, 0.99, 0.999, 1], vs: [d.min ?? 0, d.p50, d.p90, d.p99, d.p999, d.max] };
}

/** P(Z > z) of a standard normal. */
function normalTail(z: number): number {
  if (z === Infinity) return 0;
  if (z === -Infinity) return 1;
  return 0.5 * (1 - errorFunction(z / Math.SQRT2));
}

/** Mean of a distribution in ms (Infinity where it has none). */
export function distMeanMs(d: DistSpec): number {
  switch (d.dist) {
    case 'constant':
      return d.value;
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'exponential':
      return d.mean;
    case 'normal':
      return Math.max(0, d.mean);
    case 'lognormal': {
      const { mu, sigma } = 'p50' in d ? lognormalParams(d) : d;
      return Math.exp(mu + (sigma * sigma) / 2);
    }
    case 'pareto':
      return d.shape > 1 ? (d.scale * d.shape) / (d.shape - 1) : Infinity;
    case 'empirical': {
      // Piecewise linear between the given quantiles: the mean of each piece weighted by its mass.
      const { qs, vs } = empiricalPoints(d);
      let m = 0;
      for (let i = 1; i < qs.length; i++) m += ((qs[i]! - qs[i - 1]!) * (vs[i]! + vs[i - 1]!)) / 2;
      return m;
    }
    case 'mixture': {
      const total = d.components.reduce((s, c) => s + c.weight, 0);
      return total > 0 ? d.components.reduce((s, c) => s + (c.weight / total) * distMeanMs(c), 0) : 0;
    }
    case 'samples':
    case 'histogram':
      // What the simulator draws: linear between order statistics, uniform within each bucket.
      return measuredMean(d);
    default:
      return UNKNOWN_MS;
  }
}

/** P(X > x) for a draw X of `d` (ms). */
export function distTail(d: DistSpec, x: number): number {
  switch (d.dist) {
    case 'constant':
      return x < d.value ? 1 : 0;
    case 'uniform':
      if (x < d.min) return 1;
      if (x >= d.max) return 0;
      return (d.max - x) / (d.max - d.min);
    case 'exponential':
      if (x < 0) return 1;
      return d.mean > 0 ? Math.exp(-x / d.mean) : 0;
    case 'normal': {
      if (x < 0) return 1;
      if (!(d.stddev > 0)) return x < Math.max(0, d.mean) ? 1 : 0;
      // Cut at 0 by rejection: the tail of the part above 0 (a normal almost all below 0 draws 0).
      const above0 = normalTail(-d.mean / d.stddev);
      return above0 > 1e-12 ? normalTail((x - d.mean) / d.stddev) / above0 : 0;
    }
    case 'lognormal': {
      if (x <= 0) return 1;
      const { mu, sigma } = 'p50' in d ? lognormalParams(d) : d;
      if (!(sigma > 0)) return x < Math.exp(mu) ? 1 : 0;
      return normalTail((Math.log(x) - mu) / sigma);
    }
    case 'pareto':
      return x < d.scale ? 1 : Math.pow(d.scale / x, d.shape);
    case 'empirical': {
      const { qs, vs } = empiricalPoints(d);
      if (x < vs[0]!) return 1;
      for (let i = 1; i < vs.length; i++) {
        if (x < vs[i]!) return 1 - (qs[i - 1]! + ((qs[i]! - qs[i - 1]!) * (x - vs[i - 1]!)) / (vs[i]! - vs[i - 1]!));
      }
      return 0;
    }
    case 'mixture': {
      const total = d.components.reduce((s, c) => s + c.weight, 0);
      return total > 0 ? d.components.reduce((s, c) => s + (c.weight / total) * distTail(c, x), 0) : 0;
    }
    case 'samples':
    case 'histogram':
      return 1 - measuredCdf(d)(x);
    default:
      return x < UNKNOWN_MS ? 1 : 0;
  }
}

/** The median of a distribution in ms (the mean where it has no closed form: a mixture, a normal cut at 0). */
export function distMedianMs(d: DistSpec): number {
  switch (d.dist) {
    case 'lognormal':
      return Math.exp('p50' in d ? lognormalParams(d).mu : d.mu);
    case 'empirical':
      return d.p50;
    case 'normal':
    case 'mixture':
      return distMeanMs(d);
    default:
      return quantile(d, 0.5) ?? distMeanMs(d);
  }
}
