/**
 * The sweep objective: parsing `--objective` lists and `--max-timeout-rate`, the ranking as a
 * strict total order (error rate of all calls, then their p99, then duplicate executions, then the
 * index) on constructed cells, and on `scenarios/timeout-sweep.yaml` swept as its description says:
 * the best cell has no more failures than any cell, is beaten by none on failures, p99 and
 * duplicates together, and is not the retry-heavy cell the former default (lowest p99 of
 * successful calls) picked.
 */
import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/scenario/io.js';
import { bestCell, compareCells, objectiveOf, parseObjective, rankCells, sweepBest } from '../../src/report/sweep-objective.js';
import type { Summary } from '../../src/metrics/summary.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** The objective SPEC 4.2a names as the default. */
const SPEC_DEFAULT = 'errorRate,latencyAllMs.p99,duplicateExecutions';

interface Figures {
  errorRate: number;
  p99All: number;
  duplicates: number;
  timeoutRate?: number;
  p99Ok?: number;
  ok?: number;
}

/** A cell whose summary holds the figures an objective reads. */
function cell(index: number, f: Figures): { index: number; summary: Summary } {
  const summary = {
    requests: 1000,
    ok: f.ok ?? 1000,
    attempts: 1000 + f.duplicates,
    errorRate: f.errorRate,
    timeoutRate: f.timeoutRate ?? f.errorRate,
    duplicateExecutions: f.duplicates,
    duplicateWrites: 0,
    latencyMs: { p99: f.p99Ok ?? f.p99All },
    latencyAllMs: { p99: f.p99All },
  };
  return { index, summary: summary as unknown as Summary };
}

describe('parseObjective', () => {
  it('defaults to the SPEC 4.2a objective, every figure lowest first, with no timeout bound', () => {
    const o = parseObjective(undefined, undefined);
    expect(o.name).toBe(SPEC_DEFAULT);
    expect(o.keys).toEqual([
      { path: 'errorRate', direction: 'min' },
      { path: 'latencyAllMs.p99', direction: 'min' },
      { path: 'duplicateExecutions', direction: 'min' },
    ]);
    expect(o.maxTimeoutRate).toBeUndefined();
    expect(parseObjective(undefined, 0.01).maxTimeoutRate).toBe(0.01);
  });

  it('reads a comma list of aliases and paths, with min: and max:, into its canonical name', () => {
    expect(parseObjective('error, p99-all ,duplicates', undefined).name).toBe(SPEC_DEFAULT);
    expect(parseObjective('max:ok,min:p99,outcomes.rejected', 0.5)).toEqual({
      keys: [
        { path: 'ok', direction: 'max' },
        { path: 'latencyMs.p99', direction: 'min' },
        { path: 'outcomes.rejected', direction: 'min' },
      ],
      maxTimeoutRate: 0.5,
      name: 'max:ok,latencyMs.p99,outcomes.rejected',
    });
  });

  it('keeps the single-figure forms and their 0.1% timeout bound when --max-timeout-rate is not given', () => {
    expect(parseObjective('p99', undefined)).toEqual({ keys: [{ path: 'latencyMs.p99', direction: 'min' }], maxTimeoutRate: 0.001, name: 'latencyMs.p99' });
    expect(parseObjective('max:ok', 1)).toMatchObject({ name: 'max:ok', maxTimeoutRate: 1 });
  });

  it.each([
    ['speed', undefined, /unknown figure "speed"/],
    ['error,,p99', undefined, /an empty figure in "error,,p99"/],
    ['p99,latencyMs.p99', undefined, /latencyMs\.p99 is given twice/],
    [undefined, -0.1, /--max-timeout-rate: expected a fraction between 0 and 1/],
    [undefined, Number.NaN, /--max-timeout-rate/],
  ])('refuses %s (bound %s) with a usage error', (text, bound, message) => {
    expect(() => parseObjective(text, bound)).toThrow(UsageError);
    expect(() => parseObjective(text, bound)).toThrow(message);
  });

  it('reads back the objective a sweep document names in best, bound included', () => {
    const cells = [cell(0, { errorRate: 0, p99All: 10, duplicates: 0 })];
    for (const o of [parseObjective(undefined, undefined), parseObjective('p99', undefined), parseObjective('max:ok,p99-all', 0.25)]) {
      expect(objectiveOf(sweepBest(cells, o), 'sweep.json')).toEqual(o);
    }
    expect(objectiveOf(undefined, 'sweep.json').name).toBe(SPEC_DEFAULT);
    expect(() => objectiveOf({ index: 0, objective: 'fast' }, '/r/sweep.json')).toThrow('/r/sweep.json: best.objective: unknown figure "fast"');
  });
});

