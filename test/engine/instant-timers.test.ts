import { describe, expect, it } from 'vitest';
import { InstantTimers } from '../../src/engine/instant-timers.js';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation, URGENT } from '../../src/engine/simulation.js';

/**
 * At random instants a burst of timers is set for one later instant, with other work scheduled
 * between them (some for that same instant); each timer may schedule work at its instant, trigger
 * an event or queue zero-delay work. `batched` sends each burst through one InstantTimers; otherwise
 * each timer is its own `schedule` call. Returns the log of (what, when) and the steps taken.
 */
function workload(seed: number, batched: boolean): { log: Array<[string, number]>; events: number } {
  const sim = new Simulation();
  const rng = new RandomStreams(seed).stream('instant-timers-test');
  const log: Array<[string, number]> = [];
  const fire = (arg: unknown): void => {
    log.push([`timer ${String(arg)}`, sim.now]);
    const r = rng.next();
    if (r < 0.15) sim.schedule(0, () => log.push([`after ${String(arg)}`, sim.now]));
    else if (r < 0.25) sim.schedule(0, () => log.push([`urgent after ${String(arg)}`, sim.now]), URGENT);
    else if (r < 0.35) sim.scheduleLast(0, () => log.push([`last of ${String(arg)}`, sim.now]));
    else if (r < 0.45) {
      const ev = sim.event();
      ev.addCallback(() => log.push([`event of ${String(arg)}`, sim.now]));
      ev.succeed();
    }
  };
  let id = 0;
  const burst = (): void => {
    const delay = rng.next() < 0.2 ? 0 : rng.nextInt(5) + (rng.next() < 0.5 ? 0 : 0.5);
    const timers = batched ? new InstantTimers(sim, sim.now + delay, fire) : null;
    const n = 1 + rng.nextInt(8);
    for (let i = 0; i < n; i++) {
      const name = `b${id}.${i}`;
      if (timers !== null) timers.add(name);
      else sim.schedule(delay, fire, undefined, name);
      // Work scheduled between two timers of the burst, sometimes for the same instant.
      if (rng.next() < 0.2) sim.schedule(rng.next() < 0.5 ? delay : rng.next() * 5, () => log.push([`between ${name}`, sim.now]));
    }
    id++;
  };
  for (let k = 0; k < 2000; k++) sim.schedule(rng.nextInt(300), burst);
  sim.run();
  return { log, events: sim.eventsProcessed };
}

describe('InstantTimers', () => {
  it.each([1, 2, 3, 4])('runs each timer exactly where its own schedule call would have, in as many steps (seed %i)', (seed) => {
    const plain = workload(seed, false);
    const batched = workload(seed, true);
    expect(plain.log.length).toBeGreaterThan(10_000);
    expect(plain.log.filter(([what]) => what.startsWith('between')).length).toBeGreaterThan(500);
    expect(batched.log).toEqual(plain.log);
    expect(batched.events).toBe(plain.events);
  });

  it('keeps one agenda entry for its timers', () => {
    const sim = new Simulation();
    const fired: unknown[] = [];
    const timers = new InstantTimers(sim, 10, (arg) => fired.push(arg));
    for (let i = 0; i < 100; i++) timers.add(i);
    expect(sim.agendaSize).toBe(1);
    sim.run();
    expect(fired).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(sim.eventsProcessed).toBe(100);
  });

  it('refuses a timer added at another instant or once they run, and a time in the past', () => {
    const sim = new Simulation();
    const timers = new InstantTimers(sim, 10, () => {});
    timers.add(1);
    sim.schedule(5, () => expect(() => timers.add(2)).toThrow(/added at the instant/));
    sim.run();
    expect(() => new InstantTimers(sim, 5, () => {})).toThrow(RangeError);
  });
});
