/**
 * The report's generated paragraphs: sentences derived from a summary alone (failure episodes and
 * what happened around them, the failure split, p99 all vs ok, retries, zones, registry, provider
 * rejections), and the sentence comparing strategies.
 */
import { describe, expect, it } from 'vitest';
import type { ScopeTimelineRow, Summary, TimelineRow } from '../../src/metrics/summary.js';
import { compareLead, count, failureEpisodes, narrate, percent, seconds } from '../../src/report/report-narrative.js';

const ZERO = { ok: 0, timeout: 0, noProvider: 0, rejected: 0, network: 0, forbidden: 0, biz: 0, mock: 0, blocked: 0, lost: 0 };
const LAT = { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };

/** A 1 s-bucket timeline from 10 s, 1000 requests per bucket; `failures` maps a bucket index to its failed requests. */
function timeline(buckets: number, failures: Record<number, Partial<typeof ZERO>> = {}, pushes: Record<number, number> = {}): TimelineRow[] {
  return Array.from({ length: buckets }, (_, i) => {
    const f = { ...ZERO, ...(failures[i] ?? {}) };
    const failed = f.timeout + f.noProvider + f.rejected + f.network + f.forbidden + f.biz + f.mock + f.blocked + f.lost;
    return { tMs: 10_000 + i * 1000, requests: 1000, ...f, ok: 1000 - failed, p99Ms: 50, p99OkMs: 45, crossZoneRatio: 0, pushes: pushes[i] ?? 0 };
  });
}

function summary(over: Partial<Summary> & { timeline: TimelineRow[] }): Summary {
  const rows = over.timeline;
  const outcomes = { ...ZERO };
  for (const row of rows) for (const k of Object.keys(ZERO) as Array<keyof typeof ZERO>) outcomes[k] += row[k];
  const requests = rows.reduce((n, r) => n + r.requests, 0);
  return {
    scenario: 'x', seed: 1, seeds: [1], version: 't', simulatedMs: 10_000 + rows.length * 1000, measuredFromMs: 10_000,
    requests, ok: outcomes.ok, outcomes,
    timeoutRate: outcomes.timeout / requests, noProviderRate: outcomes.noProvider / requests, errorRate: (requests - outcomes.ok - outcomes.mock) / requests, mockRate: outcomes.mock / requests,
    latencyMs: { ...LAT, p99: 45 }, latencyAllMs: { ...LAT, p99: 1020, max: 3000 },
    attempts: requests, retryAmplification: 1, providerExecutions: requests, duplicateExecutions: 0, duplicateWrites: 0,
    orphanedExecutions: 0, crossZoneRatio: 0, noProviderCauses: {}, rejectedCauses: {}, mockCauses: {},
    registry: { pushes: rows.reduce((n, r) => n + r.pushes, 0), pushBytes: 0, staleCalls: 0, byConsumerGroup: {} },
    byConsumerZone: {}, byService: {}, byProviderGroup: {}, events: {}, faults: [],
    ...over,
  };
}

describe('failureEpisodes', () => {
  const rows = (counts: number[]) => counts.map((timeout, i) => ({ ...ZERO, tMs: i * 1000, requests: 100, timeout, p99Ms: 0, p99OkMs: 0, crossZoneRatio: 0 }) as ScopeTimelineRow);

  it('ignores buckets under 5% of the worst one and joins failing buckets one bucket apart', () => {
    expect(failureEpisodes(rows([1, 0, 40, 50, 0, 45, 2, 0, 0, 0]), 'timeout')).toEqual([{ first: 2, last: 5, requests: 135 }]);
  });

  it('keeps the two largest episodes, in time order', () => {
    expect(failureEpisodes(rows([10, 0, 0, 0, 50, 0, 0, 0, 30, 0, 0, 0]), 'timeout')).toEqual([
      { first: 4, last: 4, requests: 50 },
      { first: 8, last: 8, requests: 30 },
    ]);
  });

  it('finds nothing when the outcome never happened', () => {
    expect(failureEpisodes(rows([0, 0, 0]), 'timeout')).toEqual([]);
  });
});

