import { describe, expect, it } from 'vitest';
import { median } from 'simple-statistics';
import { Recorder } from '../../src/metrics/recorder.js';
import { spreadOf } from '../../src/metrics/consumer-pushes.js';
import { consumerGroupKey, consumerGroupOf } from '../../src/metrics/observer.js';
import { aggregateSummaries } from '../../src/metrics/aggregate.js';
import type { Summary } from '../../src/metrics/summary.js';

const META = { scenario: 'test', seed: 1, seeds: [1], version: '0.0.0' };

function summaryOf(pushes: Array<[string, string, number, number?]>, perInstance = false): Summary['registry'] {
  const r = new Recorder({ warmupMs: 0, durationMs: 1000, bucketMs: 1000, providerGroups: [], perInstance });
  for (const [id, group, bytes, members] of pushes) r.push(id, group, bytes, 'interface', members);
  r.finish({ simulatedMs: 1000, providerGroups: [], inFlight: 0 });
  return r.summary(META).registry;
}

describe('consumerGroupKey', () => {
  it('keys a consumer instance by <application>@<zone>, a provider downstream side by its provider group', () => {
    expect(consumerGroupKey('web@zoneA#12')).toBe('web@zoneA');
    // A generated provider group name holds `@` and `#<index>` itself; the address after the slash is dropped.
    expect(consumerGroupKey('com.example.OrderService@zoneB#0/10.1.0.7:20880')).toBe('com.example.OrderService@zoneB#0');
    expect(consumerGroupKey('orders-b/10.1.0.7:20880')).toBe('orders-b');
    expect(consumerGroupKey('c1')).toBe('c1');
    // A subscriber (a consumer instance) gives its id's key.
    const sub = { id: 'web@zoneA#3' };
    expect(consumerGroupOf(sub)).toBe('web@zoneA');
    expect(consumerGroupOf(sub)).toBe(consumerGroupOf({ id: 'web@zoneA#3' }));
  });
});

describe('spreadOf', () => {
  it('gives the min, median and max of the values each counted as often as its weight says', () => {
    const weighted: Array<[number, number]> = [[7, 1], [1, 2], [4, 3], [10, 1]];
    const expanded = weighted.flatMap(([v, n]) => Array<number>(n).fill(v));
    expect(spreadOf(weighted)).toEqual({ min: 1, median: median(expanded), max: 10 });
    // An even count: the mean of the two middle values.
    expect(spreadOf([[2, 1], [8, 1], [5, 1], [6, 1]])).toEqual({ min: 2, median: median([2, 5, 6, 8]), max: 8 });
    expect(spreadOf([[3, 2], [9, 2]]).median).toBe(6);
    expect(spreadOf([])).toEqual({ min: 0, median: 0, max: 0 });
  });
});

