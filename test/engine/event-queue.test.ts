import { describe, expect, it } from 'vitest';
import { EventQueue, type QueueEntry } from '../../src/engine/event-queue.js';
import { RandomStreams } from '../../src/engine/random.js';

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

  it('reuses an entry that left the queue, placed by its new key, and refuses one still queued', () => {
    const q = new EventQueue();
    const first = q.pushReserved(1, 1, q.reserveSeq(), noop, 'first');
    q.push(4, 1, noop, 'b');
    q.push(2, 1, noop, 'a');
    const queued = q.push(9, 1, noop, 'z');
    expect(() => q.pushReserved(3, 1, q.reserveSeq(), noop, 'x', queued)).toThrow(/still queued/);
    expect(q.pop()!.arg).toBe('first');
    // The popped entry again, at time 4 with a sequence reserved after 'b' was pushed: it comes after 'b'.
    expect(q.pushReserved(4, 1, q.reserveSeq(), noop, 'again', first)).toBe(first);
    expect(drain(q)).toEqual(['a', 'b', 'again', 'z']);
    // Taken (still at the root until settled) counts as left: the next push takes its slot.
    const t = q.pushReserved(5, 1, q.reserveSeq(), noop, 't');
    q.push(6, 1, noop, 'u');
    expect(q.take()).toBe(t);
    expect(q.pushReserved(7, 1, q.reserveSeq(), noop, 'retaken', t)).toBe(t);
    q.settle();
    expect(drain(q)).toEqual(['u', 'retaken']);
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

describe('EventQueue against a plain sorted list', () => {
  it('over random pushes (many tied times), reserved pushes, removals, pops and takes (pushes and removals before the settle), gives the same entries in the same order', () => {
    const rnd = new RandomStreams(5).stream('event-queue-differential');
    const q = new EventQueue();
    // The reference: every pending entry, the earliest found by a linear scan on (time, priority, seq).
    const pending: QueueEntry[] = [];
    const earliest = (): number => {
      let best = -1;
      for (let i = 0; i < pending.length; i++) {
        const a = pending[i]!;
        const b = best < 0 ? undefined : pending[best]!;
        if (b === undefined || a.time < b.time || (a.time === b.time && (a.priority < b.priority || (a.priority === b.priority && a.seq < b.seq)))) best = i;
      }
      return best;
    };
    let now = 0;
    let popped = 0;
    let taken = 0;
    for (let step = 0; step < 20_000; step++) {
      const op = rnd.nextInt(10);
      if (op < 4) {
        // Times on a coarse grid so that ties are common; priorities 0 and 1.
        pending.push(q.push(now + rnd.nextInt(50) / 4, rnd.nextInt(2), noop, step));
      } else if (op === 4) {
        const seq = q.reserveSeq();
        pending.push(q.pushReserved(now + rnd.nextInt(50) / 4, rnd.nextInt(2), seq, noop, step));
      } else if (op < 7 && pending.length > 0) {
        const victim = pending.splice(rnd.nextInt(pending.length), 1)[0]!;
        q.remove(victim);
        q.remove(victim); // a second removal changes nothing
        expect(victim.index).toBe(-1);
      } else if (pending.length > 0 && rnd.nextInt(2) === 0) {
        const expected = pending.splice(earliest(), 1)[0]!;
        const got = q.pop()!;
        expect(got).toBe(expected);
        now = got.time;
        popped++;
      } else if (pending.length > 0) {
        // As the kernel fires an entry: take it, let its callback push and remove, then settle.
        const expected = pending.splice(earliest(), 1)[0]!;
        const got = q.take()!;
        expect(got).toBe(expected);
        expect(got.index).toBe(-1);
        now = got.time;
        popped++;
        taken++;
        for (let k = rnd.nextInt(4); k > 0; k--) {
          if (rnd.nextInt(3) > 0 || pending.length === 0) {
            // Zero-delay pushes at priority 0 sort right after the taken entry; later ones anywhere.
            const delay = rnd.nextInt(3) === 0 ? 0 : rnd.nextInt(50) / 4;
            pending.push(q.push(now + delay, rnd.nextInt(2), noop, `${step}.${k}`));
          } else {
            const victim = pending.splice(rnd.nextInt(pending.length), 1)[0]!;
            q.remove(victim);
            expect(victim.index).toBe(-1);
          }
        }
        q.remove(got); // the taken entry counts as gone already
        // While taken: the earliest other entry's time, and which entry is next (the kernel's fast paths).
        if (pending.length === 0) expect(q.peekTimeAfterTaken()).toBe(Infinity);
        else {
          const next = pending[earliest()]!;
          expect(q.peekTimeAfterTaken()).toBe(next.time);
          expect(q.isNext(next)).toBe(true);
          const other = pending[rnd.nextInt(pending.length)]!;
          if (other !== next) expect(q.isNext(other)).toBe(false);
        }
        q.settle();
        q.settle(); // a second settle changes nothing
      }
      expect(q.size).toBe(pending.length);
      expect(q.peekTime()).toBe(pending.length === 0 ? Infinity : pending[earliest()]!.time);
    }
    while (pending.length > 0) expect(q.pop()).toBe(pending.splice(earliest(), 1)[0]);
    expect(q.pop()).toBeUndefined();
    expect(popped).toBeGreaterThan(3000);
    expect(taken).toBeGreaterThan(1500);
  });
});
