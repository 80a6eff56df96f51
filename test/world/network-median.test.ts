/** Network.medianRttMs: the zone distance zonesim's zone extensions rank zones by. */
import { describe, expect, it } from 'vitest';
import { sampler, type DistSpec } from '../../src/engine/distributions.js';
import { RandomStreams } from '../../src/engine/random.js';
import { medianOf, Network, oneWayMsOn } from '../../src/world/network.js';

const DRAWS = 40_001;
function sampledMedian(spec: DistSpec): number {
  const draw = sampler(spec, new RandomStreams(7).stream('median'));
  const xs = Float64Array.from({ length: DRAWS }, draw).sort();
  return xs[(DRAWS - 1) / 2]!;
}

describe('medianOf', () => {
  it.each<[string, DistSpec]>([
    ['constant', { dist: 'constant', value: 3 }],
    ['uniform', { dist: 'uniform', min: 1, max: 5 }],
    ['exponential', { dist: 'exponential', mean: 10 }],
    ['normal (truncated at 0 as drawn)', { dist: 'normal', mean: 1, stddev: 2 }],
    ['lognormal p50/p99', { dist: 'lognormal', p50: 30, p99: 45 }],
    ['lognormal mu/sigma', { dist: 'lognormal', mu: 1, sigma: 0.5 }],
    ['pareto', { dist: 'pareto', scale: 2, shape: 3 }],
    ['empirical', { dist: 'empirical', p50: 4, p90: 9, p99: 20, p999: 40, max: 80 }],
    ['samples', { dist: 'samples', values: [1, 2, 3, 10, 20, 21] }],
    ['histogram', { dist: 'histogram', le: [5, 10, 25], counts: [120, 480, 910], total: 1000 }],
    ['mixture', { dist: 'mixture', components: [{ weight: 0.7, dist: 'constant', value: 1.5 }, { weight: 0.3, dist: 'uniform', min: 20, max: 40 }] }],
    ['mixture with the median inside a component', { dist: 'mixture', components: [{ weight: 1, dist: 'uniform', min: 0, max: 10 }, { weight: 1, dist: 'exponential', mean: 4 }] }],
  ])('%s: agrees with the median of seeded draws', (_name, spec) => {
    const exact = medianOf(spec);
    expect(Math.abs(exact - sampledMedian(spec))).toBeLessThan(0.02 * Math.max(1, exact));
  });
});

describe('Network.medianRttMs', () => {
  const spec = {
    sameZone: { dist: 'constant', value: 0.2 } as DistSpec,
    default: { dist: 'constant', value: 50 } as DistSpec,
    pairs: [
      { from: 'zoneA', to: 'zoneB', dist: { dist: 'lognormal', p50: 1.5, p99: 4 } as DistSpec },
      { from: 'zoneB', to: 'zoneA', dist: { dist: 'lognormal', p50: 1.5, p99: 4 } as DistSpec },
    ],
  };
  const network = () => new Network(spec, ['zoneA', 'zoneB', 'zoneC'], new RandomStreams(1).stream('network'));

  it('answers the configured median per ordered pair: same zone, listed pairs, the default', () => {
    const n = network();
    expect([n.medianRttMs('zoneA', 'zoneA'), n.medianRttMs('zoneA', 'zoneB'), n.medianRttMs('zoneC', 'zoneA')]).toEqual([0.2, 1.5, 50]);
  });

  it('is undefined for a zone the network does not know', () => {
    expect(network().medianRttMs('zoneA', 'zoneX')).toBeUndefined();
  });

  it('is configuration: an rtt fault changes the draws, not the distance', () => {
    const n = network();
    n.setRtt('zoneA', 'zoneB', { dist: 'constant', value: 90 });
    expect(n.oneWayMs('zoneA', 'zoneB')).toBe(45);
    expect(n.medianRttMs('zoneA', 'zoneB')).toBe(1.5);
  });
});

describe('Network.link', () => {
  const spec = {
    sameZone: { dist: 'constant', value: 0.2 } as DistSpec,
    default: { dist: 'lognormal', p50: 3, p99: 8 } as DistSpec,
    pairs: [],
  };
  const network = () => new Network(spec, ['zoneA', 'zoneB'], new RandomStreams(3).stream('network'));

  it('draws on a link held from before what oneWayMs draws, through rtt faults and partitions', () => {
    const held = network();
    const looked = network();
    const link = held.link('zoneA', 'zoneB')!;
    const back = held.link('zoneB', 'zoneA')!;
    const draws = (n: Network, useLink: boolean): number[] => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++) {
        out.push(useLink ? oneWayMsOn(link) : n.oneWayMs('zoneA', 'zoneB'));
        out.push(useLink ? oneWayMsOn(back) : n.oneWayMs('zoneB', 'zoneA'));
      }
      return out;
    };
    const run = (n: Network, useLink: boolean): number[][] => {
      const before = draws(n, useLink);
      const restore = n.setRtt('zoneA', 'zoneB', { dist: 'constant', value: 90 });
      const slow = draws(n, useLink);
      n.partition('zoneA', 'zoneB');
      const cut = draws(n, useLink);
      n.heal('zoneA', 'zoneB');
      restore();
      return [before, slow, cut, draws(n, useLink)];
    };
    const viaLink = run(held, true);
    expect(viaLink).toEqual(run(looked, false));
    expect(viaLink[1]).toEqual(Array(10).fill(45));
    expect(viaLink[2]).toEqual(Array(10).fill(-1));
    expect(new Set(viaLink[3]).size).toBe(10);
  });

  it('is undefined for a zone the network does not know', () => {
    expect(network().link('zoneA', 'zoneX')).toBeUndefined();
  });
});
