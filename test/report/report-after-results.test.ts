/**
 * `--report` is built after the results are written and printed (issue 37; audit 3 defect 4): when
 * building the report fails — here it throws the RangeError a too-large timeline gave — run,
 * compare and sweep keep their results folder and their table, and say so in one line, exit 1.
 */
import { describe, expect, it, vi } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

vi.mock('../../src/report/report.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/report/report.js')>()),
  renderReport: () => {
    throw new RangeError('Maximum call stack size exceeded');
  },
}));
vi.mock('../../src/report/sweep-report.js', () => ({
  renderSweepReport: () => {
    throw new RangeError('Maximum call stack size exceeded');
  },
}));

const tempDir = useTempDirs();
const SHORT = ['--set', 'duration=3s', '--set', 'warmup=1s', '--jobs', '1'];

describe('a report that cannot be built costs nothing but itself', () => {
  it.each([
    ['run', ['run', 'scenarios/dual-zone-baseline.yaml'], 'dual-zone-baseline', 'summary.json'],
    ['compare', ['compare', 'scenarios/zone-a-down.yaml'], 'zone-a-down', 'compare.json'],
    ['sweep', ['sweep', 'scenarios/timeout-sweep.yaml', '--grid', 'consumers[0].consumerDefaults.retries=0,1'], 'timeout-sweep', 'sweep.json'],
  ])('%s --report: the results folder and the table stay, one line says what failed, exit 1', async (_name, args, scenario, file) => {
    const out = tempDir('zs-rep-fail-');
    const r = await cli([...args, ...SHORT, '--report', '--out', out]);
    expect(r.code).toBe(1);
    const [folder] = readdirSync(join(out, scenario));
    const dir = join(out, scenario, folder!);
    expect(readdirSync(dir)).toContain(file);
    expect(readdirSync(dir)).not.toContain('report.html');
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(r.out).toContain(`results: ${dir}\n`);
    expect(r.err).toBe(`zonesim: could not build the report (Maximum call stack size exceeded): the results are in ${dir}\n`);
  });
});
