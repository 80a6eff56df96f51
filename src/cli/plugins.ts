/**
 * User plugins: a JS module path in place of a load balancer, cluster or router name. The module's
 * default export (or named `createLoadBalance` / `createCluster` / `createRouter`) is a factory with
 * the same signature as the built-ins. Paths are resolved against the scenario file's folder.
 */
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario } from '../scenario/types.js';
import type { Plugins } from '../scenario/run.js';
import { UsageError } from './io.js';

/** True when a strategy name is a module path rather than a built-in name. */
export function isModulePath(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../') || name.startsWith('/');
}

async function importFactory(path: string, baseDir: string, named: string): Promise<unknown> {
  const file = resolve(baseDir, path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`cannot load plugin "${path}" (${file}): ${(error as Error).message}`);
  }
  const f = mod[named] ?? mod.default;
  if (typeof f !== 'function') throw new UsageError(`plugin "${path}" exports no function "${named}" or default`);
  return f;
}

/** Loads one load-balancer plugin by path (for `zonesim select --loadbalance ./my-lb.js`). */
export async function loadLoadBalancePlugin(path: string, baseDir: string): Promise<Record<string, unknown>> {
  return { [path]: await importFactory(path, baseDir, 'createLoadBalance') };
}

/** Loads every plugin the scenario names (references, consumer defaults, strategies, routers). */
export async function loadPlugins(scenario: Scenario, scenarioPath: string): Promise<Plugins> {
  const baseDir = dirname(scenarioPath);
  const lbs = new Set<string>();
  const cls = new Set<string>();
  const refs: Array<{ loadbalance?: string; cluster?: string; methods?: Record<string, { loadbalance?: string; cluster?: string }> }> = [];
  for (const c of scenario.consumers) {
    refs.push(c.consumerDefaults, ...Object.values(c.reference));
  }
  for (const s of Object.values(scenario.strategies)) if (s.reference) refs.push(s.reference);
  for (const r of refs) {
    for (const x of [r, ...Object.values(r.methods ?? {})]) {
      if (x.loadbalance && isModulePath(x.loadbalance)) lbs.add(x.loadbalance);
      if (x.cluster && isModulePath(x.cluster)) cls.add(x.cluster);
    }
  }
  const plugins: Plugins = { loadBalances: {}, clusters: {}, routers: {} };
  for (const p of lbs) plugins.loadBalances![p] = (await importFactory(p, baseDir, 'createLoadBalance')) as never;
  for (const p of cls) plugins.clusters![p] = (await importFactory(p, baseDir, 'createCluster')) as never;
  const routerSpecs = [...scenario.routers, ...Object.values(scenario.strategies).flatMap((s) => s.routers ?? [])];
  for (const f of scenario.faults) if (f.action.kind === 'rule') routerSpecs.push(f.action.router);
  for (const r of routerSpecs) {
    if (r.type === 'plugin') plugins.routers![r.module] = await importFactory(r.module, baseDir, 'createRouter');
  }
  return plugins;
}
