// Data files within the documented 100 MB limit must fit in memory: a 10 MB samples CSV (5.2
// million one-digit values, the audit's D-big10) took 3.0 GB when csv-parse kept a raw text and an
// info object per row. The built CLI runs in a child process that reports its own peak RSS: a
// resource bound, not a timing.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const MAIN = pathToFileURL(join(root, 'dist', 'bundle', 'main.js')).href;

const SCENARIO = `name: big-csv
duration: 10s
warmup: 1s
zones:
  zoneA: { cidr: 10.10.0.0/16 }
network:
  rtt: { same-zone: 0ms }          # latency = service time
services:
  com.example.S:
    methods:
      m: { serviceTime: { dist: samples, file: rt.csv } }
providers:
  - { service: com.example.S, zone: zoneA, count: 2, threads: 200 }
consumers:
  - application: c
    zone: zoneA
    instances: 2
    rate: 200/s
    calls: { com.example.S.m: 1 }
    reference:
      com.example.S: { timeout: 1000ms, retries: 0 }
`;

/** `zonesim <args>` in a fresh node process, as bin/zonesim.js runs it; with that process's peak RSS. */
function cliInChild(args: string[], cwd: string): { code: number; maxRssMb: number; out: string; err: string } {
  const script = `
    const { main } = await import(${JSON.stringify(MAIN)});
    const out = [], err = [];
    const code = await main(${JSON.stringify(args)}, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: process.cwd() });
    process.stdout.write(JSON.stringify({ code, maxRssMb: process.resourceUsage().maxRSS / 1024, out: out.join(''), err: err.join('') }));
  `;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`child failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as { code: number; maxRssMb: number; out: string; err: string };
}

describe('a 10 MB samples CSV', () => {
  it('runs in under 300 MB (was 3.0 GB), and the run draws from its values', () => {
    const dir = tempDir('zs-big-csv-');
    // 5.2 million values 1..9 in equal numbers, one per line: 10.4 MB.
    const n = 5_200_000;
    const bytes = Buffer.alloc(2 * n);
    for (let i = 0; i < n; i++) {
      bytes[2 * i] = 0x31 + ((i * 7) % 9);
      bytes[2 * i + 1] = 0x0a;
    }
    writeFileSync(join(dir, 'rt.csv'), bytes);
    writeFileSync(join(dir, 'big.yaml'), SCENARIO);

    const r = cliInChild(['run', 'big.yaml', '--json', '--out', join(dir, 'results')], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.maxRssMb).toBeLessThan(300);

    // Latency is the drawn service time: within the file's range, with the mean of 1..9 (5) up to
    // 4 standard errors (the values' standard deviation is sqrt((9^2 - 1) / 12)).
    const summary = JSON.parse(r.out) as { requests: number; outcomes: { ok: number }; latencyMs: { mean: number; max: number } };
    expect(summary.outcomes.ok).toBe(summary.requests);
    expect(summary.latencyMs.max).toBeLessThanOrEqual(9);
    const se = Math.sqrt((81 - 1) / 12 / summary.requests);
    expect(Math.abs(summary.latencyMs.mean - 5)).toBeLessThan(4 * se);
  }, 300_000);
});