describe('the ranking', () => {
  const objective = parseObjective(undefined, undefined);
  const rank = (cells: Array<{ index: number; summary: Summary }>) => rankCells(cells, objective).map((c) => c.index);

  it('puts fewer failures first, however much faster or cheaper a cell with more failures is', () => {
    const failsFast = cell(0, { errorRate: 0.05, p99All: 100, duplicates: 0 });
    const slowClean = cell(1, { errorRate: 0.01, p99All: 900, duplicates: 500 });
    expect(rank([failsFast, slowClean])).toEqual([1, 0]);
  });

  it('then the p99 of all calls, then duplicates, then the index', () => {
    const cells = [
      cell(0, { errorRate: 0, p99All: 800, duplicates: 14 }),
      cell(1, { errorRate: 0, p99All: 600, duplicates: 486 }),
      cell(2, { errorRate: 0, p99All: 600, duplicates: 300 }),
      cell(3, { errorRate: 0, p99All: 600, duplicates: 300 }),
    ];
    // p99 decides before duplicates (cell 1 above cell 0); duplicates break an exact p99 tie (2 above 1); the index breaks a full tie.
    expect(rank(cells)).toEqual([2, 3, 1, 0]);
  });

  it('maximizes a max: figure', () => {
    const o = parseObjective('max:ok,p99', 1);
    const cells = [cell(0, { errorRate: 0, p99All: 5, duplicates: 0, ok: 900 }), cell(1, { errorRate: 0, p99All: 9, duplicates: 0, ok: 990 })];
    expect(bestCell(cells, o)?.index).toBe(1);
  });

  it('is a strict total order whose ranking does not depend on the order the cells come in (as from shards)', () => {
    // Few distinct values, so ties on every figure are common.
    let x = 12345;
    const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
    const cells = Array.from({ length: 40 }, (_, i) => cell(i, { errorRate: [0, 0.001, 0.01][next(3)]!, p99All: [500, 600, 800][next(3)]!, duplicates: [0, 14, 486][next(3)]! }));
    for (const a of cells) {
      expect(compareCells(a, a, objective)).toBe(0);
      for (const b of cells) {
        if (a === b) continue;
        const ab = compareCells(a, b, objective);
        expect(ab).not.toBe(0);
        expect(Math.sign(compareCells(b, a, objective))).toBe(-Math.sign(ab));
        for (const c of cells) if (ab < 0 && compareCells(b, c, objective) < 0) expect(compareCells(a, c, objective)).toBeLessThan(0);
      }
    }
    const ranked = rank(cells);
    // Lexicographic on (error rate, p99 of all calls, duplicates, index), written out independently.
    const tuple = (i: number) => [cells[i]!.summary.errorRate, cells[i]!.summary.latencyAllMs.p99, cells[i]!.summary.duplicateExecutions, i];
    for (let k = 1; k < ranked.length; k++) {
      const [p, q] = [tuple(ranked[k - 1]!), tuple(ranked[k]!)];
      const d = p.findIndex((v, j) => v !== q[j]);
      expect(p[d]!).toBeLessThan(q[d]!);
    }
    expect(rank([...cells].reverse())).toEqual(ranked);
    expect(rank([...cells.filter((_, i) => i % 3 === 1), ...cells.filter((_, i) => i % 3 !== 1)])).toEqual(ranked);
  });

  it('leaves out cells at or over --max-timeout-rate, and names no best when none is under it', () => {
    const bounded = parseObjective(undefined, 0.01);
    const cells = [cell(0, { errorRate: 0.001, p99All: 500, duplicates: 0, timeoutRate: 0.02 }), cell(1, { errorRate: 0.005, p99All: 700, duplicates: 0, timeoutRate: 0.005 })];
    expect(sweepBest(cells, bounded)).toEqual({ index: 1, objective: SPEC_DEFAULT, maxTimeoutRate: 0.01 });
    expect(sweepBest(cells, objective)).toEqual({ index: 0, objective: SPEC_DEFAULT });
    expect(sweepBest(cells, parseObjective(undefined, 0.001))).toEqual({ index: null, objective: SPEC_DEFAULT, maxTimeoutRate: 0.001 });
  });
});

