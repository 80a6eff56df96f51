/**
 * One JVM's slot chain: which slot blocks, the origin (limitApp) node selection, system rules on
 * inbound entries only, hot parameters (Sentinel's ParamFlowDefaultCheckerTest), the datasource
 * update that keeps an equal breaker, and the rate limiter under Poisson arrivals against the
 * leaky bucket's arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { Sph } from '../../src/sentinel/sph.js';
import { degradeRule, flowRule, FLOW_GRADE_THREAD, paramFlowRule, systemRule, type SentinelRules } from '../../src/sentinel/rules.js';
import { RandomStreams } from '../../src/engine/random.js';

const NONE: SentinelRules = { flowRules: [], degradeRules: [], systemRules: [], paramFlowRules: [] };
const sphOf = (r: Partial<SentinelRules>) => new Sph({ ...NONE, ...r });
const T = 1_000_000;

describe('flow rules in the chain', () => {
  it('QPS 2: the third entry in one second is blocked as flow, and counted as a block', () => {
    const sph = sphOf({ flowRules: [flowRule({ resource: 'r', count: 2 })] });
    const r = [0, 1, 2].map(() => sph.entry('r', 'OUT', '', [], T, 0).blocked);
    expect(r).toEqual([null, null, 'flow']);
    expect(sph.clusterNode('r').blockQps(T)).toBe(1);
    expect(sph.entry('r', 'OUT', '', [], T + 1000, 0).blocked).toBeNull();
  });

  it('thread grade counts entries not yet exited', () => {
    const sph = sphOf({ flowRules: [flowRule({ resource: 'r', grade: FLOW_GRADE_THREAD, count: 1 })] });
    const a = sph.entry('r', 'OUT', '', [], T, 0);
    expect(sph.entry('r', 'OUT', '', [], T, 0).blocked).toBe('flow');
    sph.exit(a.entry, T + 5);
    expect(sph.entry('r', 'OUT', '', [], T + 5, 0).blocked).toBeNull();
  });

  it('limitApp names one origin: only its calls count and are limited; "other" limits the origins no rule names', () => {
    const sph = sphOf({ flowRules: [flowRule({ resource: 'r', count: 1, limitApp: 'web' }), flowRule({ resource: 'r', count: 0, limitApp: 'other' })] });
    expect(sph.entry('r', 'IN', 'web', [], T, 0).blocked).toBeNull();
    expect(sph.entry('r', 'IN', 'web', [], T, 0).blocked).toBe('flow');
    expect(sph.entry('r', 'IN', 'batch', [], T, 0).blocked).toBe('flow');
    // No origin: neither rule selects a node.
    expect(sph.entry('r', 'IN', '', [], T, 0).blocked).toBeNull();
  });

  it('a datasource update rebuilds flow raters but keeps a breaker whose rule is unchanged, with its state', () => {
    const d = degradeRule({ resource: 'r', grade: 2, count: 0, minRequestAmount: 1, timeWindow: 10 });
    const sph = sphOf({ degradeRules: [d] });
    const e = sph.entry('r', 'OUT', '', [], T, 0);
    sph.traceEntry(e.entry, T);
    sph.exit(e.entry, T);
    expect(sph.openBreakers()).toBe(1);
    sph.loadRules({ ...NONE, degradeRules: [{ ...d }], flowRules: [flowRule({ resource: 'r', count: 100 })] });
    expect(sph.openBreakers()).toBe(1);
    sph.loadRules({ ...NONE, degradeRules: [{ ...d, timeWindow: 5 }] });
    expect(sph.openBreakers()).toBe(0);
  });
});

describe('system rules', () => {
  it('apply to inbound entries only, against all inbound traffic', () => {
    const sph = sphOf({ systemRules: [systemRule({ qps: 2 })] });
    expect(['a', 'b', 'c'].map((r) => sph.entry(r, 'IN', '', [], T, 0).blocked)).toEqual([null, null, 'system']);
    expect(sph.entry('d', 'OUT', '', [], T, 0).blocked).toBeNull();
  });
  it('maxThread blocks once more threads than the limit are in; cpu compares the usage given', () => {
    const sph = sphOf({ systemRules: [systemRule({ maxThread: 1 }), systemRule({ highestCpuUsage: 0.8 })] });
    sph.entry('a', 'IN', '', [], T, 0);
    sph.entry('a', 'IN', '', [], T, 0);
    expect(sph.entry('a', 'IN', '', [], T, 0).blocked).toBe('system');
    const fresh = sphOf({ systemRules: [systemRule({ highestCpuUsage: 0.8 })] });
    expect(fresh.entry('a', 'IN', '', [], T, 0, { load: 0, cpu: 0.9 }).blocked).toBe('system');
    expect(fresh.entry('a', 'IN', '', [], T, 0, { load: 0, cpu: 0.7 }).blocked).toBeNull();
  });
});

describe('hot parameters (ParamFlowDefaultCheckerTest.testParamFlowDefaultCheckSingleQps)', () => {
  it('count 5 per value: five pass, the sixth is blocked; 3 s later the bucket refills to 5', () => {
    const sph = sphOf({ paramFlowRules: [paramFlowRule({ resource: 'r', count: 5, paramIdx: 0 })] });
    const run = (now: number) => Array.from({ length: 6 }, () => sph.entry('r', 'IN', '', ['valueA'], now, 0).blocked);
    expect(run(T)).toEqual([null, null, null, null, null, 'param']);
    expect(run(T + 3000)).toEqual([null, null, null, null, null, 'param']);
    // Another value has its own bucket; a call without the argument passes.
    expect(sph.entry('r', 'IN', '', ['valueB'], T + 3000, 0).blocked).toBeNull();
    expect(sph.entry('r', 'IN', '', [], T + 3000, 0).blocked).toBeNull();
  });
});

describe('the rate limiter under Poisson arrivals', () => {
  /** Arrivals at rate `lambda` per second for `n` calls, in whole ms as TimeUtil gives them. */
  function run(lambda: number, count: number, maxQueueingTimeMs: number, n: number) {
    const rng = new RandomStreams(7).stream('poisson');
    const sph = sphOf({ flowRules: [flowRule({ resource: 'r', count, controlBehavior: 2, maxQueueingTimeMs })] });
    let t = 0;
    const waits: number[] = [];
    const passAt: number[] = [];
    let blocked = 0;
    for (let i = 0; i < n; i++) {
      t += (-Math.log(1 - rng.next()) / lambda) * 1000;
      const now = Math.floor(t);
      const r = sph.entry('r', 'OUT', '', [], now, Math.round(t * 1e6));
      if (r.blocked !== null) blocked++;
      else {
        waits.push(r.waitMs);
        passAt.push(now + r.waitMs);
      }
    }
    return { waits, passAt, blocked, durationMs: t };
  }

  it('above the rate (λ = 20/s, 10/s, 500 ms): passes leave ≥ 100 ms apart, waits ≤ 500 ms, throughput is the rate and the rest is rejected', () => {
    const n = 20_000;
    const { waits, passAt, blocked, durationMs } = run(20, 10, 500, n);
    // The leaky bucket: one pass per cost (100 ms), never queued beyond maxQueueingTimeMs.
    for (let i = 1; i < passAt.length; i++) expect(passAt[i]! - passAt[i - 1]!).toBeGreaterThanOrEqual(100);
    expect(Math.max(...waits)).toBeLessThanOrEqual(500);
    // Saturated, the bucket passes rate × time: at most duration/100 + 1 (+ the queue); idle gaps (no arrival
    // for 100 ms while the queue is empty) are rare at λ = 2μ with a 5-slot queue, so at least 98% of it.
    const capacity = durationMs / 100;
    expect(passAt.length).toBeLessThanOrEqual(Math.floor(capacity) + 1 + 5);
    expect(passAt.length).toBeGreaterThan(0.98 * capacity);
    // Rejected fraction ≈ 1 - μ/λ = 0.5 (binomial sd over 20 000 calls ≈ 0.0035; 0.02 leaves room for the idle share).
    expect(Math.abs(blocked / n - 0.5)).toBeLessThan(0.02);
  });

  it('below the rate with a long queue it is M/D/1: mean wait ρc/(2(1-ρ)) = 50 ms at λ = 5/s, c = 100 ms', () => {
    const { waits, blocked } = run(5, 10, 60_000, 40_000);
    expect(blocked).toBe(0);
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    // Pollaczek–Khinchine: W = λE[S²]/(2(1-ρ)) = 5 × 0.01 / (2 × 0.5) s = 50 ms; sd of W ≈ 76 ms, and the
    // waits are correlated over busy periods: 40 000 calls give a standard error near 1.5 ms; arrivals cut to
    // whole ms shift waits by under 1 ms. 6 ms is about 3 standard errors plus that bias.
    expect(Math.abs(mean - 50)).toBeLessThan(6);
  });
});

