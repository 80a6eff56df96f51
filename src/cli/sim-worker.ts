/**
 * The worker side of `parallel.ts`: runs one simulation task (a normalized scenario and a seed) in a
 * worker thread and returns its summary. Plugins are loaded here, once per scenario file.
 */
import { runSimTask, type SimTask } from './sim-task.js';
import { toTransferable } from './worker-error.js';

/** Piscina calls the default export with each task; errors go back whole (worker-error.ts). */
export default async function run(task: SimTask) {
  try {
    return await runSimTask(task);
  } catch (error) {
    throw toTransferable(error);
  }
}
