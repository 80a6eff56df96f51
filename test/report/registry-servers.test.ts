/**
 * How the registry-as-a-server outputs show (SPEC 4, issue 40): the run table's push-lag line and
 * per-node block, the compare table's push lag p99 and stale calls per strategy, and the HTML
 * report's registry charts with the fault markers (in headless Chromium when one is installed).
 * The summaries are synthetic: a small recorded run with the outputs of the contract added, and the
 * same run without them, which must render as before.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Recorder } from '../../src/metrics/recorder.js';
import type { Summary } from '../../src/metrics/summary.js';
import { formatRunTable, timelineCsv } from '../../src/report/format.js';
import { formatCompareTable } from '../../src/report/compare-table.js';
import { renderReport } from '../../src/report/report.js';
import type { RegistryServerFigures } from '../../src/report/registry-servers.js';
import { readSummaryFile } from '../../src/cli/report-input.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';
import { browse, findChromium } from '../helpers/chromium.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Ten seconds measured from 1 s, 1 s buckets: 20 ok calls per bucket in zoneA, a fault from 4 s to 7 s. */
function plain(name = 'meltdown'): Summary {
  const r = new Recorder({ warmupMs: 1000, durationMs: 11_000, bucketMs: 1000, providerGroups: [{ name: 'users-a', instances: 2, threads: 10 }] });
  for (let t = 1000; t < 11_000; t += 50) {
    const req = r.startRequest({ consumerGroup: 'web', consumerZone: 'zoneA', service: 'com.example.S', method: 'get', idempotent: true, startMs: t });
    r.attempt(req, { crossZone: false, stale: false, providerGroup: 'users-a', providerZone: 'zoneA' });
    r.execution(req, 'users-a');
    r.endRequest(req, 'ok', t + 5);
  }
  r.marker({ tMs: 4000, kind: 'start', label: 'rollingRestart users' });
  r.marker({ tMs: 7000, kind: 'end', label: 'rollingRestart users' });
  r.finish({ simulatedMs: 11_000, providerGroups: [{ name: 'users-a', busyMs: 1000, peakActiveThreads: 1 }], inFlight: 0 });
  return r.summary({ scenario: name, seed: 1, seeds: [1], version: 'test' });
}

const node = (zone: string, k: number): RegistryServerFigures => ({
  zone,
  nicOut: { peakUtilization: 0.975 * k, meanUtilization: 0.412 * k },
  nicIn: { peakUtilization: 0.031 * k, meanUtilization: 0.004 * k },
  peakQueueBytes: 2_400_000_000 * k,
  requestsServed: 120_000 * k,
  requestsRefused: 37 * k,
  sessionsExpired: 12 * k,
  registrationsFailed: 5 * k,
  registrationsRetried: 4 * k,
  pushesLost: 0,
  pushesMerged: 900 * k,
  bytesOut: 9e9 * k,
  bytesIn: 1e8 * k,
});

/** `plain()` with the registry-server outputs of the contract: two nodes, push lag, the four timeline columns. */
function withServers(lagP99 = 23_456.5, staleCalls = 321, name = 'meltdown'): Summary {
  const s = plain(name);
  const registry = s.registry as Summary['registry'] & Record<string, unknown>;
  registry.staleCalls = staleCalls;
  registry.servers = { 'zoneA-1': node('zoneA', 1), 'zoneB-1': node('zoneB', 0.5) };
  registry.pushLagMs = { mean: 4000, p50: 1234.5, p90: 9000, p99: lagP99, p999: 30_000, max: 31_000.25 };
  s.timeline.forEach((row, i) => {
    Object.assign(row, { registryBytes: i * 1e8, registryUtilization: Math.min(1, i / 5), pushLagP99Ms: i * 1000, sessionsExpired: i === 6 ? 24 : 0 });
  });
  return s;
}

describe('the run table', () => {
  it('adds the push lag line and one row per node, with the figures of the summary', () => {
    const before = formatRunTable(plain());
    const after = formatRunTable(withServers());
    const lines = after.split('\n');
    expect(after.startsWith(before.trimEnd())).toBe(true);
    expect(lines).toContain('registry push lag ms: p50 1234.50, p90 9000.00, p99 23456.50, max 31000.25 (queueing + sending + network pushLag)');
    const head = lines.findIndex((l) => l.startsWith('node '));
    expect(lines[head]!.split(/\s{2,}/)).toEqual([
      'node', 'zone', 'out peak %', 'out mean %', 'in peak %', 'in mean %', 'peak queue', 'served', 'refused', 'sessions expired', 'reg failed', 'reg retried', 'pushes lost', 'pushes merged',
    ]);
    expect(lines[head + 1]!.split(/\s{2,}/)).toEqual(['zoneA-1', 'zoneA', '97.5', '41.2', '3.1', '0.4', '2.4 GB', '120000', '37', '12', '5', '4', '0', '900']);
    expect(lines[head + 2]!.split(/\s{2,}/)).toEqual(['zoneB-1', 'zoneB', '48.8', '20.6', '1.6', '0.2', '1.2 GB', '60000', '18.5', '6', '2.5', '2', '0', '450']);
  });

  it('shows nothing of it for a summary without registry servers', () => {
    expect(formatRunTable(plain())).not.toMatch(/push lag|registry servers/);
  });
});

