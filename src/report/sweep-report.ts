/**
 * The HTML report of a sweep: one self-contained file (uPlot inlined, no network) with the best
 * cell by the objective and what its retries cost, one line chart per main figure against the
 * first grid axis (one line per value of the other axes and per strategy), heat-map tables when
 * the first two axes are numeric, and every cell's figures (the objective's first, then the costs
 * of retries). Rendered from the sweep document alone (`sweep.json`).
 */
import { figureAt } from '../metrics/aggregate.js';
import { numericValue } from '../scenario/grid.js';
import { asset, esc } from './report.js';
import { bestCell, type Objective } from './sweep-objective.js';
import {
  axisLabels,
  bestFigures,
  describeObjective,
  figureValue,
  formatFigure,
  SWEEP_FIGURES,
  tableFigures,
  type SweepCell,
  type SweepDoc,
  type SweepFigure,
} from './sweep-output.js';

/** The figures drawn as charts (duplicate writes only when some cell has any). */
function chartFigures(doc: SweepDoc): SweepFigure[] {
  return SWEEP_FIGURES.filter((f) => f.path !== 'duplicateWrites' || doc.cells.some((c) => c.summary.duplicateWrites > 0));
}

/** The figures shown as heat maps. */
const HEAT_PATHS = ['latencyMs.p99', 'latencyAllMs.p99', 'timeoutRate', 'errorRate', 'duplicateExecutions', 'retryAmplification'];

/** Series of the charts: each strategy × each combination of the axes after the first. */
function seriesKeys(doc: SweepDoc): Array<{ label: string; key: string }> {
  const axes = Object.keys(doc.grid);
  const labels = axisLabels(axes);
  const rest = axes.slice(1);
  let combos: Array<Record<string, string>> = [{}];
  for (const a of rest) {
    const next: Array<Record<string, string>> = [];
    for (const c of combos) for (const v of doc.grid[a]!) next.push({ ...c, [a]: v });
    combos = next;
  }
  const strategies: Array<string | null> = doc.strategies.length > 0 ? doc.strategies : [null];
  const out: Array<{ label: string; key: string }> = [];
  for (const s of strategies) {
    for (const combo of combos) {
      const words = [...(s === null ? [] : [s]), ...rest.map((a) => `${labels[a]}=${combo[a]}`)];
      out.push({ label: words.join(', ') || 'all cells', key: seriesKey(rest, s, combo) });
    }
  }
  return out;
}

/** The series a cell belongs to: its strategy and its values of the axes after the first. */
function seriesKey(rest: string[], strategy: string | null, values: Record<string, string>): string {
  return JSON.stringify([strategy, ...rest.map((a) => values[a] ?? null)]);
}

function heatColor(t: number): string {
  // White (low) to red (high).
  const g = Math.round(255 - 155 * t);
  return `rgb(255,${g},${g})`;
}

/** Heat-map tables (first axis down, second across) for each strategy × combination of the other axes. */
function heatMaps(doc: SweepDoc): string {
  const axes = Object.keys(doc.grid);
  if (axes.length < 2) return '';
  const [a, b] = [axes[0]!, axes[1]!];
  if (![a, b].every((p) => doc.grid[p]!.every((v) => numericValue(v) !== undefined))) return '';
  const labels = axisLabels(axes);
  const rest = axes.slice(2);
  const groups = new Map<string, SweepCell[]>();
  for (const c of doc.cells) {
    const key = [c.strategy ?? '', ...rest.map((p) => `${labels[p]}=${c.values[p]}`)].filter(Boolean).join(', ');
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [c]);
    else group.push(c);
  }
  const parts: string[] = [];
  for (const path of HEAT_PATHS) {
    const f = SWEEP_FIGURES.find((x) => x.path === path)!;
    for (const [group, cells] of groups) {
      const at = new Map(cells.map((c) => [`${c.values[a]}\u0000${c.values[b]}`, figureAt(c.summary, path)]));
      // Loops, not Math.min(...xs): a group may hold more cells than a call takes arguments.
      let lo = Infinity;
      let hi = -Infinity;
      for (const x of at.values()) {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
      }
      const head = `<tr><th>${esc(labels[a]!)} \\ ${esc(labels[b]!)}</th>${doc.grid[b]!.map((v) => `<th>${esc(v)}</th>`).join('')}</tr>`;
      const rows = doc.grid[a]!.map((va) => {
        const tds = doc.grid[b]!.map((vb) => {
          const x = at.get(`${va}\u0000${vb}`);
          if (x === undefined) return '<td></td>';
          const t = hi > lo ? (x - lo) / (hi - lo) : 0;
          return `<td style="background:${heatColor(t)}">${formatFigure(f, x)}</td>`;
        });
        return `<tr><th>${esc(va)}</th>${tds.join('')}</tr>`;
      });
      parts.push(
        `<div class="heat"><h3>${esc(f.label)}${group ? ` · ${esc(group)}` : ''}</h3><table class="heatmap" data-figure="${esc(path)}"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div>`,
      );
    }
  }
  return `<h2>Heat maps</h2><p class="note">${esc(labels[a]!)} down, ${esc(labels[b]!)} across; darker is higher within each table.</p>${parts.join('')}`;
}

