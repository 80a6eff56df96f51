import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/engine/event-queue.js';

/** Pops everything, returning the `arg` of each entry in pop order. */
function drain(q: EventQueue): unknown[] {
  const out: unknown[] = [];
  for (let e = q.pop(); e !== undefined; e = q.pop()) out.push(e.arg);
  return out;
}

const noop = (): void => {};

describe('EventQueue', () => {
  it('pops entries in time order', () => {
    const q = new EventQueue();
    for (const t of [5, 1, 4, 2, 3]) q.push(t, 0, noop, `t${t}`);
    expect(drain(q)).toEqual(['t1', 't2', 't3', 't4', 't5']);
  });

  it('pops lower priority first at the same time', () => {
    const q = new EventQueue();
    q.push(1, 1, noop, 'normal');
    q.push(1, 0, noop, 'urgent');
    q.push(0.5, 1, noop, 'earlier');
    expect(drain(q)).toEqual(['earlier', 'urgent', 'normal']);
  });

  it('pops equal (time, priority) entries in insertion order', () => {
    const q = new EventQueue();
    for (let i = 0; i < 100; i++) q.push(7, 1, noop, i);
    expect(drain(q)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('orders a large shuffled agenda by (time, priority, seq)', () => {
    const q = new EventQueue();
    const entries: Array<[number, number, number]> = [];
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const t = x % 50;
      const p = (x >> 8) % 2;
      entries.push([t, p, i]);
      q.push(t, p, noop, i);
    }
    const expected = [...entries].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]).map((e) => e[2]);
    expect(drain(q)).toEqual(expected);
  });

  it('reports its size and the time of the next entry', () => {
    const q = new EventQueue();
    expect([q.size, q.peekTime()]).toEqual([0, Infinity]);
    q.push(3, 0, noop, null);
    q.push(2, 0, noop, null);
    expect([q.size, q.peekTime()]).toEqual([2, 2]);
    q.pop();
    expect([q.size, q.peekTime()]).toEqual([1, 3]);
    q.pop();
    expect(q.pop()).toBeUndefined();
  });
});
