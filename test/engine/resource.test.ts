import { describe, expect, it } from 'vitest';
import { Resource } from '../../src/engine/resource.js';
import { Simulation } from '../../src/engine/simulation.js';

type Log = Array<[string, number]>;

/**
 * Arrivals at given times, each holding a slot for `holdMs`; logs `start`, `reject` and `end`
 * with the simulated time, the way a provider thread pool uses the resource.
 */
function runPool(capacity: number, queueLimit: number, arrivals: Array<[string, number, number]>): { log: Log; pool: Resource<string>; sim: Simulation } {
  const sim = new Simulation();
  const pool = new Resource<string>(sim, capacity, queueLimit);
  const log: Log = [];
  const holdMs = new Map(arrivals.map(([name, , hold]) => [name, hold]));
  const begin = (name: string): void => {
    log.push([`start ${name}`, sim.now]);
    sim.schedule(holdMs.get(name)!, () => {
      log.push([`end ${name}`, sim.now]);
      pool.release();
    });
  };
  for (const [name, at] of arrivals) {
    sim.schedule(at, () => {
      const r = pool.acquire(begin, name);
      if (r === 'granted') begin(name);
      else if (r === 'rejected') log.push([`reject ${name}`, sim.now]);
    });
  }
  sim.run();
  return { log, pool, sim };
}

describe('Resource', () => {
  it('grants slots up to capacity and queues the rest in FIFO order', () => {
    const { log } = runPool(2, -1, [
      ['a', 0, 10],
      ['b', 1, 10],
      ['c', 2, 5],
      ['d', 3, 5],
    ]);
    expect(log).toEqual([
      ['start a', 0],
      ['start b', 1],
      ['end a', 10],
      ['start c', 10],
      ['end b', 11],
      ['start d', 11],
      ['end c', 15],
      ['end d', 16],
    ]);
  });

  it('rejects at once when every slot is busy and queueLimit is 0', () => {
    const { log } = runPool(1, 0, [
      ['a', 0, 10],
      ['b', 1, 10],
      ['c', 10.5, 1],
    ]);
    expect(log).toEqual([
      ['start a', 0],
      ['reject b', 1],
      ['end a', 10],
      ['start c', 10.5],
      ['end c', 11.5],
    ]);
  });

  it('rejects when a bounded queue is full', () => {
    const { log } = runPool(1, 2, [
      ['a', 0, 10],
      ['b', 1, 1],
      ['c', 2, 1],
      ['d', 3, 1],
    ]);
    expect(log).toEqual([
      ['start a', 0],
      ['reject d', 3],
      ['end a', 10],
      ['start b', 10],
      ['end b', 11],
      ['start c', 11],
      ['end c', 12],
    ]);
  });

  it('queues without limit when queueLimit is negative, keeping FIFO order across many waiters', () => {
    const arrivals: Array<[string, number, number]> = [['first', 0, 1]];
    for (let i = 0; i < 3000; i++) arrivals.push([`w${i}`, 0.5, 1]);
    const { log } = runPool(1, -1, arrivals);
    const starts = log.filter(([e]) => e.startsWith('start')).map(([e]) => e.slice(6));
    expect(starts).toEqual(['first', ...Array.from({ length: 3000 }, (_, i) => `w${i}`)]);
    expect(log.some(([e]) => e.startsWith('reject'))).toBe(false);
  });

  it('reports the waiting count, slots in use and the peak', () => {
    const sim = new Simulation();
    const pool = new Resource<number>(sim, 2, -1);
    const grant = (): void => {};
    expect([pool.acquire(grant, 1), pool.acquire(grant, 2), pool.acquire(grant, 3)]).toEqual(['granted', 'granted', 'queued']);
    expect([pool.inUse, pool.queued, pool.peakInUse]).toEqual([2, 1, 2]);
    pool.release();
    expect([pool.inUse, pool.queued]).toEqual([2, 0]);
    pool.release();
    pool.release();
    expect([pool.inUse, pool.peakInUse]).toEqual([0, 2]);
  });

  it('integrates busy slot-milliseconds over time', () => {
    const { pool, sim } = runPool(2, 0, [
      ['a', 0, 10],
      ['b', 5, 10],
      ['c', 20, 2.5],
    ]);
    expect(sim.now).toBe(22.5);
    expect(pool.busyMs()).toBe(22.5);
    sim.run({ until: 30 });
    expect(pool.busyMs()).toBe(22.5);
  });

  it('counts a queued wait as busy only from the hand-over', () => {
    const { pool, log } = runPool(1, -1, [
      ['a', 0, 4],
      ['b', 1, 4],
    ]);
    expect(log.at(-1)).toEqual(['end b', 8]);
    expect(pool.busyMs()).toBe(8);
  });
});
