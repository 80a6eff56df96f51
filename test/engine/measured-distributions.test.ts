import { describe, expect, it } from 'vitest';
import {
  measuredCdf,
  measuredMean,
  quantile,
  sampler,
  samplesQuantile,
  type DistSpec,
  type HistogramSpec,
  type SamplesSpec,
} from '../../src/engine/distributions.js';
import { RandomStreams } from '../../src/engine/random.js';

const N = 200_000;

function drawAll(spec: DistSpec, name: string, n = N): Float64Array {
  const draw = sampler(spec, new RandomStreams(7).stream(name));
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = draw();
  return out;
}

const min = (xs: Float64Array) => xs.reduce((m, v) => Math.min(m, v), Infinity);
const max = (xs: Float64Array) => xs.reduce((m, v) => Math.max(m, v), -Infinity);
const fractionAtOrBelow = (xs: Float64Array, x: number) => xs.reduce((k, v) => k + (v <= x ? 1 : 0), 0) / xs.length;

/** The share of draws at or below x is a binomial proportion: within 4 standard errors of the CDF there. */
function expectCdf(xs: Float64Array, x: number, p: number): void {
  const se = Math.sqrt((p * (1 - p)) / xs.length);
  expect(Math.abs(fractionAtOrBelow(xs, x) - p), `P(X <= ${x})`).toBeLessThanOrEqual(4 * se + 1e-12);
}

// The bucket table of SPEC 2.1: { 5ms: 120, 10ms: 480, 25ms: 910, 100ms: 990, +Inf: 1000 }.
const spec21: HistogramSpec = { dist: 'histogram', le: [5, 10, 25, 100], counts: [120, 480, 910, 990], total: 1000 };

describe('samples', () => {
  const values = [4, 10, 12, 13, 20, 35, 80];
  const spec: SamplesSpec = { dist: 'samples', values };

  it('has the quantiles of linear interpolation between order statistics (numpy and R default)', () => {
    expect(samplesQuantile(values, 0)).toBe(4);
    expect(samplesQuantile(values, 0.5)).toBe(13);
    expect(samplesQuantile(values, 1)).toBe(80);
    // h = 0.9 * 6 = 5.4: 35 + 0.4 * (80 - 35)
    expect(samplesQuantile(values, 0.9)).toBeCloseTo(53, 12);
    expect(quantile(spec, 0.25)).toBe(11);
  });

  it('draws stay between the smallest and the largest value and follow the interpolated CDF', () => {
    const xs = drawAll(spec, 'samples');
    expect(min(xs)).toBeGreaterThanOrEqual(4);
    expect(max(xs)).toBeLessThanOrEqual(80);
    const cdf = measuredCdf(spec);
    for (const x of [5, 10, 12.5, 16, 30, 60]) expectCdf(xs, x, cdf(x));
  });

  it('CDF and quantile are inverse of each other', () => {
    const cdf = measuredCdf(spec);
    for (const q of [0.05, 0.3, 0.5, 0.77, 0.95]) expect(cdf(samplesQuantile(values, q))).toBeCloseTo(q, 12);
  });

  it('a single measured value is a constant', () => {
    expect([...drawAll({ dist: 'samples', values: [7] }, 'one', 5)]).toEqual([7, 7, 7, 7, 7]);
  });

  it('the same seed gives the same draws', () => {
    expect([...drawAll(spec, 'same', 10)]).toEqual([...drawAll(spec, 'same', 10)]);
  });
});

