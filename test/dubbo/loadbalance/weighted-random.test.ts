/**
 * The weighted draws shared by the zone extensions (`weightedRandomIndex`) and by leastactive and
 * shortestresponse (`pickAmongTied`): which index each draw gives and how many draws a pick takes,
 * replayed from Dubbo's rules on a second stream with the same seed.
 */
import { describe, expect, it } from 'vitest';
import { pickAmongTied, weightedRandomIndex } from '../../../src/dubbo/loadbalance/weighted-random.js';
import { RandomStreams, type Rng } from '../../../src/engine/random.js';

const SEED = 8;
const RUNS = 200;

/** A seeded stream that counts its draws. */
function countingRng(seed: number): Rng & { draws: number } {
  const inner = new RandomStreams(seed).stream('weights');
  const rng = {
    draws: 0,
    next() {
      rng.draws++;
      return inner.next();
    },
    nextInt(n: number) {
      rng.draws++;
      return inner.nextInt(n);
    },
  };
  return rng;
}

/** One nextInt(n) per pick. */
function uniformDraws(n: number, runs: number): number[] {
  const rng = countingRng(SEED);
  return Array.from({ length: runs }, () => rng.nextInt(n));
}

/** offset = nextInt(total), then the first position where the running total exceeds it. */
function weightedDraws(weights: number[], runs: number): number[] {
  const rng = countingRng(SEED);
  const total = weights.reduce((a, b) => a + b, 0);
  return Array.from({ length: runs }, () => {
    const offset = rng.nextInt(total);
    let running = 0;
    return weights.findIndex((w) => offset < (running += w));
  });
}

describe('weightedRandomIndex', () => {
  it('draws nextInt(total) once and returns the first index whose running total exceeds it', () => {
    const weights = [3, 0, 5, 2];
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => weightedRandomIndex(weights, rng));
    expect(picks).toEqual(weightedDraws(weights, RUNS));
    expect(picks).not.toContain(1);
    expect(rng.draws).toBe(RUNS);
  });

  it('draws nextInt(length) once when every weight is 0 (uniform, not "nobody")', () => {
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => weightedRandomIndex([0, 0, 0], rng));
    expect(picks).toEqual(uniformDraws(3, RUNS));
    expect(rng.draws).toBe(RUNS);
  });

  it('draws nextInt(length) once when every weight is equal', () => {
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => weightedRandomIndex([4, 4, 4, 4, 4], rng));
    expect(picks).toEqual(uniformDraws(5, RUNS));
    expect(rng.draws).toBe(RUNS);
  });
});

describe('pickAmongTied', () => {
  const invokers = ['a', 'b', 'c', 'd', 'e'];
  // Weights are indexed by invoker, not by tie position.
  const weights = [9, 2, 9, 5, 1];

  it('returns the only tied invoker without drawing', () => {
    const rng = countingRng(SEED);
    expect(pickAmongTied(invokers, [3, 0, 1], 1, weights, 5, true, rng)).toBe('d');
    expect(rng.draws).toBe(0);
  });

  it('draws nextInt(total) once and subtracts the tied weights in tie order (the first `count` indexes only)', () => {
    // Tied: e (1), b (2), d (5); index 0 (a, weight 9) is a leftover beyond `count`.
    const indexes = [4, 1, 3, 0];
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => pickAmongTied(invokers, indexes, 3, weights, 8, false, rng));
    expect(picks).toEqual(weightedDraws([1, 2, 5], RUNS).map((i) => invokers[indexes[i]!]));
    expect(rng.draws).toBe(RUNS);
  });

  it('draws nextInt(count) once when the tied weights are all 0', () => {
    const indexes = [2, 0, 4];
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => pickAmongTied(invokers, indexes, 3, [0, 0, 0, 0, 0], 0, true, rng));
    expect(picks).toEqual(uniformDraws(3, RUNS).map((i) => invokers[indexes[i]!]));
    expect(rng.draws).toBe(RUNS);
  });

  it('draws nextInt(count) once when the tied weights are equal', () => {
    const indexes = [0, 2];
    const rng = countingRng(SEED);
    const picks = Array.from({ length: RUNS }, () => pickAmongTied(invokers, indexes, 2, weights, 18, true, rng));
    expect(picks).toEqual(uniformDraws(2, RUNS).map((i) => invokers[indexes[i]!]));
    expect(rng.draws).toBe(RUNS);
  });
});
