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
 * only the router plugins it evaluates. Owns finding the plugins a scenario names, applying the
 * per-command policy (plugin-policy.ts) and importing; the call boundary is plugin-guard.ts.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMap, isSeq, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { ClusterFactory } from '../dubbo/cluster/abstract-cluster-invoker.js';
import { clusters } from '../dubbo/extensions.js';
import type { LoadBalanceFactory } from '../dubbo/loadbalance/load-balance.js';
import type { ClusterInvokerLike } from '../dubbo/rpc.js';
import type { Plugins } from '../scenario/run.js';
import { formatPath, ScenarioError, type FieldPath } from '../scenario/scenario-error.js';
import type { RouterSpec, Scenario } from '../model/types.js';
// PERF: the plain parser, not units.ts: workers load this module, and units.ts loads the schema library.
import { UsageError, type Io } from '../scenario/io.js';
import { guardClusterFactory, guardedLoad, guardLoadBalanceFactory, guardRouterFactory } from './plugin-guard.js';
import { pluginPolicy } from './plugin-policy.js';
import { runWatchedJob } from './plugin-watchdog.js';
import type { SelectJob, SelectJobResult } from './plugin-worker.js';
import type { SelectOptions } from '../analysis/select.js';

/** True when a strategy name is a module path rather than a built-in name. */
export function isModulePath(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || name.startsWith('/');
}

// ---- which plugins a scenario names ----

/** One plugin a scenario names: what it stands for, the module as written and the field naming it. */
export interface PluginRef {
  kind: 'loadbalance' | 'cluster' | 'router';
  module: string;
  /** Where in the scenario file (`consumers[0].reference["com.example.UserService"].loadbalance`). */
  path: FieldPath;
}

type RefLike = { loadbalance?: string; cluster?: string; methods?: Record<string, { loadbalance?: string; cluster?: string }> };

function referenceRefs(out: PluginRef[], ref: RefLike | undefined, path: FieldPath): void {
  if (ref === undefined) return;
  const one = (x: { loadbalance?: string; cluster?: string }, at: FieldPath) => {
    if (x.loadbalance !== undefined && isModulePath(x.loadbalance)) out.push({ kind: 'loadbalance', module: x.loadbalance, path: [...at, 'loadbalance'] });
    if (x.cluster !== undefined && isModulePath(x.cluster)) out.push({ kind: 'cluster', module: x.cluster, path: [...at, 'cluster'] });
  };
  one(ref, path);
  for (const [m, mref] of Object.entries(ref.methods ?? {})) one(mref, [...path, 'methods', m]);
}

function routerRefs(out: PluginRef[], specs: readonly RouterSpec[] | undefined, path: FieldPath): void {
  specs?.forEach((r, i) => {
    if (r.type === 'plugin') out.push({ kind: 'router', module: r.module, path: [...path, i, 'module'] });
  });
}

/**
 * The plugins a simulation of the scenario as written calls, in file order: consumer references and
 * defaults, downstream references of call graphs, routers and rule faults; not its strategies,
 * which only `compare` and `sweep --strategies` apply (`applyStrategy` gives a scenario without them).
 */
export function runPluginRefs(scenario: Scenario): PluginRef[] {
  const out: PluginRef[] = [];
  for (const [s, svc] of Object.entries(scenario.services)) {
    for (const [m, method] of Object.entries(svc.methods)) {
      method.calls.forEach((c, k) => referenceRefs(out, c.reference, ['services', s, 'methods', m, 'calls', k, 'reference']));
    }
  }
  scenario.consumers.forEach((c, i) => {
    referenceRefs(out, c.consumerDefaults, ['consumers', i, 'consumerDefaults']);
    for (const [svc, ref] of Object.entries(c.reference)) referenceRefs(out, ref, ['consumers', i, 'reference', svc]);
  });
  routerRefs(out, scenario.routers, ['routers']);
  scenario.faults.forEach((f, i) => {
    if (f.action.kind === 'rule' && f.action.router.type === 'plugin') {
      out.push({ kind: 'router', module: f.action.router.module, path: ['faults', i, 'rule', f.action.op, 'module'] });
    }
  });
  return out;
}

