/**
 * The HTML report: one self-contained file (uPlot inlined, no network) rendered from summary JSON
 * only. For each run or strategy: what the strategy is (compare), a generated paragraph on what
 * happened (`report-narrative.ts`), the headline figures, the per-zone split, the fault markers,
 * and timeline charts — p99 of all vs ok requests, failed requests, cross-zone share, registry
 * pushes, the registry servers' bytes, NIC utilization, push lag p99 and sessions expired (when the
 * registry is a server), then per run the failures by outcome, the consumer zones and the provider groups
 * (utilization, rejections, peak active threads). Every chart draws the fault markers as labelled
 * lines and has a PNG button (`report-client.ts`). Charts whose every value is zero are listed,
 * not drawn. Summaries written before `p99OkMs`, `pushes`, `timelineByZone` and
 * `timelineByProviderGroup` existed render without those charts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MAX_SCOPE_TIMELINE_ROWS } from '../metrics/recorder.js';
import { FAILED_OUTCOMES, type FailedOutcome, type Summary } from '../metrics/summary.js';
import { REPORT_CLIENT_JS } from './report-client.js';
import type { RegistryTimelineRow } from './registry-servers.js';
import { bucketWidthMs, compareLead, count, narrate, seconds } from './report-narrative.js';

const require = createRequire(import.meta.url);

/** The text of a uPlot distribution file (inlined into reports). */
export function asset(file: string): string {
  return readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
}

/** Escapes text for HTML. */
export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const ms = (x: number) => x.toFixed(1);

const RUN_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const OUTCOME_COLORS: Record<FailedOutcome, string> = {
  timeout: '#d62728',
  noProvider: '#9467bd',
  rejected: '#ff7f0e',
  network: '#8c564b',
  forbidden: '#e377c2',
  biz: '#7f7f7f',
  blocked: '#bcbd22',
  lost: '#17becf',
};
const FAILED = FAILED_OUTCOMES;

/** One line of a chart: its legend label, color, dashed or not, and a value per timeline bucket. */
interface SeriesSpec {
  label: string;
  color: string;
  dash?: boolean;
  values: number[];
}

/** One chart as the page script draws it: on the x values and fault markers of run `run`. */
interface ChartSpec {
  id: string;
  title: string;
  y: string;
  unit?: string;
  run: number;
  kind?: 'bars';
  percent?: boolean;
  series: SeriesSpec[];
}

