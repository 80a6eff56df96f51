import { errorFunction, inverseErrorFunction } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { lognormalParams, quantile, sampler, Z99, type DistSpec } from '../../src/engine/distributions.js';
import { RandomStreams } from '../../src/engine/random.js';

const N = 200_000;

/** N draws of `spec` from a fixed-seed stream named after the test. */
function drawAll(spec: DistSpec, name: string, n = N): Float64Array {
  const draw = sampler(spec, new RandomStreams(2024).stream(name));
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = draw();
  return out;
}

/** Fraction of draws at or below x. */
function fractionBelow(xs: Float64Array, x: number): number {
  let k = 0;
  for (const v of xs) if (v <= x) k++;
  return k / xs.length;
}

/**
 * The empirical CDF at the true q-quantile is a binomial proportion: it must be within 4 standard
 * errors sqrt(q(1-q)/n) of q, whatever the distribution.
 */
function expectQuantile(xs: Float64Array, x: number, q: number): void {
  expect(Math.abs(fractionBelow(xs, x) - q)).toBeLessThan(4 * Math.sqrt((q * (1 - q)) / xs.length));
}

/** The sample mean within 4 standard errors of `mean`. */
function expectMean(xs: Float64Array, mean: number, stddev: number): void {
  let sum = 0;
  for (const v of xs) sum += v;
  expect(Math.abs(sum / xs.length - mean)).toBeLessThan((4 * stddev) / Math.sqrt(xs.length));
}

const phi = (z: number): number => 0.5 * (1 + errorFunction(z / Math.SQRT2));

