/**
 * Results that are written safely, never lost and read back (issue 37; audit 3 defects 2, 4, 5,
 * 9): planted symlinks are not followed, a run in another PID namespace sharing `--out` does not
 * remove a live run's temporary folder, `--report` with a huge failing timeline keeps its results,
 * and a sweep whose JSON is written and read in pieces comes back exactly. The PID-namespace case
 * runs the built CLI (`npm run build` first) under `unshare`.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failureEpisodes } from '../../src/report/report-narrative.js';
import { writeResults } from '../../src/cli/results.js';
import { writeNewFile } from '../../src/cli/safe-write.js';
import type { ScopeTimelineRow } from '../../src/metrics/summary.js';
import { BIN, cli, cliEnv, repoRoot } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const BASELINE = 'scenarios/dual-zone-baseline.yaml';
const SHORT = ['--set', 'duration=3s', '--set', 'warmup=1s'];

/** The only run folder under `out/<scenario>/`, and what else is there. */
function runFolders(out: string, scenario: string): string[] {
  return readdirSync(join(out, scenario)).map((f) => join(out, scenario, f));
}

/** A two-zone scenario written into `dir`: 20 requests/s for 2 s, one method of `serviceTime`, timeout 100 ms, no retries. */
function tinyScenario(dir: string, name: string, serviceTime: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
seed: 1
duration: 2s
warmup: 0s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
  zoneB: { cidr: 10.20.0.0/16 }
network:
  rtt: { same-zone: 0.2ms, zoneA<->zoneB: 3ms }
registry: { type: static }
services:
  com.example.S:
    methods:
      m: { serviceTime: ${serviceTime} }
providers:
  - { name: pa, service: com.example.S, zone: zoneA, count: 2, threads: 200 }
  - { name: pb, service: com.example.S, zone: zoneB, count: 2, threads: 200 }
consumers:
  - application: c
    zone: zoneA
    instances: 2
    rate: 20/s
    calls: { com.example.S.m: 1 }
    reference:
      com.example.S: { timeout: 100ms, retries: 0 }
`,
  );
  return file;
}

describe('symlink: planted links are not followed', () => {
  it('report writes report.html as a new file, never through links planted at the names it used or at report.html', async () => {
    const out = tempDir('zs-sym-');
    expect((await cli(['run', BASELINE, ...SHORT, '--out', out])).code).toBe(0);
    const [dir] = runFolders(out, 'dual-zone-baseline');
    const victim = join(tempDir('zs-victim-'), 'victim.txt');
    writeFileSync(victim, 'secret');
    // The temporary names zonesim used to write (`report.html.tmp-<pid>`; this process runs the command), and the file itself.
    for (let pid = process.pid - 20; pid <= process.pid + 20; pid++) symlinkSync(victim, join(dir!, `report.html.tmp-${pid}`));
    symlinkSync(victim, join(dir!, 'report.html'));
    const r = await cli(['report', dir!]);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('secret');
    expect(lstatSync(join(dir!, 'report.html')).isFile()).toBe(true);
    expect(readFileSync(join(dir!, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('sweep --shard writes its part as a new file, never through planted links', async () => {
    const out = tempDir('zs-sym-');
    const folder = join(out, 'timeout-sweep');
    const victim = join(tempDir('zs-victim-'), 'victim.txt');
    writeFileSync(victim, 'secret');
    mkdirSync(folder, { recursive: true });
    symlinkSync(victim, join(folder, `.sweep.part-1-of-2.json.tmp-${process.pid}`));
    symlinkSync(victim, join(folder, 'sweep.part-1-of-2.json'));
    const r = await cli(['sweep', 'scenarios/timeout-sweep.yaml', '--grid', 'consumers[0].consumerDefaults.retries=0,1', ...SHORT, '--shard', '1/2', '--out', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('secret');
    expect(lstatSync(join(folder, 'sweep.part-1-of-2.json')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(join(folder, 'sweep.part-1-of-2.json'), 'utf8')).zonesim).toBe('sweep-part');
  });

  it('a file is created only where nothing is, not even a dangling link', () => {
    const dir = tempDir('zs-sym-');
    symlinkSync(join(dir, 'target-that-does-not-exist'), join(dir, 'f'));
    expect(() => writeNewFile(join(dir, 'f'), 'x')).toThrow(/EEXIST/);
    expect(readdirSync(dir)).toEqual(['f']);
  });
});

// `unshare --pid` needs CAP_SYS_ADMIN (root, as CI runs); elsewhere the case cannot be set up.
const unshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
const canUnshare = unshare.status === 0;

describe('two PID namespaces sharing --out', () => {
  const title = "both keep their results: a run started in another PID namespace leaves a live run's temporary folder alone";
  it.skipIf(!canUnshare)(canUnshare ? title : `${title} (skipped: unshare --pid is not permitted here; it needs root)`, () => {
    const out = tempDir('zs-pidns-');
    let other: ReturnType<typeof spawnSync> | undefined;
    // This run is half-way through writing its summary when a run in a new PID namespace (where no
    // process has this one's pid) writes its own results under the same --out.
    const mine = writeResults(out, 'dual-zone-baseline', 'mine', {
      'summary.json': (write) => {
        write('{"half": ');
        other = spawnSync(
          'unshare',
          ['--pid', '--fork', '--mount-proc', process.execPath, BIN, 'run', BASELINE, '--set', 'duration=1s', '--set', 'warmup=0s', '--out', out],
          { cwd: repoRoot, encoding: 'utf8', env: cliEnv() },
        );
        write('"done"}\n');
      },
    });
    expect(other!.status, String(other!.stderr)).toBe(0);
    expect(readFileSync(join(mine, 'summary.json'), 'utf8')).toBe('{"half": "done"}\n');
    const folders = runFolders(out, 'dual-zone-baseline');
    expect(folders).toHaveLength(2);
    const theirs = folders.find((f) => f !== mine)!;
    expect(JSON.parse(readFileSync(join(theirs, 'summary.json'), 'utf8')).requests).toBeGreaterThan(0);
  });
});

describe('--report with buckets far finer than 1 ms keeps its results', () => {
  it('finds failure episodes in a million-bucket timeline (a call with a million arguments overflowed the stack)', () => {
    const timeline = Array.from({ length: 1_000_000 }, (_, i) => ({ timeout: i >= 400_000 && i < 400_010 ? 5 : 0 }) as unknown as ScopeTimelineRow);
    expect(failureEpisodes(timeline, 'timeout')).toEqual([{ first: 400_000, last: 400_009, requests: 50 }]);
  });

  // The audit's reproducer (RP-real-failing-0.3ms) at a smaller scale: every request fails, 150,000
  // buckets of 0.01 ms. zonesim used to end with "Maximum call stack size exceeded" and nothing written.
  it('a run where every request fails, 150,000 buckets: results, table and report', async () => {
    const dir = tempDir('zs-fail-');
    const file = tinyScenario(dir, 'failing', '{ dist: constant, value: 10s }');
    const out = join(dir, 'out');
    const r = await cli(['run', file, '--set', 'duration=1.5s', '--bucket', '0.01ms', '--report', '--jobs', '1', '--out', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/results: /);
    const [folder] = runFolders(out, 'failing');
    expect(readdirSync(folder!).sort()).toEqual(['report.html', 'scenario.yaml', 'summary.csv', 'summary.json', 'timeline.csv']);
    const summary = JSON.parse(readFileSync(join(folder!, 'summary.json'), 'utf8'));
    expect(summary.timeline).toHaveLength(150_000);
    expect(summary.ok).toBe(0);
    expect(readFileSync(join(folder!, 'report.html'), 'utf8')).toMatch(/Timeouts (started|were there)/);
  }, 60_000);
});

describe('a sweep larger than one JSON string is written and read back', () => {
  // 32 cells of about 2.2 MB each: sweep.json (about 70 MB) is written in pieces (above 32 MB) and
  // read back in pieces (above 64 MB); the audit's 300-cell sweep (660 MB) works the same way.
  it('writes sweep.json exactly as JSON.stringify would, prints the same with --json, and report reads it', async () => {
    const dir = tempDir('zs-big-');
    const file = tinyScenario(dir, 'tiny', '{ dist: lognormal, p50: 5ms, p99: 50ms }');
    const out = join(dir, 'out');
    const r = await cli(['sweep', file, '--set', 'bucket=1ms', '--grid', 'seed=0..31', '--jobs', '1', '--json', '--out', out]);
    expect(r.code).toBe(0);
    const [folder] = runFolders(out, 'tiny');
    const text = readFileSync(join(folder!, 'sweep.json'), 'utf8');
    expect(text.length).toBeGreaterThan(64 * 1024 * 1024);
    expect(r.out).toBe(text);
    const doc = JSON.parse(text);
    expect(doc.cells).toHaveLength(32);
    expect(JSON.stringify(doc, null, 2) + '\n').toBe(text);
    const report = await cli(['report', folder!]);
    expect(report.err).toBe('');
    expect(report.code).toBe(0);
    expect(readFileSync(join(folder!, 'report.html'), 'utf8')).toContain('32 cells');
  }, 120_000);
});
