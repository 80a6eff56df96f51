/**
 * `zonesim compare` and `zonesim run` tables on real runs: `compare --seeds 3` against a hand
 * computation of each figure's mean and 95% half-width from the three seeds run one by one, the
 * `--by zone` rows, the zone-pair table of a three-zone scenario, and the `dup writes` column of a
 * scenario with a non-idempotent method. Everything runs in this thread (`--jobs 1`).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { ScopeSummary, Summary } from '../../src/metrics/summary.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...args, '--jobs', '1'], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

/** The only results folder under `out` (one scenario, one run). */
function onlyRun(out: string): string {
  const [scenario] = readdirSync(out);
  const [run] = readdirSync(join(out, scenario!));
  return join(out, scenario!, run!);
}

const THREE_ZONES = 'scenarios/three-zone-nearest-fallback.yaml';
// zoneA goes down at 30 s and leaves the lists 20-28 s later (its providers run the 3.3 default, nacos-client
// 2.x: connection ejected) plus the push lag: 65 s give each seed a share of timeouts and cross-zone traffic of its own.
const SHORT = ['--set', 'duration=65s', '--set', 'warmup=5s'];
const STRATEGIES = ['--strategies', 'fallback-all,lb-rank'];

// t(0.975) with 2 degrees of freedom, by hand: that t distribution's CDF is 1/2 + t / (2 √(2 + t²)),
// so CDF(t) = 0.975 gives t² = 2 · 0.95² / (1 - 0.95²).
const T_2_DOF = Math.sqrt((2 * 0.95 ** 2) / (1 - 0.95 ** 2));

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Half-width of the 95% interval of the mean of three values: t · s / √n, s with n - 1 in the denominator. */
function halfWidth(xs: number[]): number {
  const m = mean(xs);
  const s = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  return (T_2_DOF * s) / Math.sqrt(xs.length);
}

function figure(s: ScopeSummary, path: string): number {
  return path.split('.').reduce((v: any, k) => v[k], s) as number;
}

/** The `mean ± half-width` cell under `header` (figures are right-aligned under their header). */
function ciCell(lines: string[], headerAt: number, rowStart: string, header: string): [string, string] {
  const head = lines[headerAt]!;
  const end = head.indexOf(`  ${header}`) + 2 + header.length;
  const row = lines.slice(headerAt + 1).find((l) => l.startsWith(rowStart))!;
  const m = /(\S+) ± (\S+)$/.exec(row.slice(0, end));
  expect(m, `${rowStart} ${header}`).not.toBeNull();
  return [m![1]!, m![2]!];
}

/**
 * A printed figure agrees with an exact one to the printed precision (half a unit of its last
 * digit), plus `relative` of the exact value, plus `rounded`: what the figure it is printed from
 * was already rounded by (the JSON's 6 decimals of a ratio, shown as a percent, can round twice).
 */
function expectPrinted(text: string, exact: number, what: string, relative = 0, rounded = 0): void {
  const decimals = text.split('.')[1]?.length ?? 0;
  expect(Math.abs(Number(text) - exact), `${what}: ${text} vs ${exact}`).toBeLessThanOrEqual(0.5 * 10 ** -decimals + relative * Math.abs(exact) + rounded + 1e-9);
}

// The product's t table holds 4 decimals: 4.3027 for 2 degrees of freedom, 1.1e-5 above the exact
// quantile, so a half-width may be off by that share (and by the rounding of the figures).
const T_TABLE_SHARE = 2e-5;

