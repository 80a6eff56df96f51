/**
 * The worker thread that runs plugin code, so that the main thread can stop a plugin call that does
 * not return: a simulation whose scenario calls plugins (plugin-tasks.ts), and the single jobs of
 * `runWatchedJob` (plugin-watchdog.ts): a `check` whose routes go through router plugins, or a
 * `select` of a plugin load balancer. Plugins are imported here, wrapped, with their calls reported
 * into the job's slot. Errors go back as transferable objects (worker-error.ts).
 */
import { checkClusterStandIns, checkWithStrategies, type CheckReport } from '../analysis/check.js';
import { runSelect, type SelectOptions } from '../analysis/select.js';
import type { Summary } from '../metrics/summary.js';
import type { Scenario } from '../model/types.js';
import { runSimTask, type SimTask } from '../parallel/sim-task.js';
import { toTransferable } from '../parallel/worker-error.js';
import { announceLoaded } from '../parallel/worker-loaded.js';
import { runPluginRefs, type PluginRef } from '../scenario/plugin-refs.js';
import type { Plugins } from '../scenario/run.js';
import { routePluginStdout, usePluginSlot, type PluginSlot } from './plugin-guard.js';
import { importPlugins, loadLoadBalancePlugin } from './plugins.js';

// Before any plugin loads: its console output must not land in stdout (`--json` prints one document).
routePluginStdout();

/** A simulation whose scenario calls plugins (plugin-tasks.ts). */
export interface SimulateJob {
  kind: 'simulate';
  task: SimTask;
}

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

const pluginsByKey = new Map<string, Promise<Plugins>>();

// Only the plugins a simulation calls (not those of strategies it does not run), imported once per
// scenario file (paths are relative to it) and set of modules (cells and strategies differ).
function simulationPlugins(task: SimTask): Promise<Plugins> {
  const refs = runPluginRefs(task.scenario);
  const key = `${task.scenarioPath}\u0000${JSON.stringify(refs.map((r) => [r.kind, r.module]))}`;
  let plugins = pluginsByKey.get(key);
  if (plugins === undefined) pluginsByKey.set(key, (plugins = importPlugins(task.scenario, task.scenarioPath, refs)));
  return plugins;
}

/** Piscina calls the default export with each job (and the slot the watchdog reads). */
export default async function run(job: (SimulateJob | CheckJob | SelectJob) & { slot: PluginSlot }): Promise<Summary | CheckReport | SelectJobResult> {
  try {
    usePluginSlot(job.slot);
    if (job.kind === 'simulate') return await runSimTask(job.task, undefined, simulationPlugins);
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