function cellsTable(doc: SweepDoc, best: SweepCell | undefined, objective: Objective): string {
  const axes = Object.keys(doc.grid);
  const labels = axisLabels(axes);
  const figures = tableFigures(objective);
  const head =
    `<tr><th>#</th>${axes.map((a) => `<th title="${esc(a)}">${esc(labels[a]!)}</th>`).join('')}` +
    `${doc.strategies.length > 0 ? '<th>strategy</th>' : ''}${figures.map((f) => `<th>${esc(f.label)}</th>`).join('')}</tr>`;
  const rows = doc.cells.map(
    (c) =>
      `<tr${c === best ? ' class="best"' : ''}><th>${c.index}</th>${axes.map((a) => `<td>${esc(c.values[a] ?? '')}</td>`).join('')}` +
      `${doc.strategies.length > 0 ? `<td>${esc(c.strategy ?? '')}</td>` : ''}` +
      `${figures.map((f) => `<td>${formatFigure(f, figureValue(f, c.summary))}</td>`).join('')}</tr>`,
  );
  return `<table class="cells"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Renders the sweep report. */
export function renderSweepReport(doc: SweepDoc, objective: Objective): string {
  const axes = Object.keys(doc.grid);
  const labels = axisLabels(axes);
  const first = axes[0]!;
  const firstValues = doc.grid[first]!;
  const numeric = firstValues.every((v) => numericValue(v) !== undefined);
  const timed = numeric && firstValues.some((v) => /[a-z]\s*$/i.test(v.trim().replace(/["']$/, '')));
  // x positions: the values themselves when numeric (durations in ms), else their positions; in ascending order.
  const order = firstValues.map((v, i) => ({ v, x: numeric ? numericValue(v)! : i })).sort((p, q) => p.x - q.x);
  const figures = chartFigures(doc);
  const series = seriesKeys(doc);
  // Each cell by series and first-axis value (the first cell there, as a search would find).
  const rest = axes.slice(1);
  const byPoint = new Map<string, SweepCell>();
  for (const c of doc.cells) {
    const key = `${seriesKey(rest, c.strategy, c.values)}\u0000${c.values[first]}`;
    if (!byPoint.has(key)) byPoint.set(key, c);
  }
  const data = {
    xs: order.map((o) => o.x),
    xLabels: order.map((o) => o.v),
    numeric,
    xTitle: `${labels[first]}${timed ? ' (ms)' : ''}`,
    series: series.map((s) => s.label),
    figures: figures.map((f) => ({
      id: `fig-${f.path.replace(/[^A-Za-z0-9]/g, '-')}`,
      title: f.label,
      ys: series.map((s) =>
        order.map((o) => {
          const c = byPoint.get(`${s.key}\u0000${o.v}`);
          if (c === undefined) return null;
          const y = figureAt(c.summary, f.path);
          return f.kind === 'percent' ? y * 100 : y;
        }),
      ),
    })),
  };
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const best = bestCell(doc.cells, objective);
  const bestHtml =
    best === undefined
      ? `<p id="best">No cell qualifies (${esc(describeObjective(objective))}).</p>`
      : `<p id="best">Best by ${esc(describeObjective(objective))}: <b>cell #${best.index}</b> ` +
        `${esc([...(best.strategy === null ? [] : [`strategy ${best.strategy}`]), ...axes.map((a) => `${labels[a]}=${best.values[a]}`)].join(', '))}` +
        ` — ${bestFigures(objective).map((f) => `${esc(f.label)} ${formatFigure(f, figureValue(f, best.summary))}`).join(' · ')}.</p>` +
        `<p class="note">The objective compares its figures in order (<code>${esc(objective.name)}</code>), then the cell index; ` +
        `duplicates are provider executions beyond one per request; extra attempts % is attempts beyond the first, as a share of requests.</p>` +
        `<p class="note">Reproduce it alone: <code>zonesim sweep … --explain ${best.index}</code> prints the <code>zonesim run</code> command.</p>`;
  const gridList = axes.map((a) => `<li><code>${esc(a)}</code>: ${doc.grid[a]!.map(esc).join(', ')}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>zonesim sweep: ${esc(doc.scenario)}</title>
<style>${asset('uPlot.min.css')}
body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 16px}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th:first-child{text-align:left}
tr.best td,tr.best th{background:#e6f4ea;font-weight:600}.chart{display:inline-block;vertical-align:top;margin:8px 16px 16px 0}.note{color:#666}
.heat{display:inline-block;vertical-align:top;margin-right:24px}.heat h3{font-size:14px;margin:8px 0 0}</style></head>
<body>
<script>window.addEventListener('error', (e) => { document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + '; '; });</script>
<h1>zonesim sweep: ${esc(doc.scenario)}</h1>
<p class="note">${doc.cells.length} cells · seeds ${esc(doc.seeds.join(', '))} · zonesim ${esc(doc.version)}${doc.strategies.length > 0 ? ` · strategies ${esc(doc.strategies.join(', '))}` : ''}</p>
<ul>${gridList}</ul>
<h2>Best cell</h2>
${bestHtml}
<h2>Figures against ${esc(labels[first]!)}</h2>
<p class="note">One line per ${esc(series.length > 1 ? [...(doc.strategies.length > 0 ? ['strategy'] : []), ...axes.slice(1).map((a) => labels[a]!)].join(' × ') : 'sweep')}. Percentages are of requests; p50/p99/p999 are of successful requests, "p99 all" of every request.</p>
${figures.map((f) => `<div id="fig-${f.path.replace(/[^A-Za-z0-9]/g, '-')}" class="chart"></div>`).join('\n')}
${heatMaps(doc)}
<h2>Every cell</h2>
${cellsTable(doc, best, objective)}
<script>${asset('uPlot.iife.min.js')}</script>
<script>
const sweep = ${json};
const colors = ['#1f77b4','#d62728','#2ca02c','#9467bd','#ff7f0e','#8c564b','#e377c2','#17becf','#7f7f7f','#bcbd22'];
let drawn = 0;
for (const f of sweep.figures) {
  const series = [{ label: sweep.xTitle, value: (u, v) => v == null ? '' : (sweep.numeric ? v : sweep.xLabels[v]) }]
    .concat(sweep.series.map((name, i) => ({ label: name, stroke: colors[i % colors.length], width: 1.5, points: { show: true } })));
  const x = { label: sweep.xTitle };
  if (!sweep.numeric) { x.splits = () => sweep.xs; x.values = (u, splits) => splits.map(s => sweep.xLabels[s] ?? ''); }
  new uPlot({ title: f.title, width: Math.max(420, Math.min(620, (window.innerWidth - 90) / 2)), height: 240, series,
    scales: { x: { time: false } }, axes: [x, { label: f.title }] }, [sweep.xs].concat(f.ys), document.getElementById(f.id));
  drawn++;
}
document.body.dataset.charts = String(drawn);
</script>
</body></html>
`;
}
