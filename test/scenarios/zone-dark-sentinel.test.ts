/**
 * scenarios/zone-dark-sentinel.yaml: a room goes dark under Nacos, with Sentinel through its Dubbo
 * adapter. Headline: the slow-ratio breaker shortens the timeout window (its consumers stop waiting
 * 1000 ms per zoneA attempt within seconds), at the cost of blocked calls, which go on after Nacos
 * dropped zoneA while the breakers recover through half-open probes; the error-ratio breaker barely
 * trips (failover turns timeouts into slow successes); the provider flow rule blocks on the survivors
 * when zoneA's traffic lands on them.
 */
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';
import type { Summary } from '../../src/metrics/summary.js';

const scenario = loadScenarioFile('scenarios/zone-dark-sentinel.yaml');
const run = (strategy: string): Summary => runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
const none = run('no-sentinel');
const slow = run('slow-ratio-breaker');
const errors = run('error-ratio-breaker');
const flow = run('provider-flow-rule');

/** Timeline rows whose bucket starts in [fromS, toS) seconds. */
const rows = (s: Summary, fromS: number, toS: number) => s.timeline.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000);
const sum = (s: Summary, key: 'timeout' | 'blocked', fromS: number, toS: number) => rows(s, fromS, toS).reduce((n, r) => n + r[key], 0);

describe('scenarios/zone-dark-sentinel.yaml', () => {
  it('without Sentinel: no call is blocked, and zoneA timeouts run from 60 s until Nacos drops zoneA', () => {
    expect(none.outcomes.blocked).toBe(0);
    expect(none.timeline[0]!.openBreakers).toBeUndefined();
    expect(sum(none, 'timeout', 60, 90)).toBeGreaterThan(1000);
    // The episode lasts: timeouts in each 5 s slice from 60 s to 75 s.
    for (const from of [60, 65, 70]) expect(sum(none, 'timeout', from, from + 5)).toBeGreaterThan(100);
  });

  it('the slow-ratio breaker cuts the timeouts of the outage by more than half, and blocks calls for it', () => {
    expect(sum(slow, 'timeout', 60, 90)).toBeLessThan(sum(none, 'timeout', 60, 90) / 2);
    expect(slow.outcomes.blocked).toBeGreaterThan(5000);
    expect(slow.blockedCauses).toEqual({ 'consumer:degrade': slow.outcomes.blocked });
    // Blocked calls fail at once: they are failures (errorRate) and their latency is no timeout.
    expect(slow.errorRate).toBeGreaterThan(none.errorRate);
    // Before the outage nothing is blocked and no breaker is open.
    expect(sum(slow, 'blocked', 10, 60)).toBe(0);
    expect(rows(slow, 10, 60).every((r) => r.openBreakers === 0)).toBe(true);
  });

  it('breakers open within two seconds of the outage on every zone, and half-open probes close them after zoneA is gone', () => {
    const open = rows(slow, 60, 62).map((r) => r.openBreakers ?? 0);
    expect(Math.max(...open)).toBeGreaterThan(0);
    expect(slow.events['sentinel.consumer.open']).toBeGreaterThanOrEqual(slow.events['sentinel.consumer.half-open']!);
    expect(slow.events['sentinel.consumer.closed']).toBeGreaterThan(0);
    // Recovery costs blocked calls after the timeouts stopped, and ends before the room returns.
    const lastTimeout = Math.max(...rows(slow, 60, 120).filter((r) => r.timeout > 0).map((r) => r.tMs));
    expect(sum(slow, 'blocked', lastTimeout / 1000 + 1, 120)).toBeGreaterThan(0);
    expect(rows(slow, 100, 150).every((r) => r.openBreakers === 0 && r.blocked === 0)).toBe(true);
    // Per zone: both consumer zones had breakers open.
    for (const zone of ['zoneA', 'zoneB']) expect(Math.max(...slow.timelineByZone![zone]!.map((r) => r.openBreakers ?? 0))).toBeGreaterThan(0);
  });

  it('the error-ratio breaker blocks far less: failover turns most timeouts into slow successes, not errors', () => {
    expect(errors.outcomes.blocked).toBeLessThan(slow.outcomes.blocked / 10);
    expect(sum(errors, 'timeout', 60, 90)).toBeGreaterThan(sum(slow, 'timeout', 60, 90));
  });

  it('the provider flow rule (limitApp web) blocks on the providers only, once zoneA traffic shifts to zoneB', () => {
    expect(flow.blockedCauses).toEqual({ 'provider:flow': flow.outcomes.blocked });
    expect(sum(flow, 'blocked', 10, 60)).toBe(0);
    expect(sum(flow, 'blocked', 78, 84)).toBeGreaterThan(100);
    // No consumer breaker exists in this strategy.
    expect(flow.events['sentinel.consumer.open'] ?? 0).toBe(0);
  });
});