describe('distributions', () => {
  it('constant always returns its value', () => {
    expect([...drawAll({ dist: 'constant', value: 0.2 }, 'c', 5)]).toEqual([0.2, 0.2, 0.2, 0.2, 0.2]);
  });

  it('uniform stays in [min, max) with the right mean and quantiles', () => {
    const spec: DistSpec = { dist: 'uniform', min: 20, max: 300 };
    const xs = drawAll(spec, 'uniform');
    expect(xs.every((x) => x >= 20 && x < 300)).toBe(true);
    expectMean(xs, 160, 280 / Math.sqrt(12));
    for (const q of [0.1, 0.5, 0.9]) expectQuantile(xs, quantile(spec, q)!, q);
  });

  it('exponential has the given mean and its closed-form quantiles', () => {
    const spec: DistSpec = { dist: 'exponential', mean: 30 };
    const xs = drawAll(spec, 'exponential');
    expectMean(xs, 30, 30);
    for (const q of [0.5, 0.9, 0.99]) expectQuantile(xs, quantile(spec, q)!, q);
  });

  it('normal has the given mean and standard deviation when truncation is negligible', () => {
    const xs = drawAll({ dist: 'normal', mean: 100, stddev: 10 }, 'normal');
    expectMean(xs, 100, 10);
    for (const q of [0.1, 0.5, 0.9]) expectQuantile(xs, 100 + 10 * Math.SQRT2 * inverseErrorFunction(2 * q - 1), q);
  });

  it('normal is truncated at 0 and follows the truncated distribution', () => {
    const xs = drawAll({ dist: 'normal', mean: 1, stddev: 2 }, 'normal-truncated');
    expect(xs.every((x) => x >= 0)).toBe(true);
    const below0 = phi(-0.5);
    for (const x of [0.5, 1, 3]) {
      const q = (phi((x - 1) / 2) - below0) / (1 - below0);
      expectQuantile(xs, x, q);
    }
  });

  it('lognormal given by p50 and p99 has that median and 99th percentile', () => {
    const xs = drawAll({ dist: 'lognormal', p50: 20, p99: 450 }, 'lognormal');
    expectQuantile(xs, 20, 0.5);
    expectQuantile(xs, 450, 0.99);
  });

  it('lognormal given by mu and sigma has mean exp(mu + sigma^2/2)', () => {
    const mu = 2;
    const sigma = 0.5;
    const xs = drawAll({ dist: 'lognormal', mu, sigma }, 'lognormal-mu');
    const mean = Math.exp(mu + (sigma * sigma) / 2);
    const sd = Math.sqrt((Math.exp(sigma * sigma) - 1) * Math.exp(2 * mu + sigma * sigma));
    expectMean(xs, mean, sd);
    expectQuantile(xs, Math.exp(mu), 0.5);
  });

  it('lognormalParams derives sigma from the p50..p99 span', () => {
    const { mu, sigma } = lognormalParams({ p50: 20, p99: 450 });
    expect(mu).toBeCloseTo(Math.log(20), 12);
    expect(Math.exp(mu + sigma * Z99)).toBeCloseTo(450, 9);
  });

  it('pareto starts at scale and has its closed-form quantiles', () => {
    const spec: DistSpec = { dist: 'pareto', scale: 5, shape: 2.5 };
    const xs = drawAll(spec, 'pareto');
    expect(xs.every((x) => x >= 5)).toBe(true);
    for (const q of [0.5, 0.9, 0.99]) expectQuantile(xs, quantile(spec, q)!, q);
  });

  it('empirical hits each given percentile and stays within [min, max]', () => {
    const spec: DistSpec = { dist: 'empirical', min: 1, p50: 10, p90: 40, p99: 200, p999: 900, max: 3000 };
    const xs = drawAll(spec, 'empirical');
    expect(xs.every((x) => x >= 1 && x <= 3000)).toBe(true);
    expectQuantile(xs, 10, 0.5);
    expectQuantile(xs, 40, 0.9);
    expectQuantile(xs, 200, 0.99);
    expectQuantile(xs, 900, 0.999);
  });

  it('empirical interpolates linearly between percentiles', () => {
    const xs = drawAll({ dist: 'empirical', p50: 10, p90: 50, p99: 100, p999: 200, max: 300 }, 'empirical-linear');
    // Halfway between p50 and p90 in probability is halfway in value.
    expectQuantile(xs, 30, 0.7);
    expectQuantile(xs, 5, 0.25);
  });

  it('mixture draws each component with its weight', () => {
    const spec: DistSpec = {
      dist: 'mixture',
      components: [
        { weight: 99, dist: 'lognormal', p50: 20, p99: 80 },
        { weight: 1, dist: 'constant', value: 300 },
      ],
    };
    const xs = drawAll(spec, 'mixture');
    let pauses = 0;
    for (const x of xs) if (x === 300) pauses++;
    expect(Math.abs(pauses / N - 0.01)).toBeLessThan(4 * Math.sqrt((0.01 * 0.99) / N));
    // The lognormal part keeps its median: P(X <= 20) = 0.99 * 0.5.
    expectQuantile(xs, 20, 0.495);
  });

  it('mixture normalizes weights that do not sum to 1', () => {
    const xs = drawAll(
      {
        dist: 'mixture',
        components: [
          { weight: 3, dist: 'constant', value: 1 },
          { weight: 1, dist: 'constant', value: 2 },
        ],
      },
      'mixture-weights',
    );
    expectQuantile(xs, 1, 0.75);
  });

  it('gives the same draws for the same seed and stream', () => {
    const spec: DistSpec = { dist: 'lognormal', p50: 20, p99: 450 };
    expect([...drawAll(spec, 'same', 10)]).toEqual([...drawAll(spec, 'same', 10)]);
  });

  it('has closed-form quantiles only where they exist', () => {
    expect(quantile({ dist: 'constant', value: 7 }, 0.99)).toBe(7);
    expect(quantile({ dist: 'uniform', min: 0, max: 10 }, 0.25)).toBe(2.5);
    expect(quantile({ dist: 'exponential', mean: 1 }, 0.5)).toBeCloseTo(Math.LN2, 12);
    expect(quantile({ dist: 'pareto', scale: 1, shape: 1 }, 0.5)).toBe(2);
    expect(quantile({ dist: 'lognormal', p50: 1, p99: 2 }, 0.5)).toBeUndefined();
    expect(quantile({ dist: 'normal', mean: 1, stddev: 1 }, 0.5)).toBeUndefined();
  });
});