describe('timeline.csv', () => {
  it('adds the four registry columns after pushes, only when the timeline has them', () => {
    const [head, ...rows] = timelineCsv(withServers()).trim().split('\n');
    expect(head).toBe('tMs,requests,ok,timeout,noProvider,rejected,network,forbidden,biz,mock,blocked,lost,p99Ms,p99OkMs,crossZoneRatio,pushes,registryBytes,registryUtilization,pushLagP99Ms,sessionsExpired,marker');
    // The bucket at 7 s: 600 MB sent, NIC full, p99 lag 6 s, 24 sessions expired.
    expect(rows[6]!.split(',').slice(16, 20)).toEqual(['600000000', '1', '6000', '24']);
    expect(timelineCsv(plain()).split('\n')[0]).toBe('tMs,requests,ok,timeout,noProvider,rejected,network,forbidden,biz,mock,blocked,lost,p99Ms,p99OkMs,crossZoneRatio,pushes,marker');
  });
});

describe('the compare table', () => {
  it('shows push lag p99 and stale calls per strategy when the registry is a server', () => {
    const out = formatCompareTable({ 'as-is': withServers(23_456.5, 321), 'push-rate': withServers(812.25, 4) });
    const [header, asIs, pushRate] = out.split('\n');
    const cells = (line: string) => line.split(/\s{2,}/);
    expect(cells(header!).slice(-2)).toEqual(['push lag p99 ms', 'stale calls']);
    expect(cells(asIs!).slice(-2)).toEqual(['23456.50', '321']);
    expect(cells(pushRate!).slice(-2)).toEqual(['812.25', '4']);
  });

  it('keeps its columns for strategies without registry servers', () => {
    const out = formatCompareTable({ a: plain(), b: plain() });
    expect(out.split('\n')[0]).not.toMatch(/push lag|stale calls/);
  });
});

/** The page data of a report (charts and their series). */
function pageData(html: string): { charts: Array<{ id: string; title: string; series: Array<{ label: string; values: number[] }> }> } {
  const m = /var report = (\{.*\});\n/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

const REGISTRY_CHARTS = ['registry bytes sent', 'registry NIC utilization', 'registry push lag p99', 'registry sessions expired'];

describe('the HTML report', () => {
  it('draws the four registry charts from the timeline columns, per strategy', () => {
    const { charts } = pageData(renderReport({ 'as-is': withServers(), 'push-rate': withServers() }));
    const found = REGISTRY_CHARTS.map((t) => charts.find((c) => c.title.startsWith(t)));
    expect(found.every((c) => c !== undefined)).toBe(true);
    const [bytes, utilization, lag, sessions] = found;
    expect(bytes!.series.map((s) => s.label)).toEqual(['as-is', 'push-rate']);
    // The timeline's 10 buckets: bytes in MB, utilization in %, lag in ms, sessions as counted.
    expect(bytes!.series[0]!.values).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(utilization!.series[0]!.values).toEqual([0, 20, 40, 60, 80, 100, 100, 100, 100, 100]);
    expect(lag!.series[0]!.values).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
    expect(sessions!.series[0]!.values).toEqual([0, 0, 0, 0, 0, 0, 24, 0, 0, 0]);
  });

  it('draws none of them for a summary without the columns', () => {
    const { charts } = pageData(renderReport({ run: plain() }));
    expect(charts.filter((c) => REGISTRY_CHARTS.some((t) => c.title.startsWith(t)))).toEqual([]);
  });

  const chromium = findChromium();
  it.skipIf(!chromium)('renders them in headless Chromium with the fault markers, without a script error', async () => {
    const html = renderReport({ run: withServers() });
    const charts = html.match(/<div id="chart-\d+" class="chart"><\/div>/g)!.length;
    const file = join(tempDir('zs-registry-report-'), 'report.html');
    writeFileSync(file, html);
    const dom = await browse(chromium!, tempDir, file, ['--hide-scrollbars', '--window-size=1300,900', '--dump-dom']);
    expect(dom).not.toMatch(/data-errors=/);
    expect(dom.match(/<canvas /g)?.length).toBe(charts);
    const drawn = [...dom.matchAll(/data-marker-labels="([^"]*)"/g)].map((m) => m[1]);
    expect(drawn).toEqual(Array(charts).fill('4 s rollingRestart users | 7 s rollingRestart users ends'));
  }, 180_000);
});

describe('a summary.json read back for `zonesim report`', () => {
  const write = (summary: unknown) => {
    const file = join(tempDir('zs-registry-summary-'), 'summary.json');
    writeFileSync(file, JSON.stringify(summary));
    return file;
  };

  it('keeps the registry-server outputs, so the report draws them', () => {
    const read = readSummaryFile(write(withServers()));
    const { charts } = pageData(renderReport({ run: read }));
    expect(REGISTRY_CHARTS.every((t) => charts.some((c) => c.title.startsWith(t)))).toBe(true);
    expect(formatRunTable(read)).toContain('registry push lag ms: p50 1234.50');
  });

  it('refuses a node without its figures, naming the field', () => {
    const bad = withServers() as unknown as { registry: { servers: Record<string, Record<string, unknown>> } };
    delete bad.registry.servers['zoneB-1']!.sessionsExpired;
    let error: ScenarioError | undefined;
    try {
      readSummaryFile(write(bad));
    } catch (e) {
      error = e as ScenarioError;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    expect(error!.message).toContain('expected a number, found nothing');
    expect(error!.path).toBe('registry.servers.zoneB-1.sessionsExpired');
  });
});
