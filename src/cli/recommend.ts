/**
 * `zonesim recommend`: timeout and retries per (consumer group, service, method) with the inputs
 * of the rule, and the scenario re-run with every recommendation applied (before / after).
 */
import { resolve } from 'node:path';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { recommendationRuns, verifiedRecommendations } from '../scenario/recommend.js';
import { UsageError, type Io } from './io.js';
import { loadPlugins } from './plugins.js';
import { runSimTasks } from './parallel.js';
import { progressBars } from './progress.js';

export interface RecommendOptions {
  scenario: string;
  targetTimeoutRate: number;
  set: string[];
  json: boolean;
  /** Worker threads for the two verification runs. */
  jobs: number;
}

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;

/** Runs the command; returns the exit code. */
export async function runRecommend(opts: RecommendOptions, io: Io): Promise<number> {
  const t = opts.targetTimeoutRate;
  if (!(t > 0 && t < 1)) throw new UsageError(`--target-timeout-rate: expected a fraction between 0 and 1, found ${t}`);
  const path = resolve(io.cwd, opts.scenario);
  const { scenario } = loadScenarioWithRaw(path, opts.set);
  await loadPlugins(scenario, path);
  const { recs, runs } = recommendationRuns(scenario, t);
  const progress = progressBars(io.progressStream, ['as written', 'recommended'], scenario.durationMs);
  const [before, after] = await runSimTasks(runs.map((s) => ({ scenario: s, scenarioPath: path, seed: s.seed })), opts.jobs, progress);
  const result = verifiedRecommendations(recs, before!, after!);
  if (opts.json) {
    io.stdout(JSON.stringify({ recommendations: result.recommendations }, null, 2) + '\n');
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
  io.stdout(lines.join('\n') + '\n');
  return 0;
}
