/**
 * The sliding window's boundaries, pinned to Sentinel's BucketLeapArrayTest (window 1000 ms, interval
 * 2000 ms, two buckets; and ten 100 ms buckets over 1 s), with the clock as data.
 */
import { describe, expect, it } from 'vitest';
import { BucketLeapArray } from '../../src/sentinel/metric-bucket.js';
import { StatisticNode } from '../../src/sentinel/statistic-node.js';

const T = 1_700_000_000_123; // any epoch ms, not on a bucket boundary

describe('LeapArray (BucketLeapArrayTest)', () => {
  it('a new window starts at the bucket boundary below the time (testNewWindow, testLeapArrayWindowStart)', () => {
    const a = new BucketLeapArray(2, 2000);
    const w = a.currentWindow(T)!;
    expect(w.windowLengthInMs).toBe(1000);
    expect(w.windowStart).toBe(T - (T % 1000));
    expect(w.value.pass).toBe(0);
  });

  it('the same bucket serves the whole window, the next window gets a fresh one (testWindowAfterOneInterval)', () => {
    const a = new BucketLeapArray(2, 2000);
    const start = T - (T % 1000);
    const first = a.currentWindow(start)!;
    first.value.pass += 1;
    first.value.block += 1;
    const middle = a.currentWindow(start + 500)!;
    expect(middle.windowStart).toBe(start);
    middle.value.pass += 1;
    expect(middle.value).toBe(first.value);
    expect(middle.value.pass).toBe(2);
    const next = a.currentWindow(start + 1000)!;
    expect(next.windowStart - start).toBe(1000);
    expect([next.value.pass, next.value.block]).toEqual([0, 0]);
  });

  it('a slot reused one interval later is a reset bucket, not the old counts (testWindowDeprecatedRefresh)', () => {
    const a = new BucketLeapArray(2, 2000);
    for (let i = 0; i < 2; i++) a.currentWindow(T + 1000 * i)!.value.pass += 1;
    for (let i = 2; i < 4; i++) expect(a.currentWindow(T + 1000 * i)!.value.pass).toBe(0);
  });

  it('the previous window is the bucket just before, and none once it is stale (testGetPreviousWindow)', () => {
    const a = new BucketLeapArray(2, 2000);
    const w = a.currentWindow(T)!;
    expect(a.getPreviousWindow(T)).toBeNull();
    expect(a.getPreviousWindow(T + 1000)).toBe(w);
    expect(a.getPreviousWindow(T + 11 * 1000)).toBeNull();
  });

  it('stale buckets drop out of the list; touching one resets it (testListWindowsResetOld, testListWindowsNewBucket)', () => {
    const a = new BucketLeapArray(10, 1000);
    const w1 = a.currentWindow(T)!;
    const w2 = a.currentWindow(T + 100)!;
    expect(new Set(a.list(T + 100))).toEqual(new Set([w1, w2]));
    a.currentWindow(T + 100 + 1000)!.value.pass += 1;
    expect(a.list(T + 100 + 1000)).toHaveLength(1);
    // Without touching the deprecated slots, they are filtered at read time.
    const b = new BucketLeapArray(10, 1000);
    b.currentWindow(T);
    b.currentWindow(T + 100);
    const later = T + 1000 + 300;
    b.currentWindow(later)!.value.pass += 1;
    expect(b.list(later)).toHaveLength(1);
  });
});

describe('StatisticNode', () => {
  it('pass QPS counts the two 500 ms buckets of the last second: a pass leaves it when the slot of its bucket is reused', () => {
    const n = new StatisticNode();
    const start = 10_000;
    n.addPassRequest(1, start + 100);
    n.addPassRequest(1, start + 600);
    expect(n.passQps(start + 999)).toBe(2);
    // At start+1000 the first bucket's slot is reused for [start+1000, start+1500).
    expect(n.passQps(start + 1000)).toBe(1);
    // The second bucket started at start+500; at start+1500 its slot is taken for the new bucket.
    expect(n.passQps(start + 1499)).toBe(1);
    expect(n.passQps(start + 1500)).toBe(0);
  });

  it('previous pass QPS is the previous whole second of the minute window', () => {
    const n = new StatisticNode();
    for (let i = 0; i < 7; i++) n.addPassRequest(1, 5_000 + i * 100);
    expect(n.previousPassQps(5_999)).toBe(0);
    expect(n.previousPassQps(6_000)).toBe(7);
    expect(n.previousPassQps(7_000)).toBe(0);
  });

  it('average RT is total RT over successes in the second window, min RT the smallest bucket minimum', () => {
    const n = new StatisticNode();
    n.addRtAndSuccess(10, 1, 1_000);
    n.addRtAndSuccess(30, 1, 1_200);
    expect(n.avgRt(1_300)).toBe(20);
    expect(n.minRt(1_300)).toBe(10);
    expect(n.avgRt(3_000)).toBe(0);
  });
});

describe('LeapArray at the start of simulated time', () => {
  it('has no previous window in the first window (Java`s epoch clock is never there)', () => {
    const a = new BucketLeapArray(60, 60_000);
    a.currentWindow(500)!.value.pass += 1;
    expect(a.getPreviousWindow(500)).toBeNull();
    expect(a.getPreviousWindow(1000)!.value.pass).toBe(1);
  });
});
