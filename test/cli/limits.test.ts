// The built CLI (`node bin/zonesim.js`, as users run it) against inputs that used to exhaust the
// machine: each is refused quickly in bounded memory. The child runs with a small V8 heap, so
// reading unbounded input or building what the estimate refuses would end in an out-of-memory
// exit 1 instead of the expected exit 2; the timeouts are only a safety net.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BIN = join(root, 'bin', 'zonesim.js');
const BASELINE = 'scenarios/dual-zone-baseline.yaml';
const SAFETY_MS = 120_000;

function env(): NodeJS.ProcessEnv {
  const e = { ...process.env };
  delete e.ZONESIM_SUPERVISED;
  delete e.ZONESIM_NO_SUPERVISOR;
  delete e.NODE_OPTIONS;
  return e;
}

/** Runs the built CLI with a `heapMb` V8 heap; returns exit code and output. */
function zonesim(args: string[], heapMb = 96) {
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, BIN, ...args], { cwd: root, env: env(), encoding: 'utf8', timeout: SAFETY_MS });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

async function inProcess(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

describe('scenario files that are not text, or too large, are refused before parsing', () => {
  it('zonesim run /dev/zero exits 2 at once (was 16.8 GB, then std::bad_alloc)', () => {
    const r = zonesim(['run', '/dev/zero']);
    expect(r.err).toBe('/dev/zero: cannot read the scenario: a character device, not a file; expected a text file\n');
    expect(r.code).toBe(2);
  });

  it('a FIFO is refused without waiting for a writer', () => {
    const fifo = join(tempDir('zs-limits-'), 'scenario.yaml');
    execFileSync('mkfifo', [fifo]);
    const r = zonesim(['run', fifo]);
    expect(r.err).toBe(`${fifo}: cannot read the scenario: a FIFO (named pipe), not a file; expected a text file\n`);
    expect(r.code).toBe(2);
  });

  it('a directory is refused', async () => {
    const dir = join(tempDir('zs-limits-'), 'scenarios.yaml');
    mkdirSync(dir);
    const r = await inProcess(['run', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${dir}: cannot read the scenario: a directory, not a file; expected a text file\n`);
  });

  it('a file above 10 MB is refused before it is parsed', async () => {
    const f = join(tempDir('zs-limits-'), 'big.yaml');
    writeFileSync(f, `# ${'x'.repeat(11 * 1024 * 1024)}\n`);
    const r = await inProcess(['check', f]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${f}: cannot read the scenario: the file is 11.0 MB; at most 10.0 MB is read\n`);
  });

  it('a file with NUL bytes is refused as not text', async () => {
    const f = join(tempDir('zs-limits-'), 'bin.yaml');
    writeFileSync(f, Buffer.concat([Buffer.from('name: x\n'), Buffer.alloc(64)]));
    const r = await inProcess(['run', f, '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${f}: cannot read the scenario: not a text file (a NUL byte at offset 8)\n`);
  });

  it('files named on the command line (route --providers-file) are bounded the same way', () => {
    const r = zonesim(['route', '--consumer', 'consumer://10.0.0.1/S', '--providers-file', '/dev/zero']);
    expect(r.err).toBe('zonesim: cannot read file "/dev/zero": a character device, not a file; expected a text file\n');
    expect(r.code).toBe(2);
  });
});

describe('provider lists are read up to 100 MB: a registry answer for 10^5 providers is over 10 MB', () => {
  // 5,000 URLs of ~2.6 KB each (a long parameter): 12.5 MB, over the 10 MB of other text inputs.
  function bigList(dir: string): string {
    const pad = 'p'.repeat(2_600);
    const lines = Array.from({ length: 5_000 }, (_, i) => `dubbo://10.1.${i >> 8}.${i & 255}:20880/com.example.S?interface=com.example.S&pad=${pad}`);
    const f = join(dir, 'providers.txt');
    writeFileSync(f, lines.join('\n') + '\n');
    return f;
  }

  it('route --providers-file and import providers take a 12.5 MB list', async () => {
    const f = bigList(tempDir('zs-limits-'));
    const route = await inProcess(['route', '--consumer', 'consumer://10.0.0.1/com.example.S?interface=com.example.S', '--providers-file', f, '--json']);
    expect(route.err).toBe('');
    expect(route.code).toBe(0);
    expect(JSON.parse(route.out).providers).toHaveLength(5_000);
    const imported = await inProcess(['import', 'providers', f, '--json']);
    expect(imported.err).toBe('');
    expect(imported.code).toBe(0);
  });

  it('a provider list above 100 MB is refused from its size, unread', async () => {
    const f = join(tempDir('zs-limits-'), 'huge.txt');
    writeFileSync(f, '');
    truncateSync(f, 101 * 1024 * 1024);
    for (const args of [['route', '--consumer', 'consumer://10.0.0.1/S', '--providers-file', f], ['import', 'providers', f]]) {
      const r = await inProcess(args);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`zonesim: cannot read file "${f}": the file is 101.0 MB; at most 100.0 MB is read\n`);
    }
  });
});

describe('files zonesim reads back (grid files, sweep parts, results) are bounded the same way', () => {
  it('sweep --grid-file /dev/zero exits 2 at once', async () => {
    const r = await inProcess(['sweep', BASELINE, '--grid-file', '/dev/zero', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('zonesim: --grid-file: cannot read "/dev/zero": a character device, not a file; expected a text file\n');
  });

  it('merge of a part that is a FIFO exits 2 without waiting for a writer', () => {
    const fifo = join(tempDir('zs-limits-'), 'sweep.part-1-of-2.json');
    execFileSync('mkfifo', [fifo]);
    const r = zonesim(['merge', fifo]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${fifo}: cannot read the file (a FIFO (named pipe), not a file; expected a text file)\n`);
  });

  it('report on a results folder whose summary.json is a FIFO exits 2 without waiting for a writer', () => {
    const dir = tempDir('zs-limits-');
    execFileSync('mkfifo', [join(dir, 'summary.json')]);
    const r = zonesim(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/summary\.json.*cannot read the file \(a FIFO \(named pipe\), not a file; expected a text file\)/);
  });
});

describe('a fault timeline that would run out of addresses is refused before the run', () => {
  it('a scale-out past the zone CIDR exits 2 with the fault named (was "zonesim: CIDR exhausted", exit 1, mid-run)', async () => {
    const f = join(tempDir('zs-limits-'), 'scale.yaml');
    writeFileSync(
      f,
      `zones:\n  zoneA: { cidr: 10.10.0.0/28 }\nservices:\n  S: { methods: { m: { serviceTime: 20ms } } }\n` +
        `providers:\n  - { service: S, zone: zoneA, count: 4 }\nconsumers:\n  - { zone: zoneA, rate: 10/s, calls: { S.m: 1 } }\n` +
        `faults:\n  - { at: 10s, scale: { zone: zoneA, service: S, count: 20 } }\n`,
    );
    const r = await inProcess(['run', f, '--out', tempDir('zs-limits-')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:10:57: faults\\[0\\]\\.scale\\.count: this fault starts 16 provider instances in zoneA: 21 addresses over the run`));
    expect(r.out).toBe('');
  });
});

describe('select --count is bounded', () => {
  it('refuses --count 1e9 with exit 2 (was a 5.9 GB abort)', () => {
    const r = zonesim(['select', '--loadbalance', 'random', '--provider', 'dubbo://10.0.0.1:20880/S', '--count', '1e9']);
    expect(r.err).toBe(
      'zonesim: --count: at most 10,000,000 picks, found 1000000000\nhint: the shares settle long before; run several times with other --seed values for more\n',
    );
    expect(r.code).toBe(2);
  });
});

describe('out of memory ends with one zonesim line and exit 1', () => {
  it('a forced run that exceeds the heap ends with one line, not V8\'s dump', () => {
    const out = tempDir('zs-limits-');
    const r = zonesim(['run', BASELINE, '--force', '--set', 'consumers[0].instances=60000', '--set', 'consumers[0].cohorts=off', '--jobs', '1', '--out', out], 64);
    expect(r.code).toBe(1);
    expect(r.err).not.toContain('Last few GCs');
    expect(r.err).not.toContain('FATAL ERROR');
    expect(r.err).not.toContain('Native stack trace');
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^zonesim: warning: running despite the estimate \(--force\): estimated peak memory/);
    expect(lines[1]).toMatch(/^zonesim: out of memory \(.*heap out of memory\): the run needed more than the \d+ MB this process may use; see what it needs with --dry-run/);
    expect(r.out).toBe('');
  });

  it('a worker thread that reaches its heap limit ends the same way (was an unhandled pool error with a stack)', () => {
    const out = tempDir('zs-limits-');
    // A plugin scenario runs every simulation on a worker (with --jobs 2 this thread would take one otherwise).
    const r = zonesim(
      [
        'run', 'examples/plugin-scenario.yaml', '--force', '--set', 'consumers[0].instances=60000', '--set', 'consumers[0].cohorts=off',
        '--set', 'zones.rack1.cidr=10.1.0.0/16', '--set', 'zones.rack2.cidr=10.2.0.0/16', '--seeds', '2', '--jobs', '2', '--out', out,
      ],
      64,
    );
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/ERR_WORKER_OUT_OF_MEMORY|node:events|\n\s+at /);
    expect(r.err.trimEnd().split('\n').at(-1)).toMatch(/^zonesim: out of memory: a simulation worker thread reached its heap limit \(\d+ MB\)/);
  });

  it('the supervisor passes ordinary output and exit codes through unchanged', () => {
    const version = zonesim(['--version']);
    expect(version.code).toBe(0);
    expect(version.out).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(version.err).toBe('');
    const missing = zonesim(['run', 'no-such-file.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(`${join(root, 'no-such-file.yaml')}: cannot read the scenario: no such file\n`);
  });

  it('SIGTERM to zonesim ends the simulation it supervises too', async () => {
    const out = tempDir('zs-limits-');
    const parent = spawn(process.execPath, [BIN, 'run', 'scenarios/mmc-validation.yaml', '--jobs', '1', '--out', out], { cwd: root, env: env(), stdio: 'ignore' });
    const children = () => {
      const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(parent.pid)], { encoding: 'utf8' });
      return ps.stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
    };
    let kids: number[] = [];
    for (let i = 0; i < 600 && kids.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      kids = children();
    }
    expect(kids).toHaveLength(1);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => parent.on('exit', (_code, signal) => resolve(signal)));
    parent.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    const alive = () => {
      try {
        process.kill(kids[0]!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });
});

describe('the heap one simulation may use, as the CLI\'s child process has it', () => {
  // The limit `--dry-run` prints for one simulation, from the child's own `heap_size_limit`.
  const perSimulationMb = (nodeOptions?: string): number => {
    const r = spawnSync(process.execPath, [BIN, 'run', BASELINE, '--dry-run'], {
      cwd: root,
      env: nodeOptions === undefined ? env() : { ...env(), NODE_OPTIONS: nodeOptions },
      encoding: 'utf8',
      timeout: SAFETY_MS,
    });
    expect(r.status).toBe(0);
    const m = /([\d,]+) MB per simulation \(V8 heap limit\)/.exec(r.stdout + r.stderr);
    expect(m).not.toBeNull();
    return Number(m![1]!.replaceAll(',', ''));
  };

  it('is half the machine\'s memory where V8\'s own limit is less, else V8\'s', () => {
    const halfMb = Math.floor(totalmem() / (1024 * 1024) / 2);
    const v8DefaultMb = Number(execFileSync(process.execPath, ['-p', 'Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20)'], { env: env(), encoding: 'utf8' }));
    const limit = perSimulationMb();
    // heap_size_limit is the old generation's limit plus the young generation's (three 32 MB semi-spaces at most).
    const expected = halfMb > v8DefaultMb ? halfMb : v8DefaultMb;
    expect(limit - expected).toBeGreaterThanOrEqual(halfMb > v8DefaultMb ? 0 : -100);
    expect(limit - expected).toBeLessThanOrEqual(200);
  });

  it('is the user\'s where NODE_OPTIONS sets one', () => {
    const limit = perSimulationMb('--max-old-space-size=3000');
    expect(limit - 3_000).toBeGreaterThanOrEqual(0);
    expect(limit - 3_000).toBeLessThanOrEqual(200);
  });
});