/** Every plugin the scenario names, in file order: those of `runPluginRefs`, then those of its strategies. */
export function pluginRefs(scenario: Scenario): PluginRef[] {
  const out = runPluginRefs(scenario);
  for (const [name, s] of Object.entries(scenario.strategies)) {
    referenceRefs(out, s.reference as RefLike | undefined, ['strategies', name, 'reference']);
    for (const [svc, ref] of Object.entries(s.referenceByService ?? {})) referenceRefs(out, ref as RefLike, ['strategies', name, 'reference', svc]);
    routerRefs(out, s.routers, ['strategies', name, 'routers']);
    routerRefs(out, s.addRouters, ['strategies', name, 'addRouters']);
  }
  return out;
}

/** The distinct plugin modules simulations of some scenarios call (`runPluginRefs`), in order: the watchdog's table. */
export function pluginNames(scenarios: readonly Scenario[]): string[] {
  return [...new Set(scenarios.flatMap((s) => runPluginRefs(s).map((r) => r.module)))];
}

const REFUSED = 'plugins are disabled by --no-plugins (a plugin runs its code with your rights)';

// Line and column of the node at `path` in the file, or undefined when the file does not hold it (`--set`).
function positionIn(doc: Document, lc: LineCounter, path: FieldPath): { line: number; col: number } | undefined {
  let node: unknown = doc.contents;
  for (const seg of path) {
    if (isMap(node)) node = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(seg))?.value;
    else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
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
  try {
    const lc = new LineCounter();
    const doc = parseDocument(readFileSync(scenarioPath, 'utf8'), { lineCounter: lc, merge: true });
    locate = (path) => positionIn(doc, lc, path);
  } catch {
    // The file was read moments ago; without it the refusal still names the field.
  }
  throw new ScenarioError(
    refs.map((r) => {
      const at = locate(r.path);
      const what = r.kind === 'router' ? 'router plugin' : `${r.kind} plugin`;
      return {
        file: scenarioPath,
        line: at?.line ?? 0,
        col: at?.col ?? 0,
        path: formatPath(r.path),
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

// ---- check: only the router plugins it evaluates ----

// Services some consumer calls: consumer groups' `calls:` and downstream calls of call graphs.
function calledServices(scenario: Scenario): Set<string> {
  const out = new Set<string>();
  for (const c of scenario.consumers) for (const key of Object.keys(c.calls)) out.add(key.slice(0, key.lastIndexOf('.')));
  for (const svc of Object.values(scenario.services)) for (const m of Object.values(svc.methods)) for (const d of m.calls) out.add(d.service);
  return out;
}

/**
 * The router plugins `check` evaluates: those of `routers:` and of rule faults that apply to a
 * service someone calls. Load balancers and clusters are never called by `check` (it routes, it
 * does not invoke), nor are strategies (it checks the scenario as written).
 */
export function checkRouterPlugins(scenario: Scenario): PluginRef[] {
  const called = calledServices(scenario);
  const applies = (spec: RouterSpec) => spec.service === undefined || called.has(spec.service);
  const out: PluginRef[] = [];
  scenario.routers.forEach((r, i) => {
    if (r.type === 'plugin' && applies(r)) out.push({ kind: 'router', module: r.module, path: ['routers', i, 'module'] });
  });
  scenario.faults.forEach((f, i) => {
    if (f.action.kind === 'rule' && f.action.router.type === 'plugin' && applies(f.action.router)) {
      out.push({ kind: 'router', module: f.action.router.module, path: ['faults', i, 'rule', f.action.op, 'module'] });
    }
  });
  return out;
}

/**
 * What `check` builds worlds with in place of cluster plugins, which it never imports: a
 * failover cluster invoker (consumer stacks build their cluster when they subscribe) that throws
 * if anything invokes it.
 */
export function checkClusterStandIns(scenario: Scenario): Record<string, ClusterFactory> {
  const out: Record<string, ClusterFactory> = {};
  for (const r of pluginRefs(scenario)) {
    if (r.kind !== 'cluster') continue;
    out[r.module] = (directory, runtime) => {
      const standIn: ClusterInvokerLike = clusters.failover!(directory, runtime);
      standIn.invoke = () => {
        throw new Error(`zonesim check does not invoke: cluster plugin "${r.module}" is not loaded`);
      };
      return standIn;
    };
  }
  return out;
}
