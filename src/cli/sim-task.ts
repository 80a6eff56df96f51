/**
 * One independent simulation as data: a normalized scenario (strategy and overrides already
 * applied), the file it came from (for plugin paths) and a seed. The same function runs a task in
 * the main thread (`--jobs 1`) and in a worker thread, so both give the same summary.
 */
import type { Summary } from '../metrics/summary.js';
import { runScenario, type Plugins } from '../scenario/run.js';
import type { Scenario } from '../scenario/types.js';
import { usePluginSlot, type PluginSlot } from './plugin-guard.js';
import { importPlugins } from './plugins.js';
import { VERSION } from './version.js';

export interface SimTask {
  scenario: Scenario;
  /** Absolute path of the scenario file (plugin paths are relative to it). */
  scenarioPath: string;
  seed: number;
  /** Where a worker reports progress: `[2i]` simulated ms, `[2i+1]` requests started, as Float64. */
  progress?: { buffer: SharedArrayBuffer; index: number };
  /** Where plugin calls report themselves to the watchdog (a task whose scenario names plugins, on a worker). */
  pluginSlot?: PluginSlot;
}

const pluginsByPath = new Map<string, Promise<Plugins>>();

/** Runs one task and returns its summary; progress goes to `onProgress`, else to the task's shared buffer. */
export async function runSimTask(task: SimTask, onProgress?: (simMs: number, requests: number) => void): Promise<Summary> {
  let watch = onProgress;
  if (watch === undefined && task.progress !== undefined) {
    const view = new Float64Array(task.progress.buffer);
    const at = 2 * task.progress.index;
    watch = (simMs, requests) => {
      view[at] = simMs;
      view[at + 1] = requests;
    };
  }
  // Plugins depend on the scenario's names too (strategies may name other modules): key on both.
  const key = `${task.scenarioPath}\u0000${JSON.stringify(task.scenario.consumers)}\u0000${JSON.stringify(task.scenario.routers)}`;
  usePluginSlot(task.pluginSlot);
  try {
    let plugins = pluginsByPath.get(key);
    if (plugins === undefined) pluginsByPath.set(key, (plugins = importPlugins(task.scenario, task.scenarioPath)));
    return runScenario(task.scenario, { seed: task.seed, version: VERSION, plugins: await plugins, onProgress: watch }).summary;
  } finally {
    usePluginSlot(undefined);
  }
}
