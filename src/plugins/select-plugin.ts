/**
 * `zonesim select` with a plugin load balancer (`--loadbalance ./my-lb.js`): refused under
 * `--no-plugins`, else the picks run on the plugin worker (plugin-worker.ts) under the plugin time
 * budget, and what the command prints comes back from there.
 */
import type { SelectOptions } from '../analysis/select.js';
import type { Io } from '../scenario/io.js';
import { pluginPolicy } from './plugin-policy.js';
import { runWatchedJob } from './plugin-watchdog.js';
import type { SelectJob, SelectJobResult } from './plugin-worker.js';
import { refuseSelectPlugin } from './plugins.js';

/**
 * `zonesim select --loadbalance ./my-lb.js`: the picks run on a worker thread under the plugin
 * time budget; what the command prints comes back from there. Returns the exit code.
 */
export async function runSelectPlugin(options: Omit<SelectOptions, 'plugins'>, io: Io): Promise<number> {
  refuseSelectPlugin(options.loadbalance);
  const job: Omit<SelectJob, 'slot'> = { kind: 'select', options, baseDir: io.cwd };
  const r = await runWatchedJob<SelectJobResult>(job, [options.loadbalance], pluginPolicy().timeoutMs);
  if (r.stdout !== '') io.stdout(r.stdout);
  if (r.stderr !== '') io.stderr(r.stderr);
  return r.code;
}
