/**
 * `zonesim recommend`: timeout and retries for every reference (edge and downstream, leaves first)
 * with the inputs of the rule, verified: the scenario as written (before) and re-run with every
 * recommendation applied (after), judged on the objective; when a recommendation is rejected, a
 * second phase runs the alternatives (keep retries, keep timeout, keep both) and names the best.
 * With `--verify-grid`, each method is also swept over timeouts × retries around the formula's
 * answer, to show where the verified optimum sits against the formula.
 */
import { resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { ALTERNATIVES, alternativePlans, firstVerdict, recommendationRuns, verifiedRecommendations } from '../analysis/recommend-verification.js';
import { verifyGridPlans, verifyGridResult, type VerifyGridResult } from '../analysis/recommend-verify-grid.js';
import type { Scenario } from '../model/types.js';
import { recommendLines } from '../report/recommend-output.js';
import { guardCost, type CostOptions } from '../parallel/cost-guard.js';
import { UsageError, type Io } from '../scenario/io.js';
import { preflightPlugins } from '../plugins/plugins.js';
import { pluginTasks } from '../plugins/plugin-tasks.js';
import type { WarmWorkers } from '../parallel/jobs.js';
import { runSimTasks } from '../parallel/parallel.js';
import { progressBars } from '../parallel/progress.js';
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
      // Run only when a recommendation is rejected: its timeout, its retries, or both kept as written.
      { label: 'alternatives (if a recommendation is rejected)', scenario: planRuns[1], count: ALTERNATIVES.length },
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
  const task = (s: Scenario) => ({ scenario: s, scenarioPath: path, seed: s.seed, force: opts.force, maxRequests: opts.maxRequests });
  const [before, after, ...gridRuns] = await runSimTasks(all.map(task), opts.jobs, progress, opts.workers, pluginTasks);
  // A recommendation the re-run finds worse: its alternatives are verified too (a second round).
  const alternatives = alternativePlans(scenario, recs, firstVerdict(recs, before!, after!));
  const alternativeRuns =
    alternatives.length === 0
      ? []
      : await runSimTasks(
          alternatives.map((a) => task(a.scenario)),
          opts.jobs,
          progressBars(io.progressStream, alternatives.map((a) => `keeping ${a.kind} as written`), scenario.durationMs),
          undefined,
          pluginTasks,
        );
  const result = verifiedRecommendations(
    recs,
    before!,
    after!,
    alternatives.map((a, i) => ({ kind: a.kind, summary: alternativeRuns[i]! })),
  );
  let offset = 0;
  const grids = plans.map((plan) => {
    const part = gridRuns.slice(offset, (offset += plan.cells.length));
    return verifyGridResult(plan, part, t);
  });
  if (opts.json) {
    const doc = { recommendations: result.recommendations, verification: result.verification, ...(opts.verifyGrid ? { verifyGrid: grids } : {}) };
    io.stdout(JSON.stringify(doc, null, 2) + '\n');
    return 0;
  }
  const lines = recommendLines(scenario.name, t, result);
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
