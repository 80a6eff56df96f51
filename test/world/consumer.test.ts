import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/scenario/dubbo-profiles.js';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation } from '../../src/engine/simulation.js';
import type { ConsumerGroupSpec, Scenario } from '../../src/model/types.js';
import { ConsumerGroup, ConsumerInstance, ENTRY_CAUSE, type ConsumerStack } from '../../src/world/consumer.js';
import type { Outcome, RequestHandle, WorldObserver } from '../../src/metrics/observer.js';

const SERVICE = 'com.example.UserService';

function spec(over: Partial<ConsumerGroupSpec> = {}): ConsumerGroupSpec {
  return {
    application: 'web',
    zone: 'zoneA',
    instances: 1,
    ratePerSec: 100,
    arrival: 'constant',
    calls: { [`${SERVICE}.getUserById`]: 1 },
    reference: {},
    consumerDefaults: { parameters: {} },
    attachments: {},
    userIds: 1,
    dubbo: defaultProfile('3.3'),
    ...over,
  };
}

type Entry = [tMs: number, what: 'start' | Outcome, cause?: string];

/**
 * A consumer group on its own simulation: every request holds its instance for `holdMs` and ends
 * `ok`. `log` gets [t, 'start'] at each arrival and [t, outcome, cause?] at each end.
 */
function setup(over: Partial<ConsumerGroupSpec>, holdMs: number, seed = 1) {
  const sim = new Simulation();
  const log: Entry[] = [];
  const observer: WorldObserver = {
    startRequest: (init) => {
      log.push([init.startMs, 'start']);
      return { ended: false };
    },
    attempt() {},
    execution() {},
    rejected() {},
    orphaned() {},
    endRequest: (_req: RequestHandle, outcome, endMs, cause) => {
      log.push(cause === undefined ? [endMs, outcome] : [endMs, outcome, cause]);
    },
    push() {},
    count() {},
    marker() {},
  };
  const s = spec(over);
  const instances = Array.from({ length: s.instances }, (_, i) => new ConsumerInstance(s, i, `10.10.0.${i + 1}`));
  const stack: ConsumerStack = {
    refer() {},
    *call() {
      yield sim.timeout(holdMs);
      return { outcome: 'ok' as const };
    },
  };
  for (const inst of instances) inst.stack = stack;
  const streams = new RandomStreams(seed);
  const scenario = { services: { [SERVICE]: { methods: {} } } } as unknown as Scenario;
  const group = new ConsumerGroup({ sim, observer, scenario }, s, instances, {
    arrival: streams.stream('arrival/0'),
    pick: streams.stream('pick/0'),
    tag: streams.stream('tag/0'),
  });
  return { sim, log, group, instances, starts: () => log.filter((e) => e[1] === 'start').map((e) => e[0]) };
}

describe('entry pool (consumer threads)', () => {
  it('rejects an arrival at once, with cause entry, while all the instance threads are busy', () => {
    // Arrivals every 10 ms, each holding its thread 35 ms, 3 threads: the 4th arrival (30 ms)
    // finds 0, 10 and 20 still running; at 40 ms the request of 0 ms has ended (35 ms).
    const t = setup({ threads: 3, ratePerSec: 100 }, 35);
    t.group.start(75);
    t.sim.run();
    expect(t.log).toEqual([
      [0, 'start'],
      [10, 'start'],
      [20, 'start'],
      [30, 'start'],
      [30, 'rejected', ENTRY_CAUSE],
      [35, 'ok'],
      [40, 'start'],
      [45, 'ok'],
      [50, 'start'],
      [55, 'ok'],
      [60, 'start'],
      [70, 'start'],
      [70, 'rejected', ENTRY_CAUSE],
      [75, 'ok'],
      [85, 'ok'],
      [95, 'ok'],
    ]);
    expect(ENTRY_CAUSE).toBe('entry');
  });

  it('releases every entry thread when its request ends', () => {
    const t = setup({ threads: 3, ratePerSec: 100 }, 35);
    t.group.start(75);
    t.sim.run({ until: 32 });
    expect(t.instances[0]!.entryThreadsInUse).toBe(3);
    t.sim.run();
    expect(t.instances[0]!.entryThreadsInUse).toBe(0);
    expect(t.group.inFlight).toBe(0);
    expect(t.group.started).toBe(8);
  });

  it('is unbounded without threads: the same arrivals all run', () => {
    const t = setup({ ratePerSec: 100 }, 35);
    t.group.start(75);
    t.sim.run({ until: 32 });
    expect(t.instances[0]!.entryThreadsInUse).toBe(4);
    t.sim.run();
    expect(t.log.filter((e) => e[1] === 'rejected')).toEqual([]);
    expect(t.log.filter((e) => e[1] === 'ok')).toHaveLength(8);
  });

  it('bounds each instance on its own', () => {
    // Two instances, one thread each, requests held for ever (within the run): at most one running per instance.
    const t = setup({ threads: 1, instances: 2, ratePerSec: 1000, arrival: 'poisson' }, 1e9);
    t.group.start(1000);
    t.sim.run({ until: 1000 });
    expect(t.instances.map((i) => i.entryThreadsInUse)).toEqual([1, 1]);
    const rejected = t.log.filter((e) => e[1] === 'rejected');
    expect(rejected.length).toBe(t.starts().length - 2);
    expect(rejected.every((e) => e[2] === 'entry')).toBe(true);
  });
});

