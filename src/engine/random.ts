/**
 * Seeded random streams, one per named purpose, so that adding a consumer or a fault does not
 * shift the draws of every other part of the model. Built on seedrandom's Alea generator.
 */
import seedrandom from 'seedrandom';

/** A source of uniform draws. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  nextInt(n: number): number;
}

// PERF: seedrandom's Alea keeps its state on an object behind closures (three objects per stream), and a
// run holds thousands of streams (per consumer instance and purpose), so a draw was several cache misses
// deep. The state, as seedrandom seeds it, is stepped here by Alea's recurrence: the same numbers
// (test/engine/random.test.ts checks them against seedrandom's). It lives in slots of a typed array shared
// by many streams (`STATE_SLOTS`), not in fields of the stream: a double field is a separate heap number
// each, which a collection may move away from its stream, and a few hundred kilobytes of slots for
// thousands of streams stay in the processor's cache where as many streams' own objects do not.
const STATE_SLOTS = 4096;
let slots = new Float64Array(STATE_SLOTS);
let nextSlot = 0;

class AleaRng implements Rng {
  readonly #state: Float64Array;
  /** The stream's slots: s0, s1, s2 and c of Alea, from here. */
  readonly #at: number;
  constructor(seed: string) {
    const state = seedrandom.alea(seed, { state: true }).state();
    if (nextSlot + 4 > STATE_SLOTS) {
      slots = new Float64Array(STATE_SLOTS);
      nextSlot = 0;
    }
    this.#state = slots;
    this.#at = nextSlot;
    nextSlot += 4;
    slots[this.#at] = state.s0;
    slots[this.#at + 1] = state.s1;
    slots[this.#at + 2] = state.s2;
    slots[this.#at + 3] = state.c;
  }
  next(): number {
    // Baagoe's Alea step, as seedrandom's `next` computes it.
    const s = this.#state;
    const i = this.#at;
    const t = 2091639 * s[i]! + s[i + 3]! * 2.3283064365386963e-10; // 2^-32
    s[i] = s[i + 1]!;
    s[i + 1] = s[i + 2]!;
    const c = t | 0;
    s[i + 3] = c;
    return (s[i + 2] = t - c);
  }
  nextInt(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** Hands out independent deterministic streams derived from one run seed and a stream name. */
export class RandomStreams {
  readonly seed: number;
  constructor(seed: number) {
    this.seed = seed;
  }
  /** The stream for `name`; the same name always gives an identical sequence for one seed. */
  stream(name: string): Rng {
    return new AleaRng(`${this.seed}\u0000${name}`);
  }
}
