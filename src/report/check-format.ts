/**
 * The text form of `zonesim check` (the JSON is the report itself): per phase, per consumer group
 * and service, providers after each router; for each strategy checked, only the routes that differ
 * from the scenario as written; then the problems and warnings, each distinct finding once with
 * where it was found (`[as written, strict]`) when strategies were checked.
 */
import type { Scenario } from '../model/types.js';
import type { CheckPhase, CheckReport, CheckRoute } from '../analysis/check.js';
import { ms } from '../analysis/check-warnings.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

// The lines of some routes of one phase: a head per (consumer group, service), a line per outcome.
function routeLines(routes: readonly CheckRoute[], indent: string): string[] {
  const lines: string[] = [];
  let last = '';
  for (const r of routes) {
    const head = `${r.consumer} (${r.zone}) -> ${r.service}`;
    if (head !== last) {
      const state = r.forbidden ? ', forbidden (empty:// pushed)' : r.providersUp < r.providers ? `, ${r.providersUp} up` : '';
      lines.push(`${indent}${head}: ${plural(r.providers, 'provider')}${state}`);
      last = head;
    }
    const steps = r.trace.map((s) => `${s.router} ${s.after}`).join(' -> ');
    const mark = r.providersAfter === 0 ? '  <-- NO PROVIDER' : '';
    lines.push(`${indent}  ${r.methods.join(', ')} [${r.variant}]: ${steps === '' ? `${r.providersAfter}` : steps}${mark}`);
  }
  return lines;
}

/**
 * Past this many (consumer group, service) pairs in a phase, the text lists only this many: those with the fewest
 * providers left (every route is in `--json`). An estate of 1,000 consumer groups calling two services each has
 * 2,000 pairs a phase: its 22 phases were 88,000 lines.
 */
export const ROUTE_PAIRS_SHOWN = 20;

/**
 * The routes of one phase to print, and a line saying which when not all: up to ROUTE_PAIRS_SHOWN (consumer group,
 * service) pairs, all of them; past that, the ROUTE_PAIRS_SHOWN pairs whose worst route keeps the smallest share
 * of the directory (none first: a forbidden directory keeps none), then the fewest providers up, in report order.
 */
function shownRoutes(routes: readonly CheckRoute[]): { routes: readonly CheckRoute[]; title?: string } {
  const pairs = new Map<string, { index: number; kept: number; up: number; routes: CheckRoute[] }>();
  for (const r of routes) {
    const key = `${r.consumer}\u0000${r.zone}\u0000${r.service}`;
    let pair = pairs.get(key);
    if (pair === undefined) pairs.set(key, (pair = { index: pairs.size, kept: Infinity, up: r.providers === 0 ? 0 : r.providersUp / r.providers, routes: [] }));
    pair.kept = Math.min(pair.kept, r.forbidden || r.providers === 0 ? 0 : r.providersAfter / r.providers);
    pair.routes.push(r);
  }
  if (pairs.size <= ROUTE_PAIRS_SHOWN) return { routes };
  const worst = [...pairs.values()].sort((a, b) => a.kept - b.kept || a.up - b.up || a.index - b.index).slice(0, ROUTE_PAIRS_SHOWN);
  worst.sort((a, b) => a.index - b.index);
  return {
    routes: worst.flatMap((p) => p.routes),
    title: `the ${ROUTE_PAIRS_SHOWN} of ${pairs.size} consumer group and service pairs with the fewest providers left (every route in --json)`,
  };
}

// The lines of a phase's routes, capped as `shownRoutes` says.
function cappedRouteLines(routes: readonly CheckRoute[], indent: string): string[] {
  const shown = shownRoutes(routes);
  return [...(shown.title === undefined ? [] : [`${indent}${shown.title}`]), ...routeLines(shown.routes, indent)];
}

const phaseHead = (phase: CheckPhase, i: number): string => `phase ${i + 1}: ${ms(phase.fromMs)} - ${ms(phase.toMs)}`;

