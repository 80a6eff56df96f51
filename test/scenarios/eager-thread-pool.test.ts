/**
 * `threadpool: eager` under a traffic burst, in whole runs (issue 39). EagerThreadPool's TaskQueue
 * (3.3 TaskQueue.java:46-63) makes the executor start threads up to `threads` before it queues a
 * call, and its queue holds `queues` calls, or 1 when `queues` <= 0 (EagerThreadPool.java:54). For
 * which call runs, waits or is refused that is a pool of `threads` slots with that queue, so:
 * - eager with `queues: 0` behaves exactly as fixed with `queues: 1` (same summary, byte for byte),
 *   and eager with `queues: 3` as fixed with `queues: 3`;
 * - fixed with `queues: 0` (a SynchronousQueue) refuses more of the burst than eager with `queues: 0`;
 * - eager without `threads` (Integer.MAX_VALUE, EagerThreadPool.java:49) refuses nothing, and its
 *   busiest moment is the burst's concurrency.
 */
import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/metrics/summary.js';
import { parseScenario } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const SERVICE = 'com.example.ReportService';

/** One provider process (100 ms per call, pool as `pool`), 20 calls/s, tripled from 10 s to 20 s. */
const burst = (pool: string, strategies = '') => `
name: burst
seed: 11
duration: 30s
warmup: 2s
zones:
  dc: { cidr: 10.0.0.0/16 }
network: { rtt: { same-zone: 0.2ms } }
registry: { type: static }
services:
  ${SERVICE}:
    methods:
      render: { serviceTime: { dist: lognormal, p50: 80ms, p99: 300ms } }
providers:
  - { name: reports, service: ${SERVICE}, zone: dc, count: 1${pool} }
consumers:
  - application: web
    zone: dc
    instances: 2
    rate: 20/s
    calls: { ${SERVICE}.render: 1 }
    reference:
      ${SERVICE}: { retries: 0 }
faults:
  - { at: 10s, for: 10s, traffic: { consumer: web, factor: 3 } }
${strategies}`;

const run = (pool: string): Summary => runScenario(parseScenario(burst(pool), 'burst.yaml'), { version: 'test' }).summary;
const refused = (s: Summary) => s.rejectedCauses['provider:threadpool'] ?? 0;

describe('eager vs fixed thread pool under a burst', () => {
  it('eager is a pool of `threads` with a TaskQueue of max(queues, 1): the same run as fixed with that queue', () => {
    expect(JSON.stringify(run(', threadpool: eager, threads: 4, queues: 0'))).toBe(JSON.stringify(run(', threads: 4, queues: 1')));
    expect(JSON.stringify(run(', threadpool: eager, threads: 4, queues: -1'))).toBe(JSON.stringify(run(', threads: 4, queues: 1')));
    expect(JSON.stringify(run(', threadpool: eager, threads: 4, queues: 3'))).toBe(JSON.stringify(run(', threads: 4, queues: 3')));
    // Not a run in which the pool never fills: the queue's size changes what is refused.
    expect(refused(run(', threads: 4, queues: 1'))).toBeGreaterThan(refused(run(', threads: 4, queues: 3')));
    expect(refused(run(', threads: 4, queues: 3'))).toBeGreaterThan(0);
  });

  it('refuses less of the burst than fixed with queues 0 (no queue), and nothing without a threads limit', () => {
    const fixed = run(', threads: 4, queues: 0');
    const eager = run(', threadpool: eager, threads: 4, queues: 0');
    const unbounded = run(', threadpool: eager');
    // The burst (60 calls/s x ~100 ms, about 6 busy threads at a time) overflows 4 threads.
    expect(refused(fixed)).toBeGreaterThan(0);
    expect(refused(eager)).toBeGreaterThan(0);
    expect(refused(eager)).toBeLessThan(refused(fixed));
    expect(fixed.outcomes.rejected).toBe(refused(fixed));
    expect(refused(unbounded)).toBe(0);
    expect(unbounded.outcomes.ok).toBe(unbounded.requests);
    expect(unbounded.byProviderGroup.reports!.peakActiveThreads).toBeGreaterThan(4);
    // Fixed at its default of 200 threads refuses nothing either at this load; eager's busiest moment is the same.
    expect(unbounded.byProviderGroup.reports!.peakActiveThreads).toBe(run('').byProviderGroup.reports!.peakActiveThreads);
  });

  it('a strategy switches the pool: threadpool keeps the group\'s threads unless it sets them too', () => {
    const scenario = parseScenario(
      burst(', threads: 4, queues: 0', 'strategies:\n  eager: { providers: { reports: { threadpool: eager } } }\n'),
      'burst.yaml',
    );
    const eager = applyStrategy(scenario, scenario.strategies.eager!);
    expect(eager.providers[0]).toMatchObject({ threadpool: 'eager', threads: 4, queues: 0 });
    const s = runScenario(eager, { version: 'test' }).summary;
    expect(JSON.stringify(s)).toBe(JSON.stringify(run(', threadpool: eager, threads: 4, queues: 0')));
  });
});
