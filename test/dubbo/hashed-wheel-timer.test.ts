/**
 * DefaultFuture's timeout wheel (2.7 DefaultFuture.java:55-58: `new HashedWheelTimer(..., 30,
 * MILLISECONDS)`; HashedWheelTimer.java:399 deadline, :480-488 bucket, :516-528 tick): a timeout fires
 * at the end of the tick its deadline falls in, counted from the JVM's first request.
 */
import { describe, expect, it } from 'vitest';
import { HashedWheelTimer } from '../../src/dubbo/hashed-wheel-timer.js';

describe('HashedWheelTimer (DefaultFuture.TIME_OUT_TIMER)', () => {
  it('is started by the first request: its timeout fires at the end of the tick its deadline falls in', () => {
    const timer = new HashedWheelTimer('10.0.0.9');
    expect(timer.sent(1000)).toBe(0);
    // start 1000; deadline 1000 + 1000 → tick 33 (990..1020 after start) ends at 1000 + 1020.
    expect(timer.expiryMs(1000, 1000)).toBe(2020);
    expect(timer.sent(1000.5)).toBe(1);
  });

  it('fires 0 to 30 ms late, never early, and exactly 30 ms late on a tick boundary', () => {
    const timer = new HashedWheelTimer('10.0.0.9');
    timer.sent(0);
    for (const [now, delay] of [[5, 100], [17.25, 1000], [29.9, 3000], [44, 20_000]] as const) {
      const late = timer.expiryMs(now, delay) - (now + delay);
      expect(late).toBeGreaterThan(0);
      expect(late).toBeLessThanOrEqual(30);
    }
    expect(timer.expiryMs(30, 60)).toBe(120);
  });

  it('a timeout shorter than the tick fires at the next tick, not one already past (Math.max(calculated, tick))', () => {
    const timer = new HashedWheelTimer('10.0.0.9');
    timer.sent(0);
    expect(timer.expiryMs(50, 1)).toBe(60);
  });

  it('two JVMs whose first requests came at different times fire the same timeout at different moments', () => {
    const a = new HashedWheelTimer('10.0.0.1');
    const b = new HashedWheelTimer('10.0.0.2');
    a.sent(0);
    b.sent(12);
    expect(a.expiryMs(100, 1000)).toBe(1110);
    expect(b.expiryMs(100, 1000)).toBe(1122);
  });
});
