/**
 * `zonesim recommend` for people: each recommendation with its one-line reason and verdict (past
 * MAX_RECOMMENDATION_BLOCKS, the recommendations counted by setting and the first of them, rejected
 * first), then one verification table (the scenario as written, the re-run with every recommendation applied,
 * and the best alternative when one was rejected) on every outcome, overall, per consumer zone and
 * per recommended method, each scope once: a scope whose figures equal one already shown is left
 * out. Rendered from the result `recommend --json` prints; nothing is computed here.
 */
import type { ScopeSummary } from '../metrics/summary.js';
import type { Recommendation, Verification } from '../analysis/recommend-verification.js';
import { MAX_METHOD_ROWS, worstMethods } from './compare-table.js';

const rate = (n: number, of: number) => (of === 0 ? '-' : ((n / of) * 100).toFixed(3));
const retriesWord = (n: number) => `${n} ${n === 1 ? 'retry' : 'retries'}`;

/** The cells of one verification row. */
function cells(s: ScopeSummary): string[] {
  const o = s.outcomes;
  return [
    String(s.requests),
    rate(o.ok, s.requests),
    rate(o.timeout, s.requests),
    rate(o.noProvider + o.forbidden, s.requests),
    rate(o.rejected, s.requests),
    // error % as errorRate: a mocked request (outcome mock) is no error.
    rate(s.requests - o.ok - (o.mock ?? 0), s.requests),
    s.latencyAllMs.p99.toFixed(1),
    String(s.duplicateExecutions),
    String(s.duplicateWrites),
  ];
}

const HEADER = ['scope', 'run', 'requests', 'ok %', 'timeout %', 'no-provider %', 'rejected %', 'error %', 'p99 all ms', 'duplicates', 'dup writes'];

