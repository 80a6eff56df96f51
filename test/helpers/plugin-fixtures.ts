/**
 * Small scenarios and plugin modules for the plugin tests: a folder with `scenario.yaml` and the
 * given plugin files, and the CLI run in this process (`main`) or as users run it (`bin/zonesim.js`
 * in a child process, with a hard time limit so that a hang fails the test instead of stalling it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const BIN = join(ROOT, 'bin', 'zonesim.js');

/** Two providers, one consumer group; `reference` and `extra` (top-level YAML) are spliced in. */
export function scenarioYaml(opts: { reference?: string; extra?: string; calls?: string } = {}): string {
  return `name: plugin-test
seed: 1
duration: 3s
warmup: 0s
zones:
  zoneA: { cidr: 10.0.1.0/24 }
services:
  com.example.S:
    methods:
      m: { serviceTime: 5ms }
  com.example.Other:
    methods:
      m: { serviceTime: 5ms }
providers:
  - { name: s-a, service: com.example.S, zone: zoneA, count: 2 }
consumers:
  - application: web
    zone: zoneA
    instances: 1
    rate: 50/s
    calls: { ${opts.calls ?? 'com.example.S.m: 1'} }
    reference:
      com.example.S:
${(opts.reference ?? 'retries: 0').split('\n').map((l) => `        ${l}`).join('\n')}
${opts.extra ?? ''}
`;
}

/** Writes `scenario.yaml` and `files` (name → source) into `dir`; returns the scenario path. */
export function writeFixture(dir: string, yaml: string, files: Record<string, string> = {}): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const path = join(dir, 'scenario.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** The CLI in this process (simulations still run on the built worker). */
export async function cli(args: string[], cwd = ROOT): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

/** The built CLI as users run it, killed after `limitMs` (then `signal` is set and the test fails on it). */
export function bin(args: string[], cwd: string, limitMs = 60_000): { code: number | null; signal: NodeJS.Signals | null; out: string; err: string } {
  const env = { ...process.env };
  delete env.ZONESIM_SUPERVISED;
  delete env.ZONESIM_NO_SUPERVISOR;
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: limitMs, killSignal: 'SIGKILL' });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

/** A load balancer that loops forever on its first pick among several. */
export const LOOPING_LB = `export function createLoadBalance() {
  return { select(invokers) { if (invokers.length > 1) for (;;) {} return invokers[0]; } };
}
`;

/** A module that fails as soon as it is imported. */
export const THROWS_ON_IMPORT = `throw new Error('this plugin must not be imported');
`;

/** A router plugin that keeps the first provider only. */
export const FIRST_ONLY_ROUTER = `export function createRouter() {
  return {
    name: 'first-only',
    order: 200,
    route(invokers) {
      const kept = invokers.slice(0, 1);
      return { invokers: kept, trace: { router: 'first-only', before: invokers.length, after: kept.length } };
    },
  };
}
`;
