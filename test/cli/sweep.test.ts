/**
 * `zonesim sweep`, `--shard` and `zonesim merge`: cell order, cells reproducible by a plain run,
 * `--jobs` independence, shards merged byte for byte (in this process and as separate processes),
 * merge refusals and bad grid input. Workers run the compiled code (dist/), built by `pretest`.
 */
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const run = promisify(execFile);

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const SCENARIO = 'scenarios/timeout-sweep.yaml';
const SHORT = ['--set', 'duration=4s', '--set', 'warmup=1s'];
const TIMEOUT = 'consumers[0].consumerDefaults.timeout';
const RETRIES = 'consumers[0].consumerDefaults.retries';
const GRID = ['--grid', `${TIMEOUT}=100ms,300ms`, '--grid', `${RETRIES}=0,1`];

/** The only results folder under `out` (one scenario, one run). */
function onlyRun(out: string): string {
  const [scenario] = readdirSync(out).filter((f) => !f.startsWith('.'));
  const runs = readdirSync(join(out, scenario!)).filter((f) => !f.endsWith('.json'));
  expect(runs).toHaveLength(1);
  return join(out, scenario!, runs[0]!);
}

describe('zonesim sweep', () => {
  it('prints SPEC 4.2a JSON with the cells in the fixed order: strategies outermost, last axis fastest', async () => {
    const r = await cli(['sweep', SCENARIO, ...GRID, '--strategies', 'dubbo-default,zone-aware-lb', '--json', '--jobs', '1', '--out', tempDir('zs-sweep-'), ...SHORT]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(Object.keys(doc)).toEqual(['scenario', 'seed', 'seeds', 'version', 'grid', 'strategies', 'best', 'cells']);
    expect(Object.keys(doc.best)).toEqual(['index', 'objective']);
    expect(doc.best.objective).toBe('errorRate,latencyAllMs.p99,duplicateExecutions');
    expect(doc.grid).toEqual({ [TIMEOUT]: ['100ms', '300ms'], [RETRIES]: ['0', '1'] });
    expect(doc.strategies).toEqual(['dubbo-default', 'zone-aware-lb']);
    expect(doc.cells).toHaveLength(8);
    expect(Object.keys(doc.cells[0])).toEqual(['index', 'values', 'strategy', 'summary']);
    expect(doc.cells.map((c: any) => [c.index, c.strategy, c.values[TIMEOUT], c.values[RETRIES]])).toEqual([
      [0, 'dubbo-default', '100ms', '0'],
      [1, 'dubbo-default', '100ms', '1'],
      [2, 'dubbo-default', '300ms', '0'],
      [3, 'dubbo-default', '300ms', '1'],
      [4, 'zone-aware-lb', '100ms', '0'],
      [5, 'zone-aware-lb', '100ms', '1'],
      [6, 'zone-aware-lb', '300ms', '0'],
      [7, 'zone-aware-lb', '300ms', '1'],
    ]);
    // The grid took effect: no retries, no duplicate executions; a longer timeout, fewer timeouts.
    expect(doc.cells[0].summary.duplicateExecutions).toBe(0);
    expect(doc.cells[1].summary.duplicateExecutions).toBeGreaterThan(0);
    expect(doc.cells[2].summary.timeoutRate).toBeLessThan(doc.cells[0].summary.timeoutRate);
  });

  it('gives a cell the same summary bytes as the plain run that --explain prints', async () => {
    const sweep = await cli(['sweep', SCENARIO, ...GRID, '--json', '--jobs', '1', '--out', tempDir('zs-sweep-'), ...SHORT]);
    expect(sweep.code).toBe(0);
    const cell = JSON.parse(sweep.out).cells[3];
    expect(cell.values).toEqual({ [TIMEOUT]: '300ms', [RETRIES]: '1' });
    const explained = await cli(['sweep', SCENARIO, ...GRID, '--explain', '3', '--json', ...SHORT]);
    expect(explained.code).toBe(0);
    const { argv, command } = JSON.parse(explained.out);
    expect(argv).toEqual(['zonesim', 'run', SCENARIO, '--seed', '1', ...SHORT, '--set', `${TIMEOUT}=300ms`, '--set', `${RETRIES}=1`]);
    expect(command).toBe(`zonesim run ${SCENARIO} --seed 1 --set duration=4s --set warmup=1s --set '${TIMEOUT}=300ms' --set '${RETRIES}=1'`);
    const plain = await cli([...argv.slice(1), '--json', '--out', tempDir('zs-run-')]);
    expect(plain.code).toBe(0);
    expect(plain.out).toBe(JSON.stringify(cell.summary, null, 2) + '\n');
  });

  it('carries the --data-root and --no-plugins into the command --explain prints', async () => {
    const dataRoot = join(root, 'scenarios');
    const r = await cli(['sweep', SCENARIO, ...GRID, '--explain', '1', '--json', '--data-root', dataRoot, '--no-plugins', ...SHORT]);
    expect(r.code).toBe(0);
    const { argv } = JSON.parse(r.out);
    expect(argv.slice(-3)).toEqual(['--data-root', dataRoot, '--no-plugins']);
  });

  it('gives a strategy cell with several seeds the summary of the comparison that --explain prints', async () => {
    const args = ['sweep', SCENARIO, '--grid', `${RETRIES}=0,2`, '--strategies', 'dubbo-default,zone-failover', '--seeds', '2', ...SHORT];
    const sweep = await cli([...args, '--json', '--jobs', '2', '--out', tempDir('zs-sweep-')]);
    expect(sweep.code).toBe(0);
    const cell = JSON.parse(sweep.out).cells[3];
    expect(cell).toMatchObject({ strategy: 'zone-failover', values: { [RETRIES]: '2' } });
    expect(cell.summary.seeds).toEqual([1, 2]);
    const { argv } = JSON.parse((await cli([...args, '--explain', '3', '--json'])).out);
    expect(argv.slice(0, 5)).toEqual(['zonesim', 'compare', SCENARIO, '--strategies', 'zone-failover']);
    const compare = await cli([...argv.slice(1), '--json', '--jobs', '1', '--out', tempDir('zs-run-')]);
    expect(compare.code).toBe(0);
    expect(JSON.stringify(JSON.parse(compare.out).byStrategy['zone-failover'], null, 2)).toBe(JSON.stringify(cell.summary, null, 2));
  });

  it('prints the run command of a cell for people with --explain', async () => {
    const r = await cli(['sweep', SCENARIO, ...GRID, '--explain', '2', ...SHORT]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('cell 2 of 4');
    expect(r.out).toContain('timeout=300ms, retries=0');
    expect(r.out).toContain(`zonesim run ${SCENARIO} --seed 1`);
  });

  it('gives the same JSON and CSV on 1 and 2 worker threads', async () => {
    const dirs = [tempDir('zs-sweep-'), tempDir('zs-sweep-')];
    const one = await cli(['sweep', SCENARIO, ...GRID, '--json', '--jobs', '1', '--out', dirs[0]!, ...SHORT]);
    const two = await cli(['sweep', SCENARIO, ...GRID, '--json', '--jobs', '2', '--out', dirs[1]!, ...SHORT]);
    expect([one.code, two.code]).toEqual([0, 0]);
    expect(two.out).toBe(one.out);
    const csv = dirs.map((d) => readFileSync(join(onlyRun(d), 'sweep.csv'), 'utf8'));
    expect(csv[1]).toBe(csv[0]);
    expect(readFileSync(join(onlyRun(dirs[0]!), 'sweep.json'), 'utf8')).toBe(one.out);
  });

  it('estimates every cell with --dry-run and runs nothing', async () => {
    const out = tempDir('zs-sweep-');
    const r = await cli(['sweep', SCENARIO, ...GRID, '--dry-run', '--out', out, ...SHORT]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^sweep timeout-sweep: cost estimate of 4 simulations/);
    expect(r.out).toContain('cell 3 (timeout=300ms, retries=1):');
    expect(readdirSync(out)).toEqual([]);
    const refused = await cli(['sweep', SCENARIO, ...GRID, '--max-requests', '100', '--out', out, ...SHORT]);
    expect(refused.code).toBe(2);
    expect(readdirSync(out)).toEqual([]);
  });

  it('writes sweep.json, sweep.csv and the scenario, and prints a table with the best cell', async () => {
    const out = tempDir('zs-sweep-');
    const r = await cli(['sweep', SCENARIO, ...GRID, '--jobs', '1', '--out', out, '--max-timeout-rate', '0.5', ...SHORT]);
    expect(r.code).toBe(0);
    const dir = onlyRun(out);
    expect(dir).toMatch(/-sweep$/);
    expect(readdirSync(dir).sort()).toEqual(['scenario.yaml', 'sweep.csv', 'sweep.json']);
    const csv = readFileSync(join(dir, 'sweep.csv'), 'utf8').trimEnd().split('\n');
    expect(csv[0]).toBe(
      `${TIMEOUT},${RETRIES},strategy,requests,latencyMs.p50,latencyMs.p99,latencyMs.p999,latencyAllMs.p99,timeoutRate,` +
        'noProviderRate,errorRate,duplicateExecutions,duplicateWrites,retryAmplification,crossZoneRatio',
    );
    expect(csv).toHaveLength(5);
    expect(csv[1]).toMatch(/^100ms,0,,\d+,/);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('timeout-sweep: 4 cells (2 × 2), seed 1');
    // The objective's figures first, then what retries cost, then the other main figures.
    expect(lines[2]).toMatch(
      /^#\s+timeout\s+retries\s+error %\s+p99 all ms\s+duplicates\s+extra attempts %\s+duplicate writes\s+requests\s+p50 ok ms\s+p99 ok ms\s+p999 ok ms\s+timeout %\s+no-provider %\s+cross-zone %$/,
    );
    const doc = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    // The best cell: among those with a timeout rate under 50%, the lowest error rate, then p99 of all calls, then duplicates.
    const key = (c: any) => [c.summary.errorRate, c.summary.latencyAllMs.p99, c.summary.duplicateExecutions, c.index];
    const before = (a: any, b: any) => {
      const [x, y] = [key(a), key(b)];
      const i = x.findIndex((v, k) => v !== y[k]);
      return x[i]! < y[i]!;
    };
    const eligible = doc.cells.filter((c: any) => c.summary.timeoutRate < 0.5);
    const best = eligible.reduce((a: any, c: any) => (before(c, a) ? c : a));
    expect(doc.best).toEqual({ index: best.index, objective: 'errorRate,latencyAllMs.p99,duplicateExecutions', maxTimeoutRate: 0.5 });
    expect(r.out).toMatch(
      new RegExp(`^best \\(lowest error %, then lowest p99 all ms, then lowest duplicates, timeout % under 50\\.000\\): #${best.index} .*: error % [\\d.]+, p99 all ms [\\d.]+, duplicates ${best.summary.duplicateExecutions}, extra attempts % [\\d.]+, duplicate writes 0, timeout % [\\d.]+$`, 'm'),
    );
    expect(r.out).toContain(`results: ${dir}`);
  });

  it('keeps a single-figure --objective with its timeout bound of 0.1% unless --max-timeout-rate is given', async () => {
    const args = ['sweep', SCENARIO, ...GRID, '--jobs', '1', '--objective', 'p99', '--json', ...SHORT];
    const bounded = JSON.parse((await cli([...args, '--out', tempDir('zs-sweep-')])).out);
    const under = (rate: number) => bounded.cells.filter((c: any) => c.summary.timeoutRate < rate);
    const lowestP99 = (cells: any[]) => cells.reduce((a: any, c: any) => (c.summary.latencyMs.p99 < a.summary.latencyMs.p99 ? c : a));
    expect(bounded.best).toEqual({ index: under(0.001).length === 0 ? null : lowestP99(under(0.001)).index, objective: 'latencyMs.p99', maxTimeoutRate: 0.001 });
    const loose = JSON.parse((await cli([...args, '--max-timeout-rate', '0.5', '--out', tempDir('zs-sweep-')])).out);
    expect(under(0.5).length).toBeGreaterThan(1);
    expect(loose.best).toEqual({ index: lowestP99(under(0.5)).index, objective: 'latencyMs.p99', maxTimeoutRate: 0.5 });
  });
});

describe('--shard and zonesim merge', () => {
  const args = ['sweep', SCENARIO, '--grid', `${TIMEOUT}=100ms,200ms,400ms`, '--grid', `${RETRIES}=0,1`, '--jobs', '1', ...SHORT];

  async function shards(n: number, extra: string[] = []) {
    const out = tempDir('zs-parts-');
    for (let k = 1; k <= n; k++) {
      const r = await cli([...args, ...extra, '--shard', `${k}/${n}`, '--out', out]);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`part: ${join(out, 'timeout-sweep', `sweep.part-${k}-of-${n}.json`)}`);
    }
    return join(out, 'timeout-sweep');
  }

  it('merges shards 1..n into the unsharded JSON and CSV, byte for byte', async () => {
    const whole = tempDir('zs-sweep-');
    const unsharded = await cli([...args, '--json', '--out', whole]);
    expect(unsharded.code).toBe(0);
    const parts = await shards(4);
    const part2 = JSON.parse(readFileSync(join(parts, 'sweep.part-2-of-4.json'), 'utf8'));
    expect(part2.cells.map((c: any) => c.index)).toEqual([1, 5]);
    const merged = tempDir('zs-merged-');
    const r = await cli(['merge', ...[1, 2, 3, 4].map((k) => join(parts, `sweep.part-${k}-of-4.json`)).reverse(), '--json', '--out', merged]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(unsharded.out);
    for (const file of ['sweep.json', 'sweep.csv', 'scenario.yaml']) {
      expect(readFileSync(join(onlyRun(merged), file), 'utf8'), file).toBe(readFileSync(join(onlyRun(whole), file), 'utf8'));
    }
    // A folder stands for the parts in it.
    const again = await cli(['merge', parts, '--json', '--out', tempDir('zs-merged-')]);
    expect(again.out).toBe(unsharded.out);
    // The best cell is found over the cells of all parts, by merge's own objective.
    const objective = ['--objective', 'max:timeoutRate,p99', '--max-timeout-rate', '1'];
    const custom = await cli([...args, ...objective, '--json', '--out', tempDir('zs-sweep-')]);
    const mergedCustom = await cli(['merge', parts, ...objective, '--json', '--out', tempDir('zs-merged-')]);
    expect(mergedCustom.out).toBe(custom.out);
    const doc = JSON.parse(custom.out);
    expect(doc.best).toEqual({ index: doc.cells.reduce((a: any, c: any) => (c.summary.timeoutRate > a.summary.timeoutRate ? c : a)).index, objective: 'max:timeoutRate,latencyMs.p99', maxTimeoutRate: 1 });
    expect(doc.best.index).not.toBe(JSON.parse(unsharded.out).best.index);
  });

  it('merges shards run as separate processes into what the unsharded sweep writes', async () => {
    const bin = join(root, 'bin/zonesim.js');
    const out = tempDir('zs-procs-');
    const n = 3;
    const [whole] = await Promise.all([
      run(process.execPath, [bin, ...args, '--out', join(out, 'whole')], { cwd: root }),
      ...Array.from({ length: n }, (_, i) => run(process.execPath, [bin, ...args, '--shard', `${i + 1}/${n}`, '--out', join(out, 'parts')], { cwd: root })),
    ]);
    expect(whole.stdout).toContain('results: ');
    const merged = await run(process.execPath, [bin, 'merge', join(out, 'parts', 'timeout-sweep'), '--out', join(out, 'merged')], { cwd: root });
    expect(merged.stdout.split('\nresults:')[0]).toBe(whole.stdout.split('\nresults:')[0]);
    for (const file of ['sweep.json', 'sweep.csv']) {
      expect(readFileSync(join(onlyRun(join(out, 'merged')), file), 'utf8'), file).toBe(readFileSync(join(onlyRun(join(out, 'whole')), file), 'utf8'));
    }
  });

  it('refuses missing, duplicate and mismatched parts with exit 2', async () => {
    const parts = await shards(3);
    const p = (k: number) => join(parts, `sweep.part-${k}-of-3.json`);
    const missing = await cli(['merge', p(1), p(3)]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/missing shard 2 of 3 \(have 1, 3\)/);
    expect(missing.err).toContain('--shard 2/3');

    const duplicate = await cli(['merge', p(1), p(2), p(2), p(3)]);
    expect(duplicate.code).toBe(2);
    expect(duplicate.err).toMatch(/shard 2 of 3 is given twice/);

    const other = await shards(3, ['--seed', '5']);
    const mixed = join(tempDir('zs-mixed-'), 'sweep.part-2-of-3.json');
    copyFileSync(join(other, 'sweep.part-2-of-3.json'), mixed);
    const mismatched = await cli(['merge', p(1), mixed, p(3)]);
    expect(mismatched.code).toBe(2);
    expect(mismatched.err).toMatch(/belongs to another sweep than .*: their seeds differ/);

    const fourths = await shards(4);
    const counts = await cli(['merge', p(1), p(2), join(fourths, 'sweep.part-3-of-4.json')]);
    expect(counts.code).toBe(2);

    const junk = join(tempDir('zs-junk-'), 'x.json');
    writeFileSync(junk, '{"cells": []}');
    const notPart = await cli(['merge', junk]);
    expect(notPart.code).toBe(2);
    expect(notPart.err).toMatch(/not a part file/);
    expect(`${missing.err}${duplicate.err}${mismatched.err}${notPart.err}`).not.toMatch(/\n\s+at /);
  });

  it('merges compare --shard parts into the unsharded comparison, byte for byte', async () => {
    const cmp = ['compare', 'scenarios/zone-a-down.yaml', '--seeds', '2', '--set', 'duration=12s', '--set', 'warmup=1s', '--jobs', '1'];
    const whole = tempDir('zs-cmp-');
    const unsharded = await cli([...cmp, '--json', '--out', whole]);
    expect(unsharded.code).toBe(0);
    const parts = tempDir('zs-cmp-parts-');
    for (const k of [1, 2, 3]) expect((await cli([...cmp, '--shard', `${k}/3`, '--out', parts])).code).toBe(0);
    const part1 = JSON.parse(readFileSync(join(parts, 'zone-a-down', 'compare.part-1-of-3.json'), 'utf8'));
    // Two strategies x two seeds: runs 0 and 3 (strategy 1 seed 1, strategy 2 seed 2).
    expect(part1.runs.map((r: any) => [r.index, r.seed])).toEqual([[0, 1], [3, 2]]);
    const merged = tempDir('zs-cmp-merged-');
    const r = await cli(['merge', join(parts, 'zone-a-down'), '--json', '--out', merged]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(unsharded.out);
    for (const file of ['compare.json', 'compare.csv']) {
      expect(readFileSync(join(onlyRun(merged), file), 'utf8'), file).toBe(readFileSync(join(onlyRun(whole), file), 'utf8'));
    }
  });
});

describe('bad sweep input', () => {
  it.each([
    ['an unknown path', ['--grid', 'consumers[0].consumerDefaults.timout=1s,2s'], /timeout-sweep\.yaml:\d+:\d+: consumers\[0\]\.consumerDefaults\.timout: .*--grid value consumers\[0\]\.consumerDefaults\.timout=1s/],
    ['a bad value', ['--grid', `${TIMEOUT}=100ms,fast`], /consumers\[0\]\.consumerDefaults\.timeout: expected a duration.*--grid value/],
    ['a bad range', ['--grid', `${TIMEOUT}=1s..100ms/100ms`], /--grid .*: "1s\.\.100ms\/100ms": the end is below the start/],
    ['a bad shard', [...GRID, '--shard', '4/3'], /--shard: expected k\/n with 1 <= k <= n, found "4\/3"/],
    ['no grid', [], /sweep needs at least one axis/],
    ['an axis given twice', ['--grid', `${RETRIES}=0`, '--grid', `${RETRIES}=1`], /the path .* is given twice/],
    ['a cell index out of range', [...GRID, '--explain', '4'], /--explain: expected a cell index from 0 to 3, found 4/],
    ['an unknown objective', [...GRID, '--objective', 'speed'], /--objective: unknown figure "speed"/],
    ['an unknown figure in an objective list', [...GRID, '--objective', 'error,speed'], /--objective: unknown figure "speed"/],
    ['an empty figure in an objective list', [...GRID, '--objective', 'error,,p99'], /--objective: an empty figure in "error,,p99"/],
    ['a figure twice in an objective list', [...GRID, '--objective', 'p99,latencyMs.p99'], /--objective: latencyMs\.p99 is given twice/],
    ['a timeout bound above 1', [...GRID, '--max-timeout-rate', '2'], /--max-timeout-rate: expected a fraction between 0 and 1, found 2/],
    ['an unknown strategy', [...GRID, '--strategies', 'fastest'], /--strategies: unknown strategy "fastest"/],
  ])('exits 2 with a clear message for %s', async (_label, extra, message) => {
    const r = await cli(['sweep', SCENARIO, ...extra, '--out', tempDir('zs-bad-'), ...SHORT]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.out).toBe('');
  });

  it('names file, line and column of a bad --grid-file', async () => {
    const file = join(tempDir('zs-grid-'), 'grid.yaml');
    writeFileSync(file, `${TIMEOUT}: 100ms..1s/100ms\n${RETRIES}: 5..1\n`);
    const r = await cli(['sweep', SCENARIO, '--grid-file', file, ...SHORT]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}:2:`);
    expect(r.err).toMatch(/the end is below the start/);
  });
});
