import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { COST_MODEL } from '../../src/scenario/estimate.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BASELINE = 'scenarios/dual-zone-baseline.yaml';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), cwd: root }, out, err };
}

/** Runs the CLI in this process; returns its exit code, output, and how much the heap grew meanwhile. */
async function cli(args: string[]) {
  const c = capture();
  const before = process.memoryUsage().heapUsed;
  const code = await main(args, c.io);
  const grewMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  return { code, out: c.out.join(''), err: c.err.join(''), grewMb };
}

/** A refusal: exit 2, the reason on the first stderr line, the estimate below it, the --force hint, nothing on stdout, little memory. */
function expectRefused(r: Awaited<ReturnType<typeof cli>>, reason: RegExp) {
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  const lines = r.err.split('\n');
  expect(lines[0]).toMatch(/^zonesim: refusing to run /);
  expect(r.err).toMatch(reason);
  expect(r.err).toContain('peak memory    ~');
  expect(r.err).toContain('hint: --force runs it anyway; --dry-run prints the estimate without running anything');
  expect(r.grewMb).toBeLessThan(200);
}

describe('the cost estimate before a run (issue 10: resource limits)', () => {
  it('run --dry-run validates, prints the estimate and runs nothing', async () => {
    const out = tempDir('zs-cost-');
    const r = await cli(['run', BASELINE, '--dry-run', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('run dual-zone-baseline: cost estimate of 1 simulation');
    expect(r.out).toContain('requests       150,000 (edge 150,000, call graphs 0)');
    expect(r.out).toContain('timeline 55 buckets of 1 s');
    expect(r.out).toContain('within the limits: it would run');
    expect(readdirSync(out)).toEqual([]);
  });

  it.each(readdirSync(`${root}/bench`).filter((f) => f.endsWith('.yaml')))('the benchmark scenario bench/%s is valid and within the limits', async (file) => {
    const r = await cli(['run', `bench/${file}`, '--dry-run', '--out', tempDir('zs-cost-')]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('within the limits: it would run');
  });

  it('run --dry-run --json prints one JSON document with the estimate and the limits', async () => {
    const r = await cli(['run', BASELINE, '--dry-run', '--json', '--seeds', '3']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ command: 'run', dryRun: true, withinLimits: true, problems: [] });
    expect(doc.limits.maxRequests).toBe(2e8);
    expect(doc.simulations).toHaveLength(1);
    expect(doc.simulations[0]).toMatchObject({ label: 'seeds 1..3', scenario: 'dual-zone-baseline', count: 3 });
    expect(doc.simulations[0].estimate).toMatchObject({ requests: 150000, buckets: 55, consumerInstances: 14, providersAtStart: 25 });
    expect(doc.simulations[0].estimate.memoryMb.total).toBeGreaterThan(50);
  });

  it('--dry-run prints a wall-time estimate, with its range, that grows with the scenario’s traffic', async () => {
    const dry = async (sets: string[]) => {
      const r = await cli(['run', BASELINE, '--dry-run', '--json', ...sets.flatMap((s) => ['--set', s])]);
      expect(r.code).toBe(0);
      return JSON.parse(r.out) as { wallSeconds: { seconds: number; low: number; high: number }; simulations: Array<{ simulationSeconds: number }> };
    };
    const [base, busier, longer] = [await dry([]), await dry(['consumers[0].rate=10000/s']), await dry(['duration=10m'])];
    expect(base.wallSeconds.low).toBeLessThan(base.wallSeconds.seconds);
    expect(base.wallSeconds.high).toBeGreaterThan(base.wallSeconds.seconds);
    for (const more of [busier, longer]) {
      expect(more.simulations[0]!.simulationSeconds).toBeGreaterThan(base.simulations[0]!.simulationSeconds);
      expect(more.wallSeconds.seconds).toBeGreaterThan(base.wallSeconds.seconds);
    }
    const text = (await cli(['run', BASELINE, '--dry-run'])).out;
    expect(text).toMatch(/^  time           ~\d+\.\d s to simulate on one core$/m);
    expect(text).toMatch(/^wall time     ~\d+\.\d s \(likely \d+\.\d s to \d+\.\d s\), start included/m);
  });

  it('a scenario error still comes first in a dry run (file:line:col, exit 2)', async () => {
    const r = await cli(['run', BASELINE, '--dry-run', '--set', 'duration=10x']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('duration: expected a duration');
  });

  it('refuses duration=1e300 (was "Invalid typed array length") at the field: durations are at most 8760h', async () => {
    const r = await cli(['run', BASELINE, '--set', 'duration=1e300']);
    expect(r.err).toMatch(/dual-zone-baseline\.yaml:\d+:\d+: duration: expected at most 8760h \(365 days of simulated time\), found 1e\+300 \(from --set duration=1e300\)/);
    expect(r.code).toBe(2);
  });

  it('refuses --bucket 0.001ms (was "Invalid string length") naming the buckets', async () => {
    expectRefused(await cli(['run', BASELINE, '--bucket', '0.001ms']), /the timeline would have 55,000,000 buckets \(bucket 0\.001 ms over 55,000 ms measured\); at most 1,000,000: use a wider bucket/);
  });

  it('refuses bucket: 0.001ms in the file (was a 4.5 GB abort)', async () => {
    expectRefused(await cli(['run', BASELINE, '--set', 'bucket=0.001ms']), /55,000,000 buckets/);
  });

  it('refuses rate: 1e9/s (was minutes at 4 GB)', async () => {
    expectRefused(await cli(['run', BASELINE, '--set', 'consumers[0].rate=1000000000']), /60,000,030,000 simulated requests exceed --max-requests 200,000,000/);
  });

  it('refuses duration: 1000h', async () => {
    expectRefused(await cli(['run', BASELINE, '--set', 'duration=1000h']), /9,000,000,000 simulated requests exceed --max-requests/);
  });

  it('refuses 10^7 consumer instances in a /8 (was a V8 abort after 30 s at 4.4 GB)', async () => {
    expectRefused(
      await cli(['run', BASELINE, '--set', 'zones.zoneA.cidr=100.0.0.0/8', '--set', 'consumers[0].instances=10000000', '--set', 'consumers[0].cohorts=off']),
      /estimated peak memory [\d,]+ MB exceeds the [\d,]+ MB one simulation may use \(the V8 heap limit\)/,
    );
  });

  it('refuses 10^6 providers (ran past 2 minutes)', async () => {
    expectRefused(await cli(['run', 'bench/many-providers.yaml', '--set', 'providers[0].count=1000000']), /estimated peak memory/);
  });

  it('refuses a scale fault to 10^7 providers', async () => {
    const r = await cli([
      'run', BASELINE,
      '--set', 'zones.zoneA.cidr=100.0.0.0/8',
      '--set', 'registry.type=nacos',
      '--set', 'faults=[{at: 2s, scale: {group: users-a, count: 10000000}}]',
    ]);
    expectRefused(r, /estimated peak memory/);
    expect(r.err).toMatch(/10,000,005 provider \(25 at start, 9,999,980 started by faults\)/);
  });

  it('--max-requests lowers the limit, and --force runs anyway with a warning on stderr', async () => {
    const short = ['--set', 'duration=2s', '--set', 'warmup=1s'];
    expectRefused(await cli(['run', BASELINE, ...short, '--max-requests', '1000']), /5,000 simulated requests exceed --max-requests 1,000/);
    const out = tempDir('zs-cost-');
    const forced = await cli(['run', BASELINE, ...short, '--max-requests', '1000', '--force', '--json', '--out', out]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.out).scenario).toBe('dual-zone-baseline');
    expect(forced.err).toContain('zonesim: warning: running despite the estimate (--force): 5,000 simulated requests exceed --max-requests 1,000');
  });

  it('rejects a --max-requests that is not a positive number', async () => {
    for (const bad of ['abc', '0', '-5']) {
      const r = await cli(['run', BASELINE, '--dry-run', '--max-requests', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.err, bad).toMatch(/^zonesim: --max-requests: expected a positive number such as 2e8, found /);
    }
  });

  it('a dry run of a refused scenario exits 0 and says it would be refused', async () => {
    const r = await cli(['run', BASELINE, '--dry-run', '--set', 'duration=1000h']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('it would be refused (--force runs it anyway):');
    expect(r.out).toContain('  - 9,000,000,000 simulated requests exceed --max-requests 200,000,000');
  });

  it('compare estimates each strategy and refuses per strategy', async () => {
    const dry = await cli(['compare', 'scenarios/zone-router-fallback.yaml', '--dry-run', '--seeds', '2', '--json']);
    expect(dry.code).toBe(0);
    const doc = JSON.parse(dry.out);
    expect(doc.command).toBe('compare');
    expect(doc.simulations.map((s: { label: string; count: number }) => [s.label, s.count])).toEqual([
      ['strategy fallback', 2],
      ['strategy strict', 2],
    ]);
    const r = await cli(['compare', 'scenarios/zone-router-fallback.yaml', '--set', 'duration=1000h', '--out', tempDir('zs-cost-')]);
    expectRefused(r, /strategy fallback: [\d,]+ simulated requests exceed --max-requests/);
  });

  it('recommend estimates the run as written, the recommended one and the alternatives, and refuses too', async () => {
    const dry = await cli(['recommend', BASELINE, '--dry-run']);
    expect(dry.code).toBe(0);
    // As written, recommended, and the three alternatives tried when a recommendation is rejected.
    expect(dry.out).toContain('recommend dual-zone-baseline: cost estimate of 5 simulations');
    expect(dry.out).toContain('as written:');
    expect(dry.out).toContain('recommended:');
    expect(dry.out).toContain('alternatives (if a recommendation is rejected) (3 simulations):');
    expectRefused(await cli(['recommend', BASELINE, '--set', 'duration=1000h']), /as written: [\d,]+ simulated requests exceed/);
  });

  it('counts the threads the pool will start, and what each holds', async () => {
    const dry = async (file: string, seeds: number, jobs: number) =>
      JSON.parse((await cli(['run', file, '--dry-run', '--json', '--seeds', String(seeds), '--jobs', String(jobs)])).out);
    const perWorker = (largest: number) => (largest - COST_MODEL.baseMb) * COST_MODEL.workerScale + COST_MODEL.workerBaseMb;
    type Doc = { limits: { threads: number }; simulations: Array<{ count: number; estimate: { summaryBytes: number; memoryMb: { total: number; base: number } } }> };
    // The summaries kept: each simulation's but the largest one's.
    const summaries = (doc: Doc) => ((doc.simulations[0]!.count - 1) * doc.simulations[0]!.estimate.summaryBytes) / 2 ** 20;
    // A thread running simulations in turn is lifted toward the young generation's maximum, in proportion to how many it runs.
    const largestOf = (doc: Doc) => {
      const { count, estimate } = doc.simulations[0]!;
      const inTurn = Math.min(1, count / doc.limits.threads / COST_MODEL.simulationsPerThreadAtMaxYoung);
      return estimate.memoryMb.total + inTurn * Math.max(0, COST_MODEL.baseMb + COST_MODEL.youngGenerationMaxMb - estimate.memoryMb.base);
    };

    const one = await dry(BASELINE, 3, 1);
    expect(one.limits.threads).toBe(1);
    expect(largestOf(one)).toBeGreaterThan(one.simulations[0].estimate.memoryMb.total);
    expect(one.allAtOnceMb).toBeCloseTo(largestOf(one) + summaries(one), 6);
    // Three threads: this one simulating beside two workers, each with its own isolate and heap slack.
    const three = await dry(BASELINE, 3, 3);
    expect(three.limits.threads).toBe(3);
    expect(three.allAtOnceMb).toBeCloseTo(largestOf(three) + 2 * perWorker(largestOf(three)) + summaries(three), 6);
    // --jobs beyond the simulations adds nothing: no thread starts for it (J-jobs-1000-dry).
    const many = await dry(BASELINE, 3, 1000);
    expect(many.limits.threads).toBe(3);
    expect(many.allAtOnceMb).toBe(three.allAtOnceMb);

    // With plugins every simulation runs on a worker and this thread only watches, even with --jobs 1.
    const plugin = await dry('examples/plugin-scenario.yaml', 2, 1);
    expect(plugin.limits.threads).toBe(1);
    expect(plugin.allAtOnceMb).toBeCloseTo(COST_MODEL.baseMb + perWorker(largestOf(plugin)) + summaries(plugin), 6);
  });

  it('says which option to lower when all at once does not fit in RAM: --seeds for many summaries, --jobs for many threads', async () => {
    // E-seeds1e9-dry: the summaries kept, not the threads, were the cause.
    const seeds = await cli(['run', BASELINE, '--dry-run', '--seeds', '1000000000']);
    expect(seeds.out).toMatch(/ {2}- 1,000,000,000 simulations need ~[\d,]+ MB \(~[\d,]+ MB for the summaries kept until the last one ends\), more than the [\d,]+ MB this machine allows \(90% of [\d,]+ MB RAM\); use fewer --seeds\n/);
    expect(seeds.out).not.toContain('--jobs');
    const compare = await cli(['compare', BASELINE, '--dry-run', '--seeds', '100000000']);
    expect(compare.out).toContain('use fewer --seeds or --strategies, or split the runs with --shard');
    // 1,024 simulations of a large deployment (~0.2 GB each) on 1,024 threads: ~200 GB at once; one at a time fits.
    const jobs = await cli(['run', 'bench/large-deployment.yaml', '--dry-run', '--json', '--seeds', '1024', '--jobs', '1024']);
    const doc = JSON.parse(jobs.out);
    expect(doc.limits.threads).toBe(1024);
    expect(doc.problems).toEqual([expect.stringMatching(/^1024 simulations at once need ~[\d,]+ MB, more than the [\d,]+ MB this machine allows .*; use fewer --jobs$/)]);
  });

  it('check refuses to build worlds that do not fit in memory, unless --force', async () => {
    const r = await cli(['check', BASELINE, '--set', 'zones.zoneA.cidr=100.0.0.0/8', '--set', 'consumers[0].instances=10000000', '--set', 'consumers[0].cohorts=off']);
    expectRefused(r, /estimated peak memory/);
    // Requests do not count for check (it sends none).
    const ok = await cli(['check', BASELINE, '--set', 'duration=1000h', '--set', 'bucket=1h']);
    expect(ok.code).toBe(0);
  });
});
