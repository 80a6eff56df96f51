import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/scenario/did-you-mean.js';

describe('editDistance', () => {
  it.each([
    ['timeout', 'timeout', 0],
    ['tmeout', 'timeout', 1],
    ['retires', 'retries', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('between %j and %j is %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe('didYouMean', () => {
  const attrs = ['timeout', 'retries', 'loadbalance', 'cluster'];

  it('suggests the closest name for a typo', () => {
    expect(didYouMean('tmeout', attrs)).toBe('timeout');
    expect(didYouMean('retires', attrs)).toBe('retries');
  });

  it('matches names that differ only in case', () => {
    expect(didYouMean('LoadBalance', attrs)).toBe('loadbalance');
  });

  it('suggests a name the input is a prefix of', () => {
    expect(didYouMean('getUser', ['getUserById', 'updateUser'])).toBe('getUserById');
  });

  it('suggests nothing for an unrelated name', () => {
    expect(didYouMean('color', attrs)).toBeUndefined();
  });
});
