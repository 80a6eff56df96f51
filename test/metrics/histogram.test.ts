import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { binLowestUs, binOf, LatencyHistogram } from '../../src/metrics/histogram.js';

function hdrOf(valuesUs: number[]): ReturnType<typeof hdr.build> {
  const h = hdr.build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3, useWebAssembly: false });
  for (const v of valuesUs) h.recordValue(v);
  return h;
}

/** Values spread over nine decades of microseconds, from a fixed seed. */
function sampleUs(n: number): number[] {
  const rng = new RandomStreams(3).stream('histogram');
  return Array.from({ length: n }, () => Math.floor(Math.exp(rng.next() * Math.log(5e9))));
}

describe('binOf', () => {
  it('maps each value to the bin hdr-histogram-js uses for it', () => {
    const h = hdrOf([]) as unknown as { countsArrayIndex(v: number): number };
    for (const v of [...sampleUs(5000), 0, 1, 2047, 2048, 2049, 4095, 4096, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 12345]) {
      expect(binOf(v)).toBe(h.countsArrayIndex(v));
    }
  });

  it('inverts to the lowest value of the bin', () => {
    for (const v of sampleUs(2000)) {
      const low = binLowestUs(binOf(v));
      expect(low).toBeLessThanOrEqual(v);
      expect(binOf(low)).toBe(binOf(v));
      if (low > 0) expect(binOf(low - 1)).toBe(binOf(v) - 1);
      expect(v - low).toBeLessThanOrEqual(low / 1024);
    }
  });
});

describe('LatencyHistogram', () => {
  it('reports the same percentiles as hdr-histogram-js recording the same microseconds', () => {
    const values = sampleUs(20_000).map((us) => us % 10_000_000);
    const mine = new LatencyHistogram();
    for (const us of values) mine.record(us / 1000);
    const ref = hdrOf(values);
    const ps = [1, 50, 90, 99, 99.9, 99.99];
    expect(mine.percentilesMs(ps)).toEqual(ps.map((p) => Math.min(ref.getValueAtPercentile(p) / 1000, mine.maxMs)));
  });

  it('agrees with hdr-histogram-js on every percentile of many random small and large histograms', () => {
    const rng = new RandomStreams(11).stream('histogram-differential');
    const ps = [0, 0.1, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100];
    for (let trial = 0; trial < 300; trial++) {
      // Few values (ties, one value, rank rounding) to many, over narrow and wide ranges.
      const n = 1 + rng.nextInt(trial % 3 === 0 ? 5 : 3000);
      const spanUs = [50, 3000, 2_000_000, 4e9][rng.nextInt(4)]!;
      const values = Array.from({ length: n }, () => Math.floor(rng.next() * spanUs));
      const mine = new LatencyHistogram();
      for (const us of values) mine.record(us / 1000);
      const ref = hdrOf(values);
      const asked = [...ps, rng.next() * 100];
      expect(mine.percentilesMs(asked)).toEqual(asked.map((p) => Math.min(ref.getValueAtPercentile(p) / 1000, mine.maxMs)));
    }
  });

  it('keeps mean and max exact', () => {
    const h = new LatencyHistogram();
    for (const ms of [0.2004, 1.5, 12345.6789]) h.record(ms);
    expect(h.stats().mean).toBe(4115.793);
    expect(h.stats().max).toBe(12345.679);
  });

  it('merges like recording everything into one', () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    const both = new LatencyHistogram();
    sampleUs(3000).forEach((us, i) => {
      const ms = (us % 50_000_000) / 1000;
      (i % 3 === 0 ? a : b).record(ms);
      both.record(ms);
    });
    a.add(b);
    expect(a.stats()).toEqual(both.stats());
    expect(a.count).toBe(both.count);
  });

  it('forgets everything on reset', () => {
    const h = new LatencyHistogram();
    h.record(5000);
    h.reset();
    h.record(1);
    expect(h.stats()).toEqual({ mean: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 1 });
  });

  it('reports zeros when empty', () => {
    expect(new LatencyHistogram().stats()).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
  });

  it('counts a bin past 255 and past 65,535 values exactly, one byte a bin, then two, then four', () => {
    const h = new LatencyHistogram();
    const values: number[] = [];
    const record = (us: number) => {
      h.record(us / 1000);
      values.push(us);
    };
    // Bins below 262 ms: 9,216 of them.
    record(1234);
    expect(h.footprintBytes).toBe(9216);
    for (let i = 0; i < 300; i++) record(1234);
    expect(h.footprintBytes).toBe(2 * 9216);
    for (let i = 0; i < 80_000; i++) record(i % 7 === 0 ? 40_000 + (i % 500) : 1234);
    expect(h.footprintBytes).toBe(4 * 9216);
    const ps = [0, 1, 25, 50, 75, 85, 90, 99, 99.9, 100];
    const ref = hdrOf(values);
    expect(h.percentilesMs(ps)).toEqual(ps.map((p) => Math.min(ref.getValueAtPercentile(p) / 1000, h.maxMs)));
    expect(h.count).toBe(values.length);
    // Merged into a histogram of one-byte bins, the sums are exact too.
    const merged = new LatencyHistogram();
    merged.record(1.234);
    merged.add(h);
    values.push(1234);
    const both = hdrOf(values);
    expect(merged.percentilesMs(ps)).toEqual(ps.map((p) => Math.min(both.getValueAtPercentile(p) / 1000, merged.maxMs)));
  });

  it('holds memory by the largest value, not the number of values', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 100_000; i++) h.record(1 + (i % 1000) * 0.25);
    expect(h.footprintBytes).toBeLessThanOrEqual(64 * 1024);
  });
});
