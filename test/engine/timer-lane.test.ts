import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation, URGENT } from '../../src/engine/simulation.js';
import { TimerLane, timeOrder } from '../../src/engine/timer-lane.js';

/**
 * A random workload: batches of timers set at one instant (delays drawn from a few values, so that
 * ties are common, and sometimes 0), other timers and events around them, and callbacks that
 * schedule more work. `lanes` sends each batch through a TimerLane; otherwise each timer is its own
 * `schedule` call (the plain reference). Returns the log of (what, when).
 */
function workload(seed: number, lanes: boolean, maxBatch = 40): Array<[string, number]> {
  const sim = new Simulation();
  const rng = new RandomStreams(seed).stream('lane-test');
  const log: Array<[string, number]> = [];
  const delays = [0, 0.5, 1, 1, 2, 3.25, 7];
  const pickDelay = () => (rng.next() < 0.5 ? delays[rng.nextInt(delays.length)]! : rng.next() * 10);
  let id = 0;
  const timerFired = (arg: unknown): void => {
    log.push([String(arg), sim.now]);
    // Some timers schedule follow-ups (possibly at this very instant) or trigger an event.
    const r = rng.next();
    if (r < 0.2) sim.schedule(pickDelay(), () => log.push([`after ${String(arg)}`, sim.now]));
    else if (r < 0.3) {
      const ev = sim.event();
      ev.addCallback(() => log.push([`event of ${String(arg)}`, sim.now]));
      ev.succeed();
    }
  };
  const batch = (): void => {
    const n = 1 + rng.nextInt(maxBatch);
    const lane = lanes ? new TimerLane(sim, timerFired) : null;
    for (let i = 0; i < n; i++) {
      const name = `t${id++}`;
      const delay = pickDelay();
      if (lane !== null) lane.add(delay, name);
      else sim.schedule(delay, timerFired, undefined, name);
      // Interleaved plain timers take agenda positions between the lane's ones.
      if (rng.next() < 0.1) sim.schedule(pickDelay(), () => log.push([`between ${name}`, sim.now]));
    }
    lane?.start();
  };
  for (let k = 0; k < 60; k++) {
    sim.schedule(rng.nextInt(20), batch);
    sim.schedule(rng.nextInt(20), () => log.push([`urgent ${k}`, sim.now]), URGENT);
  }
  sim.run();
  return log;
}

describe('TimerLane', () => {
  it.each([1, 2, 3])('runs lanes of hundreds of timers in the plain order too (seed %i)', (seed) => {
    const plain = workload(seed, false, 600);
    const laned = workload(seed, true, 600);
    expect(plain.length).toBeGreaterThan(10_000);
    expect(laned).toEqual(plain);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8])('runs its timers in exactly the order one schedule call per timer would (seed %i)', (seed) => {
    const plain = workload(seed, false);
    const laned = workload(seed, true);
    expect(plain.length).toBeGreaterThan(500);
    expect(laned).toEqual(plain);
  });

  it('keeps one agenda entry per lane, not one per timer', () => {
    const sim = new Simulation();
    const fired: number[] = [];
    const lane = new TimerLane(sim, (arg) => fired.push(arg as number));
    for (let i = 0; i < 1000; i++) lane.add(1000 - i, i);
    lane.start();
    expect(sim.agendaSize).toBe(1);
    sim.step();
    expect(fired).toEqual([999]);
    expect(sim.agendaSize).toBe(1);
    sim.run();
    expect(fired.length).toBe(1000);
    expect(fired.at(-1)).toBe(0);
  });

  it('passes each timer its own number with its argument', () => {
    const sim = new Simulation();
    const fired: Array<[unknown, number]> = [];
    const lane = new TimerLane(sim, (arg, tag) => fired.push([arg, tag]));
    for (let i = 0; i < 200; i++) lane.add((i * 37) % 200, `t${i}`, i * 10 + 0.5);
    lane.add(5, 'untagged');
    lane.start();
    sim.run();
    expect(fired).toHaveLength(201);
    for (const [arg, tag] of fired) expect(tag).toBe(arg === 'untagged' ? 0 : Number(String(arg).slice(1)) * 10 + 0.5);
  });

  it('refuses timers added after it started', () => {
    const sim = new Simulation();
    const lane = new TimerLane(sim, () => {});
    lane.start();
    expect(() => lane.add(1, 'late')).toThrow(/already started/);
  });
});

describe('timeOrder', () => {
  // The plain reference: a comparison sort, earlier time first, then the lower index.
  const reference = (times: Float64Array): number[] =>
    Array.from(times.keys()).sort((a, b) => times[a]! - times[b]! || a - b);

  it.each([0, 1, 2, 63, 64, 65, 300, 1000, 5000])('orders %i times as the comparison sort does, ties by index', (n) => {
    const rng = new RandomStreams(n).stream('time-order');
    for (let round = 0; round < 5; round++) {
      // Times as a push lays them out (now + a lag), with repeats, zeros and far-apart values mixed in.
      const now = [0, 1_000, 123_456.789, 3.6e6, 1e12][round]!;
      const times = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const r = rng.next();
        times[i] = r < 0.2 && i > 0 ? times[rng.nextInt(i)]! : r < 0.25 ? now : r < 0.3 ? rng.next() * 1e9 : now + 20 + rng.next() * 280;
      }
      expect(Array.from(timeOrder(times))).toEqual(reference(times));
    }
  });

  it('puts a negative zero with the zeros, in index order', () => {
    const times = new Float64Array(100).fill(1);
    times[10] = 0;
    times[50] = -0;
    times[70] = 0;
    expect(Array.from(timeOrder(times)).slice(0, 4)).toEqual([10, 50, 70, 0]);
  });
});
