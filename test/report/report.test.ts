/**
 * The HTML report of runs and comparisons: self-contained, rendered from the summary JSON, with
 * labelled fault markers, strategy descriptions, generated paragraphs and the timeline charts;
 * `zonesim report` rebuilds it and refuses a malformed results file with one positioned line.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { renderReport } from '../../src/report/report.js';
import type { Summary } from '../../src/metrics/summary.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

/** The page data the report's script draws from. */
function pageData(html: string): { runs: Array<{ name: string; xs: number[]; faults: Array<{ label: string }> }>; charts: Array<{ id: string; title: string; series: Array<{ label: string; values: number[] }> }> } {
  const m = /var report = (\{.*\});\n/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

const ZONE_A_DOWN = ['--set', 'duration=100s', '--set', 'faults[0].for=30s', '--jobs', '1'];

async function runFolder(args: string[], scenario: string): Promise<string> {
  const out = tempDir('zs-report-');
  const r = await cli([...args, '--out', out]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const [run] = readdirSync(join(out, scenario));
  return join(out, scenario, run!);
}

describe('HTML report of a run', () => {
  it("is self-contained (uPlot inlined, no external scripts) and draws from the run's timeline", async () => {
    const dir = await runFolder(['run', 'scenarios/zone-scale-in.yaml', '--report', '--set', 'duration=40s'], 'zone-scale-in');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script src=|<link |<img |url\(|fetch\(|XMLHttpRequest|import\(/);
    expect(html).toContain('uPlot');
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const data = pageData(html);
    expect(data.runs[0]!.xs).toEqual(summary.timeline.map((r) => r.tMs / 1000));
    const p99 = data.charts.find((c) => c.title.startsWith('p99 latency: all requests'))!;
    expect(p99.series.map((s) => s.label)).toEqual(['all requests', 'ok requests']);
    expect(p99.series[0]!.values).toEqual(summary.timeline.map((r) => r.p99Ms));
    expect(p99.series[1]!.values).toEqual(summary.timeline.map((r) => r.p99OkMs));
    expect(html).toContain('router:zone');
  });

  it('labels the fault markers with what happened, in the page data, the marker table and the paragraph', async () => {
    const dir = await runFolder(['run', 'scenarios/zone-a-down.yaml', '--report', ...ZONE_A_DOWN], 'zone-a-down');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(pageData(html).runs[0]!.faults).toEqual([
      { tMs: 60_000, kind: 'start', label: 'zoneDown zoneA (blackhole)' },
      { tMs: 90_000, kind: 'end', label: 'zoneDown zoneA (blackhole)' },
    ]);
    expect(html).toContain('<tr class="start"><td>60 s</td><td class="text">start</td><td class="text">zoneDown zoneA (blackhole)</td></tr>');
    expect(html).toContain('<tr class="end"><td>90 s</td><td class="text">end</td><td class="text">zoneDown zoneA (blackhole)</td></tr>');
    expect(html).toMatch(/<p class="story">Faults: zoneDown zoneA \(blackhole\) from 60 s to 90 s\. Timeouts started at 60 s, when zoneDown zoneA \(blackhole\) started, and stopped at \d+ s; registry pushes (followed|came) at \d+ s/);
  });

  it('has a chart per figure of the timeline additions: outcomes, zones, provider groups, pushes', async () => {
    const dir = await runFolder(['run', 'scenarios/zone-a-down.yaml', '--report', ...ZONE_A_DOWN], 'zone-a-down');
    const data = pageData(readFileSync(join(dir, 'report.html'), 'utf8'));
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const chart = (start: string) => data.charts.find((c) => c.title.startsWith(start));
    expect(chart('failed requests per 1 s bucket, by outcome')!.series.map((s) => s.label)).toEqual(['timeout']);
    expect(chart('failed requests per 1 s bucket, by consumer zone')!.series.map((s) => s.label)).toEqual(['zoneA', 'zoneB']);
    expect(chart('registry pushes per 1 s bucket')!.series[0]!.values).toEqual(summary.timeline.map((r) => r.pushes));
    expect(chart('thread-pool utilization')!.series.map((s) => s.label)).toEqual(['users-a', 'users-b']);
    expect(chart('peak active threads')!.series[1]!.values).toEqual(summary.timelineByProviderGroup!['users-b']!.map((r) => r.peakActiveThreads));
    // No provider refused a call here: that chart is named, not drawn.
    expect(chart('calls refused')).toBeUndefined();
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/Not drawn, every value is 0: [^<]*calls refused per 1 s bucket/);
    expect(new Set(data.charts.map((c) => c.id)).size).toBe(data.charts.length);
    for (const c of data.charts) expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain(`<div id="${c.id}" class="chart"></div>`);
  });

  it('renders a summary of an older version, without the timeline additions', () => {
    const s = JSON.parse(readFileSync(join(root, 'test/cli/fixtures/report-old-summary.json'), 'utf8')) as Summary;
    const html = renderReport({ old: s });
    const titles = pageData(html).charts.map((c) => c.title);
    expect(titles.some((t) => t.startsWith('p99 latency'))).toBe(true);
    expect(titles.some((t) => t.startsWith('registry pushes') || t.includes('consumer zone') || t.includes('provider group'))).toBe(false);
    expect(html).toContain('No per-zone or per-provider-group timeline in this summary');
  });
});

describe('HTML report of a comparison', () => {
  it('is rebuilt by zonesim report from a comparison folder, one series per strategy, with what each strategy is', async () => {
    const dir = await runFolder(['compare', 'scenarios/zone-a-down.yaml', ...ZONE_A_DOWN], 'zone-a-down');
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(join(dir, 'report.html'));
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<th>dubbo-default</th><td class="text">Dubbo defaults (random, failover with 2 retries, 1000 ms) - timeouts until Nacos pushes zoneA out</td>');
    expect(html).toContain('<li><code>routers = [{type: zone, fallback: true, zoneFrom: local}]</code></li>');
    expect(html).toMatch(/<p class="story lead">Fewest failed requests: [\w-]+ \([\d.]+%\); most: [\w-]+ \([\d.]+%\)/);
    const failed = pageData(html).charts.find((c) => c.title.startsWith('failed requests per 1 s bucket'))!;
    expect(failed.series.map((s) => s.label)).toEqual(['dubbo-default', 'zone-router-fallback']);
    expect(html).toContain('<details open><summary>zone-router-fallback: failures by outcome, consumer zones, provider groups</summary>');
  });

  it('writes the strategy block into each strategy summary of compare.json', async () => {
    const dir = await runFolder(['compare', 'scenarios/zone-a-down.yaml', ...ZONE_A_DOWN], 'zone-a-down');
    const doc = JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')) as { byStrategy: Record<string, Summary> };
    expect(doc.byStrategy['zone-router-fallback']!.strategy).toEqual({
      name: 'zone-router-fallback',
      description: "zone router on the consumer's zone with fallback - local while healthy, zoneB once zoneA is pushed out",
      settings: ['routers = [{type: zone, fallback: true, zoneFrom: local}]'],
    });
    expect(doc.byStrategy['dubbo-default']!.strategy!.settings).toEqual([]);
  });
});

describe('zonesim report on bad input', () => {
  it('exits 2 for a folder without results', async () => {
    const r = await cli(['report', tempDir('zs-empty-')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no summary\.json or compare\.json/);
  });

  async function reportOf(file: string, text: string) {
    const dir = tempDir('zs-bad-');
    writeFileSync(join(dir, file), text);
    const r = await cli(['report', dir]);
    return { ...r, err: r.err.replaceAll(join(dir, file), file), dir };
  }

  it('exits 2 with one line naming the file and where when summary.json is not JSON', async () => {
    const r = await reportOf('summary.json', '{\n  "scenario": "x",\n  "requests": 12,,\n}');
    expect(r.code).toBe(2);
    expect(r.err).toBe('summary.json:3:18: not valid JSON: expected a key in double quotes after ","\n');
    expect(existsSync(join(r.dir, 'report.html'))).toBe(false);
  });

  it('exits 2 with the field, what was expected and what was found when summary.json has the wrong shape', async () => {
    const s = JSON.parse(readFileSync(join(root, 'test/cli/fixtures/report-old-summary.json'), 'utf8')) as Record<string, unknown>;
    const missing = await reportOf('summary.json', JSON.stringify({ ...s, timeline: undefined }, null, 2));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^summary\.json:1:1: timeline: expected a list \(JSON array\), found nothing \(the field is required\)\n$/);
    const wrongType = await reportOf('summary.json', JSON.stringify({ ...s, seeds: '1' }));
    expect(wrongType.err).toMatch(/^summary\.json:1:\d+: seeds: expected a list \(JSON array\), found "1"\n$/);
    expect(wrongType.err).not.toMatch(/\n\s+at /);
  });

  it('exits 2 for a malformed compare.json too', async () => {
    const r = await reportOf('compare.json', JSON.stringify({ scenario: 'x', seeds: [1], version: 't', byStrategy: { a: { requests: 'many' } } }));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^compare\.json:1:\d+: byStrategy\.a\.\w+: expected /);
    expect(r.err.split('\n')).toHaveLength(2);
  });
});