describe('compare --seeds 3', () => {
  it('gives each strategy the mean and the Student-t 95% half-width of the three seeds, in the table and the JSON', async () => {
    const out = tempDir('zs-cmp-');
    const r = await cli(['compare', THREE_ZONES, ...STRATEGIES, '--seeds', '3', '--by', 'zone', '--out', out, ...SHORT]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(onlyRun(out), 'compare.json'), 'utf8')) as { byStrategy: Record<string, Summary> };
    // The same comparison one seed at a time.
    const perSeed: Array<Record<string, Summary>> = [];
    for (const seed of [1, 2, 3]) {
      const one = await cli(['compare', THREE_ZONES, ...STRATEGIES, '--seed', String(seed), '--json', '--out', tempDir('zs-seed-'), ...SHORT]);
      expect(one.code).toBe(0);
      perSeed.push(JSON.parse(one.out).byStrategy);
    }
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('mean ± half-width of the 95% confidence interval (Student t) over 3 seeds (1, 2, 3)');
    const mainHeader = lines.findIndex((l) => l.startsWith('strategy '));
    const zoneHeader = lines.indexOf('by consumer zone') + 1;
    // Figures as [JSON path, table column, printed as percent].
    const checked: Array<[string, string, boolean]> = [
      ['requests', 'requests', false],
      ['latencyMs.p50', 'p50 ok ms', false],
      ['latencyMs.p99', 'p99 ok ms', false],
      ['latencyAllMs.p99', 'p99 all ms', false],
      ['errorRate', 'error %', true],
      ['retryAmplification', 'attempts/req', false],
      ['crossZoneRatio', 'cross-zone %', true],
    ];
    for (const strategy of ['fallback-all', 'lb-rank']) {
      const scopes: Array<[string, (s: Summary) => ScopeSummary, number, string]> = [
        ['overall', (s) => s, mainHeader, `${strategy} `],
        ['zoneA', (s) => s.byConsumerZone.zoneA!, zoneHeader, `${strategy} `.padEnd(lines[zoneHeader]!.indexOf('zone')) + 'zoneA '],
      ];
      for (const [scopeName, scopeOf, headerAt, rowStart] of scopes) {
        const agg = scopeOf(doc.byStrategy[strategy]!);
        for (const [path, column, percent] of checked) {
          const values = perSeed.map((bs) => figure(scopeOf(bs[strategy]!), path));
          const what = `${strategy} ${scopeName} ${path}`;
          // JSON: the mean and the half-width (figures are rounded to 6 decimals, milliseconds to 3;
          // the product's t table to 4 decimals).
          const digits = path.startsWith('latency') ? 3 : 6;
          expect(Math.abs(figure(agg, path) - mean(values)), what).toBeLessThanOrEqual(0.5 * 10 ** -digits + 1e-9);
          const hand = halfWidth(values);
          expect(Math.abs(agg.ci95![path]! - hand), what).toBeLessThanOrEqual(0.5 * 10 ** -digits + T_TABLE_SHARE * hand);
          // Table: `mean ± half-width`, as printed.
          const [m, h] = ciCell(lines, headerAt, rowStart, column);
          const scale = percent ? 100 : 1;
          expectPrinted(m, mean(values) * scale, `${what} mean`, 0, 0.5 * 10 ** -digits * scale);
          expectPrinted(h, hand * scale, `${what} half-width`, T_TABLE_SHARE, 0.5 * 10 ** -digits * scale);
        }
      }
    }
    // The seeds differ where it matters (else a half-width of 0 would pass any formula).
    for (const path of ['requests', 'errorRate', 'crossZoneRatio']) {
      expect(doc.byStrategy['fallback-all']!.ci95![path], path).toBeGreaterThan(0);
    }
  });
});