describe('narrate', () => {
  it('tells a failure episode with the fault that began it and the registry push that followed it', () => {
    const s = summary({
      // Failures in the buckets of 50 s to 60 s, pushes in the one of 61 s.
      timeline: timeline(80, Object.fromEntries([50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60].map((t) => [t - 10, { timeout: 29, noProvider: 3 }])), { 51: 10 }),
      faults: [
        { tMs: 50_000, kind: 'start', label: 'zoneDown zoneA (blackhole)' },
        { tMs: 80_000, kind: 'end', label: 'zoneDown zoneA (blackhole)' },
      ],
    });
    const text = narrate(s);
    expect(text).toContain('Faults: zoneDown zoneA (blackhole) from 50 s to 80 s.');
    expect(text).toContain('Timeouts started at 50 s, when zoneDown zoneA (blackhole) started, and stopped at 61 s; registry pushes followed at 61 s (10 notifications).');
    expect(text).toContain('0.44% of requests failed (352 of 80,000): 0.4% timeout, 0.04% No provider.');
    expect(text).toContain('p99 of all requests 1,020 ms vs 45 ms for ok ones.');
  });

  it('says what Sentinel blocked, by cause, and how often the consumer breakers opened and closed', () => {
    const s = summary({ timeline: timeline(20, { 5: { blocked: 300 }, 6: { blocked: 100 } }) });
    s.blockedCauses = { 'consumer:degrade': 400 };
    s.events = { 'sentinel.consumer.open': 12, 'sentinel.consumer.half-open': 10, 'sentinel.consumer.closed': 9 };
    expect(narrate(s)).toContain('Sentinel blocked 2% of requests (400 consumer:degrade); consumer circuit breakers opened 12 times and closed 9 times.');
  });

  it('says when a push came before the failures stopped, and when failures ran to the end of the run', () => {
    const s = summary({ timeline: timeline(10, { 2: { timeout: 5 }, 3: { timeout: 5 }, 8: { noProvider: 7 }, 9: { noProvider: 9 } }, { 2: 4 }) });
    const text = narrate(s);
    expect(text).toContain('Timeouts started at 12 s and stopped at 14 s; registry pushes came at 12 s (4 notifications).');
    expect(text).toContain('"No provider available" errors started at 18 s, and had not stopped at the end of the run (20 s).');
  });

  it('says failures were there from the start of the window, and tells a second episode', () => {
    const s = summary({ timeline: timeline(20, { 0: { rejected: 40 }, 1: { rejected: 40 }, 12: { rejected: 30 } }) });
    expect(narrate(s)).toContain('Rejections were there from the start of the measured window (10 s) and stopped at 12 s; then again from 22 s and stopped at 23 s.');
  });

  it('says so when no request failed, and names what did happen: retries, cross-zone share, pushes, stale calls', () => {
    const s = summary({
      timeline: timeline(5, {}, { 1: 3, 3: 20 }),
      retryAmplification: 1.234,
      duplicateExecutions: 12,
      crossZoneRatio: 0.25,
    });
    s.registry.staleCalls = 7;
    const text = narrate(s);
    expect(text).toContain('No request failed (5,000 requests).');
    expect(text).not.toContain('Timeouts');
    expect(text).toContain('1.23 attempts per request and 12 duplicate executions; 25% of attempts crossed zones.');
    expect(text).toContain('The registry delivered 23 pushes, most at 13 s (20); 7 attempts went to providers it already knew were gone.');
  });

  it('names the provider groups that refused calls, with when', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ tMs: 10_000 + i * 1000, executions: 100, rejected: i >= 3 && i <= 5 ? 400 : 0, utilization: 1, peakActiveThreads: 200 }));
    const s = summary({
      timeline: timeline(10, { 3: { rejected: 400 }, 4: { rejected: 400 }, 5: { rejected: 400 } }),
      byProviderGroup: { 'users-a': { instances: 2, executions: 1000, rejected: 1200, utilization: 0.9, peakActiveThreads: 200 } },
      timelineByProviderGroup: { 'users-a': rows },
    });
    expect(narrate(s)).toContain('Provider group users-a refused 1,200 calls from 13 s to 16 s.');
  });

  it('says when nothing succeeded or nothing was measured', () => {
    const none = summary({ timeline: timeline(2, { 0: { timeout: 1000 }, 1: { timeout: 1000 } }) });
    expect(narrate(none)).toContain('p99 of all requests 1,020 ms; no request succeeded.');
    const empty = summary({ timeline: [] });
    expect(narrate(empty)).toBe('No request was measured.');
  });

  it('is a pure function of the summary', () => {
    const s = summary({ timeline: timeline(10, { 4: { timeout: 9 } }, { 5: 2 }) });
    expect(narrate(structuredClone(s))).toBe(narrate(s));
  });
});

describe('compareLead', () => {
  const base = summary({ timeline: timeline(3) });
  const withRates = (errorRate: number, p99: number): Summary => ({ ...base, errorRate, latencyAllMs: { ...base.latencyAllMs, p99 } });

  it('names the strategies with the fewest and most failures and the lowest and highest p99 of all requests', () => {
    expect(compareLead({ a: withRates(0.032, 1020), b: withRates(0.004, 45), c: withRates(0.01, 300) })).toBe(
      'Fewest failed requests: b (0.4%); most: a (3.2%); lowest p99 of all requests: b (45 ms); highest: a (1,020 ms).',
    );
  });

  it('says when every strategy did the same, and says nothing for a single run', () => {
    expect(compareLead({ a: withRates(0, 50), b: withRates(0, 50) })).toBe('Every strategy failed 0% of requests; the same p99 of all requests (50 ms).');
    expect(compareLead({ a: withRates(0, 50) })).toBe('');
  });
});

describe('number wording', () => {
  it.each([
    [0, '0%'],
    [0.00005, '<0.01%'],
    [0.0031, '0.31%'],
    [0.032, '3.2%'],
    [0.5, '50%'],
  ])('percent(%s) is %s', (x, text) => expect(percent(x)).toBe(text));

  it('groups thousands, keeps one decimal of means and writes seconds without trailing zeros', () => {
    expect([count(1020), count(139910), count(12.46), count(2024.4)]).toEqual(['1,020', '139,910', '12.5', '2,024.4']);
    expect([seconds(60_000), seconds(60_500), seconds(250)]).toEqual(['60 s', '60.5 s', '0.25 s']);
  });
});
