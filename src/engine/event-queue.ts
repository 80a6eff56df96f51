/**
 * The kernel's agenda: a min-heap of scheduled callbacks keyed by (time, priority, seq).
 * It owns ordering and removal; it knows nothing of events or processes. Entries know their heap
 * position, so a cancelled timer leaves the heap at once and memory stays bounded by what is
 * actually pending (a 1-hour timeout per call would otherwise pile up every finished call's timer).
 */

/** One scheduled entry. `seq` breaks ties so that equal (time, priority) pop in FIFO order. */
export interface QueueEntry {
  time: number;
  priority: number;
  seq: number;
  fire: (arg: unknown) => void;
  arg: unknown;
  /** Position in the heap, or -1 once popped or removed. */
  index: number;
}

/**
 * Children per node of the heap. PERF: four, not two: a sift crosses half as many levels, and each
 * level's child times share a cache line (a run at seed scale keeps some 10^5 entries pending, and every
 * entry a sift moves is written its new index). Entries never tie on (time, priority, seq), so the order
 * they leave in is the same for any arity.
 */
const ARITY = 4;

/** The largest integer V8 keeps unboxed in an object's field (31-bit small integers on every platform). */
const MAX_SMALL_INTEGER = 0x3fffffff;

/** A 4-ary heap ordered by time, then priority (lower first), then insertion sequence. */
export class EventQueue {
  // PERF: a plain array heap with inlined comparisons; this is the innermost loop of every run. Each
  // slot's time is also kept in a typed array beside it: a comparison reads that contiguous array and
  // touches the entries only when the times tie.
  #heap: QueueEntry[] = [];
  #times = new Float64Array(256);
  #seq = 0;
  /**
   * PERF: the entry `take` handed out, still at the root until `settle` or the next insertion. A
   * callback that schedules its successor (most do) then costs one sift from the root instead of a
   * pop's sift-down and a push's sift-up.
   */
  #taken: QueueEntry | null = null;

  get size(): number {
    return this.#heap.length;
  }

