/**
 * `zonesim check` as a command: loads the scenario (with `--set`), checks the cost of the worlds it
 * builds, refuses plugins under `--no-plugins`, and runs the check (analysis/check.ts) here and on
 * `--jobs` threads (parallel/check-jobs.ts: one world per strategy that changes something), or on a
 * worker thread under the plugin time budget when a route goes through a router plugin (only those
 * are imported); prints the SPEC 4.2 JSON or the text (report/check-format.ts).
 */
import { resolve } from 'node:path';
import type { Scenario } from '../model/types.js';
import { mergeCheck, planCheck, type CheckReport } from '../analysis/check.js';
import { runCheckJobs } from '../parallel/check-jobs.js';
import { guardCost } from '../parallel/cost-guard.js';
import { checkJobs, simulationThreads } from '../parallel/jobs.js';
import { runWatchedJob } from '../plugins/plugin-watchdog.js';
import { pluginPolicy } from '../plugins/plugin-policy.js';
import { preflightPlugins } from '../plugins/plugins.js';
import { formatCheckReport } from '../report/check-format.js';
import type { Io } from '../scenario/io.js';
import { loadScenarioWithRaw } from '../scenario/load.js';
import { checkRouterPlugins, type PluginRef } from '../scenario/plugin-refs.js';

/** Options of `zonesim check` (the yargs command in main.ts passes them). */
export interface CheckOptions {
  scenario: string;
  set: string[];
  json: boolean;
  /** Exit 1 when there is any problem (of the scenario as written or of a strategy checked). */
  strict: boolean;
  /** Check even when the worlds it builds would not fit in memory (cost-guard.ts). */
  force?: boolean;
  /** Strategies to check besides the scenario as written; undefined: the scenario's own; []: none. */
  strategies?: string[];
  /** Threads for the worlds checked (the scenario as written and each strategy that changes something); default: the cores. */
  jobs?: number;
}

/** Runs `zonesim check`; returns the exit code (1 with `strict` when there is a problem). */
export async function runCheck(opts: CheckOptions, io: Io): Promise<number> {
  const jobs = checkJobs(opts.jobs);
  const path = resolve(io.cwd, opts.scenario);
  const { scenario } = loadScenarioWithRaw(path, opts.set);
  // One world per job: the scenario as written, and each strategy that changes something.
  const plan = planCheck(scenario, opts.strategies);
  const strategies = plan.strategies.map((st) => st.name);
  const threads = simulationThreads(jobs, plan.jobs.length);
  // Each world (instances, providers, timeline) runs with no traffic: its memory is checked first.
  const quiet = (s: Scenario): Scenario => ({ ...s, consumers: s.consumers.map((c) => ({ ...c, ratePerSec: 0 })), faults: s.faults.filter((f) => f.action.kind !== 'traffic') });
  const label = (i: number): string =>
    i === 0 ? 'as written' : `strategy ${plan.strategies.filter((st) => st.job === i).map((st) => st.name).join(', ')}`;
  guardCost('check', plan.jobs.map((job, i) => ({ label: `${label(i)}, each phase`, scenario: quiet(job.scenario), count: 1 })), { force: opts.force, maxRequests: Infinity, jobs: threads }, io);
  preflightPlugins(scenario, path);
  // Check routes and never invokes: only the router plugins its routes go through are imported, on a
  // worker thread under the plugin time budget; nothing is imported when no route goes through one.
  const routers = uniqueRouters(plan.jobs.flatMap((job) => checkRouterPlugins(job.scenario)));
  const report =
    routers.length === 0
      ? mergeCheck(plan, await runCheckJobs(plan.jobs, threads))
      : await runWatchedJob<CheckReport>(
          { kind: 'check', scenario, scenarioPath: path, routers, strategies },
          [...new Set(routers.map((r) => r.module))],
          pluginPolicy().timeoutMs,
        );
  io.stdout(opts.json ? JSON.stringify(report, null, 2) + '\n' : formatCheckReport(scenario, report));
  return opts.strict && report.problems.length > 0 ? 1 : 0;
}

// One import per module (several strategies may route through the same plugin).
function uniqueRouters(refs: PluginRef[]): PluginRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.module) && (seen.add(r.module), true));
}
