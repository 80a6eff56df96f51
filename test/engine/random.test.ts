import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';

function draws(seed: number, name: string, n = 20): number[] {
  const rng = new RandomStreams(seed).stream(name);
  return Array.from({ length: n }, () => rng.next());
}

describe('RandomStreams', () => {
  it('gives the same sequence for the same seed and name', () => {
    expect(draws(1, 'arrivals:web')).toEqual(draws(1, 'arrivals:web'));
  });

  it('gives different sequences for different names', () => {
    const a = draws(1, 'arrivals:web');
    const b = draws(1, 'arrivals:api');
    expect(a.filter((x, i) => x === b[i])).toEqual([]);
  });

  it('gives different sequences for different seeds', () => {
    const a = draws(1, 'arrivals:web');
    const b = draws(2, 'arrivals:web');
    expect(a.filter((x, i) => x === b[i])).toEqual([]);
  });

  it('keeps a stream unchanged when other streams are created and drawn from', () => {
    const streams = new RandomStreams(9);
    const a = streams.stream('a');
    const first = [a.next(), a.next()];
    const other = streams.stream('b');
    for (let i = 0; i < 100; i++) other.next();
    const rest = [a.next(), a.next()];
    expect([...first, ...rest]).toEqual(draws(9, 'a', 4));
  });

  it("keeps thousands of streams apart, each drawing seedrandom's Alea sequence, interleaved", () => {
    // More streams than one block of state slots holds, drawn from in turn.
    const streams = new RandomStreams(3);
    const names = Array.from({ length: 2500 }, (_, i) => `lb/web@zoneA#${i}`);
    const rngs = names.map((n) => streams.stream(n));
    const reference = names.map((n) => seedrandom.alea(`3\u0000${n}`));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < rngs.length; i += 1 + (i % 7)) expect(rngs[i]!.next()).toBe(reference[i]!());
    }
  });

  it('draws floats in [0, 1) with the mean and variance of a uniform', () => {
    const rng = new RandomStreams(5).stream('u');
    const n = 100_000;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
      sumSq += x * x;
    }
    const mean = sum / n;
    // Standard errors: mean sqrt(1/12/n); E[x^2] sqrt(4/45/n). Tolerance 4 standard errors.
    expect(Math.abs(mean - 0.5)).toBeLessThan(4 * Math.sqrt(1 / 12 / n));
    expect(Math.abs(sumSq / n - 1 / 3)).toBeLessThan(4 * Math.sqrt(4 / 45 / n));
  });

  it('draws integers in [0, n) with equal frequencies', () => {
    const rng = new RandomStreams(6).stream('int');
    const counts = [0, 0, 0, 0, 0, 0, 0];
    const n = 70_000;
    for (let i = 0; i < n; i++) counts[rng.nextInt(7)]!++;
    const p = 1 / 7;
    for (const c of counts) expect(Math.abs(c / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(n);
  });

  it('gives uncorrelated streams for different names', () => {
    const streams = new RandomStreams(11);
    const a = streams.stream('x');
    const b = streams.stream('y');
    const n = 50_000;
    let sab = 0;
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < n; i++) {
      const x = a.next();
      const y = b.next();
      sab += x * y;
      sa += x;
      sb += y;
    }
    const cov = sab / n - (sa / n) * (sb / n);
    const correlation = cov / (1 / 12);
    // The sample correlation of independent streams has standard error 1/sqrt(n).
    expect(Math.abs(correlation)).toBeLessThan(4 / Math.sqrt(n));
  });

  it("draws exactly seedrandom's Alea sequence for the stream's seed (the reference its own stepping must match)", () => {
    for (const seed of [0, 1, 7, 123456789]) {
      for (const name of ['arrivals:web', 'consumer:web@zoneA#17', '', 'x'.repeat(200)]) {
        const reference = seedrandom.alea(`${seed}\u0000${name}`);
        const rng = new RandomStreams(seed).stream(name);
        for (let i = 0; i < 5000; i++) {
          if (i % 3 === 0) expect(rng.nextInt(1000)).toBe(Math.floor(reference() * 1000));
          else expect(rng.next()).toBe(reference());
        }
      }
    }
  });
});