  /** Adds an entry and returns it (a handle for `remove`). */
  push(time: number, priority: number, fire: (arg: unknown) => void, arg: unknown): QueueEntry {
    const entry: QueueEntry = { time, priority, seq: this.#seq++, fire, arg, index: -1 };
    this.#insert(entry);
    return entry;
  }

  /**
   * Takes the sequence number the next `push` would get, without adding an entry: `pushReserved`
   * later places an entry exactly where a `push` made now would have placed it.
   */
  reserveSeq(): number {
    return this.#seq++;
  }

  /**
   * Adds an entry with a sequence number taken earlier by `reserveSeq`. `reuse`, an entry that has
   * left the queue (popped, taken or removed: its `index` is -1), is rewritten and added instead of a
   * new one.
   */
  pushReserved(time: number, priority: number, reservedSeq: number, fire: (arg: unknown) => void, arg: unknown, reuse?: QueueEntry): QueueEntry {
    // PERF: the timer lanes keep reserved numbers in Float64Arrays, whose reads are doubles: stored as they
    // are, they made every entry's `seq` a boxed number (a heap allocation per entry, and 16 bytes each of the
    // 800,000 entries pending at seed scale). An integer in small-integer range is stored as one.
    const seq = reservedSeq <= MAX_SMALL_INTEGER ? reservedSeq | 0 : reservedSeq;
    let entry: QueueEntry;
    if (reuse === undefined) entry = { time, priority, seq, fire, arg, index: -1 };
    else {
      if (reuse.index !== -1) throw new Error('an entry still queued cannot be reused');
      entry = reuse;
      entry.time = time;
      entry.priority = priority;
      entry.seq = seq;
      entry.fire = fire;
      entry.arg = arg;
    }
    this.#insert(entry);
    return entry;
  }

  /**
   * Time of the earliest entry other than the one taken and not yet settled (every entry when none
   * is), or Infinity. While an entry is taken it holds the root and sorts before every other entry,
   * so the earliest other one is a child of the root.
   */
  peekTimeAfterTaken(): number {
    const size = this.#heap.length;
    const times = this.#times;
    if (this.#taken === null) return size > 0 ? times[0]! : Infinity;
    let min = Infinity;
    const end = Math.min(size, ARITY + 1);
    for (let c = 1; c < end; c++) if (times[c]! < min) min = times[c]!;
    return min;
  }

  /** True when `entry` is queued and is the next one popped (the one taken and not yet settled aside). */
  isNext(entry: QueueEntry): boolean {
    const i = entry.index;
    if (i < 0) return false;
    if (this.#taken === null) return i === 0;
    // The taken entry holds the root: the next one is the earliest of its children.
    if (i > ARITY) return false;
    const heap = this.#heap;
    const end = Math.min(heap.length, ARITY + 1);
    for (let c = 1; c < end; c++) if (c !== i && before(heap[c]!, entry)) return false;
    return true;
  }

  /** Time of the next entry, or Infinity when empty. */
  peekTime(): number {
    return this.#heap.length > 0 ? this.#times[0]! : Infinity;
  }

  /**
   * Returns the earliest entry, which counts as removed (its `index` is -1) but keeps its slot at the
   * root until `settle`, or until the next `push`, which takes the slot over. Between `take` and
   * `settle` the queue may be pushed to and removed from, but `pop`, `size` and `peekTime` are not
   * yet about the remaining entries: call `settle` first (the kernel does, after each callback).
   */
  take(): QueueEntry | undefined {
    // A take while one is pending (a callback that steps the kernel itself) ends the pending one first.
    if (this.#taken !== null) this.settle();
    const heap = this.#heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    top.index = -1;
    this.#taken = top;
    return top;
  }

  /** Ends a `take`: the taken entry leaves the root, unless a push already took its slot. */
  settle(): void {
    if (this.#taken === null) return;
    this.#taken = null;
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length > 0) this.#down(0, last);
  }

  /** Removes and returns the earliest entry. */
  pop(): QueueEntry | undefined {
    const heap = this.#heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) this.#down(0, last);
    top.index = -1;
    return top;
  }

  /** Removes a pending entry (no effect if it already ran or was removed). */
  remove(entry: QueueEntry): void {
    const i = entry.index;
    if (i < 0) return;
    const heap = this.#heap;
    const last = heap.pop()!;
    entry.index = -1;
    if (last === entry) return;
    if (i > 0 && before(last, heap[(i - 1) >> 2]!)) this.#up(i, last);
    else this.#down(i, last);
  }

  #insert(entry: QueueEntry): void {
    if (this.#taken !== null) {
      // The taken entry's slot: every other entry sorts after it, so the root is a valid start.
      this.#taken = null;
      this.#down(0, entry);
      return;
    }
    const at = this.#heap.length;
    if (at === this.#times.length) {
      const grown = new Float64Array(at * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    this.#heap.push(entry);
    this.#up(at, entry);
  }

  // Moves `entry` up from the free slot `start` to its place.
  #up(start: number, entry: QueueEntry): void {
    const heap = this.#heap;
    const times = this.#times;
    const time = entry.time;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const parentTime = times[parent]!;
      if (parentTime < time || (parentTime === time && !tieBefore(entry, heap[parent]!))) break;
      const p = heap[parent]!;
      heap[i] = p;
      times[i] = parentTime;
      p.index = i;
      i = parent;
    }
    heap[i] = entry;
    times[i] = time;
    entry.index = i;
  }

  // Moves `entry` down from the free slot `start` to its place.
  #down(start: number, entry: QueueEntry): void {
    const heap = this.#heap;
    const times = this.#times;
    const size = heap.length;
    const time = entry.time;
    let i = start;
    for (;;) {
      const first = ARITY * i + 1;
      if (first >= size) break;
      const end = first + ARITY < size ? first + ARITY : size;
      let c = first;
      let childTime = times[first]!;
      for (let k = first + 1; k < end; k++) {
        const t = times[k]!;
        if (t < childTime || (t === childTime && tieBefore(heap[k]!, heap[c]!))) {
          c = k;
          childTime = t;
        }
      }
      if (childTime > time || (childTime === time && !tieBefore(heap[c]!, entry))) break;
      const child = heap[c]!;
      heap[i] = child;
      times[i] = childTime;
      child.index = i;
      i = c;
    }
    heap[i] = entry;
    times[i] = time;
    entry.index = i;
  }
}

function before(a: QueueEntry, b: QueueEntry): boolean {
  if (a.time !== b.time) return a.time < b.time;
  return tieBefore(a, b);
}

// Order of two entries at the same time.
function tieBefore(a: QueueEntry, b: QueueEntry): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  return a.seq < b.seq;
}
