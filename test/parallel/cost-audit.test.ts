// The cost reproducers of the third hostile-input audit (defect 3), through the CLI: each is refused
// up front with the term that is over, or its estimate holds against what a run measures. Peak RSS
// comes from a child process running the built CLI with the V8 flags zonesim gives its own child
// (a resource bound, not a timing).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHILD_V8_FLAGS } from '../../src/parallel/out-of-memory.js';
import { cli, repoRoot } from '../helpers/cli.js';
import { chainYaml, fanYaml, queueYaml, RETRY_NEVER, TINY } from '../helpers/cost-scenarios.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const MAIN = pathToFileURL(join(repoRoot, 'dist', 'bundle', 'main.js')).href;

/** Writes `text` as `<name>.yaml` in a fresh folder; returns its path. */
function file(name: string, text: string): string {
  const path = join(tempDir('zs-cost-audit-'), `${name}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** `zonesim <args>` in a fresh node process with the CLI child's V8 flags; with that process's peak RSS (threads included). */
function cliInChild(args: string[]): { code: number; maxRssMb: number; out: string; err: string } {
  const script = `
    const { main } = await import(${JSON.stringify(MAIN)});
    const out = [], err = [];
    const code = await main(${JSON.stringify(args)}, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: process.cwd() });
    process.stdout.write(JSON.stringify({ code, maxRssMb: process.resourceUsage().maxRSS / 1024, out: out.join('').length, err: err.join('') }));
  `;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, [...CHILD_V8_FLAGS, '--input-type=module', '-e', script], { cwd: repoRoot, env, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`child failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as { code: number; maxRssMb: number; out: string; err: string };
}

/** The dry run's JSON document. */
async function dryRun(args: string[]) {
  const r = await cli([...args, '--dry-run', '--json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as { allAtOnceMb: number; withinLimits: boolean; simulations: Array<{ estimate: { requests: number; memoryMb: { total: number } } }> };
}

describe('the audit\'s cost reproducers (defect 3)', () => {
  it('E-fan24p: refuses 25 tiers of parallel fan-out, naming the requests over --max-requests', async () => {
    const r = await cli(['run', file('fan24p', fanYaml(24))]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.split('\n')[0]).toBe(
      'zonesim: refusing to run fan24p: 335,544,310 simulated requests (335,544,300 of them downstream calls of call graphs) exceed --max-requests 200,000,000',
    );
    const fan40 = await cli(['run', file('fan40p', fanYaml(40))]);
    expect(fan40.code).toBe(2);
    expect(fan40.err.split('\n')[0]).toMatch(/^zonesim: refusing to run fan40p: 21,990,232,555,510 simulated requests /);
  });

  it('E-chain1000: counts all 1,000 tiers of a chain', async () => {
    const doc = await dryRun(['run', file('chain1000', chainYaml(1000))]);
    expect(doc.simulations[0]!.estimate.requests).toBe(100_000);
    expect(doc.withinLimits).toBe(true);
  });

  it('E-retry_never: refuses 10,000,000 retries of calls that always time out, naming the attempts', async () => {
    const r = await cli(['run', file('retry_never', RETRY_NEVER)]);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toMatch(/^zonesim: refusing to run retry_never: 90,000,009,000 kernel events exceed 2,000,000,000 .*: 20,000,002,000 attempts/);
    expect(r.err).toContain('  - up to 20,000,002,000 attempts if every retry is taken (retries: 10,000,000)');
  });

  it('E-queue60k: refuses an unbounded queue that grows past what one simulation may use, naming the provider queues', async () => {
    const r = await cli(['run', file('queue60k', queueYaml('60000/s', '60s'))]);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toMatch(/^zonesim: refusing to run queue: estimated peak memory [\d,]+ MB exceeds .*; the most is provider queues, [\d,]+ MB: 10,794,000 calls waiting in overloaded unbounded queues$/);
    expect(r.err).toContain('in flight      ~180,000 requests; up to 10,794,000 calls waiting in overloaded unbounded provider queues');
  });

  it('E-queue at a smaller scale: the estimate with the queue term is within 25% of the peak a run measures', async () => {
    // 5,000/s for 20 s against 100/s: ~300,000 calls queued (the queue term is most of the estimate above the base).
    const path = file('queue', queueYaml('5000/s', '20s'));
    const estimated = (await dryRun(['run', path])).allAtOnceMb;
    const run = cliInChild(['run', path, '--json', '--out', tempDir('zs-cost-audit-')]);
    expect(run.code).toBe(0);
    expect(Math.abs(estimated / run.maxRssMb - 1)).toBeLessThan(0.25);
  }, 300_000);

  it('E-seeds20000: the estimate of 20,000 seeds of a tiny scenario, kept summaries included, is within 25% of the measured peak', async () => {
    const path = file('tiny', TINY);
    const args = ['run', path, '--seeds', '20000', '--jobs', '2'];
    const estimated = (await dryRun(args)).allAtOnceMb;
    const run = cliInChild([...args, '--json', '--out', tempDir('zs-cost-audit-')]);
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    expect(Math.abs(estimated / run.maxRssMb - 1)).toBeLessThan(0.25);
  }, 300_000);
});
