/**
 * "A consumer timeout never cancels provider work", end to end: a provider thread stays busy for the whole
 * service time after the consumer gave up, every queued call executes even when its consumer timed out
 * long before, and a full thread pool answers "thread pool is EXHAUSTED" (Dubbo's code 1, outcome
 * `rejected`), which failover retries like any other non-business RpcException.
 *
 * All runs are the timeout-retry storm (5 providers, service time exactly 1500 ms, consumer timeout 1000 ms,
 * 2 retries, 100 requests/s) with `warmup: 0`, so that the request figures and the provider figures
 * (`byProviderGroup`, over the whole run) count the same calls.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { RpcCode } from '../../src/dubbo/constants.js';
import type { Result } from '../../src/dubbo/rpc.js';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario, type Plugins } from '../../src/scenario/run.js';
import { observedFailover } from '../helpers/observed-failover.js';

const file = fileURLToPath(new URL('../../scenarios/timeout-retry-storm.yaml', import.meta.url));
const SERVICE_MS = 1500;
const PROVIDERS = 5;
const DURATION_MS = 15_000;
const GROUP = 'orders-a';

const run = (sets: string[], plugins?: Plugins): Summary => {
  const { scenario } = loadScenarioWithRaw(file, [`duration=${DURATION_MS}ms`, 'warmup=0s', ...sets]);
  return runScenario(scenario, { version: 'test', plugins }).summary;
};

/** Busy thread-milliseconds of the provider group, back from its utilization (rounded to 6 decimals). */
const busyThreadMs = (s: Summary, threads: number) =>
  s.byProviderGroup[GROUP]!.utilization * PROVIDERS * threads * DURATION_MS;
/** The most that rounding the utilization to 6 decimals can move `busyThreadMs`. */
const roundingMs = (threads: number) => 0.5e-6 * PROVIDERS * threads * DURATION_MS;

/** A failover cluster that keeps every final Result it returns (a cluster plugin over the real one). */
const recordingFailover = (results: Result[]): Plugins => observedFailover({ after: (_invocation, result) => results.push(result) });

describe('a provider keeps working after the consumer timed out (20 threads, unbounded queue)', () => {
  const THREADS = 20;
  // 300 attempts/s against 100 threads that each finish one call per 1.5 s: the queue grows all run long.
  const s = run([`providers[0].threads=${THREADS}`, 'providers[0].queues=-1']);
  const group = s.byProviderGroup[GROUP]!;

  it('times out every request after three attempts', () => {
    expect(s.outcomes.timeout).toBe(s.requests);
    expect(s.attempts).toBe(3 * s.requests);
  });

  it('executes every queued call, although its consumer gave up long before it reached a thread', () => {
    expect(group.rejected).toBe(0);
    expect(group.executions).toBe(s.attempts);
    expect(s.providerExecutions).toBe(s.attempts);
    expect(s.orphanedExecutions).toBe(s.providerExecutions);
  });

  it('holds a thread for the whole service time of every execution: busy thread-time = executions x 1500 ms', () => {
    expect(Math.abs(busyThreadMs(s, THREADS) - group.executions * SERVICE_MS)).toBeLessThanOrEqual(roundingMs(THREADS));
  });
});

describe('a full thread pool rejects (60 threads, no queue)', () => {
  const THREADS = 60;
  // 300 threads, each busy 1.5 s per call: 200 calls/s at most against ~300 attempts/s.
  const s = run([`providers[0].threads=${THREADS}`, 'providers[0].queues=0']);
  const group = s.byProviderGroup[GROUP]!;

  it('either executes or rejects every attempt that reaches a provider', () => {
    expect(group.rejected).toBeGreaterThan(0);
    expect(group.executions + group.rejected).toBe(s.attempts);
  });

  it('keeps each thread busy for the whole service time, so rejections follow from the pool being full', () => {
    expect(Math.abs(busyThreadMs(s, THREADS) - group.executions * SERVICE_MS)).toBeLessThanOrEqual(roundingMs(THREADS));
    // Once full (after 1.5 s) every thread is always busy: it takes the next attempt as soon as it frees
    // (~300 attempts/s arrive, ~1 per 3 ms). So executions ~ 300 threads x (15 s + the drain) / 1.5 s; the drain
    // lasts until the last requests' third attempts (at most 2 s after 15 s) and their calls end (1.5 s more).
    const threads = PROVIDERS * THREADS;
    expect(group.executions).toBeGreaterThanOrEqual((threads * DURATION_MS) / SERVICE_MS);
    expect(group.executions).toBeLessThanOrEqual((threads * (DURATION_MS + 2000 + SERVICE_MS)) / SERVICE_MS);
  });
});

describe('thread pool exhausted, end to end (1 thread, no queue)', () => {
  const results: Result[] = [];
  const s = run(['providers[0].threads=1', 'providers[0].queues=0'], recordingFailover(results));
  const group = s.byProviderGroup[GROUP]!;
  const errors = results.flatMap((r) => (r.kind === 'error' ? [r.error] : []));

  it('ends requests whose last attempt found the pool full as `rejected`, never as `network`', () => {
    expect(s.outcomes.rejected).toBeGreaterThan(0.5 * s.requests);
    expect(s.outcomes.network).toBe(0);
    expect(s.outcomes.rejected + s.outcomes.timeout).toBe(s.requests);
  });

  it('counts each refused attempt in byProviderGroup.rejected', () => {
    expect(group.executions + group.rejected).toBe(s.attempts);
    expect(group.rejected).toBeGreaterThanOrEqual(s.outcomes.rejected);
  });

  it("fails with Dubbo's code 1 (NETWORK_EXCEPTION) and the server's EXHAUSTED message", () => {
    expect(results).toHaveLength(s.requests);
    const exhausted = errors.filter((e) => e.message.includes('Thread pool is EXHAUSTED!'));
    expect(exhausted).toHaveLength(s.outcomes.rejected);
    for (const e of exhausted) {
      expect(e.code).toBe(RpcCode.NETWORK_EXCEPTION);
      expect(e.code).toBe(1);
      expect(e.message).toMatch(/^Failed to invoke the method placeOrder .* Tried 3 times/);
    }
  });

  it('retries a rejected attempt on another provider, like any non-business exception: 3 attempts per request', () => {
    expect(s.attempts).toBe(3 * s.requests);
    const once = run(['providers[0].threads=1', 'providers[0].queues=0', 'consumers[0].reference["com.example.OrderService"].retries=0']);
    expect(once.attempts).toBe(once.requests);
    expect(once.outcomes.rejected).toBeGreaterThan(0);
  });
});
