/**
 * User plugins: a JS module path in place of a load balancer, cluster or router name. The module's
 * default export (or named `createLoadBalance` / `createCluster` / `createRouter`) is a factory with
 * the same signature as the built-ins. Paths are resolved against the scenario file's folder.
 *
 * A scenario that names a plugin runs that code with the user's rights, so: `--no-plugins` refuses
 * any scenario (or `select --loadbalance`) that names one (exit 2, naming the plugin and where);
 * commands import plugins only on the worker thread that runs the simulation, under the plugin
 * time budget (plugin-watchdog.ts), every factory wrapped by plugin-guard.ts; they import only the
 * plugins of what they simulate (not those of strategies they do not run); and `check` imports
 * only the router plugins it evaluates. Owns applying the per-command policy (plugin-policy.ts) and
 * importing; finding the plugins a scenario names is scenario/plugin-refs.ts's, the call boundary is
 * plugin-guard.ts, and the runs on the plugin worker are plugin-tasks.ts's and select-plugin.ts's.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isAlias, isMap, isSeq, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import type { Plugins } from '../scenario/run.js';
import { pluginRefs, runPluginRefs, type PluginRef } from '../scenario/plugin-refs.js';
import { formatPath, ScenarioError, type FieldPath } from '../scenario/scenario-error.js';
import { expandTemplates, writtenPath } from '../scenario/templates.js';
import { maxAliasCountOf } from '../scenario/yaml-aliases.js';
import { mergedPair } from '../scenario/overrides.js';
import type { Scenario } from '../model/types.js';
// PERF: the plain parser, not units.ts: workers load this module, and units.ts loads the schema library.
import { UsageError } from '../scenario/io.js';
import { guardClusterFactory } from './cluster-guard.js';
import { guardLoadBalanceFactory } from './load-balance-guard.js';
import { guardedLoad } from './plugin-guard.js';
import { guardRouterFactory } from './router-guard.js';
import { pluginPolicy } from './plugin-policy.js';

const REFUSED = 'plugins are disabled by --no-plugins (a plugin runs its code with your rights)';

// Line and column of the node at `path` in the file, or undefined when the file does not hold it (`--set`).
function positionIn(doc: Document, lc: LineCounter, path: FieldPath): { line: number; col: number } | undefined {
  let node: unknown = doc.contents;
  for (const seg of path) {
    // Through aliases (`*ref`) and merge keys (`<<: *ref`) to where the anchor has the field.
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const map = node;
      node = (map.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg)) ?? mergedPair(doc, map, String(seg)))?.value;
    } else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
    else return undefined;
    if (node === undefined || node === null) return undefined;
  }
  const start = (node as { range?: [number, number, number] }).range?.[0];
  return start === undefined ? undefined : lc.linePos(start);
}

/**
 * Before any plugin code runs: with `--no-plugins`, a scenario that names a plugin is refused
 * (exit 2), one line per plugin: `file:line:col: path: plugin "./x.js" ...`.
 */
export function preflightPlugins(scenario: Scenario, scenarioPath: string): void {
  if (pluginPolicy().allowed) return;
  const refs = pluginRefs(scenario);
  if (refs.length === 0) return;
  let locate: (path: FieldPath) => { line: number; col: number } | undefined = () => undefined;
  // A group expanded from a `repeat:` template is named as its template in the file (templates.ts).
  let written = (path: FieldPath): FieldPath => path;
  try {
    const lc = new LineCounter();
    const doc = parseDocument(readFileSync(scenarioPath, 'utf8'), { lineCounter: lc, merge: true });
    locate = (path) => positionIn(doc, lc, path);
    if (scenario.templates !== undefined) {
      const raw: unknown = doc.toJS({ maxAliasCount: maxAliasCountOf(doc) });
      const { origins } = expandTemplates(raw);
      written = (path) => writtenPath(path, raw, origins).path;
    }
  } catch {
    // The file was read moments ago; without it the refusal still names the field.
  }
  // The repetitions of one template name a plugin at one place: one line for it.
  const once = new Map<string, PluginRef>();
  for (const r of refs) once.set(`${r.kind}\u0000${r.module}\u0000${formatPath(written(r.path))}`, r);
  throw new ScenarioError(
    [...once.values()].map((r) => {
      const path = written(r.path);
      const at = locate(path);
      const what = r.kind === 'router' ? 'router plugin' : `${r.kind} plugin`;
      return {
        file: scenarioPath,
        line: at?.line ?? 0,
        col: at?.col ?? 0,
        path: formatPath(path),
        message: `${what} "${r.module}" named${at === undefined ? ' (by --set)' : ''}, but ${REFUSED}`,
      };
    }),
  );
}

/**
 * The last check before simulations start (parallel.ts): with `--no-plugins`, a plugin named by a
 * grid value or another derived scenario is refused too (exit 2).
 */
export function refuseDerivedPlugins(names: readonly string[]): void {
  if (names.length === 0 || pluginPolicy().allowed) return;
  throw new UsageError(`plugin "${names[0]}" named (by --grid, --set or a strategy), but ${REFUSED}`);
}

/** `select --loadbalance ./x.js` with `--no-plugins`: refused (exit 2). */
export function refuseSelectPlugin(module: string): void {
  if (!pluginPolicy().allowed) throw new UsageError(`--loadbalance "${module}" names a plugin module, but ${REFUSED}`);
}

// ---- importing (on the thread that runs the simulation) ----

async function importFactory(path: string, baseDir: string, named: string): Promise<Function> {
  const file = resolve(baseDir, path);
  let mod: Record<string, unknown>;
  try {
    mod = await guardedLoad(path, async () => (await import(pathToFileURL(file).href)) as Record<string, unknown>);
  } catch (error) {
    // guardedLoad's error says what the module threw, described safely.
    throw new UsageError(`cannot load plugin "${path}" (${file}): ${(error as Error).message}`);
  }
  const f = mod[named] ?? mod.default;
  if (typeof f !== 'function') throw new UsageError(`plugin "${path}" exports no function "${named}" or default`);
  return f;
}

/**
 * Imports the plugins in `refs` (default: those a simulation of the scenario calls, not its
 * strategies'), each factory wrapped by plugin-guard.ts. Call it on the thread that runs the simulation.
 */
export async function importPlugins(scenario: Scenario, scenarioPath: string, refs: readonly PluginRef[] = runPluginRefs(scenario)): Promise<Plugins> {
  const baseDir = dirname(scenarioPath);
  const plugins: Plugins = { loadBalances: {}, clusters: {}, routers: {} };
  for (const r of refs) {
    if (r.kind === 'loadbalance' && plugins.loadBalances![r.module] === undefined) {
      plugins.loadBalances![r.module] = guardLoadBalanceFactory(r.module, await importFactory(r.module, baseDir, 'createLoadBalance'));
    } else if (r.kind === 'cluster' && plugins.clusters![r.module] === undefined) {
      plugins.clusters![r.module] = guardClusterFactory(r.module, await importFactory(r.module, baseDir, 'createCluster'));
    } else if (r.kind === 'router' && plugins.routers![r.module] === undefined) {
      plugins.routers![r.module] = guardRouterFactory(r.module, await importFactory(r.module, baseDir, 'createRouter'));
    }
  }
  return plugins;
}

/** Loads one load-balancer plugin by path (`zonesim select --loadbalance ./my-lb.js`), wrapped. */
export async function loadLoadBalancePlugin(path: string, baseDir: string): Promise<Record<string, LoadBalanceFactory>> {
  return { [path]: guardLoadBalanceFactory(path, await importFactory(path, baseDir, 'createLoadBalance')) };
}
