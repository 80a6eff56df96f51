/**
 * The breakers through one JVM's slot chain, pinned to Sentinel's ExceptionCircuitBreakerTest and
 * ResponseTimeCircuitBreakerTest (the same rules, request sequences and expected pass/block), plus the
 * error-count grade and the half-open probe that a later slot blocks.
 */
import { describe, expect, it } from 'vitest';
import { Sph } from '../../src/sentinel/sph.js';
import { degradeRule, DEGRADE_GRADE_EXCEPTION_COUNT, DEGRADE_GRADE_EXCEPTION_RATIO, DEGRADE_GRADE_RT, type DegradeRule, type SentinelRules } from '../../src/sentinel/rules.js';
import type { State } from '../../src/sentinel/degrade/abstract-circuit-breaker.js';

/** The Java tests' AbstractTimeBasedTest helpers over a mocked clock. */
function harness(rules: Partial<SentinelRules>) {
  const changes: [State, State][] = [];
  const sph = new Sph({ flowRules: [], degradeRules: [], systemRules: [], paramFlowRules: [], ...rules }, (prev, next) => changes.push([prev, next]));
  let now = 1_700_000_000_000;
  const enter = (resource: string) => sph.entry(resource, 'OUT', '', [], now, 0);
  return {
    sph,
    changes,
    sleep: (ms: number) => (now += ms),
    /** entryAndSleepFor: enter, take `ms`, exit; false when blocked. */
    entryAndSleepFor(resource: string, ms: number): boolean {
      const r = enter(resource);
      if (r.blocked !== null) return false;
      now += ms;
      sph.exit(r.entry, now);
      return true;
    },
    /** entryWithErrorIfPresent: enter, trace the error, exit; false when blocked. */
    entryWithError(resource: string): boolean {
      const r = enter(resource);
      if (r.blocked !== null) return false;
      sph.traceEntry(r.entry, now);
      sph.exit(r.entry, now);
      return true;
    },
  };
}

const ruleFor = (resource: string, r: Partial<DegradeRule>): DegradeRule => degradeRule({ resource, ...r });

describe('ExceptionCircuitBreaker', () => {
  it('error ratio 0.2 over 20 s, min 1 request, 10 s window: open, half-open probe fails, probe succeeds, closed (testRecordErrorOrSuccess)', () => {
    const res = 'testRecordErrorOrSuccess';
    const h = harness({ degradeRules: [ruleFor(res, { count: 0.2, grade: DEGRADE_GRADE_EXCEPTION_RATIO, statIntervalMs: 20_000, timeWindow: 10, minRequestAmount: 1 })] });
    const seq: boolean[] = [];
    seq.push(h.entryAndSleepFor(res, 10));
    seq.push(h.entryWithError(res)); // -> open
    seq.push(h.entryWithError(res));
    seq.push(h.entryAndSleepFor(res, 100));
    h.sleep(5_000);
    seq.push(h.entryAndSleepFor(res, 100));
    h.sleep(5_000);
    seq.push(h.entryWithError(res)); // -> half -> open
    seq.push(h.entryAndSleepFor(res, 100));
    seq.push(h.entryAndSleepFor(res, 100));
    h.sleep(10_000);
    for (let i = 0; i < 7; i++) seq.push(h.entryAndSleepFor(res, 100)); // -> half -> closed
    seq.push(h.entryWithError(res));
    seq.push(h.entryAndSleepFor(res, 100));
    expect(seq).toEqual([true, true, false, false, false, true, false, false, true, true, true, true, true, true, true, true, true]);
    expect(h.changes).toEqual([
      ['CLOSED', 'OPEN'],
      ['OPEN', 'HALF_OPEN'],
      ['HALF_OPEN', 'OPEN'],
      ['OPEN', 'HALF_OPEN'],
      ['HALF_OPEN', 'CLOSED'],
    ]);
  });

  it('error count: opens when the errors in the window exceed count, once min requests completed', () => {
    const res = 'count';
    const h = harness({ degradeRules: [ruleFor(res, { count: 2, grade: DEGRADE_GRADE_EXCEPTION_COUNT, statIntervalMs: 1000, timeWindow: 1, minRequestAmount: 3 })] });
    expect([h.entryWithError(res), h.entryWithError(res), h.entryWithError(res)]).toEqual([true, true, true]);
    expect(h.entryAndSleepFor(res, 1)).toBe(false);
  });
});

describe('ResponseTimeCircuitBreaker', () => {
  it('max RT 10 ms, ratio 1, 3 requests over 5 s, 5 s window: three slow calls open it, the probe passes 5 s later (testMaxSlowRatioThreshold)', () => {
    const res = 'testMaxSlowRatioThreshold';
    const h = harness({ degradeRules: [ruleFor(res, { count: 10, grade: DEGRADE_GRADE_RT, minRequestAmount: 3, slowRatioThreshold: 1, statIntervalMs: 5000, timeWindow: 5 })] });
    const seq = [h.entryAndSleepFor(res, 20), h.entryAndSleepFor(res, 20), h.entryAndSleepFor(res, 20), h.entryAndSleepFor(res, 20)];
    h.sleep(1000);
    seq.push(h.entryAndSleepFor(res, 20));
    h.sleep(4000);
    seq.push(h.entryAndSleepFor(res, 20));
    expect(seq).toEqual([true, true, true, false, false, true]);
  });

  it('a ratio below 1 opens only above it: 1 slow of 2 at threshold 0.5 stays closed, 2 of 3 opens', () => {
    const res = 'half';
    const h = harness({ degradeRules: [ruleFor(res, { count: 10, grade: DEGRADE_GRADE_RT, minRequestAmount: 2, slowRatioThreshold: 0.5, timeWindow: 5 })] });
    h.entryAndSleepFor(res, 20);
    h.entryAndSleepFor(res, 5);
    expect(h.sph.openBreakers()).toBe(0);
    h.entryAndSleepFor(res, 20);
    expect(h.sph.openBreakers()).toBe(1);
  });

  it('while half-open every other call is blocked until the probe completes', () => {
    const res = 'probe';
    const h = harness({ degradeRules: [ruleFor(res, { count: 10, grade: DEGRADE_GRADE_RT, minRequestAmount: 1, timeWindow: 1 })] });
    h.entryAndSleepFor(res, 20);
    h.sleep(1000);
    const probe = h.sph.entry(res, 'OUT', '', [], 1_700_000_001_020, 0);
    expect(probe.blocked).toBeNull();
    expect(h.sph.entry(res, 'OUT', '', [], 1_700_000_001_020, 0).blocked).toBe('degrade');
    h.sph.exit(probe.entry, 1_700_000_001_025);
    expect(h.sph.openBreakers()).toBe(0);
  });
});
