/**
 * `--jobs`: independent simulations run on worker threads and give the same bytes as one thread.
 * The worker runs the compiled code (dist/), which `npm test` builds first (pretest).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const SHORT = ['--set', 'duration=12s', '--set', 'warmup=1s'];

describe('--jobs', () => {
  it('gives compare --seeds 2 byte-identical JSON on 1 and 2 worker threads', async () => {
    const args = ['compare', 'scenarios/zone-a-down.yaml', '--seeds', '2', '--json', ...SHORT];
    const one = await cli([...args, '--jobs', '1', '--out', tempDir('zs-')]);
    const two = await cli([...args, '--jobs', '2', '--out', tempDir('zs-')]);
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(two.out).toBe(one.out);
    // Two strategies, each the mean of two seeds with confidence intervals.
    const doc = JSON.parse(one.out);
    expect(Object.keys(doc.byStrategy)).toHaveLength(2);
    expect(doc.byStrategy['dubbo-default'].seeds).toEqual([1, 2]);
    expect(doc.byStrategy['dubbo-default'].ci95).toBeDefined();
  });

  it('gives run --seeds 3 the same summary.json on 1 and 3 worker threads', async () => {
    const dirs = [tempDir('zs-'), tempDir('zs-')];
    const runs = [];
    for (const [i, jobs] of ['1', '3'].entries()) {
      runs.push(await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--seeds', '3', '--jobs', jobs, '--json', '--out', dirs[i]!, ...SHORT]));
    }
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs[1]!.out).toBe(runs[0]!.out);
    const files = dirs.map((d) => {
      const [scenario] = readdirSync(d);
      const [run] = readdirSync(join(d, scenario!));
      return readFileSync(join(d, scenario!, run!, 'summary.json'), 'utf8');
    });
    expect(files[1]).toBe(files[0]);
    expect(JSON.parse(files[0]!).seeds).toEqual([1, 2, 3]);
  });

  it('gives recommend the same JSON on 1 and 2 worker threads', async () => {
    const args = ['recommend', 'scenarios/timeout-retry-storm.yaml', '--json', '--set', 'duration=10s'];
    const one = await cli([...args, '--jobs', '1']);
    const two = await cli([...args, '--jobs', '2']);
    expect(one.code).toBe(0);
    expect(two.out).toBe(one.out);
  });

  it.each(['0', '-1', '1.5'])('refuses --jobs %s with exit 2', async (jobs) => {
    const r = await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--jobs', jobs, ...SHORT]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--jobs: expected a whole number >= 1');
  });
});
