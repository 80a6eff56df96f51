/**
 * The worker side of `parallel.ts`: runs one simulation task (a normalized scenario and a seed) in a
 * worker thread and returns its summary. Plugins are loaded here, once per scenario file.
 */
import { runSimTask, type SimTask } from './sim-task.js';

/** Piscina calls the default export with each task. */
export default function run(task: SimTask) {
  return runSimTask(task);
}
