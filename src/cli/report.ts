/**
 * The HTML report: one self-contained file (uPlot inlined, no network) with the headline figures
 * of each run or strategy, the per-zone split, and timeline charts (p99, failures per second,
 * cross-zone share) with the fault markers drawn on them. Rendered from summary JSON only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Summary } from '../metrics/summary.js';

const require = createRequire(import.meta.url);

/** The text of a uPlot distribution file (inlined into reports). */
export function asset(file: string): string {
  return readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
}

/** Escapes text for HTML. */
export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const ms = (x: number) => x.toFixed(1);

function figuresTable(runs: Record<string, Summary>): string {
  const rows = Object.entries(runs).map(
    ([name, s]) =>
      `<tr><th>${esc(name)}</th><td>${s.requests}</td><td>${ms(s.latencyMs.p50)}</td><td>${ms(s.latencyMs.p99)}</td>` +
      `<td>${ms(s.latencyMs.p999)}</td><td>${pct(s.timeoutRate)}</td><td>${pct(s.noProviderRate)}</td><td>${pct(s.errorRate)}</td>` +
      `<td>${s.retryAmplification.toFixed(3)}</td><td>${s.duplicateExecutions}</td><td>${pct(s.crossZoneRatio)}</td>` +
      `<td>${s.registry.staleCalls}</td></tr>`,
  );
  return (
    '<table><thead><tr><th></th><th>requests</th><th>p50 ms</th><th>p99 ms</th><th>p999 ms</th><th>timeout</th>' +
    '<th>No provider</th><th>errors</th><th>attempts/request</th><th>duplicate executions</th><th>cross-zone</th>' +
    `<th>stale calls</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function zonesTable(s: Summary): string {
  const rows = Object.entries(s.byConsumerZone).map(
    ([zone, z]) =>
      `<tr><th>${esc(zone)}</th><td>${z.requests}</td><td>${ms(z.latencyMs.p99)}</td><td>${pct(z.timeoutRate)}</td>` +
      `<td>${pct(z.noProviderRate)}</td><td>${z.duplicateExecutions}</td><td>${pct(z.crossZoneRatio)}</td></tr>`,
  );
  return (
    '<table><thead><tr><th>consumer zone</th><th>requests</th><th>p99 ms</th><th>timeout</th><th>No provider</th>' +
    `<th>duplicates</th><th>cross-zone</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/** Renders the report for one run (`{name: summary}`) or a comparison (one entry per strategy). */
export function renderReport(runs: Record<string, Summary>, title?: string): string {
  const first = Object.values(runs)[0]!;
  const heading = title ?? first.scenario;
  const data = JSON.stringify(
    Object.fromEntries(
      Object.entries(runs).map(([name, s]) => [
        name,
        { timeline: s.timeline, faults: s.faults ?? [] },
      ]),
    ),
  ).replace(/</g, '\\u003c');
  const zones = Object.entries(runs)
    .map(([name, s]) => `<h3>${esc(name)}</h3>${zonesTable(s)}`)
    .join('');
  const causes = Object.entries(runs)
    .filter(([, s]) => Object.keys(s.noProviderCauses ?? {}).length > 0)
    .map(([name, s]) => `<li>${esc(name)}: ${Object.entries(s.noProviderCauses).map(([c, n]) => `${esc(c)} ${n}`).join(', ')}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zonesim: ${esc(heading)}</title>
<style>${asset('uPlot.min.css')}
body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 16px}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th:first-child{text-align:left}
.chart{margin:12px 0 24px}.note{color:#666}</style></head>
<body>
<h1>zonesim: ${esc(heading)}</h1>
<p class="note">seeds ${esc(first.seeds.join(', '))} · zonesim ${esc(first.version)} · simulated ${(first.simulatedMs / 1000).toFixed(0)} s, measured from ${(first.measuredFromMs / 1000).toFixed(0)} s</p>
<h2>Headline figures</h2>
${figuresTable(runs)}
${causes ? `<h2>No provider available, by cause</h2><ul>${causes}</ul>` : ''}
<h2>By consumer zone</h2>
${zones}
<h2>Timeline</h2>
<p class="note">Each request counts in the bucket where it started. Dashed lines mark faults (start red, end green).</p>
<div id="p99" class="chart"></div><div id="failures" class="chart"></div><div id="cross" class="chart"></div>
<script>${asset('uPlot.iife.min.js')}</script>
<script>
const runs = ${data};
const colors = ['#1f77b4','#d62728','#2ca02c','#9467bd','#ff7f0e','#8c564b','#e377c2','#17becf'];
const names = Object.keys(runs);
const xs = runs[names[0]].timeline.map(r => r.tMs / 1000);
const markers = runs[names[0]].faults;
function markerPlugin() {
  return { hooks: { draw: u => {
    const ctx = u.ctx; ctx.save(); ctx.setLineDash([5, 4]);
    for (const m of markers) {
      const x = u.valToPos(m.tMs / 1000, 'x', true);
      ctx.strokeStyle = m.kind === 'start' ? '#d62728' : '#2ca02c';
      ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
    }
    ctx.restore();
  } } };
}
function chart(id, title, label, pick) {
  const series = [{ label: 't (s)' }].concat(names.map((n, i) => ({ label: n, stroke: colors[i % colors.length], width: 1.5 })));
  const data = [xs].concat(names.map(n => runs[n].timeline.map(pick)));
  new uPlot({ title, width: Math.min(1100, window.innerWidth - 60), height: 260, series, plugins: [markerPlugin()],
    scales: { x: { time: false } },
    axes: [{ label: 'simulated time (s)' }, { label }] }, data, document.getElementById(id));
}
chart('p99', 'p99 latency of requests started in each second', 'ms', r => r.p99Ms);
chart('failures', 'failed requests per bucket (timeout + No provider + rejected + network + forbidden)', 'requests',
  r => r.timeout + r.noProvider + r.rejected + r.network + r.forbidden);
chart('cross', 'share of attempts sent to another zone', 'ratio', r => r.crossZoneRatio);
</script>
</body></html>
`;
}
