/**
 * The table `compare` (and `merge` of a sharded comparison) prints: strategies side by side, their
 * failures and registry lines, one row per strategy and consumer zone with `--by zone`, one per
 * strategy and method when there are several methods, and with three or more zones the zone-pair
 * table. Over several seeds every figure reads `mean ± half-width` of its 95% interval (the
 * summaries' `ci95`). Rendered from the summaries alone, like every table.
 */
import type { ScopeSummary, Summary } from '../metrics/summary.js';
import {
  fmtCount,
  fmtMs,
  FIGURE_COLUMNS,
  failuresText,
  mockedText,
  figureCell,
  figureColumns,
  registryText,
  renderTable,
  zonePairTable,
  type FigureColumn,
} from './format.js';
import { registryOf, type RegistryWithServers } from './registry-servers.js';

/** What `compare --by` may add: `zone`, one row per strategy and consumer zone. */
export const COMPARE_BY = ['zone'] as const;

/** Options of the compare table. */
export interface CompareTableOptions {
  /** `zone`: a table with one row per strategy and consumer zone. */
  by?: (typeof COMPARE_BY)[number];
}

/**
 * Strategies side by side: one row per strategy with the headline figures (and, when the registry is
 * a server, push lag p99 and stale calls), then per strategy a
 * `failures` line and a `registry` line (when it pushed), then the tables by consumer zone (when
 * asked), by method (several methods) and by zone pair (three or more zones).
 */
export function formatCompareTable(byStrategy: Record<string, Summary>, opts: CompareTableOptions = {}): string {
  const strategies = Object.entries(byStrategy);
  const summaries = strategies.map(([, s]) => s);
  const columns = figureColumns(summaries, { attemptsPerRequest: true });
  // Push lag and stale calls per strategy when the registry is a server (the cures' effect); not in the scope tables.
  const headline = [...columns, ...registryCompareColumns(summaries)];
  let out = '';
  const seeds = summaries[0]?.seeds ?? [];
  if (summaries.some((s) => s.ci95 !== undefined)) {
    out += `mean ± half-width of the 95% confidence interval (Student t) over ${seeds.length} seeds (${seeds.join(', ')})\n\n`;
  }
  const rows: string[][] = [['strategy', ...headline.map((c) => c.header)]];
  for (const [name, s] of strategies) rows.push([name, ...headline.map((c) => figureCell(c, s))]);
  out += renderTable(rows).join('\n') + '\n';
  const notes: string[] = [];
  for (const [name, s] of strategies) {
    const failures = failuresText(s);
    if (failures !== undefined) notes.push(`${name} failures ${failures}`);
    const mocked = mockedText(s);
    if (mocked !== undefined) notes.push(`${name} mocked ${mocked}`);
  }
  for (const [name, s] of strategies) {
    const registry = registryText(s);
    if (registry !== undefined) notes.push(`${name} registry: ${registry}`);
  }
  if (notes.length > 0) out += '\n' + notes.join('\n') + '\n';
  if (opts.by === 'zone') out += '\nby consumer zone\n' + scopeTable(strategies, 'zone', (s) => s.byConsumerZone, columns) + '\n';
  // Several methods (e.g. an application's healthy and slow services): each one per strategy too,
  // since one method's failures can hide in the totals of another's traffic.
  const methods = new Set(summaries.flatMap((s) => Object.keys(s.byService)));
  if (methods.size > 1) {
    const c = FIGURE_COLUMNS;
    const shown = worstMethods(summaries.map((s) => s.byService), methods, MAX_METHOD_ROWS);
    const title =
      shown === undefined
        ? 'by method'
        : `by method: the ${shown.size} of ${fmtCount(methods.size)} with the highest error %, then p99 all ms, in any strategy (every method in compare.csv)`;
    out += `\n${title}\n` + scopeTable(strategies, 'method', (s) => s.byService, [c.requests, c.p99, c.p99All, c.timeout, c.rejected, c.error], shown) + '\n';
  }
  const pairs = zonePairTable(
    strategies.map(([name, summary]) => ({ lead: [name], summary })),
    ['strategy'],
  );
  if (pairs !== undefined) out += '\n' + pairs.join('\n') + '\n';
  return out;
}

/**
 * The most methods the compare table (and recommend's verification table) lists one by one: an estate of a
 * thousand services would print a thousand rows per strategy, burying the few that fail.
 */
export const MAX_METHOD_ROWS = 20;

/**
 * The `limit` methods to list when there are more: ranked by their highest error % in any of the runs (each
 * run's scopes by method), then their highest p99 over all requests, then by name; undefined when every
 * method fits.
 */
export function worstMethods(runs: ReadonlyArray<Readonly<Record<string, ScopeSummary>>>, methods: ReadonlySet<string>, limit: number): Set<string> | undefined {
  if (methods.size <= limit) return undefined;
  const ranked = [...methods].map((name) => {
    let error = 0;
    let p99All = 0;
    for (const byMethod of runs) {
      const scope = byMethod[name];
      if (scope === undefined) continue;
      error = Math.max(error, scope.errorRate);
      p99All = Math.max(p99All, scope.latencyAllMs.p99);
    }
    return { name, error, p99All };
  });
  ranked.sort((a, b) => b.error - a.error || b.p99All - a.p99All || (a.name < b.name ? -1 : 1));
  return new Set(ranked.slice(0, limit).map((m) => m.name));
}

/**
 * One row per strategy and scope (zone or method, sorted by name across strategies; only those in `only`
 * when given), the scope's figures in `columns`.
 */
function scopeTable(
  strategies: Array<[string, Summary]>,
  label: string,
  scopesOf: (s: Summary) => Summary['byConsumerZone'],
  columns: FigureColumn[],
  only?: ReadonlySet<string>,
): string {
  const names = [...new Set(strategies.flatMap(([, s]) => Object.keys(scopesOf(s))))].filter((n) => only === undefined || only.has(n)).sort();
  const rows: string[][] = [['strategy', label, ...columns.map((c) => c.header)]];
  for (const [strategy, s] of strategies) {
    for (const name of names) {
      const scope = scopesOf(s)[name];
      if (scope !== undefined) rows.push([strategy, name, ...columns.map((c) => figureCell(c, scope))]);
    }
  }
  return renderTable(rows, 2).join('\n');
}

/**
 * The compare table's registry columns, when a strategy's summary has the push lag (the registry is
 * a server): its p99 and the stale calls, with their 95% half-widths over several seeds.
 */
function registryCompareColumns(summaries: readonly Summary[]): FigureColumn[] {
  if (!summaries.some((s) => registryOf(s)?.pushLagMs !== undefined)) return [];
  // Zone and method rows are scopes without a registry block: their cells show a dash.
  const registry = (s: ScopeSummary) => (s as Partial<Summary>).registry as RegistryWithServers | undefined;
  return [
    { header: 'push lag p99 ms', value: (s) => registry(s)?.pushLagMs?.p99, text: fmtMs, halfWidth: (s) => s.ci95?.['registry.pushLagMs.p99'] },
    { header: 'stale calls', value: (s) => registry(s)?.staleCalls, text: fmtCount, halfWidth: (s) => s.ci95?.['registry.staleCalls'] },
  ];
}
