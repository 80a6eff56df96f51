/**
 * The sweep report: written by `sweep --report` and `zonesim report`, self-contained, with a chart
 * per main figure, heat maps for two numeric axes, the best cell and every cell's figures. When a Chromium is installed
 * (`chromium`, `chromium-browser`, `google-chrome` on the PATH, or `CHROMIUM=path`), the page is
 * loaded headless and must draw every chart without a script error; without one those checks skip.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { browse, findChromium } from '../helpers/chromium.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const chromium = findChromium();

/** The page's DOM after its scripts ran, from headless Chromium. */
const renderedDom = (file: string): Promise<string> => browse(chromium!, tempDir, file, ['--window-size=1300,900', '--dump-dom'], 60_000);

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const SHORT = ['--set', 'duration=4s', '--set', 'warmup=1s', '--jobs', '1'];
const TIMEOUT = 'consumers[0].consumerDefaults.timeout';
const RETRIES = 'consumers[0].consumerDefaults.retries';

async function sweepReport(args: string[]): Promise<{ dir: string; html: string }> {
  const out = tempDir('zs-sweep-report-');
  const r = await cli(['sweep', 'scenarios/timeout-sweep.yaml', ...args, '--report', '--out', out, ...SHORT]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const [run] = readdirSync(join(out, 'timeout-sweep'));
  const dir = join(out, 'timeout-sweep', run!);
  return { dir, html: readFileSync(join(dir, 'report.html'), 'utf8') };
}

describe('sweep report', () => {
  // 11 charts: every main figure except duplicate writes (this service is idempotent).
  const CHARTS = 11;

  it('is self-contained, with a chart per figure, heat maps for two numeric axes and the best cell', async () => {
    const { dir, html } = await sweepReport(['--grid', `${TIMEOUT}=100ms,300ms,600ms`, '--grid', `${RETRIES}=0,1`, '--max-timeout-rate', '0.2']);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script src=|<link /);
    expect(html).toContain('uPlot');
    expect(html.match(/<div id="fig-[^"]+" class="chart">/g)).toHaveLength(CHARTS);
    expect(html).toContain('"series":["retries=0","retries=1"]');
    expect(html).toContain('"xs":[100,300,600]');
    expect(html).toContain('<table class="heatmap" data-figure="latencyMs.p99">');
    expect(html).toContain('<table class="heatmap" data-figure="timeoutRate">');
    const doc = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    expect(doc.best.maxTimeoutRate).toBe(0.2);
    const best = doc.cells[doc.best.index];
    expect(html).toContain(
      `<p id="best">Best by lowest error %, then lowest p99 all ms, then lowest duplicates, timeout % under 20.000: <b>cell #${best.index}</b> ` +
        `timeout=${best.values[TIMEOUT]}, retries=${best.values[RETRIES]} — error % ${(best.summary.errorRate * 100).toFixed(3)} · ` +
        `p99 all ms ${best.summary.latencyAllMs.p99.toFixed(2)} · duplicates ${best.summary.duplicateExecutions} · ` +
        `extra attempts % ${((best.summary.attempts / best.summary.requests - 1) * 100).toFixed(3)} · duplicate writes 0 · timeout % `,
    );
    expect(html.match(/<tr class="best"><th>(\d+)<\/th>/)?.[1]).toBe(String(best.index));
    expect(html.match(/<tr class="best">/g)).toHaveLength(1);
    // The cell table: the objective's figures, then what retries cost, then the rest.
    const head = html.match(/<table class="cells"><thead><tr>(.*?)<\/tr>/)![1]!.replace(/<th[^>]*>([^<]*)<\/th>/g, '$1|');
    expect(head).toBe('#|timeout|retries|error %|p99 all ms|duplicates|extra attempts %|duplicate writes|requests|p50 ok ms|p99 ok ms|p999 ok ms|timeout %|no-provider %|cross-zone %|');
  });

  it('is rebuilt by zonesim report from a sweep folder, with the objective its best names', async () => {
    const { dir, html } = await sweepReport(['--grid', `${RETRIES}=0,1`, '--objective', 'p99-all,max:ok', '--max-timeout-rate', '0.3']);
    expect(html).toContain('<p id="best">Best by lowest p99 all ms, then highest ok, timeout % under 30.000: ');
    rmSync(join(dir, 'report.html'));
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toBe(html);
    // A sweep.json written before `best` existed gets the default objective.
    const file = join(dir, 'sweep.json');
    const { best: _, ...old } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(old));
    expect((await cli(['report', dir])).code).toBe(0);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('<p id="best">Best by lowest error %, then lowest p99 all ms, then lowest duplicates: ');
    // A best.objective zonesim cannot read is an input error naming the file.
    writeFileSync(file, JSON.stringify({ ...old, best: { index: 0, objective: 'speed' } }));
    const bad = await cli(['report', dir]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${file}: best.objective: unknown figure "speed"`);
  });

  it.skipIf(!chromium)('draws every chart in headless Chromium without a script error (numeric axes)', async () => {
    const { dir } = await sweepReport(['--grid', `${TIMEOUT}=100ms,300ms,600ms`, '--grid', `${RETRIES}=0,1`]);
    const dom = await renderedDom(join(dir, 'report.html'));
    expect(dom).toMatch(new RegExp(`<body[^>]* data-charts="${CHARTS}"`));
    expect(dom).not.toMatch(/data-errors=/);
    expect(dom.match(/class="uplot/g)?.length).toBe(CHARTS);
  });

  it.skipIf(!chromium)('draws a first axis of names as categories, one line per strategy', async () => {
    const { dir, html } = await sweepReport(['--grid', 'consumers[0].consumerDefaults.loadbalance=random,roundrobin,leastactive', '--strategies', 'dubbo-default,zone-failover']);
    expect(html).toContain('"numeric":false');
    expect(html).toContain('"series":["dubbo-default","zone-failover"]');
    expect(html).not.toContain('class="heatmap"');
    const dom = await renderedDom(join(dir, 'report.html'));
    expect(dom).toMatch(new RegExp(`<body[^>]* data-charts="${CHARTS}"`));
    expect(dom).not.toMatch(/data-errors=/);
  });
});