// A strategy's routes that the scenario as written does not have, phase by phase.
function strategyRouteLines(asWritten: readonly CheckPhase[], phases: readonly CheckPhase[]): string[] {
  const lines: string[] = [];
  phases.forEach((phase, i) => {
    const own = new Set((asWritten[i]?.routes ?? []).map((r) => JSON.stringify(r)));
    const differ = phase.routes.filter((r) => !own.has(JSON.stringify(r)));
    if (differ.length === 0) return;
    lines.push(`  ${phaseHead(phase, i)}`, ...cappedRouteLines(differ, '    '));
  });
  return lines;
}

/** The most warnings of one kind check's text lists (`--json` has every one). */
export const MAX_WARNINGS_PER_KIND = 20;

/**
 * Each distinct finding once, in first-seen order, with where it was found: the scenario as
 * written (no `strategy`) and the strategies, in the order checked.
 */
function distinct<T extends { strategy?: string }>(items: readonly T[]): Array<{ item: T; where: string[] }> {
  const byKey = new Map<string, { item: T; where: string[] }>();
  for (const x of items) {
    const { strategy, ...rest } = x;
    const key = JSON.stringify(rest);
    const entry = byKey.get(key) ?? { item: x, where: [] };
    entry.where.push(strategy ?? 'as written');
    byKey.set(key, entry);
  }
  return [...byKey.values()];
}

/** The human report: per phase, per consumer group and service, providers after each router; then problems and warnings. */
export function formatCheckReport(scenario: Scenario, report: CheckReport): string {
  const lines: string[] = [];
  const strategies = report.strategies;
  lines.push(
    `check ${scenario.name}: ${plural(report.phases.length, 'phase')}, ${plural(scenario.consumers.length, 'consumer group')}` +
      (strategies.length > 0 ? `; as written and ${strategies.length === 1 ? 'strategy' : 'strategies'} ${strategies.map((s) => s.name).join(', ')}` : ''),
  );
  report.phases.forEach((phase, i) => {
    lines.push('');
    const events = phase.events.length > 0 ? `  [${phase.events.join('; ')}]` : '';
    lines.push(`${phaseHead(phase, i)} (probed at ${ms(phase.probeMs)})${events}`);
    lines.push(...cappedRouteLines(phase.routes, '  '));
  });
  for (const s of strategies) {
    const differ = strategyRouteLines(report.phases, s.phases);
    lines.push('');
    lines.push(`strategy ${s.name}${s.description !== '' ? ` (${s.description})` : ''}: ${differ.length === 0 ? 'every route as the scenario as written' : 'routes that differ from the scenario as written:'}`);
    lines.push(...differ);
  }
  // With strategies, each finding says where it was found; identical findings are printed once.
  const every = strategies.length + 1;
  const tag = (where: string[]): string =>
    strategies.length === 0 ? '' : where.length === every ? '[as written and every strategy] ' : `[${where.join(', ')}] `;
  lines.push('');
  const problems = distinct(report.problems);
  if (problems.length === 0) lines.push('problems: none');
  else {
    lines.push(`problems (${problems.length}):`);
    for (const { item: p, where } of problems) {
      lines.push(`  ${tag(where)}${p.consumer} (${p.zone}) -> ${p.service}, ${ms(p.phase.fromMs)} - ${ms(p.phase.toMs)}, ${p.router}: ${p.message}`);
    }
  }
  const warnings = distinct(report.warnings);
  if (warnings.length > 0) {
    lines.push(`warnings (${warnings.length}):`);
    // An estate of hundreds of consumer groups repeats a finding per group and service: the first of each kind.
    const shownOfKind = new Map<string, number>();
    for (const { item: w, where } of warnings) {
      const n = (shownOfKind.get(w.kind) ?? 0) + 1;
      shownOfKind.set(w.kind, n);
      if (n <= MAX_WARNINGS_PER_KIND) lines.push(`  ${tag(where)}${w.message}`);
    }
    for (const [kind, n] of shownOfKind) {
      if (n > MAX_WARNINGS_PER_KIND) lines.push(`  ... and ${(n - MAX_WARNINGS_PER_KIND).toLocaleString('en-US')} more ${kind} warnings (every one in --json)`);
    }
  }
  return lines.join('\n') + '\n';
}