describe('registry.byConsumerGroup', () => {
  it('sums each group and spreads its instances, the 3 with the most bytes by name (ties by id)', () => {
    const reg = summaryOf([
      ['web@zoneA#0', 'web@zoneA', 100],
      ['web@zoneA#1', 'web@zoneA', 100],
      ['web@zoneA#2', 'web@zoneA', 100],
      ['web@zoneA#3', 'web@zoneA', 100],
      ['web@zoneA#2', 'web@zoneA', 50],
      ['app@zoneB#0', 'app@zoneB', 10],
    ]);
    expect(Object.keys(reg.byConsumerGroup!)).toEqual(['app@zoneB', 'web@zoneA']);
    const web = reg.byConsumerGroup!['web@zoneA']!;
    expect([web.instances, web.pushes, web.pushBytes]).toEqual([4, 5, 450]);
    expect(web.perInstance).toEqual({ pushes: { min: 1, median: 1, max: 2 }, pushBytes: { min: 100, median: 100, max: 150 } });
    // #2 has the most bytes; #0, #1 and #3 tie at 100 and the first two by id follow.
    expect(web.worst!.map((w) => w.id)).toEqual(['web@zoneA#2', 'web@zoneA#0', 'web@zoneA#1']);
    expect(web.worst![0]).toEqual({ id: 'web@zoneA#2', pushes: 2, pushBytes: 150 });
    expect(reg.byConsumerGroup!['app@zoneB']!.worst).toEqual([{ id: 'app@zoneB#0', pushes: 1, pushBytes: 10 }]);
    expect(reg.byConsumer).toBeUndefined();
  });

  it('counts a subscriber that stands for m instances m times: in the totals, the levels and the spread', () => {
    // One representative for 4 instances, two plain instances of the same group.
    const reg = summaryOf([
      ['web@zoneA#0', 'web@zoneA', 100, 4],
      ['web@zoneA#0', 'web@zoneA', 40, 4],
      ['web@zoneA#1', 'web@zoneA', 100],
      ['web@zoneA#2', 'web@zoneA', 30],
    ]);
    expect([reg.pushes, reg.pushBytes]).toEqual([4 * 2 + 2, 4 * 140 + 130]);
    expect(reg.byLevel).toEqual({ interface: { pushes: 10, pushBytes: 690 } });
    const web = reg.byConsumerGroup!['web@zoneA']!;
    expect([web.instances, web.pushes, web.pushBytes]).toEqual([6, 10, 690]);
    // Bytes per instance: 30, 100, then 140 four times: the median of six is the mean of the 3rd and 4th (140).
    expect(web.perInstance.pushBytes).toEqual({ min: 30, median: 140, max: 140 });
    expect(web.perInstance.pushes).toEqual({ min: 1, median: 2, max: 2 });
    // The representative is named once, with its size.
    expect(web.worst).toEqual([
      { id: 'web@zoneA#0', pushes: 2, pushBytes: 140, members: 4 },
      { id: 'web@zoneA#1', pushes: 1, pushBytes: 100 },
      { id: 'web@zoneA#2', pushes: 1, pushBytes: 30 },
    ]);
  });

  it('lists every instance under registry.byConsumer only when asked (perInstance)', () => {
    const pushes: Array<[string, string, number]> = [
      ['web@zoneA#1', 'web@zoneA', 80],
      ['web@zoneA#0', 'web@zoneA', 120],
      ['web@zoneA#1', 'web@zoneA', 30],
    ];
    const asked = summaryOf(pushes, true);
    expect(asked.byConsumer).toEqual({ 'web@zoneA#0': { pushes: 1, pushBytes: 120 }, 'web@zoneA#1': { pushes: 2, pushBytes: 110 } });
    expect(Object.keys(asked.byConsumer!)).toEqual(['web@zoneA#0', 'web@zoneA#1']);
    const plain = summaryOf(pushes);
    expect('byConsumer' in plain).toBe(false);
    expect(plain.byConsumerGroup).toEqual(asked.byConsumerGroup);
  });

  it('lists a representative once under registry.byConsumer, its figures per member with its members', () => {
    const reg = summaryOf(
      [
        ['web@zoneA#0', 'web@zoneA', 100, 4],
        ['web@zoneA#4', 'web@zoneA', 60, 3],
        ['web@zoneA#0', 'web@zoneA', 40, 4],
      ],
      true,
    );
    expect(reg.byConsumer).toEqual({
      'web@zoneA#0': { pushes: 2, pushBytes: 140, members: 4 },
      'web@zoneA#4': { pushes: 1, pushBytes: 60, members: 3 },
    });
    // The group's totals count each member: what the entries times their members add up to.
    expect([reg.pushes, reg.pushBytes]).toEqual([4 * 2 + 3 * 1, 4 * 140 + 3 * 60]);
  });

  it('averages the group figures over seeds, without the worst instances; byConsumer only when every seed has it', () => {
    const seed = (bytes: number, perInstance: boolean): Summary => {
      const r = new Recorder({ warmupMs: 0, durationMs: 1000, bucketMs: 1000, providerGroups: [], perInstance });
      r.push('web@zoneA#0', 'web@zoneA', bytes);
      r.push('web@zoneA#1', 'web@zoneA', 2 * bytes);
      r.finish({ simulatedMs: 1000, providerGroups: [], inFlight: 0 });
      return r.summary(META);
    };
    const mean = aggregateSummaries([seed(100, true), seed(300, true)]).registry;
    const web = mean.byConsumerGroup!['web@zoneA']!;
    expect([web.instances, web.pushes, web.pushBytes]).toEqual([2, 2, (300 + 900) / 2]);
    expect(web.perInstance.pushBytes).toEqual({ min: 200, median: 300, max: 400 });
    expect('worst' in web).toBe(false);
    expect(mean.byConsumer).toEqual({ 'web@zoneA#0': { pushes: 1, pushBytes: 200 }, 'web@zoneA#1': { pushes: 1, pushBytes: 400 } });
    expect('byConsumer' in aggregateSummaries([seed(100, true), seed(300, false)]).registry).toBe(false);
    // One seed is itself: its worst instances stay.
    expect(aggregateSummaries([seed(100, false)]).registry.byConsumerGroup!['web@zoneA']!.worst).toHaveLength(2);
  });
});

describe('pushes by discovery level', () => {
  function byLevel(levels: Array<'interface' | 'application' | undefined>): Summary['registry']['byLevel'] {
    const r = new Recorder({ warmupMs: 0, durationMs: 1000, bucketMs: 1000, providerGroups: [] });
    for (const level of levels) r.push('web@zoneA#0', 'web@zoneA', 100, level, 3);
    r.finish({ simulatedMs: 1000, providerGroups: [], inFlight: 0 });
    return r.summary(META).registry.byLevel;
  }

  it('counts a push without a level as interface level, once per member', () => {
    expect(byLevel([undefined, 'interface'])).toEqual({ interface: { pushes: 6, pushBytes: 600 } });
  });

  it('lists only the levels that pushed: an application-level run has no interface entry', () => {
    expect(byLevel(['application'])).toEqual({ application: { pushes: 3, pushBytes: 300 } });
    expect(byLevel([])).toEqual({});
  });
});