describe('the scope (statistics only for what a rule can read)', () => {
  it('gives the same pass, block and breaker states as keeping everything, with entries of unnamed resources skipped', () => {
    const rules: SentinelRules = {
      ...NONE,
      flowRules: [flowRule({ resource: 'r', count: 30 }), flowRule({ resource: 'r', count: 12, controlBehavior: 1, warmUpPeriodSec: 2 })],
      degradeRules: [degradeRule({ resource: 'r', grade: 1, count: 0.4, minRequestAmount: 5, timeWindow: 1 })],
    };
    const full = new Sph(rules);
    const scoped = new Sph(rules, undefined, { resources: new Set(['r']), minuteWindow: true, system: false });
    const log = (sph: Sph, skip: boolean): string[] => {
      const out: string[] = [];
      const r2 = new RandomStreams(3).stream('scope');
      let t = 0;
      for (let i = 0; i < 3000; i++) {
        t += Math.floor(r2.next() * 40);
        // The same draws whatever is skipped: one failure draw per resource.
        const failed = [r2.next() < 0.3, r2.next() < 0.3];
        ['x', 'r'].forEach((res, k) => {
          if (skip && !sph.tracks(res, 'OUT')) return;
          const e = sph.entry(res, 'OUT', '', [], t, t * 1e6);
          if (res === 'r') out.push(e.blocked ?? 'pass');
          if (e.blocked === null) {
            if (failed[k]) sph.traceEntry(e.entry, t);
            sph.exit(e.entry, t + 5);
          }
        });
      }
      return out;
    };
    const a = log(full, false);
    const b = log(scoped, true);
    expect(b).toEqual(a);
    // The sequence exercises all three outcomes.
    expect(new Set(a)).toEqual(new Set(['pass', 'flow', 'degrade']));
    expect(scoped.tracks('x', 'OUT')).toBe(false);
    expect(scoped.tracks('x', 'IN')).toBe(false);
  });
});
