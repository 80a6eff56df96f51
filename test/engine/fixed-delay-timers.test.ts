import { describe, expect, it } from 'vitest';
import { FixedDelayTimers } from '../../src/engine/fixed-delay-timers.js';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation, URGENT } from '../../src/engine/simulation.js';

/**
 * A random workload of timeouts: calls start at random times, each sets a timer of one of a few
 * delays and ends (cancelling it) after a random time, often before the timer and sometimes at the
 * very instant it is due. Other timers, urgent callbacks and events interleave. `fifo` sends the
 * timers through one FixedDelayTimers per delay; otherwise each is its own `schedule` call and
 * `cancel` (the plain reference). Returns the log of (what, when) and how many timers fired.
 */
function workload(seed: number, fifo: boolean, nested = false): { log: Array<[string, number]>; fired: number; events: number; endMs: number } {
  const sim = new Simulation();
  const rng = new RandomStreams(seed).stream('fixed-delay-test');
  const log: Array<[string, number]> = [];
  const delays = [5, 7.25, 0, 1000];
  let fired = 0;
  const timedOut = (arg: unknown): void => {
    fired++;
    log.push([`timeout ${String(arg)}`, sim.now]);
    // A timeout may schedule follow-ups at this very instant or trigger an event.
    const r = rng.next();
    if (r < 0.2) sim.schedule(r < 0.1 ? 0 : rng.next() * 3, () => log.push([`after ${String(arg)}`, sim.now]));
    else if (nested && r < 0.25) {
      // Cancels another call's timer, perhaps one due at this very instant.
      const names = [...cancels.keys()];
      if (names.length > 0) cancels.get(names[rng.nextInt(names.length)]!)!();
    } else if (nested && r < 0.28) call();
    else if (nested && r < 0.31) sim.scheduleLast(0, () => log.push([`last of ${String(arg)}`, sim.now]));
    else if (r < 0.3) {
      const ev = sim.event();
      ev.addCallback(() => log.push([`event of ${String(arg)}`, sim.now]));
      ev.succeed();
    }
  };
  const lanes = new Map<number, FixedDelayTimers>();
  const cancels = new Map<string, () => void>();
  let id = 0;
  const call = (): void => {
    const name = `c${id++}`;
    const delay = delays[rng.nextInt(delays.length)]!;
    let cancel: () => void;
    if (fifo) {
      let lane = lanes.get(delay);
      if (lane === undefined) lanes.set(delay, (lane = new FixedDelayTimers(sim, delay, timedOut)));
      const handle = lane.add(name);
      cancel = () => lane.cancel(handle);
    } else {
      const entry = sim.schedule(delay, timedOut, undefined, name);
      cancel = () => sim.cancel(entry);
    }
    cancels.set(name, cancel);
    // The call ends before, at or after its timeout; ending cancels the timer (a no-op once it ran).
    const r = rng.next();
    const endIn = r < 0.6 ? rng.next() * delay : r < 0.7 ? delay : delay + rng.next() * 3;
    sim.schedule(endIn, () => {
      log.push([`end ${name}`, sim.now]);
      cancels.delete(name);
      cancel();
      // Cancelling twice is harmless.
      if (rng.next() < 0.1) cancel();
    });
    if (rng.next() < 0.1) sim.schedule(rng.next() * 10, () => log.push([`between ${name}`, sim.now]));
  };
  for (let k = 0; k < 3000; k++) {
    // Nested: calls come in bursts at whole milliseconds, so that many timers fall due at one instant.
    const at = rng.nextInt(400) + (nested || rng.next() < 0.3 ? 0 : rng.next());
    sim.schedule(at, call);
    if (rng.next() < 0.05) sim.schedule(at, () => log.push([`urgent ${k}`, sim.now]), URGENT);
  }
  sim.run();
  return { log, fired, events: sim.eventsProcessed, endMs: sim.now };
}

describe('FixedDelayTimers', () => {
  it.each([1, 2, 3, 4, 5, 6])('runs timers exactly where one schedule and cancel call per timer would, in as many steps (seed %i)', (seed) => {
    const plain = workload(seed, false);
    const fifo = workload(seed, true);
    expect(plain.fired).toBeGreaterThan(800);
    expect(plain.log.length).toBeGreaterThan(5000);
    expect(fifo.log).toEqual(plain.log);
    // No step of its own: a cancelled timer never reaches the agenda's top, so the kernel takes the same steps.
    expect([fifo.events, fifo.endMs]).toEqual([plain.events, plain.endMs]);
  });

  it.each([1, 2, 3, 4])(
    'runs timers due at one instant one after another exactly where one schedule call per timer would, when a timer cancels, adds and queues work at that instant (seed %i)',
    (seed) => {
      const plain = workload(seed, false, true);
      const fifo = workload(seed, true, true);
      expect(plain.fired).toBeGreaterThan(800);
      expect(plain.log.filter(([what]) => what.startsWith('last of')).length).toBeGreaterThan(20);
      expect(fifo.log).toEqual(plain.log);
      expect([fifo.events, fifo.endMs]).toEqual([plain.events, plain.endMs]);
    },
  );

  it('keeps one agenda entry however many timers wait, and leaves the agenda when all are cancelled', () => {
    const sim = new Simulation();
    const fired: unknown[] = [];
    const lane = new FixedDelayTimers(sim, 10_000, (arg) => fired.push(arg));
    const handles: number[] = [];
    for (let i = 0; i < 500; i++) {
      handles.push(lane.add(i));
      sim.schedule(1, () => {});
      sim.run({ until: sim.now + 1 });
    }
    expect(lane.pending).toBe(500);
    // The agenda holds the lane's one entry (the per-ms callbacks have run).
    expect(sim.agendaSize).toBe(1);
    for (const h of handles.slice(0, 499)) lane.cancel(h);
    expect(lane.pending).toBe(1);
    expect(sim.agendaSize).toBe(1);
    sim.run();
    expect(fired).toEqual([499]);
    expect(sim.now).toBe(499 + 10_000);
    const x = lane.add('x');
    const y = lane.add('y');
    lane.cancel(x);
    lane.cancel(1_000_000);
    expect(lane.pending).toBe(1);
    expect(sim.agendaSize).toBe(1);
    lane.cancel(y);
    expect(sim.agendaSize).toBe(0);
  });

  it('grows its ring past its first size and keeps the order', () => {
    const sim = new Simulation();
    const fired: number[] = [];
    const lane = new FixedDelayTimers(sim, 10, (arg) => fired.push(arg as number));
    for (let i = 0; i < 1000; i++) {
      const h = lane.add(i);
      if (i % 3 === 0) lane.cancel(h);
    }
    sim.run();
    expect(fired).toEqual(Array.from({ length: 1000 }, (_, i) => i).filter((i) => i % 3 !== 0));
  });

  it('refuses a negative, NaN or infinite delay', () => {
    const sim = new Simulation();
    for (const d of [-1, Number.NaN, Infinity]) expect(() => new FixedDelayTimers(sim, d, () => {})).toThrow(RangeError);
  });
});
