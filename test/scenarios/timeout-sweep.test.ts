/**
 * timeout-sweep's headline, through the command users run: `zonesim sweep` over timeout × retries
 * on one lognormal service. Timeouts fall with the timeout and with retries, duplicates rise with
 * retries, and the knee sits where the service time's tail thins out. Each figure is checked
 * against the lognormal itself: an attempt times out when its service time passes the timeout
 * (the 0.2 ms round trip aside), each attempt draws independently, so with r retries a request
 * times out with P(S > T)^(r+1), and each timed-out attempt that is retried adds one execution.
 */
import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const TIMEOUT = 'consumers[0].consumerDefaults.timeout';
const RETRIES = 'consumers[0].consumerDefaults.retries';
const TIMEOUTS_MS = [100, 300, 600, 1000, 2000];
const RETRY_COUNTS = [0, 1, 2];

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, error below 1.5e-7). */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

// The scenario's service: lognormal with median 80 ms and P99 800 ms.
const SIGMA = Math.log(800 / 80) / 2.326347874;
const tail = (ms: number) => 1 - phi(Math.log(ms / 80) / SIGMA);

interface Cell {
  values: Record<string, string>;
  summary: { requests: number; timeoutRate: number; duplicateExecutions: number; retryAmplification: number };
}

describe('timeout-sweep: timeout 100 ms … 2 s × retries 0/1/2 on a lognormal service', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    [
      'sweep', 'scenarios/timeout-sweep.yaml',
      '--grid', `${TIMEOUT}=${TIMEOUTS_MS.map((t) => `${t}ms`).join(',')}`,
      '--grid', `${RETRIES}=${RETRY_COUNTS.join(',')}`,
      '--set', 'duration=12s', '--json', '--out', tempDir('zs-timeout-sweep-'),
    ],
    { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root },
  );
  const cells: Cell[] = code === 0 ? JSON.parse(out.join('')).cells : [];
  const at = (timeoutMs: number, retries: number) => cells.find((c) => c.values[TIMEOUT] === `${timeoutMs}ms` && c.values[RETRIES] === String(retries))!;

  it('runs every cell of the grid', () => {
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    expect(cells).toHaveLength(TIMEOUTS_MS.length * RETRY_COUNTS.length);
    expect(cells[0]!.summary.requests).toBeGreaterThan(4_000);
  });

  it.each(RETRY_COUNTS)('times out with P(S > T)^(r+1) at retries %i, for every timeout', (r) => {
    for (const t of TIMEOUTS_MS) {
      const c = at(t, r);
      const p = tail(t) ** (r + 1);
      const se = Math.sqrt((p * (1 - p)) / c.summary.requests);
      expect(Math.abs(c.summary.timeoutRate - p), `${t} ms, ${r} retries`).toBeLessThan(4 * se + 0.001);
    }
  });

  it('has fewer timeouts with a longer timeout and with more retries', () => {
    for (const r of RETRY_COUNTS) {
      const rates = TIMEOUTS_MS.map((t) => at(t, r).summary.timeoutRate);
      expect(rates).toEqual([...rates].sort((a, b) => b - a));
    }
    for (const t of TIMEOUTS_MS.slice(0, 3)) expect(at(t, 2).summary.timeoutRate).toBeLessThan(at(t, 0).summary.timeoutRate);
  });

  it('pays for retries in duplicate executions: one per timed-out attempt that is retried', () => {
    for (const t of TIMEOUTS_MS) {
      expect(at(t, 0).summary.duplicateExecutions).toBe(0);
      for (const r of [1, 2]) {
        const c = at(t, r);
        const p = tail(t);
        const expected = c.summary.requests * (r === 1 ? p : p + p * p);
        // Counts of rare events: within 4 standard deviations (at most √expected each, Poisson-like).
        expect(Math.abs(c.summary.duplicateExecutions - expected), `${t} ms, ${r} retries`).toBeLessThan(4 * Math.sqrt(2 * expected) + 2);
      }
      expect(at(t, 2).summary.duplicateExecutions).toBeGreaterThanOrEqual(at(t, 1).summary.duplicateExecutions);
    }
    expect(at(100, 1).summary.duplicateExecutions).toBeGreaterThan(0.35 * at(100, 1).summary.requests);
  });

  it('shows the knee: without retries, 100 → 300 ms removes 30 points of timeouts, 1 s → 2 s under 1', () => {
    const r0 = (t: number) => at(t, 0).summary.timeoutRate;
    expect(r0(100) - r0(300)).toBeGreaterThan(0.3);
    expect(r0(1000) - r0(2000)).toBeLessThan(0.01);
  });
});
