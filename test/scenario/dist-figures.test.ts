import { describe, expect, it } from 'vitest';
import { sampler, type DistSpec } from '../../src/engine/distributions.js';
import { RandomStreams } from '../../src/engine/random.js';
import { distMedianMs, distTail } from '../../src/scenario/dist-figures.js';

const SPECS: Array<[string, DistSpec, number[]]> = [
  ['constant', { dist: 'constant', value: 5 }, [4.9, 5, 5.1]],
  ['uniform', { dist: 'uniform', min: 2, max: 6 }, [1, 3, 5.5, 7]],
  ['exponential', { dist: 'exponential', mean: 10 }, [1, 10, 40]],
  ['normal, cut at 0', { dist: 'normal', mean: 2, stddev: 3 }, [0.5, 2, 6]],
  ['lognormal by quantiles', { dist: 'lognormal', p50: 5, p99: 50 }, [0.8, 5, 30]],
  ['lognormal by parameters', { dist: 'lognormal', mu: 1, sigma: 0.5 }, [1, 3, 6]],
  ['pareto', { dist: 'pareto', scale: 2, shape: 1.5 }, [1, 3, 20]],
  ['empirical', { dist: 'empirical', min: 1, p50: 4, p90: 9, p99: 20, p999: 40, max: 80 }, [2, 6, 25, 60]],
  ['samples', { dist: 'samples', values: [1, 2, 2, 3, 10] }, [1.5, 2.5, 8]],
  ['histogram', { dist: 'histogram', le: [5, 10, 50], counts: [10, 60, 90], total: 100, max: 100 }, [3, 7, 20, 70]],
  ['mixture', { dist: 'mixture', components: [{ weight: 3, dist: 'constant', value: 1 }, { weight: 1, dist: 'exponential', mean: 20 }] }, [0.5, 1.5, 30]],
];

describe('distTail', () => {
  it.each(SPECS)('is the share of draws above x for a %s distribution', (_name, spec, xs) => {
    const n = 200_000;
    const draw = sampler(spec, new RandomStreams(7).stream('tail'));
    const values = Array.from({ length: n }, draw);
    for (const x of xs) {
      const p = distTail(spec, x);
      const seen = values.filter((v) => v > x).length / n;
      // Binomial sampling error: 5 standard errors (plus a hair for p near 0 or 1).
      expect(Math.abs(seen - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / n) + 1e-4);
    }
  });

  it('is 1 below the smallest value and 0 above the largest', () => {
    expect(distTail({ dist: 'constant', value: 10 }, -1)).toBe(1);
    expect(distTail({ dist: 'lognormal', p50: 5, p99: 50 }, 0)).toBe(1);
    expect(distTail({ dist: 'uniform', min: 1, max: 2 }, 2)).toBe(0);
    expect(distTail({ dist: 'empirical', p50: 1, p90: 2, p99: 3, p999: 4, max: 5 }, 5)).toBe(0);
  });
});

describe('distMedianMs', () => {
  it.each([
    [{ dist: 'constant', value: 5 }, 5],
    [{ dist: 'uniform', min: 2, max: 4 }, 3],
    [{ dist: 'exponential', mean: 10 }, 10 * Math.LN2],
    [{ dist: 'lognormal', p50: 7, p99: 50 }, 7],
    [{ dist: 'lognormal', mu: 1, sigma: 2 }, Math.E],
    [{ dist: 'pareto', scale: 2, shape: 1 }, 4],
    [{ dist: 'empirical', p50: 3, p90: 4, p99: 5, p999: 6, max: 7 }, 3],
    [{ dist: 'samples', values: [1, 2, 9] }, 2],
  ] as const)('is the median of %j', (d, median) => {
    expect(distMedianMs(d as DistSpec)).toBeCloseTo(median, 9);
  });
});