describe('setRate (the traffic fault)', () => {
  it('changes the spacing of constant arrivals from the moment of the change', () => {
    const t = setup({ ratePerSec: 100 }, 1);
    t.group.start(100);
    t.sim.run({ until: 25 });
    t.group.setRate(200);
    t.sim.run({ until: 100 });
    expect(t.starts()).toEqual([0, 10, 20, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95]);
    expect(t.group.ratePerSec).toBe(200);
  });

  it('stops arrivals at rate 0 and resumes them at a later change', () => {
    const t = setup({ ratePerSec: 100 }, 1);
    t.group.start(100);
    t.sim.run({ until: 25 });
    t.group.setRate(0);
    t.sim.run({ until: 60 });
    t.group.setRate(50);
    t.sim.run({ until: 100 });
    expect(t.starts()).toEqual([0, 10, 20, 80]);
  });

  it('starts a group whose rate was 0 at the beginning', () => {
    const t = setup({ ratePerSec: 0 }, 1);
    t.group.start(100);
    t.sim.run({ until: 50 });
    expect(t.starts()).toEqual([]);
    t.group.setRate(100);
    t.sim.run({ until: 100 });
    expect(t.starts()).toEqual([60, 70, 80, 90]);
  });

  it('takes a rate set before start as the starting rate', () => {
    const t = setup({ ratePerSec: 100 }, 1);
    t.group.setRate(50);
    t.group.start(100);
    t.sim.run({ until: 100 });
    expect(t.starts()).toEqual([0, 20, 40, 60, 80]);
  });

  it('draws nothing and schedules nothing after the arrivals have ended', () => {
    const t = setup({ ratePerSec: 100 }, 1);
    t.group.start(50);
    t.sim.run({ until: 60 });
    t.group.setRate(1000);
    t.sim.run();
    expect(t.starts()).toEqual([0, 10, 20, 30, 40]);
  });

  it('changes the rate of Poisson arrivals: counts before and after match the two rates', () => {
    // 100/s for 50 s, then 400/s for 50 s: 5,000 and 20,000 expected, Poisson sd 71 and 141.
    // Four sd either way (a false alarm once in 16,000 seeds); a rate off by 10% misses by 7 and 14 sd.
    const t = setup({ ratePerSec: 100, arrival: 'poisson' }, 1);
    t.group.start(100_000);
    t.sim.run({ until: 50_000 });
    t.group.setRate(400);
    t.sim.run({ until: 100_000 });
    const before = t.starts().filter((s) => s < 50_000).length;
    const after = t.starts().length - before;
    expect(Math.abs(before - 5_000)).toBeLessThan(4 * Math.sqrt(5_000));
    expect(Math.abs(after - 20_000)).toBeLessThan(4 * Math.sqrt(20_000));
  });

  it('refuses a negative or non-finite rate', () => {
    const t = setup({}, 1);
    expect(() => t.group.setRate(-1)).toThrow(RangeError);
    expect(() => t.group.setRate(Number.NaN)).toThrow(RangeError);
    expect(() => t.group.setRate(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