describe('histogram', () => {
  it('has the CDF at each upper bound equal to that bucket\'s cumulative share, exactly', () => {
    const cdf = measuredCdf(spec21);
    expect(spec21.le.map(cdf)).toEqual([0.12, 0.48, 0.91, 0.99]);
    expect(cdf(0)).toBe(0);
    expect(cdf(-1)).toBe(0);
  });

  it('is linear inside a bucket, the first bucket starting at 0', () => {
    const cdf = measuredCdf(spec21);
    expect(cdf(2.5)).toBeCloseTo(0.06, 15);
    expect(cdf(7.5)).toBeCloseTo(0.3, 15);
    expect(cdf(17.5)).toBeCloseTo(0.695, 15);
    expect(cdf(62.5)).toBeCloseTo(0.95, 15);
  });

  it('has its quantile at each bucket\'s share equal to the bucket\'s upper bound, and linear in between', () => {
    expect([0.12, 0.48, 0.91, 0.99].map((q) => quantile(spec21, q))).toEqual([5, 10, 25, 100]);
    expect(quantile(spec21, 0.3)).toBeCloseTo(7.5, 12);
    expect(quantile(spec21, 0)).toBe(0);
  });

  it('draws match the bucket shares at every bound and are uniform inside each bucket', () => {
    const xs = drawAll({ ...spec21, max: 300 }, 'histogram');
    const cdf = measuredCdf(spec21);
    for (let i = 0; i < spec21.le.length; i++) {
      expectCdf(xs, spec21.le[i]!, spec21.counts[i]! / spec21.total);
      const from = i === 0 ? 0 : spec21.le[i - 1]!;
      for (const t of [0.25, 0.5, 0.75]) expectCdf(xs, from + t * (spec21.le[i]! - from), cdf(from + t * (spec21.le[i]! - from)));
    }
  });

  it('puts the +Inf bucket at the last finite bound without max, as Prometheus histogram_quantile reports it', () => {
    const xs = drawAll(spec21, 'inf');
    expect(max(xs)).toBe(100);
    expectCdf(xs, 99.999, 0.99);
    expect(quantile(spec21, 0.995)).toBe(100);
    expect(quantile(spec21, 1)).toBe(100);
    expect(measuredCdf(spec21)(100)).toBe(0.99);
    expect(measuredCdf(spec21)(100.001)).toBe(1);
  });

  it('spreads the +Inf bucket uniformly up to max when max is given', () => {
    const spec: HistogramSpec = { ...spec21, max: 300 };
    const xs = drawAll(spec, 'max');
    expect(max(xs)).toBeLessThanOrEqual(300);
    expectCdf(xs, 200, 0.995);
    expect(quantile(spec, 0.995)).toBeCloseTo(200, 12);
    expect(quantile(spec, 1)).toBe(300);
    expect(measuredCdf(spec)(200)).toBeCloseTo(0.995, 15);
  });

  it('never draws inside empty buckets', () => {
    const spec: HistogramSpec = { dist: 'histogram', le: [1, 2, 5, 10], counts: [0, 50, 50, 100], total: 100 };
    const xs = drawAll(spec, 'gaps');
    expect(xs.every((x) => (x >= 1 && x <= 2) || (x >= 5 && x <= 10))).toBe(true);
    expect(quantile(spec, 0.5)).toBe(2);
    expect(quantile(spec, 1)).toBe(10);
  });
});

describe('measured distributions in a mixture', () => {
  it('draw each component in proportion to its weight', () => {
    const spec: DistSpec = {
      dist: 'mixture',
      components: [
        { weight: 3, dist: 'samples', values: [1, 2, 3] },
        { weight: 1, ...spec21 },
      ],
    };
    const xs = drawAll(spec, 'mixture');
    // P(X <= 3) = 0.75 * 1 + 0.25 * 0.12 * 3/5
    expectCdf(xs, 3, 0.75 + 0.25 * 0.072);
  });
});

describe('measuredMean: the mean of what the sampler draws', () => {
  /** The mean of `N` draws is within 4 standard errors (their own standard deviation / sqrt N) of the mean. */
  function expectMean(spec: SamplesSpec | HistogramSpec, name: string): void {
    const xs = drawAll(spec, name);
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, v) => s + (v - mean) ** 2, 0) / (xs.length - 1));
    expect(Math.abs(mean - measuredMean(spec))).toBeLessThan((4 * sd) / Math.sqrt(xs.length));
  }

  it('samples: linear between order statistics, so the smallest and largest value weigh half', () => {
    const outlier: SamplesSpec = { dist: 'samples', values: [...Array(19).fill(10), 5000] };
    // 18 gaps at 10 and one gap from 10 to 5000 (mean 2505), over 19 gaps; the values' own mean is 259.5.
    expect(measuredMean(outlier)).toBeCloseTo((18 * 10 + 2505) / 19, 9);
    expectMean(outlier, 'mean/outlier');
    expectMean({ dist: 'samples', values: [4, 10, 12, 13, 20, 35, 80] }, 'mean/samples');
    expect(measuredMean({ dist: 'samples', values: [7] })).toBe(7);
  });

  it('histogram: each bucket at its mid-point, the +Inf share at the last bound or half-way to max', () => {
    // (120 × 2.5 + 360 × 7.5 + 430 × 17.5 + 80 × 62.5 + 10 × 100) / 1000
    expect(measuredMean(spec21)).toBeCloseTo((120 * 2.5 + 360 * 7.5 + 430 * 17.5 + 80 * 62.5 + 10 * 100) / 1000, 9);
    expect(measuredMean({ ...spec21, max: 300 })).toBeCloseTo((120 * 2.5 + 360 * 7.5 + 430 * 17.5 + 80 * 62.5 + 10 * 200) / 1000, 9);
    expectMean(spec21, 'mean/histogram');
    expectMean({ ...spec21, max: 300 }, 'mean/histogram-max');
  });
});
