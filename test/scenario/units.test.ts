import { describe, expect, it } from 'vitest';
import { distSchema, formatDuration, parseDuration, parseRate } from '../../src/scenario/units.js';

describe('parseDuration', () => {
  it.each([
    ['0.2ms', 0.2],
    ['450ms', 450],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['3 min', 180_000],
    [250, 250],
    [0, 0],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['10 minutes', '5', '-3ms', 'ms', '1.5', ''])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('rejects negative and non-finite numbers', () => {
    expect(parseDuration(-1)).toBeUndefined();
    expect(parseDuration(Infinity)).toBeUndefined();
  });
});

describe('parseRate', () => {
  it.each([
    ['2000/s', 2000],
    ['120/m', 2],
    ['36/h', 0.01],
    ['3/ms', 3000],
    [50, 50],
  ])('reads %j as %d per second', (text, perSec) => {
    expect(parseRate(text)).toBeCloseTo(perSec, 12);
  });

  it.each(['fast', '2000', '2000/day', '-5/s'])('rejects %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0.2, '0.2ms'],
    [450, '450ms'],
    [1500, '1.5s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('distSchema', () => {
  const parse = (v: unknown) => distSchema.parse(v);
  const fails = (v: unknown) => distSchema.safeParse(v).success === false;

  it('reads a bare duration as a constant', () => {
    expect(parse('300ms')).toEqual({ dist: 'constant', value: 300 });
    expect(parse(4)).toEqual({ dist: 'constant', value: 4 });
  });

  it('reads a lognormal by percentiles with durations in ms', () => {
    expect(parse({ dist: 'lognormal', p50: '20ms', p99: '0.45s' })).toEqual({ dist: 'lognormal', p50: 20, p99: 450 });
  });

  it('reads a lognormal by mu and sigma as plain numbers', () => {
    expect(parse({ dist: 'lognormal', mu: 3, sigma: 0.5 })).toEqual({ dist: 'lognormal', mu: 3, sigma: 0.5 });
  });

  it('reads an empirical distribution with an optional min', () => {
    expect(parse({ dist: 'empirical', min: 1, p50: '5ms', p90: '9ms', p99: '20ms', p999: '50ms', max: '1s' })).toEqual({
      dist: 'empirical', min: 1, p50: 5, p90: 9, p99: 20, p999: 50, max: 1000,
    });
  });

  it('reads the mixture shorthand and the long form to the same spec', () => {
    const components = [
      { weight: 99, dist: 'lognormal', p50: '20ms', p99: '450ms' },
      { weight: 1, dist: 'constant', value: '300ms' },
    ];
    const expected = {
      dist: 'mixture',
      components: [
        { weight: 99, dist: 'lognormal', p50: 20, p99: 450 },
        { weight: 1, dist: 'constant', value: 300 },
      ],
    };
    expect(parse({ mixture: components })).toEqual(expected);
    expect(parse({ dist: 'mixture', components })).toEqual(expected);
  });

  it('reads uniform, exponential, normal and pareto', () => {
    expect(parse({ dist: 'uniform', min: '20ms', max: '300ms' })).toEqual({ dist: 'uniform', min: 20, max: 300 });
    expect(parse({ dist: 'exponential', mean: '30ms' })).toEqual({ dist: 'exponential', mean: 30 });
    expect(parse({ dist: 'normal', mean: '10ms', stddev: '2ms' })).toEqual({ dist: 'normal', mean: 10, stddev: 2 });
    expect(parse({ dist: 'pareto', scale: '1ms', shape: 1.5 })).toEqual({ dist: 'pareto', scale: 1, shape: 1.5 });
  });

  it('rejects a lognormal whose p99 is below its p50', () => {
    expect(fails({ dist: 'lognormal', p50: '20ms', p99: '10ms' })).toBe(true);
  });

  it('rejects a lognormal mixing both parameterizations', () => {
    expect(fails({ dist: 'lognormal', p50: '20ms', sigma: 1 })).toBe(true);
  });

  it('rejects empirical percentiles out of order', () => {
    expect(fails({ dist: 'empirical', p50: '5ms', p90: '4ms', p99: '20ms', p999: '50ms', max: '1s' })).toBe(true);
  });

  it('rejects a uniform whose max is below its min', () => {
    expect(fails({ dist: 'uniform', min: '5ms', max: '1ms' })).toBe(true);
  });

  it('rejects a mixture component without a positive weight', () => {
    expect(fails({ mixture: [{ weight: 0, dist: 'constant', value: 1 }] })).toBe(true);
    expect(fails({ mixture: [{ dist: 'constant', value: 1 }] })).toBe(true);
  });

  it('rejects an unknown dist name and unknown fields', () => {
    expect(fails({ dist: 'gamma', shape: 2 })).toBe(true);
    expect(fails({ dist: 'exponential', mean: '1ms', p50: '1ms' })).toBe(true);
  });
});
