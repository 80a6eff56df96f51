import { describe, expect, it } from 'vitest';
import { Resource, WatchedResources } from '../../src/engine/resource.js';
import { RandomStreams } from '../../src/engine/random.js';
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

  it('counts the waiters left after a hand-over against a bounded queue', () => {
    const { log } = runPool(1, 2, [
      ['a', 0, 10],
      ['b', 1, 10],
      ['c', 2, 10],
      ['d', 15, 1],
      ['e', 16, 1],
    ]);
    // At 15 and 16 b runs and c waits: d takes the second place of the queue, e finds it full.
    expect(log).toEqual([
      ['start a', 0],
      ['end a', 10],
      ['start b', 10],
      ['reject e', 16],
      ['end b', 20],
      ['start c', 20],
      ['end c', 30],
      ['start d', 30],
      ['end d', 31],
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

  it('hands 200,000 waiters queued at once the slot in FIFO order, each hand-over in constant time however long the queue', () => {
    const sim = new Simulation();
    const pool = new Resource<number>(sim, 1, -1);
    const n = 200_000;
    let next = 0;
    let outOfOrder = 0;
    // Each waiter holds the slot for 1 ms; a hand-over that copied the queue would make this quadratic.
    const grant = (i: number): void => {
      if (i !== next++) outOfOrder++;
      sim.schedule(1, () => pool.release());
    };
    expect(pool.acquire(() => {}, -1)).toBe('granted');
    for (let i = 0; i < n; i++) pool.acquire(grant, i);
    expect(pool.queued).toBe(n);
    sim.schedule(1, () => pool.release());
    sim.run();
    expect([next, outOfOrder, pool.queued, pool.inUse, pool.completed, sim.now]).toEqual([n, 0, 0, 0, n + 1, n + 1]);
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

  it('gives each window the highest use reached in it, and starts the next window at the current use', () => {
    const sim = new Simulation();
    const pool = new Resource<number>(sim, 3, -1);
    const grant = (): void => {};
    pool.acquire(grant, 1);
    pool.acquire(grant, 2);
    pool.acquire(grant, 3);
    pool.release();
    pool.release();
    // The window saw 3 slots at once; 1 is still in use when it closes.
    expect(pool.takeWindowPeak()).toBe(3);
    // Nothing changed since: the new window's peak is the use carried over, not 0 and not the old 3.
    expect(pool.takeWindowPeak()).toBe(1);
    pool.acquire(grant, 4);
    pool.release();
    expect(pool.takeWindowPeak()).toBe(2);
    // A take below the window's peak leaves the peak: 3, down to 1, up to 2 peaks at 3.
    pool.acquire(grant, 5);
    pool.acquire(grant, 6);
    pool.release();
    pool.release();
    pool.acquire(grant, 7);
    expect([pool.inUse, pool.takeWindowPeak()]).toEqual([2, 3]);
    // The whole-run peak is unaffected by windows.
    expect(pool.peakInUse).toBe(3);
  });

  it('counts every slot given back as completed, including one handed on to a waiter', () => {
    const sim = new Simulation();
    const pool = new Resource<number>(sim, 1, -1);
    const grant = (): void => {};
    pool.acquire(grant, 1);
    pool.acquire(grant, 2);
    expect(pool.completed).toBe(0);
    pool.release();
    // The waiter holds the slot now: one completed, one in use, none queued.
    expect([pool.completed, pool.inUse, pool.queued]).toEqual([1, 1, 0]);
    pool.release();
    expect([pool.completed, pool.inUse]).toEqual([2, 0]);
  });

  it('grants a queued waiter through the agenda, ahead of the timers due at the same instant', () => {
    const sim = new Simulation();
    const pool = new Resource<string>(sim, 1, -1);
    const log: string[] = [];
    pool.acquire(() => {}, 'a');
    expect(pool.acquire((who) => log.push(`granted ${who}`), 'b')).toBe('queued');
    sim.schedule(5, () => {
      pool.release();
      // Not synchronously inside release().
      log.push('released');
    });
    sim.schedule(5, () => log.push('timer due at 5'));
    sim.run();
    expect(log).toEqual(['released', 'granted b', 'timer due at 5']);
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

describe('WatchedResources', () => {
  /**
   * Many pools with random takes and releases (queueing included), read every 7.3 ms both ways: each pool
   * read in turn (the plain reference) and through a watch. Two identical runs from one seed.
   */
  function readings(watched: boolean): Array<{ busyMs: number; peak: number }> {
    const sim = new Simulation();
    const rng = new RandomStreams(41).stream('pools');
    const pools = Array.from({ length: 200 }, () => new Resource<number>(sim, 3, -1));
    const watch = new WatchedResources();
    if (watched) for (const p of pools) watch.add(p);
    for (let k = 0; k < 4000; k++) {
      sim.schedule(rng.next() * 2000, () => {
        // Mostly a few busy pools, now and then any of them (most pools stay idle between reads).
        const p = pools[rng.next() < 0.9 ? Math.floor(rng.next() * 8) : Math.floor(rng.next() * pools.length)]!;
        const release = (): void => {
          sim.schedule(rng.next() * 40, () => p.release());
        };
        if (p.acquire(release, 0) === 'granted') release();
      });
    }
    const out: Array<{ busyMs: number; peak: number }> = [];
    for (let t = 0; t < 2100; t += 7.3) {
      sim.schedule(t, () => {
        if (watched) {
          out.push(watch.read(0));
          return;
        }
        let peak = 0;
        for (const p of pools) peak = Math.max(peak, p.takeWindowPeak());
        out.push({ busyMs: pools.reduce((s, p) => s + p.busyMs(), 0), peak });
      });
    }
    sim.run();
    return out;
  }

  it('reads the same busy time (to the bit) and window peaks as reading every pool', () => {
    const plain = readings(false);
    const viaWatch = readings(true);
    expect(viaWatch).toHaveLength(plain.length);
    for (let k = 0; k < plain.length; k++) {
      expect(Object.is(viaWatch[k]!.busyMs, plain[k]!.busyMs)).toBe(true);
      expect(viaWatch[k]!.peak).toBe(plain[k]!.peak);
    }
    // The case is not trivial: pools are busy at reads, queue, and peak above 1.
    expect(Math.max(...plain.map((r) => r.peak))).toBeGreaterThan(1);
    expect(plain.at(-1)!.busyMs).toBeGreaterThan(0);
  });
});