describe('the zone-pair table', () => {
  it('shows, for three zones, the share of each consumer zone\'s attempts that went to each provider zone, from crossZoneByPair', async () => {
    const out = tempDir('zs-pairs-');
    const r = await cli(['run', THREE_ZONES, '--set', 'routers[0].fallback=true', '--out', out, ...SHORT]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(onlyRun(out), 'summary.json'), 'utf8')) as Summary;
    const pairs = summary.crossZoneByPair!;
    expect(Object.keys(pairs)).toEqual(['zoneA', 'zoneB', 'zoneC']);
    // Each row holds its consumer zone's attempts; off the diagonal, the cross-zone ones.
    let cross = 0;
    for (const [zone, row] of Object.entries(pairs)) {
      expect(Object.values(row).reduce((a, b) => a + b, 0), zone).toBe(summary.byConsumerZone[zone]!.attempts);
      for (const [provider, n] of Object.entries(row)) if (provider !== zone) cross += n;
    }
    expect(cross / summary.attempts).toBeCloseTo(summary.crossZoneRatio, 6);
    // Falling back to all providers after zoneA went down: zoneA's calls reach the remote zoneC too.
    expect(pairs.zoneA!.zoneC).toBeGreaterThan(0);
    const lines = r.out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('attempts by zone pair'));
    expect(lines[at + 1]!.trim().split(/\s{2,}/)).toEqual(['consumer zone', 'attempts', 'to zoneA', 'to zoneB', 'to zoneC']);
    for (const zone of ['zoneA', 'zoneB', 'zoneC']) {
      const row = lines.slice(at + 2).find((l) => l.startsWith(`${zone} `))!.trim().split(/\s+/);
      const attempts = summary.byConsumerZone[zone]!.attempts;
      expect(row.slice(1)).toEqual([String(attempts), ...['zoneA', 'zoneB', 'zoneC'].map((p) => ((100 * pairs[zone]![p]!) / attempts).toFixed(3))]);
    }
  });

  it('is left out with two zones', async () => {
    const r = await cli(['run', 'scenarios/zone-a-down.yaml', '--out', tempDir('zs-two-'), '--set', 'duration=8s', '--set', 'warmup=1s']);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('zone pair');
  });
});

describe('the dup writes column', () => {
  it('shows the duplicate writes of a scenario with a non-idempotent method in run and compare', async () => {
    const short = ['--set', 'duration=12s', '--set', 'warmup=1s'];
    const out = tempDir('zs-writes-');
    const run = await cli(['run', 'scenarios/timeout-retry-storm.yaml', '--out', out, ...short]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(onlyRun(out), 'summary.json'), 'utf8')) as Summary;
    expect(summary.nonIdempotentMethods).toEqual(['com.example.OrderService.placeOrder']);
    // Every placeOrder times out and is retried twice: the retries execute too.
    expect(summary.duplicateWrites).toBeGreaterThan(0);
    const lines = run.out.split('\n');
    const header = lines.findIndex((l) => l.startsWith('scope '));
    const cols = lines[header]!.trim().split(/\s{2,}/);
    const overall = lines[header + 1]!.trim().split(/\s+/);
    expect(overall[cols.indexOf('dup writes')]).toBe(String(summary.duplicateWrites));
    const cmp = await cli(['compare', 'scenarios/timeout-retry-storm.yaml', '--strategies', 'dubbo-default', '--out', tempDir('zs-writes-'), ...short]);
    expect(cmp.out.split('\n')[0]).toMatch(/  duplicates  dup writes  cross-zone %$/);
  });

  it('is left out when every method is idempotent', async () => {
    const r = await cli(['run', THREE_ZONES, '--out', tempDir('zs-reads-'), '--set', 'duration=8s', '--set', 'warmup=1s']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('duplicates');
    expect(r.out).not.toContain('dup writes');
  });
});

describe('compare --per-instance', () => {
  it('gives each strategy registry.byConsumer, a mean of seeds too; without it only the group figures', async () => {
    const args = ['compare', 'scenarios/zone-a-down.yaml', '--strategies', 'dubbo-default,zone-router-fallback', '--json', '--seeds', '2', '--set', 'duration=12s', '--set', 'warmup=1s'];
    const asked = await cli([...args, '--per-instance', '--out', tempDir('zs-per-')]);
    const plain = await cli([...args, '--out', tempDir('zs-per-')]);
    expect([asked.code, plain.code]).toEqual([0, 0]);
    for (const [name, s] of Object.entries((JSON.parse(asked.out) as { byStrategy: Record<string, Summary> }).byStrategy)) {
      expect(Object.keys(s.registry.byConsumer!), name).toHaveLength(10);
      // A mean over seeds names no worst instances (each seed's own).
      expect(s.registry.byConsumerGroup!['web@zoneA']!.instances, name).toBe(8);
      expect(s.registry.byConsumerGroup!['web@zoneA']!.worst, name).toBeUndefined();
    }
    for (const s of Object.values((JSON.parse(plain.out) as { byStrategy: Record<string, Summary> }).byStrategy)) {
      expect(s.registry.byConsumer).toBeUndefined();
      expect(Object.keys(s.registry.byConsumerGroup!)).toEqual(['web@zoneA', 'web@zoneB']);
    }
  });
});
