// The order of the per-group push figures and the weights of the spread: the summary lists groups and
// instances by key whatever order the pushes came in, and a weight of 0 counts nothing.
import { describe, expect, it } from 'vitest';
import { ConsumerPushes, spreadOf } from '../../src/metrics/consumer-pushes.js';

// Keys scrambled so that no simple pass over the arrival order (as is, reversed) comes out sorted.
const GROUPS = ['web@zoneC', 'app@zoneA', 'web@zoneA', 'batch@zoneB', 'app@zoneC', 'web@zoneB'];

describe('the order of registry.byConsumerGroup and registry.byConsumer', () => {
  it('lists the groups by key whatever order they were first pushed to', () => {
    const pushes = new ConsumerPushes();
    GROUPS.forEach((g, i) => pushes.record(`${g}#0`, g, 10 * (i + 1), 1));
    expect(Object.keys(pushes.byConsumerGroup())).toEqual([...GROUPS].sort());
    // Each group keeps its own figures under its key.
    expect(pushes.byConsumerGroup()['app@zoneA']!.pushBytes).toBe(20);
  });

  it('lists every instance by id whatever order they were first pushed to', () => {
    const pushes = new ConsumerPushes(true);
    const ids = ['web@zoneA#4', 'web@zoneA#1', 'web@zoneA#3', 'web@zoneA#0', 'web@zoneA#5', 'web@zoneA#2'];
    for (const id of ids) pushes.record(id, 'web@zoneA', 100, 1);
    expect(Object.keys(pushes.byConsumer()!)).toEqual([...ids].sort());
  });

  it('names the worst instances by bytes, then by id among equal bytes, from a scrambled arrival order', () => {
    const pushes = new ConsumerPushes();
    for (const [id, bytes] of [['g#5', 10], ['g#2', 30], ['g#4', 30], ['g#0', 10], ['g#3', 30], ['g#1', 50]] as const) {
      pushes.record(id, 'g', bytes, 1);
    }
    expect(pushes.byConsumerGroup()['g']!.worst!.map((w) => w.id)).toEqual(['g#1', 'g#2', 'g#3']);
  });
});

describe('spreadOf weights', () => {
  it('leaves out values with weight 0: they are no instance', () => {
    expect(spreadOf([[1, 0], [5, 1], [9, 0]])).toEqual({ min: 5, median: 5, max: 5 });
    expect(spreadOf([[3, 0]])).toEqual({ min: 0, median: 0, max: 0 });
  });

  it('gives a single instance its own value as min, median and max', () => {
    expect(spreadOf([[7, 1]])).toEqual({ min: 7, median: 7, max: 7 });
  });

  it('takes the median from the heavier value when one value holds more than half the weight', () => {
    expect(spreadOf([[100, 1], [2, 5], [50, 1]])).toEqual({ min: 2, median: 2, max: 100 });
    // Even total (8): ranks 3 and 4 of 1,1,1,4,4,4,4,4 are 4 and 4.
    expect(spreadOf([[4, 5], [1, 3]])).toEqual({ min: 1, median: 4, max: 4 });
    // Even total (6): ranks 2 and 3 of 1,1,1,4,4,4 straddle the two values.
    expect(spreadOf([[4, 3], [1, 3]])).toEqual({ min: 1, median: 2.5, max: 4 });
  });
});
