/**
 * The flow controllers, pinned to Sentinel's DefaultControllerTest, WarmUpControllerTest,
 * ThrottlingControllerTest and WarmUpRateLimiterControllerTest: the node's figures and the clock are
 * data here, where Java mocks them (and sleeps: here a pass's wait is returned).
 */
import { describe, expect, it } from 'vitest';
import { DefaultController } from '../../src/sentinel/flow/default-controller.js';
import { ThrottlingController } from '../../src/sentinel/flow/throttling-controller.js';
import { WarmUpController } from '../../src/sentinel/flow/warm-up-controller.js';
import { WarmUpRateLimiterController } from '../../src/sentinel/flow/warm-up-rate-limiter-controller.js';
import { FLOW_GRADE_QPS, FLOW_GRADE_THREAD } from '../../src/sentinel/rules.js';
import type { StatisticNode } from '../../src/sentinel/statistic-node.js';

/** A node whose figures the test sets (Java's `mock(Node.class)`). */
function fakeNode(f: { passQps?: number; previousPassQps?: number; curThreadNum?: number }): StatisticNode {
  return { passQps: () => f.passQps ?? 0, previousPassQps: () => f.previousPassQps ?? 0, curThreadNum: () => f.curThreadNum ?? 0 } as unknown as StatisticNode;
}

const T = 1_700_000_000_000;

describe('DefaultController (DefaultControllerTest)', () => {
  it('QPS grade: passes at threshold - 1, blocks at the threshold', () => {
    const c = new DefaultController(10, FLOW_GRADE_QPS);
    expect(c.canPass(fakeNode({ passQps: 9 }), 1, T).pass).toBe(true);
    expect(c.canPass(fakeNode({ passQps: 10 }), 1, T).pass).toBe(false);
  });
  it('thread grade: passes at threshold - 1 threads, blocks at the threshold', () => {
    const c = new DefaultController(8, FLOW_GRADE_THREAD);
    expect(c.canPass(fakeNode({ curThreadNum: 7 }), 1, T).pass).toBe(true);
    expect(c.canPass(fakeNode({ curThreadNum: 8 }), 1, T).pass).toBe(false);
  });
  it('QPS grade truncates the pass QPS as Java’s (int) cast', () => {
    expect(new DefaultController(10, FLOW_GRADE_QPS).canPass(fakeNode({ passQps: 9.5 }), 1, T).pass).toBe(true);
  });
});

describe('WarmUpController (WarmUpControllerTest)', () => {
  it('count 10, 10 s, cold factor 3: warning token 50, max 100; cold it allows ~3.4 QPS, warmed up 10', () => {
    const c = new WarmUpController(10, 10, 3);
    expect([c.warningToken, c.maxToken]).toEqual([50, 100]);
    let now = T + 123;
    expect(c.canPass(fakeNode({ passQps: 8, previousPassQps: 1 }), 1, now).pass).toBe(false);
    expect(c.canPass(fakeNode({ passQps: 1, previousPassQps: 1 }), 1, now).pass).toBe(true);
    // 10 s at 10 QPS spends the stored tokens down to below the warning line.
    for (let i = 0; i < 100; i++) {
      now += 100;
      c.canPass(fakeNode({ passQps: 1, previousPassQps: 10 }), 1, now);
    }
    expect(c.canPass(fakeNode({ passQps: 8, previousPassQps: 10 }), 1, now).pass).toBe(true);
    expect(c.canPass(fakeNode({ passQps: 10, previousPassQps: 10 }), 1, now).pass).toBe(false);
  });
});

describe('ThrottlingController (ThrottlingControllerTest)', () => {
  it('500 ms queue, 10 QPS: six calls in a row pass, spaced 100 ms, in more than 400 ms (testThrottlingControllerNormal)', () => {
    const c = new ThrottlingController(500, 10);
    expect(c.useNanoSeconds).toBe(false);
    let now = T;
    for (let i = 0; i < 6; i++) {
      const r = c.canPass(null, 1, now, now * 1e6);
      expect(r.pass).toBe(true);
      if (r.pass) now += r.waitMs;
    }
    expect(now - T).toBeGreaterThan(400);
  });
  it('ten calls at one instant: six pass (waits 0..500 ms), four are blocked (testThrottlingControllerQueueTimeout)', () => {
    const c = new ThrottlingController(500, 10);
    const results = Array.from({ length: 10 }, () => c.canPass(null, 1, T, T * 1e6));
    expect(results.map((r) => (r.pass ? r.waitMs : -1))).toEqual([0, 100, 200, 300, 400, 500, -1, -1, -1, -1]);
  });
  it('a threshold of 0 blocks every call and passes an acquire count of 0 (testThrottlingControllerZeroThreshold)', () => {
    const c = new ThrottlingController(500, 0);
    for (let i = 0; i < 2; i++) {
      expect(c.canPass(null, 1, T, 0).pass).toBe(false);
      expect(c.canPass(null, 0, T, 0).pass).toBe(true);
    }
  });
  it('a rate that does not divide 1000 ms spaces calls in nanoseconds', () => {
    const c = new ThrottlingController(500, 3);
    expect(c.useNanoSeconds).toBe(true);
    // System.nanoTime has an arbitrary origin: the simulation's clock in ns. Cost: round(1e9 / 3) ns.
    const waits = Array.from({ length: 3 }, () => c.canPass(null, 1, T, 5e9)).map((r) => (r.pass ? r.waitMs : -1));
    expect(waits).toEqual([0, 333.333333, -1]);
  });
});

describe('WarmUpRateLimiterController (WarmUpRateLimiterControllerTest)', () => {
  it('cold (tokens spent by 100 QPS) it paces at count: 100 ms apart (testPace)', () => {
    const c = new WarmUpRateLimiterController(10, 10, 1000, 3);
    const node = fakeNode({ passQps: 100, previousPassQps: 100 });
    let now = T;
    expect(c.canPass(node, 1, now).pass).toBe(true);
    let waited = 0;
    for (let i = 0; i < 10; i++) {
      const r = c.canPass(node, 1, now);
      expect(r.pass).toBe(true);
      if (r.pass) {
        now += r.waitMs;
        waited += r.waitMs;
      }
    }
    expect(waited / 10).toBe(100);
  });
  it('a 10 ms queue cannot hold a call 100 ms out (testPaceCanNotPass)', () => {
    const c = new WarmUpRateLimiterController(10, 10, 10, 3);
    const node = fakeNode({ passQps: 100, previousPassQps: 100 });
    expect(c.canPass(node, 1, T).pass).toBe(true);
    expect(c.canPass(node, 1, T).pass).toBe(false);
  });
});