function render(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((x, i) => (i < 2 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ').trimEnd());
}

/**
 * The most recommendations recommend's text shows one by one: an estate of thousands of methods gets as many
 * recommendations (the seed scale's 2,000, five lines each), mostly of a few settings.
 */
export const MAX_RECOMMENDATION_BLOCKS = 20;

const count = (n: number) => n.toLocaleString('en-US');

/** What a recommendation's setting line says: its values, as written, verdict and what to do instead. */
function settingOf(r: Recommendation): string {
  const written = `as written ${r.asWritten.timeoutMs} ms, ${retriesWord(r.asWritten.retries)}`;
  const a = r.alternative;
  const instead =
    r.verdict !== 'rejected'
      ? ''
      : a === null || a === undefined || (a.timeoutMs === r.asWritten.timeoutMs && a.retries === r.asWritten.retries)
        ? '; instead: keep it as written'
        : a.timeoutMs === r.timeoutMs && a.retries === r.retries
          ? `; instead: as recommended, with the others' ${a.kept} as written`
          : `; instead: timeout ${a.timeoutMs} ms, retries ${a.retries}`;
  return `timeout ${r.timeoutMs} ms, retries ${r.retries} (${written}): ${r.verdict}${instead}`;
}

/**
 * Past MAX_RECOMMENDATION_BLOCKS: the recommendations counted by setting (the most first, each with its first
 * methods), and the ones shown below, the rejected first, in order.
 */
function summarized(recs: Recommendation[]): { lines: string[]; shown: Recommendation[] } {
  const bySetting = new Map<string, Recommendation[]>();
  for (const r of recs) {
    const key = settingOf(r);
    const same = bySetting.get(key);
    if (same === undefined) bySetting.set(key, [r]);
    else same.push(r);
  }
  const lines = [`${count(recs.length)} recommendations, by setting (every one in --json):`];
  const named = (r: Recommendation) => `${r.consumer} (${r.zone}) -> ${r.service}.${r.method}`;
  for (const [setting, same] of [...bySetting].sort((a, b) => b[1].length - a[1].length)) {
    const first = same.slice(0, 3).map(named).join(', ');
    const more = same.length > 3 ? `, and ${count(same.length - 3)} more` : '';
    lines.push(`  ${count(same.length)} x ${setting}: ${first}${more}`);
  }
  const shown = [...recs.filter((r) => r.verdict === 'rejected'), ...recs.filter((r) => r.verdict !== 'rejected')].slice(0, MAX_RECOMMENDATION_BLOCKS);
  lines.push('', `the first ${shown.length} of them, the rejected first:`, '');
  return { lines, shown };
}

/** The recommendation lines, the verification table and the verdict. */
export function recommendLines(name: string, target: number, result: { recommendations: Recommendation[]; verification: Verification }): string[] {
  const v = result.verification;
  const lines = [`recommend ${name}: target timeout rate ${target}; objective: error rate of all calls, then their p99 (${v.objective})`, ''];
  let listed = result.recommendations;
  if (listed.length > MAX_RECOMMENDATION_BLOCKS) {
    const summary = summarized(listed);
    lines.push(...summary.lines);
    listed = summary.shown;
  }
  for (const r of listed) {
    const written = `as written ${r.asWritten.timeoutMs} ms, ${retriesWord(r.asWritten.retries)}`;
    const via = r.calledBy === undefined ? '' : ` (downstream, called by ${r.calledBy.join(', ')})`;
    lines.push(`${r.consumer} (${r.zone}) -> ${r.service}.${r.method}${via}: timeout ${r.timeoutMs} ms, retries ${r.retries} (${written}): ${r.verdict}`);
    lines.push(`  ${r.reason}`);
    lines.push(`  ${r.verdict === 'rejected' ? 'rejected' : 'verified'}: ${r.verdictReason}`);
    if (r.verdict === 'rejected') {
      const a = r.alternative;
      lines.push(
        a === null || a === undefined
          ? `  no alternative tried beats the scenario as written: keep ${r.asWritten.timeoutMs} ms, ${retriesWord(r.asWritten.retries)}`
          : a.timeoutMs === r.asWritten.timeoutMs && a.retries === r.asWritten.retries
            ? `  instead: keep it as written (${a.timeoutMs} ms, ${retriesWord(a.retries)}): ${a.verdictReason}`
            : a.timeoutMs === r.timeoutMs && a.retries === r.retries
              ? // Rejected with every other one (the whole scenario got worse) while its own values already are the alternative's.
                `  instead: as recommended (timeout ${a.timeoutMs} ms, retries ${a.retries}: its ${a.kept} already as written), with the others' ${a.kept} as written: ${a.verdictReason}`
              : `  instead: timeout ${a.timeoutMs} ms, retries ${a.retries} (the ${a.kept} as written): ${a.verdictReason}`,
      );
    }
    lines.push('');
  }
  const columns: Array<{ run: string; overall: ScopeSummary; zones: Record<string, ScopeSummary>; methods: Record<string, ScopeSummary> }> = [
    { run: 'before', overall: v.before.overall, zones: v.before.byConsumerZone, methods: v.before.byMethod },
    { run: 'after', overall: v.after.overall, zones: v.after.byConsumerZone, methods: v.after.byMethod },
  ];
  if (v.alternative) {
    const alt = v.alternative;
    columns.push({
      run: `${alt.kept} kept`,
      overall: alt.figures.overall,
      zones: alt.figures.byConsumerZone,
      methods: alt.figures.byMethod,
    });
  }
  const scopes: Array<[string, Array<ScopeSummary | undefined>]> = [['overall', columns.map((c) => c.overall)]];
  for (const zone of Object.keys(v.before.byConsumerZone)) scopes.push([zone, columns.map((c) => c.zones[zone])]);
  // An estate's thousands of methods: the MAX_METHOD_ROWS worst in any run (as compare's table), every one in --json.
  const methods = new Set(Object.keys(columns[0]!.methods));
  const worst = worstMethods(columns.map((c) => c.methods), methods, MAX_METHOD_ROWS);
  for (const key of methods) if (worst === undefined || worst.has(key)) scopes.push([key, columns.map((c) => c.methods[key] ?? c.overall)]);
  const rows: string[][] = [HEADER];
  const shown = new Set<string>();
  const causes: string[] = [];
  for (const [scope, figures] of scopes) {
    const body = figures.map((f, i) => [columns[i]!.run, ...(f === undefined ? cells(emptyScope) : cells(f))]);
    const key = JSON.stringify(body);
    if (shown.has(key)) continue;
    shown.add(key);
    body.forEach((b, i) => rows.push([i === 0 ? scope : '', ...b]));
    figures.forEach((f, i) => {
      const c = Object.entries(f?.rejectedCauses ?? {});
      if (c.length > 0) causes.push(`${scope} ${columns[i]!.run}: ${c.map(([k, n]) => `${k} ${n}`).join(', ')}`);
    });
  }
  lines.push('verification: the scenario as written (before), with every recommendation applied (after)' + (v.alternative ? ', and the best alternative tried' : ''));
  if (worst !== undefined) {
    lines.push(`  by method: the ${worst.size} of ${methods.size} with the highest error %, then p99 all ms, in any run (every method in --json)`);
  }
  lines.push(...render(rows).map((l) => `  ${l}`));
  if (causes.length > 0) lines.push(`  rejected by cause: ${[...new Set(causes)].join('; ')}`);
  lines.push('');
  lines.push(`verdict: ${v.verdict === 'accepted' ? 'accepted' : 'REJECTED'}: ${v.verdictReason}`);
  if (v.alternative !== undefined) {
    lines.push(
      v.alternative === null
        ? '  no alternative tried (timeouts, retries or both kept as written for the rejected recommendations) beats the scenario as written: keep it'
        : `  ${v.verdict === 'accepted' ? 'what to apply: the accepted recommendations, and' : 'best alternative:'} the rejected recommendations keep their ${v.alternative.kept} as written: ${v.alternative.verdictReason}`,
    );
  }
  return lines;
}

const emptyScope = {
  requests: 0,
  outcomes: { ok: 0, timeout: 0, noProvider: 0, rejected: 0, network: 0, forbidden: 0, biz: 0, mock: 0, blocked: 0, lost: 0 },
  latencyAllMs: { p99: 0 },
  duplicateExecutions: 0,
  duplicateWrites: 0,
} as unknown as ScopeSummary;

