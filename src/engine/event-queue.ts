/**
 * The kernel's agenda: a binary min-heap of scheduled callbacks keyed by (time, priority, seq).
 * It owns ordering only; it knows nothing of events or processes.
 */

/** One scheduled entry. `seq` breaks ties so that equal (time, priority) pop in FIFO order. */
export interface QueueEntry {
  time: number;
  priority: number;
  seq: number;
  fire: (arg: unknown) => void;
  arg: unknown;
}

/** Binary heap ordered by time, then priority (lower first), then insertion sequence. */
export class EventQueue {
  // PERF: a plain array heap with inlined comparisons; this is the innermost loop of every run.
  #heap: QueueEntry[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  /** Adds an entry and returns it (callers may keep it to inspect, never to mutate the key). */
  push(time: number, priority: number, fire: (arg: unknown) => void, arg: unknown): QueueEntry {
    const entry: QueueEntry = { time, priority, seq: this.#seq++, fire, arg };
    const heap = this.#heap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
    return entry;
  }

  /** Time of the next entry, or Infinity when empty. */
  peekTime(): number {
    return this.#heap.length > 0 ? this.#heap[0]!.time : Infinity;
  }

  /** Removes and returns the earliest entry. */
  pop(): QueueEntry | undefined {
    const heap = this.#heap;
    const n = heap.length;
    if (n === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (n > 1) {
      const size = n - 1;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        let c = l;
        if (r < size && before(heap[r]!, heap[l]!)) c = r;
        if (!before(heap[c]!, last)) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}

function before(a: QueueEntry, b: QueueEntry): boolean {
  if (a.time !== b.time) return a.time < b.time;
  if (a.priority !== b.priority) return a.priority < b.priority;
  return a.seq < b.seq;
}
