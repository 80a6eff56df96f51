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

class AleaRng implements Rng {
  readonly #prng: () => number;
  constructor(seed: string) {
    this.#prng = seedrandom.alea(seed);
  }
  next(): number {
    return this.#prng();
  }
  nextInt(n: number): number {
    return Math.floor(this.#prng() * n);
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
