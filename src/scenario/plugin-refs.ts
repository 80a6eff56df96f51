/**
 * Which plugins a scenario names, read from the normalized scenario without loading any: the modules
 * a simulation of it calls (`runPluginRefs`), those of its strategies too (`pluginRefs`), and the
 * router plugins `check` evaluates (`checkRouterPlugins`). Each reference keeps the field naming it,
 * so that a refusal can point at the file's line. Loading them is plugins/plugins.ts's.
 */
import type { RouterSpec, Scenario } from '../model/types.js';
import type { FieldPath } from './scenario-error.js';

/** True when a strategy name is a module path rather than a built-in name. */
export function isModulePath(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || name.startsWith('/');
}

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
