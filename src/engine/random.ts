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
// deep. The state, as seedrandom seeds it, lives on this object instead, stepped by Alea's recurrence: the
// same numbers (test/engine/random.test.ts checks them against seedrandom's). The fields start as numbers
// (not undefined) so that V8 keeps them as unboxed doubles, updated in place.
class AleaRng implements Rng {
  #s0 = 0;
  #s1 = 0;
  #s2 = 0;
  #c = 0;
  constructor(seed: string) {
    const state = seedrandom.alea(seed, { state: true }).state();
    this.#s0 = state.s0;
    this.#s1 = state.s1;
    this.#s2 = state.s2;
    this.#c = state.c;
  }
  next(): number {
    // Baagoe's Alea step, as seedrandom's `next` computes it.
    const t = 2091639 * this.#s0 + this.#c * 2.3283064365386963e-10; // 2^-32
    this.#s0 = this.#s1;
    this.#s1 = this.#s2;
    this.#c = t | 0;
    return (this.#s2 = t - this.#c);
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
