/**
 * `zonesim recommend`: timeout and retries per (consumer group, service, method) with the inputs
 * of the rule, and the scenario re-run with every recommendation applied (before / after). With
 * `--verify-grid`, each method is also swept over timeouts × retries around the formula's answer,
 * to show where the verified optimum sits against the formula.
 */
import { resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import {
  recommendationRuns,
  verifiedRecommendations,
  verifyGridPlans,
  verifyGridResult,
  type VerifyGridResult,
} from '../scenario/recommend.js';
import { guardCost, type CostOptions } from './cost-guard.js';
import { UsageError, type Io } from './io.js';
import { preflightPlugins } from './plugins.js';
import type { WarmWorkers } from './jobs.js';
import { runSimTasks } from './parallel.js';
import { progressBars } from './progress.js';
import { combinedProgress } from './sweep.js';

export interface RecommendOptions extends CostOptions {
  scenario: string;
  targetTimeoutRate: number;
  set: string[];
  json: boolean;
  /** Worker threads for the two verification runs (and the grid's). */
  jobs: number;
  /** Workers started before the scenario was read (`withWarmWorkers`); `runSimTasks` takes them. */
  workers?: WarmWorkers;
  /** Also sweep timeout × retries around each method's recommendation. */
  verifyGrid?: boolean;
}

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;

/** Runs the command; returns the exit code. */
export async function runRecommend(opts: RecommendOptions, io: Io): Promise<number> {
  const t = opts.targetTimeoutRate;
  if (!(t > 0 && t < 1)) throw new UsageError(`--target-timeout-rate: expected a fraction between 0 and 1, found ${t}`);
  const path = resolve(io.cwd, opts.scenario);
  const { scenario } = loadScenarioWithRaw(path, opts.set);
  // --no-plugins refuses a plugin scenario in a dry run too.
  preflightPlugins(scenario, path);
  {
    // Before any plugin code or simulation: the estimate of every run to come (grid cells included).
    const { recs: planRecs, runs: planRuns } = recommendationRuns(scenario, t);
    const cells = opts.verifyGrid ? verifyGridPlans(scenario, planRecs).flatMap((p) => p.cells.map((c) => c.scenario)) : [];
    const planned = [
      ...planRuns.map((s, i) => ({ label: i === 0 ? 'as written' : 'recommended', scenario: s, count: 1 })),
      ...cells.map((s, i) => ({ label: `verify grid cell ${i + 1}`, scenario: s, count: 1 })),
    ];
    const dryRun = guardCost('recommend', planned, opts, io);
    if (dryRun !== undefined) return dryRun;
  }
  const { recs, runs } = recommendationRuns(scenario, t);
  const plans = opts.verifyGrid ? verifyGridPlans(scenario, recs) : [];
  const all = [...runs, ...plans.flatMap((p) => p.cells.map((c) => c.scenario))];
  const progress =
    plans.length === 0
      ? progressBars(io.progressStream, ['as written', 'recommended'], scenario.durationMs)
      : combinedProgress(io.progressStream, `recommend + verify grid (${all.length} runs)`, all.map((s) => s.durationMs));
  const [before, after, ...gridRuns] = await runSimTasks(all.map((s) => ({ scenario: s, scenarioPath: path, seed: s.seed })), opts.jobs, progress, opts.workers);
  const result = verifiedRecommendations(recs, before!, after!);
  let offset = 0;
  const grids = plans.map((plan) => {
    const part = gridRuns.slice(offset, (offset += plan.cells.length));
    return verifyGridResult(plan, part, t);
  });
  if (opts.json) {
    const doc = opts.verifyGrid ? { recommendations: result.recommendations, verifyGrid: grids } : { recommendations: result.recommendations };
    io.stdout(JSON.stringify(doc, null, 2) + '\n');
    return 0;
  }
  const lines = [`recommend ${scenario.name}: target timeout rate ${t}`, ''];
  for (const r of result.recommendations) {
    lines.push(`${r.consumer} (${r.zone}) -> ${r.service}.${r.method}: timeout ${r.timeoutMs} ms, retries ${r.retries}`);
    lines.push(`  ${r.reason}`);
    lines.push(
      `  before: timeout ${pct(r.before.timeoutRate)}, p99 ${r.before.latencyAllMs.p99} ms, attempts/request ${r.before.retryAmplification}, duplicates ${r.before.duplicateExecutions}`,
    );
    lines.push(
      `  after:  timeout ${pct(r.after.timeoutRate)}, p99 ${r.after.latencyAllMs.p99} ms, attempts/request ${r.after.retryAmplification}, duplicates ${r.after.duplicateExecutions}`,
    );
    lines.push('');
  }
  lines.push(
    `whole scenario: timeout rate ${pct(result.before.timeoutRate)} -> ${pct(result.after.timeoutRate)}, ` +
      `error rate ${pct(result.before.errorRate)} -> ${pct(result.after.errorRate)}, ` +
      `duplicate executions ${result.before.duplicateExecutions} -> ${result.after.duplicateExecutions}`,
  );
  for (const g of grids) lines.push('', ...verifyGridLines(g, t));
  io.stdout(lines.join('\n') + '\n');
  return 0;
}

/** One method's verification grid for people: timeout factors down, retries across, then the verdict. */
function verifyGridLines(g: VerifyGridResult, target: number): string[] {
  const cell = (f: number, r: number) => g.cells.find((c) => c.timeoutFactor === f && c.retries === r)!;
  const mark = (c: { timeoutFactor: number; retries: number }) =>
    (c.timeoutFactor === 1 && c.retries === g.formula.retries ? 'f' : '') +
    (g.optimum !== null && c.timeoutFactor === g.optimum.timeoutFactor && c.retries === g.optimum.retries ? 'o' : '');
  const rows: string[][] = [['timeout', '', ...g.retries.map((r) => `retries ${r}`)]];
  for (const f of g.factors) {
    rows.push([
      `×${f}`,
      `${cell(f, g.retries[0]!).timeoutMs} ms`,
      ...g.retries.map((r) => {
        const c = cell(f, r);
        const m = mark(c);
        return `${pct(c.timeoutRate)} / ${c.p99AllMs.toFixed(0)} ms${m ? ` (${m})` : ''}`;
      }),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return [
    `verify grid ${g.service}.${g.method}: timeout rate / p99 of all requests, target ${target} ` +
      `(f: the formula's answer, o: the verified optimum, the lowest p99 within the target${g.retries.length === 1 ? '; a write is never retried' : ''})`,
    ...rows.map((r) => '  ' + r.map((x, i) => (i < 2 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ').trimEnd()),
    `  ${g.verdict}`,
  ];
}