function figuresTable(runs: Record<string, Summary>): string {
  const rows = Object.entries(runs).map(
    ([name, s]) =>
      `<tr><th>${esc(name)}</th><td>${count(s.requests)}</td><td>${ms(s.latencyMs.p50)}</td><td>${ms(s.latencyMs.p99)}</td>` +
      `<td>${ms(s.latencyMs.p999)}</td><td>${ms(s.latencyAllMs.p99)}</td><td>${pct(s.errorRate)}</td><td>${pct(s.timeoutRate)}</td>` +
      `<td>${pct(s.noProviderRate)}</td><td>${s.retryAmplification.toFixed(3)}</td><td>${count(s.duplicateExecutions)}</td>` +
      `<td>${pct(s.crossZoneRatio)}</td><td>${count(s.registry.pushes)}</td><td>${count(s.registry.staleCalls)}</td></tr>`,
  );
  return (
    '<table><thead><tr><th></th><th>requests</th><th>p50 ok ms</th><th>p99 ok ms</th><th>p999 ok ms</th><th>p99 all ms</th>' +
    '<th>errors</th><th>timeout</th><th>No provider</th><th>attempts/request</th><th>duplicate executions</th><th>cross-zone</th>' +
    `<th>pushes</th><th>stale calls</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function zonesTable(s: Summary): string {
  const rows = Object.entries(s.byConsumerZone).map(
    ([zone, z]) =>
      `<tr><th>${esc(zone)}</th><td>${count(z.requests)}</td><td>${ms(z.latencyMs.p99)}</td><td>${ms(z.latencyAllMs.p99)}</td>` +
      `<td>${pct(z.errorRate)}</td><td>${pct(z.timeoutRate)}</td><td>${pct(z.noProviderRate)}</td><td>${count(z.duplicateExecutions)}</td>` +
      `<td>${pct(z.crossZoneRatio)}</td></tr>`,
  );
  return (
    '<table><thead><tr><th>consumer zone</th><th>requests</th><th>p99 ok ms</th><th>p99 all ms</th><th>errors</th><th>timeout</th>' +
    `<th>No provider</th><th>duplicates</th><th>cross-zone</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function strategiesTable(runs: Record<string, Summary>, descriptions: Record<string, string>): string {
  const rows = Object.entries(runs).map(([name, s]) => {
    const description = s.strategy?.description || descriptions[name] || '';
    const settings = s.strategy?.settings ?? [];
    const list = settings.length > 0 ? `<ul>${settings.map((line) => `<li><code>${esc(line)}</code></li>`).join('')}</ul>` : '<span class="note">the scenario as written</span>';
    return `<tr><th>${esc(name)}</th><td class="text">${esc(description)}</td><td class="text">${list}</td></tr>`;
  });
  return `<table class="strategies"><thead><tr><th>strategy</th><th>description</th><th>settings</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function faultsTable(s: Summary): string {
  const faults = s.faults ?? [];
  if (faults.length === 0) return '<p class="note">No fault markers: the scenario has no fault timeline.</p>';
  const rows = faults.map(
    (m) => `<tr class="${m.kind}"><td>${esc(seconds(m.tMs))}</td><td class="text">${m.kind}</td><td class="text">${esc(m.label)}</td></tr>`,
  );
  return `<table class="faults"><thead><tr><th>t</th><th>marker</th><th>fault</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The charts and page data of every run; charts whose every value is 0 are named in `omitted`. */
function charts(runs: Array<[string, Summary]>): { specs: ChartSpec[]; sections: string[]; omitted: string[] } {
  const specs: ChartSpec[] = [];
  const omitted: string[] = [];
  let next = 0;
  const add = (spec: Omit<ChartSpec, 'id'>): string => {
    if (spec.series.length === 0 || spec.series.every((s) => s.values.every((v) => v === 0))) {
      omitted.push(spec.title);
      return '';
    }
    const id = `chart-${next++}`;
    specs.push({ id, ...spec });
    return `<div id="${id}" class="chart"></div>`;
  };
  const many = runs.length > 1;
  const color = (i: number) => RUN_COLORS[i % RUN_COLORS.length]!;
  const bucket = runs.length > 0 ? seconds(bucketWidthMs(runs[0]![1])) : '';
  const sections: string[] = [];

  // Side by side: one or two lines per run.
  const overview: string[] = [];
  const hasOk = runs.some(([, s]) => s.timeline.some((r) => r.p99OkMs !== undefined));
  overview.push(
    add({
      title: 'p99 latency: all requests (solid) vs ok requests (dashed)',
      y: 'ms',
      unit: 'ms',
      run: 0,
      series: runs.flatMap(([name, s], i) => [
        { label: many ? `${name} all` : 'all requests', color: color(i), values: s.timeline.map((r) => r.p99Ms) },
        ...(hasOk ? [{ label: many ? `${name} ok` : 'ok requests', color: color(i), dash: true, values: s.timeline.map((r) => r.p99OkMs ?? 0) }] : []),
      ]),
    }),
  );
  overview.push(
    add({
      title: `failed requests per ${bucket} bucket`,
      y: 'requests',
      run: 0,
      series: runs.map(([name, s], i) => ({ label: name, color: color(i), values: s.timeline.map((r) => r.requests - r.ok) })),
    }),
  );
  overview.push(
    add({
      title: 'share of attempts sent to another zone',
      y: '% of attempts',
      unit: '%',
      percent: true,
      run: 0,
      series: runs.map(([name, s], i) => ({ label: name, color: color(i), values: s.timeline.map((r) => round(r.crossZoneRatio * 100)) })),
    }),
  );
  if (runs.some(([, s]) => s.timeline.some((r) => r.pushes !== undefined))) {
    overview.push(
      add({
        title: `registry pushes per ${bucket} bucket (notifications delivered to consumer instances)`,
        y: 'pushes',
        kind: 'bars',
        run: 0,
        series: runs.map(([name, s], i) => ({ label: name, color: color(i), values: s.timeline.map((r) => r.pushes ?? 0) })),
      }),
    );
  }
  overview.push(...registryCharts(runs, add, color, bucket));
  sections.push(overview.join('\n'));

  // Per run: failures by outcome, consumer zones, provider groups.
  runs.forEach(([name, s], i) => {
    const parts: string[] = [];
    const prefix = many ? `${name}: ` : '';
    parts.push(
      add({
        title: `${prefix}failed requests per ${bucket} bucket, by outcome`,
        y: 'requests',
        run: i,
        series: FAILED.filter((o) => s.timeline.some((r) => (r[o] ?? 0) > 0)).map((o) => ({
          label: o,
          color: OUTCOME_COLORS[o],
          values: s.timeline.map((r) => r[o] ?? 0),
        })),
      }),
    );
    const zones = Object.entries(s.timelineByZone ?? {});
    if (zones.length > 0) {
      parts.push(
        add({
          title: `${prefix}p99 latency of all requests, by consumer zone`,
          y: 'ms',
          unit: 'ms',
          run: i,
          series: zones.map(([zone, rows], k) => ({ label: zone, color: RUN_COLORS[(k + 3) % RUN_COLORS.length]!, values: rows.map((r) => r.p99Ms) })),
        }),
      );
      parts.push(
        add({
          title: `${prefix}failed requests per ${bucket} bucket, by consumer zone`,
          y: 'requests',
          run: i,
          series: zones.map(([zone, rows], k) => ({ label: zone, color: RUN_COLORS[(k + 3) % RUN_COLORS.length]!, values: rows.map((r) => r.requests - r.ok) })),
        }),
      );
    }
    const groups = Object.entries(s.timelineByProviderGroup ?? {});
    if (groups.length > 0) {
      const groupColor = (k: number) => RUN_COLORS[(k + 5) % RUN_COLORS.length]!;
      parts.push(
        add({
          title: `${prefix}thread-pool utilization, by provider group`,
          y: '% of threads busy',
          unit: '%',
          percent: true,
          run: i,
          series: groups.map(([g, rows], k) => ({ label: g, color: groupColor(k), values: rows.map((r) => round(r.utilization * 100)) })),
        }),
      );
      parts.push(
        add({
          title: `${prefix}peak active threads of one instance, by provider group`,
          y: 'threads',
          run: i,
          series: groups.map(([g, rows], k) => ({ label: g, color: groupColor(k), values: rows.map((r) => r.peakActiveThreads) })),
        }),
      );
      parts.push(
        add({
          title: `${prefix}calls refused per ${bucket} bucket (pool exhausted, executes, tps), by provider group`,
          y: 'calls',
          run: i,
          series: groups.map(([g, rows], k) => ({ label: g, color: groupColor(k), values: rows.map((r) => r.rejected) })),
        }),
      );
    }
    if (s.timelineByZone === undefined && s.timelineByProviderGroup === undefined) {
      parts.push(
        '<p class="note">No per-zone or per-provider-group timeline in this summary: zonesim leaves them out when ' +
          `(zones + provider groups) × buckets passes ${count(MAX_SCOPE_TIMELINE_ROWS)} rows (use a wider bucket), and versions before them did not write them.</p>`,
      );
    }
    const html = parts.filter((p) => p !== '').join('\n');
    sections.push(
      many
        ? `<details open><summary>${esc(name)}: failures by outcome, consumer zones, provider groups</summary>\n${html}\n</details>`
        : `<h3>Failures by outcome, consumer zones, provider groups</h3>\n${html}`,
    );
  });
  return { specs, sections, omitted };
}

/**
 * The registry-server charts (SPEC 4.1 timeline columns, only in summaries of a registry modeled as a
 * server): bytes the nodes sent, the busiest node's NIC utilization, push lag p99 and sessions
 * expired per bucket; each only when some run's timeline has its column.
 */
function registryCharts(runs: Array<[string, Summary]>, add: (spec: Omit<ChartSpec, 'id'>) => string, color: (i: number) => string, bucket: string): string[] {
  const rowsOf = (s: Summary) => s.timeline as RegistryTimelineRow[];
  const has = (key: keyof RegistryTimelineRow) => runs.some(([, s]) => rowsOf(s).some((r) => r[key] !== undefined));
  const series = (value: (r: RegistryTimelineRow) => number) => runs.map(([name, s], i) => ({ label: name, color: color(i), values: rowsOf(s).map(value) }));
  const out: string[] = [];
  if (has('registryBytes')) {
    out.push(add({ title: `registry bytes sent per ${bucket} bucket (pushes and replies, every node)`, y: 'MB', unit: 'MB', run: 0, series: series((r) => round((r.registryBytes ?? 0) / 1e6)) }));
  }
  if (has('registryUtilization')) {
    out.push(
      add({ title: 'registry NIC utilization, outbound, of the busiest node', y: '% of the NIC', unit: '%', percent: true, run: 0, series: series((r) => round((r.registryUtilization ?? 0) * 100)) }),
    );
  }
  if (has('pushLagP99Ms')) {
    out.push(add({ title: 'registry push lag p99 (queueing + sending + network pushLag)', y: 'ms', unit: 'ms', run: 0, series: series((r) => r.pushLagP99Ms ?? 0) }));
  }
  if (has('sessionsExpired')) {
    out.push(add({ title: `registry sessions expired per ${bucket} bucket`, y: 'sessions', kind: 'bars', run: 0, series: series((r) => r.sessionsExpired ?? 0) }));
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/**
 * Renders the report for one run (`{name: summary}`) or a comparison (one entry per strategy);
 * `descriptions` (compare.json's `strategies`) stands in for summaries without a `strategy` block.
 */
export function renderReport(runs: Record<string, Summary>, title?: string, descriptions: Record<string, string> = {}): string {
  const entries = Object.entries(runs);
  const first = entries[0]![1];
  const heading = title ?? first.scenario;
  const many = entries.length > 1;
  const { specs, sections, omitted } = charts(entries);
  const data = JSON.stringify({
    file: first.scenario,
    runs: entries.map(([name, s]) => ({ name, xs: s.timeline.map((r) => r.tMs / 1000), faults: s.faults ?? [] })),
    charts: specs,
  }).replace(/</g, '\\u003c');
  const stories = entries
    .map(([name, s]) => `${many ? `<h3>${esc(name)}</h3>` : ''}<p class="story">${esc(narrate(s))}</p>`)
    .join('\n');
  const lead = many ? compareLead(runs) : '';
  const zones = entries.map(([name, s]) => `${many ? `<h3>${esc(name)}</h3>` : ''}${zonesTable(s)}`).join('');
  const causes = entries
    .filter(([, s]) => Object.keys(s.noProviderCauses ?? {}).length > 0)
    .map(([name, s]) => `<li>${esc(name)}: ${Object.entries(s.noProviderCauses).map(([c, n]) => `${esc(c)} ${count(n)}`).join(', ')}</li>`)
    .join('');
  const bucket = seconds(bucketWidthMs(first));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zonesim: ${esc(heading)}</title>
<style>${asset('uPlot.min.css')}
body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}table{border-collapse:collapse;margin:8px 0 16px}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top}th:first-child{text-align:left}
td.text,table.strategies th,table.faults th{text-align:left}table.strategies ul{margin:0;padding-left:18px}tr.start td{color:#c62828}tr.end td{color:#2e7d32}
.chart{position:relative;margin:12px 0 24px}.chart .png{position:absolute;right:0;top:0;z-index:2;font-size:12px;cursor:pointer}
.note{color:#666}.story{max-width:900px;line-height:1.45}.lead{font-weight:600}details{margin:8px 0 16px}summary{font-size:16px;font-weight:600;cursor:pointer;margin:8px 0}</style></head>
<body>
<script>window.addEventListener('error', function (e) { document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + '; '; });</script>
<h1>zonesim: ${esc(heading)}</h1>
<p class="note">seeds ${esc(first.seeds.join(', '))} · zonesim ${esc(first.version)} · simulated ${esc(seconds(first.simulatedMs))}, measured from ${esc(seconds(first.measuredFromMs))} · timeline buckets of ${esc(bucket)}</p>
${many ? `<h2>Strategies</h2>\n${strategiesTable(runs, descriptions)}` : ''}
<h2>What happened</h2>
${lead ? `<p class="story lead">${esc(lead)}</p>` : ''}
${stories}
<p class="note">Generated from the figures below; times are when requests started (each request counts in the bucket where it started), so failures can end before the registry push that ended them.</p>
<h2>Headline figures</h2>
${figuresTable(runs)}
${causes ? `<h2>No provider available, by cause</h2><ul>${causes}</ul>` : ''}
<h2>By consumer zone</h2>
${zones}
<h2>Fault markers</h2>
${faultsTable(first)}
<h2>Timeline</h2>
<p class="note">Dashed vertical lines mark faults: red where one starts, green where it ends, labelled with what happened. Each chart has a PNG button (title, markers and legend included). Counts and p99s are of the requests that started in the bucket${many ? '; the side-by-side charts draw the markers of the first strategy' : ''}.</p>
${sections.join('\n')}
${omitted.length > 0 ? `<p class="note">Not drawn, every value is 0: ${esc(omitted.join('; '))}.</p>` : ''}
<script>${asset('uPlot.iife.min.js')}</script>
<script>
var report = ${data};
${REPORT_CLIENT_JS}
</script>
</body></html>
`;
}
