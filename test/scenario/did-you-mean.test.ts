import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, suggestionOfKind } from '../../src/scenario/did-you-mean.js';

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

describe('suggestionOfKind', () => {
  const kinds = { loadbalance: ['random', 'roundrobin', 'zoneAware', 'envoyZoneAware'], cluster: ['failover', 'failfast', 'zone-aware', 'zoneAwareFailover'] };

  it('suggests the load balancer for a load balancer typo, although a cluster is as close', () => {
    // "zoneaware" is one edit from the cluster "zone-aware" and only a case change from the balancer "zoneAware".
    expect(suggestionOfKind('zoneaware', 'loadbalance', kinds)).toBe('; did you mean "zoneAware"?');
    expect(suggestionOfKind('zoneAwarFailover', 'cluster', kinds)).toBe('; did you mean "zoneAwareFailover"?');
  });

  it('suggests the name of the same kind first, noting the name of another kind it spells exactly', () => {
    expect(suggestionOfKind('zone-aware', 'loadbalance', kinds)).toBe('; did you mean "zoneAware"? ("zone-aware" is a cluster name: write cluster: zone-aware)');
    expect(suggestionOfKind('zoneaware', 'cluster', kinds)).toBe('; did you mean "zone-aware"? ("zoneAware" is a loadbalance name: write loadbalance: zoneAware)');
  });

  it('falls back to another kind only when nothing of the same kind is close', () => {
    expect(suggestionOfKind('random', 'cluster', kinds)).toBe('; "random" is a loadbalance name, not a cluster name: write loadbalance: random');
    expect(suggestionOfKind('failovr', 'loadbalance', kinds)).toBe('; "failover" is a cluster name, not a loadbalance name: write cluster: failover');
    expect(suggestionOfKind('p2c', 'loadbalance', kinds)).toBe('');
  });
});
