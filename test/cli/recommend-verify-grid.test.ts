import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

describe('recommend --verify-grid', () => {
  it('sweeps timeout x retries around the answer; the formula cell is the verified "after" run', async () => {
    const r = await cli(['recommend', 'scenarios/timeout-sweep.yaml', '--verify-grid', '--json', '--set', 'duration=8s']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const { recommendations, verifyGrid } = JSON.parse(r.out);
    expect(verifyGrid).toHaveLength(1);
    const [g] = verifyGrid;
    const [rec] = recommendations;
    expect(g).toMatchObject({ service: 'com.example.SearchService', method: 'search', formula: { timeoutMs: rec.timeoutMs, retries: rec.retries } });
    expect(g.factors).toEqual([0.5, 0.75, 1, 1.25, 1.5, 2]);
    expect(g.retries).toEqual([0, 1, 2]);
    expect(g.cells).toHaveLength(18);
    expect(g.cells.map((c: any) => [c.timeoutFactor, c.retries]).slice(0, 4)).toEqual([[0.5, 0], [0.5, 1], [0.5, 2], [0.75, 0]]);
    const formula = g.cells.find((c: any) => c.timeoutFactor === 1 && c.retries === rec.retries);
    expect(formula.timeoutMs).toBe(rec.timeoutMs);
    expect(formula.timeoutRate).toBe(rec.after.timeoutRate);
    expect(formula.p99AllMs).toBe(rec.after.latencyAllMs.p99);
    expect(formula.retryAmplification).toBe(rec.after.retryAmplification);
    // Each timeout on the grid is the formula's scaled and rounded up.
    expect(g.cells.filter((c: any) => c.retries === 0).map((c: any) => c.timeoutMs)).toEqual(g.factors.map((f: number) => Math.ceil(rec.timeoutMs * f)));
    // Without retries, a longer timeout never times out more often.
    const noRetry = g.cells.filter((c: any) => c.retries === 0).map((c: any) => c.timeoutRate);
    expect(noRetry).toEqual([...noRetry].sort((a, b) => b - a));
    // The optimum: within the target, and no passing cell has a lower p99 of all requests.
    const passing = g.cells.filter((c: any) => c.timeoutRate <= 0.001);
    expect(g.optimum.timeoutRate).toBeLessThanOrEqual(0.001);
    expect(g.optimum.p99AllMs).toBe(Math.min(...passing.map((c: any) => c.p99AllMs)));
    expect(g.smallestFactorAtFormulaRetries).toBe(Math.min(...passing.filter((c: any) => c.retries === rec.retries).map((c: any) => c.timeoutFactor)));
    expect(g.verdict).toMatch(/^the formula \(\d+ ms, 1 retry\) meets the target/);
  });

  it('never retries a write on the grid, and prints the grid with the formula and the optimum marked', async () => {
    const r = await cli(['recommend', 'scenarios/timeout-retry-storm.yaml', '--verify-grid', '--set', 'duration=10s']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/verify grid com\.example\.OrderService\.placeOrder: .*a write is never retried/);
    expect(r.out).toMatch(/^ {2}×1 +\d+ ms +0\.000% \/ \d+ ms \(fo?\)$/m);
    expect(r.out).toMatch(/^ {2}×0\.5 +\d+ ms +100\.000% \//m);
    expect(r.out.match(/^ {2}×/gm)).toHaveLength(6);
  });

  it('adds nothing to the JSON without the flag', async () => {
    const r = await cli(['recommend', 'scenarios/timeout-retry-storm.yaml', '--json', '--set', 'duration=7s']);
    expect(Object.keys(JSON.parse(r.out))).toEqual(['recommendations', 'verification']);
  });
});
