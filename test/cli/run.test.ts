import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

function capture(cwd = root) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), cwd }, out, err };
}

const SHORT = ['--set', 'duration=8s', '--set', 'warmup=1s'];

describe('zonesim run', () => {
  it('prints exactly one JSON document with every SPEC 4.1 field when given --json', async () => {
    const tmp = tempDir('zs-');
    const c = capture();
    const code = await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--out', tmp, ...SHORT], c.io);
    expect(code).toBe(0);
    const summary = JSON.parse(c.out.join(''));
    for (const key of [
      'scenario', 'seed', 'seeds', 'version', 'simulatedMs', 'measuredFromMs', 'requests', 'ok', 'outcomes',
      'timeoutRate', 'noProviderRate', 'errorRate', 'mockRate', 'latencyMs', 'latencyAllMs', 'attempts', 'retryAmplification',
      'providerExecutions', 'duplicateExecutions', 'duplicateWrites', 'orphanedExecutions', 'crossZoneRatio',
      'registry', 'byConsumerZone', 'byService', 'byProviderGroup', 'timeline',
    ]) {
      expect(summary, key).toHaveProperty(key);
    }
    expect(Object.keys(summary.outcomes).sort()).toEqual(
      ['biz', 'blocked', 'forbidden', 'lost', 'mock', 'network', 'noProvider', 'ok', 'rejected', 'timeout'],
    );
    expect(Object.keys(summary.latencyMs).sort()).toEqual(['max', 'mean', 'p50', 'p90', 'p99', 'p999']);
    expect(Object.keys(summary.registry)).toEqual(['pushes', 'pushBytes', 'staleCalls', 'byConsumerGroup', 'byLevel']);
    expect(summary.byProviderGroup['users-a']).toMatchObject({ instances: 20 });
    expect(Object.keys(summary.timeline[0]).sort()).toEqual(
      ['biz', 'blocked', 'crossZoneRatio', 'forbidden', 'lost', 'mock', 'network', 'noProvider', 'ok', 'p99Ms', 'p99OkMs', 'pushes', 'rejected', 'requests', 'tMs', 'timeout'],
    );
  });

  it('writes summary.json, summary.csv, timeline.csv and the scenario into the results folder', async () => {
    const tmp = tempDir('zs-');
    const c = capture();
    expect(await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', tmp, ...SHORT], c.io)).toBe(0);
    const runs = readdirSync(join(tmp, 'dual-zone-baseline'));
    expect(runs).toHaveLength(1);
    const files = readdirSync(join(tmp, 'dual-zone-baseline', runs[0]!)).sort();
    expect(files).toEqual(['scenario.yaml', 'summary.csv', 'summary.json', 'timeline.csv']);
    expect(c.out.join('')).toContain(join(tmp, 'dual-zone-baseline', runs[0]!));
  });

  it('gives byte-identical summary.json for the same seed and different numbers for another seed', async () => {
    const tmp = tempDir('zs-');
    const a = capture();
    const b = capture();
    const d = capture();
    await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--seed', '7', '--out', tmp, ...SHORT], a.io);
    await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--seed', '7', '--out', tmp, ...SHORT], b.io);
    await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--seed', '8', '--out', tmp, ...SHORT], d.io);
    expect(a.out.join('')).toBe(b.out.join(''));
    const sa = JSON.parse(a.out.join(''));
    const sd = JSON.parse(d.out.join(''));
    expect(sd.seed).toBe(8);
    expect(sd.requests).not.toBe(sa.requests);
    expect(sd.latencyMs.p99).not.toBe(sa.latencyMs.p99);
  });

  it('writes into summary.json the same bytes it prints with --json', async () => {
    const tmp = tempDir('zs-');
    const c = capture();
    expect(await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--seed', '7', '--out', tmp, ...SHORT], c.io)).toBe(0);
    const stdout = c.out.join('');
    expect(JSON.parse(stdout).seed).toBe(7);
    const dir = join(tmp, 'dual-zone-baseline');
    const runs = readdirSync(dir);
    expect(runs).toHaveLength(1);
    expect(readFileSync(join(dir, runs[0]!, 'summary.json'), 'utf8')).toBe(stdout);
  });

  it('adds registry.byConsumer (one entry per consumer instance) with --per-instance, and nothing else', async () => {
    const tmp = tempDir('zs-');
    const args = ['scenarios/zone-a-down.yaml', '--json', '--out', tmp, '--set', 'duration=40s', '--set', 'warmup=5s'];
    const plain = capture();
    const asked = capture();
    expect(await main(['run', ...args], plain.io)).toBe(0);
    expect(await main(['run', ...args, '--per-instance'], asked.io)).toBe(0);
    const p = JSON.parse(plain.out.join(''));
    const a = JSON.parse(asked.out.join(''));
    expect(p.registry.byConsumer).toBeUndefined();
    // zone-a-down: web has 8 instances in zoneA and 2 in zoneB, each pushed to.
    expect(Object.keys(p.registry.byConsumerGroup)).toEqual(['web@zoneA', 'web@zoneB']);
    expect(Object.keys(a.registry.byConsumer)).toHaveLength(10);
    for (const [group, g] of Object.entries(a.registry.byConsumerGroup as Record<string, { instances: number; pushes: number }>)) {
      const mine = Object.entries(a.registry.byConsumer as Record<string, { pushes: number }>).filter(([id]) => id.startsWith(`${group}#`));
      expect(mine, group).toHaveLength(g.instances);
      expect(mine.reduce((n, [, c]) => n + c.pushes, 0), group).toBe(g.pushes);
    }
    delete a.registry.byConsumer;
    expect(a).toEqual(p);
  });

  it('aggregates several seeds with 95% confidence half-widths', async () => {
    const tmp = tempDir('zs-');
    const c = capture();
    expect(await main(['run', 'scenarios/dual-zone-baseline.yaml', '--json', '--seeds', '3', '--out', tmp, ...SHORT], c.io)).toBe(0);
    const s = JSON.parse(c.out.join(''));
    expect(s.seeds).toEqual([1, 2, 3]);
    expect(s.ci95['latencyMs.p99']).toBeGreaterThan(0);
  });
});

describe('bad input', () => {
  function badScenario(text: string) {
    const dir = tempDir('zs-bad-');
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, text);
    return file;
  }
  const base = readFileSync(join(root, 'scenarios/dual-zone-baseline.yaml'), 'utf8');

  it.each([
    ['a typo in a key', base.replace('instances: 10', 'instanses: 10'), /bad\.yaml:\d+:\d+: consumers\[0\]\.instanses: .*did you mean "instances"/],
    ['a negative count', base.replace('count: 20', 'count: -3'), /bad\.yaml:\d+:\d+: providers\[0\]\.count: /],
    ['an unknown zone', base.replace('zone: zoneB, count: 5', 'zone: zoneC, count: 5'), /bad\.yaml:\d+:\d+: providers\[1\]\.zone: .*zoneC/],
    ['a malformed duration', base.replace('duration: 60s', 'duration: 60 parsecs'), /bad\.yaml:\d+:\d+: duration: /],
  ])('exits 2 naming file, line and field for %s, without a stack trace', async (_label, text, pattern) => {
    const file = badScenario(text);
    const c = capture();
    expect(await main(['run', file], c.io)).toBe(2);
    const err = c.err.join('');
    expect(err).toMatch(pattern);
    expect(err).not.toMatch(/\n\s+at /);
    expect(c.out.join('')).toBe('');
  });

  it('exits 2 with a one-line usage error for an unknown command', async () => {
    const c = capture();
    expect(await main(['fly'], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/zonesim: /);
  });
});

describe('zonesim run: --out', () => {
  it('refuses an --out that is a file before simulating: exit 2, a clear message, nothing written', async () => {
    const tmp = tempDir('zs-');
    writeFileSync(join(tmp, 'file'), 'x');
    const c = capture();
    const started = Date.now();
    // A run of simulated hours: only a check before simulating ends this quickly.
    const code = await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', join(tmp, 'file'), '--set', 'duration=2h'], c.io);
    expect(code).toBe(2);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(c.err.join('')).toMatch(/^zonesim: --out: cannot write results under .*file \(ENOTDIR: a file is in the way/);
    expect(c.out.join('')).toBe('');
    expect(readFileSync(join(tmp, 'file'), 'utf8')).toBe('x');
  });

  it('refuses an --out whose name is too long before simulating', async () => {
    const tmp = tempDir('zs-');
    const c = capture();
    const code = await main(['run', 'scenarios/dual-zone-baseline.yaml', '--out', join(tmp, 'n'.repeat(300)), '--set', 'duration=2h'], c.io);
    expect(code).toBe(2);
    expect(c.err.join('')).toMatch(/--out: .*name too long/);
  });

  it("reads --out '' as the default results folder, not the working directory", async () => {
    const cwd = tempDir('zs-');
    const c = capture(cwd);
    const code = await main(['run', join(root, 'scenarios/dual-zone-baseline.yaml'), '--out', '', ...SHORT], c.io);
    expect(code).toBe(0);
    expect(readdirSync(cwd)).toEqual(['results']);
    expect(readdirSync(join(cwd, 'results'))).toEqual(['dual-zone-baseline']);
  });
});
