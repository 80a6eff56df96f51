/**
 * The worker side of `runWatchedJob` (plugin-watchdog.ts): a `check` whose routes go through
 * router plugins, or a `select` of a plugin load balancer, run on a worker thread so that the main
 * thread can stop a plugin call that does not return. Plugins are imported here, wrapped, with
 * their calls reported into the job's slot. Errors go back as transferable objects (worker-error.ts).
 */
import type { Scenario } from '../model/types.js';
import { checkWithStrategies, type CheckReport } from '../analysis/check.js';
import { routePluginStdout, usePluginSlot, type PluginSlot } from './plugin-guard.js';
import { checkClusterStandIns, importPlugins, loadLoadBalancePlugin, type PluginRef } from './plugins.js';
import { runSelect, type SelectOptions } from '../analysis/select.js';
import { toTransferable } from '../parallel/worker-error.js';
import { announceLoaded } from '../parallel/worker-loaded.js';

// Before any plugin loads: its console output must not land in stdout (`select`'s and `check`'s output).
routePluginStdout();

/** `check` with the router plugins it evaluates. */
export interface CheckJob {
  kind: 'check';
  scenario: Scenario;
  scenarioPath: string;
  routers: PluginRef[];
  /** The strategies checked besides the scenario as written. */
  strategies: string[];
}

/** `select` of a plugin load balancer (`options.loadbalance` is the module path). */
export interface SelectJob {
  kind: 'select';
  options: Omit<SelectOptions, 'plugins'>;
  baseDir: string;
}

/** What a `select` job printed and its exit code. */
export interface SelectJobResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Piscina calls the default export with each job (and the slot the watchdog reads). */
export default async function run(job: (CheckJob | SelectJob) & { slot: PluginSlot }): Promise<CheckReport | SelectJobResult> {
  try {
    usePluginSlot(job.slot);
    if (job.kind === 'check') {
      const plugins = await importPlugins(job.scenario, job.scenarioPath, job.routers);
      return checkWithStrategies(job.scenario, job.strategies, { plugins: { ...plugins, clusters: checkClusterStandIns(job.scenario) } });
    }
    const plugins = await loadLoadBalancePlugin(job.options.loadbalance, job.baseDir);
    let stdout = '';
    let stderr = '';
    const io = { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s), cwd: job.baseDir };
    const code = runSelect({ ...job.options, plugins }, io);
    return { code, stdout, stderr };
  } catch (error) {
    throw toTransferable(error);
  } finally {
    usePluginSlot(undefined);
  }
}

// Last: every module this one needs has loaded, so the pool may now stop this thread safely.
announceLoaded();