describe('sweep scenarios/timeout-sweep.yaml with the default objective', () => {
  it('picks a cell with no more failures than any, not beaten on failures, p99 and duplicates together, and not the retry storm', async () => {
    const out: string[] = [];
    const code = await main(
      [
        'sweep', 'scenarios/timeout-sweep.yaml',
        '--grid', 'consumers[0].consumerDefaults.timeout=100ms..2s/100ms', '--grid', 'consumers[0].consumerDefaults.retries=0,1,2',
        '--json', '--jobs', '2', '--out', tempDir('zs-objective-'),
      ],
      { stdout: (s) => out.push(s), stderr: () => {}, cwd: root },
    );
    expect(code).toBe(0);
    const doc = JSON.parse(out.join(''));
    expect(doc.cells).toHaveLength(60);
    expect(doc.best.objective).toBe(SPEC_DEFAULT);
    const best = doc.cells[doc.best.index];
    const s = best.summary;
    for (const c of doc.cells) {
      if (c === best) continue;
      const t = c.summary;
      // Every other cell ranks below the best: it has no fewer failures ...
      expect(s.errorRate, `cell ${c.index}`).toBeLessThanOrEqual(t.errorRate);
      // ... no lower p99 of all calls at equal failures, and no fewer duplicates at equal failures and p99.
      if (t.errorRate === s.errorRate) expect(s.latencyAllMs.p99, `cell ${c.index}`).toBeLessThanOrEqual(t.latencyAllMs.p99);
      if (t.errorRate === s.errorRate && t.latencyAllMs.p99 === s.latencyAllMs.p99) {
        expect(s.duplicateExecutions, `cell ${c.index}`).toBeLessThanOrEqual(t.duplicateExecutions);
      }
      // So none is at least as good on failures, p99 and duplicates and better on one.
      const noWorse = t.errorRate <= s.errorRate && t.latencyAllMs.p99 <= s.latencyAllMs.p99 && t.duplicateExecutions <= s.duplicateExecutions;
      const better = t.errorRate < s.errorRate || t.latencyAllMs.p99 < s.latencyAllMs.p99 || t.duplicateExecutions < s.duplicateExecutions;
      expect(noWorse && better, `cell ${c.index} dominates the best`).toBe(false);
    }
    // The former default (lowest p99 of successful calls, timeout rate under 0.1%) picked a retry-heavy cell
    // that fails more and executes more duplicates than the best now does.
    const former = doc.cells
      .filter((c: any) => c.summary.timeoutRate < 0.001)
      .reduce((a: any, c: any) => (c.summary.latencyMs.p99 < a.summary.latencyMs.p99 ? c : a));
    expect(former.values['consumers[0].consumerDefaults.retries']).toBe('2');
    expect(former.summary.errorRate).toBeGreaterThan(s.errorRate);
    expect(former.summary.duplicateExecutions).toBeGreaterThan(s.duplicateExecutions);
  });
});
