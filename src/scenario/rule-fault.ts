/**
 * The `rule` fault (SPEC 2.8) applied to the Dubbo side of a world: a router added, replaced or
 * removed on the router chain of every reference of every consumer instance, as a config-center
 * push reaches every JVM. The world layer schedules it (`FaultHooks.onRule`); this file only knows
 * how to change chains. Semantics:
 *
 * - `add`: the spec's router joins each chain at its order (a spec with `service:` only touches
 *   that service). A tag rule becomes the chain's tag rule (Dubbo keeps one per provider app).
 * - `replace`: with `index`, the router built from the scenario's `routers[index]` is replaced;
 *   without it, the routers with the same name and order as the new one (the same rule key in
 *   Dubbo's config center, e.g. `<iface>::.condition-router`) are.
 * - `remove`: with `index`, the router built from `routers[index]`; without it, the routers equal
 *   to the spec's (same name, order, rule text, force and options). Removing a tag rule leaves
 *   static tags only.
 *
 * Each returns an undo that restores exactly what it changed (used for `for:`).
 */
import { DubboConsumerStack } from '../stack/consumer-stack.js';
import { RouterChain } from '../dubbo/router/chain.js';
import { buildRouter } from '../stack/build-router-chain.js';
import type { StateRouter } from '../dubbo/router/router.js';
import { TagStateRouter } from '../dubbo/router/tag/tag-state-router.js';
import type { FaultUndo, RuleFaultAction } from '../world/faults.js';
import type { World } from '../world/world.js';

/** Applies a rule fault to every router chain of the world's consumer instances; returns the undo. */
export function applyRuleFault(world: World, action: RuleFaultAction, pluginRouters?: Record<string, unknown>): FaultUndo {
  const undos: FaultUndo[] = [];
  for (const group of world.consumerGroups) {
    for (const instance of group.instances) {
      const stack = instance.stack;
      if (!(stack instanceof DubboConsumerStack)) continue;
      // With several registries every registry directory has its own chain: change them all.
      for (const [ref, directory] of [...stack.references.values()].flatMap((r) => r.directories.map((d) => [r, d] as const))) {
        const chain = directory.getRouterChain();
        if (!(chain instanceof RouterChain)) continue;
        const ctx = { service: ref.service, runtime: stack.runtime, pluginRouters };
        const router = buildRouter(action.router, ctx);
        if (router === null) continue;
        let indexed: StateRouter | undefined;
        if (action.op !== 'add' && action.index !== undefined) {
          const spec = world.scenario.routers[action.index];
          // The same rule written twice is told apart by how many identical ones come before it.
          const twins = world.scenario.routers.slice(0, action.index).filter((r) => JSON.stringify(r) === JSON.stringify(spec)).length;
          const built = spec === undefined ? null : buildRouter(spec, ctx);
          indexed = built === null ? undefined : chain.getRouters().filter((r) => signature(r) === signature(built))[twins];
          // routers[index] does not apply to this service (or is already gone): nothing to change here.
          if (indexed === undefined) continue;
        }
        undos.push(changeChain(chain, action, router, indexed));
      }
    }
  }
  return () => {
    for (const undo of undos) undo();
  };
}

// One chain: applies the change and returns its undo.
function changeChain(chain: RouterChain, action: RuleFaultAction, router: StateRouter, indexed?: StateRouter): FaultUndo {
  if (router instanceof TagStateRouter) {
    const current = chain.getRouters().find((r): r is TagStateRouter => r instanceof TagStateRouter);
    const before = current?.getRule() ?? null;
    chain.setTagRule(action.op === 'remove' ? null : router.getRule());
    return () => void chain.setTagRule(before);
  }
  if (action.op === 'add') {
    chain.addRouter(router);
    return () => void chain.removeRouter(router);
  }
  const sameName = chain.getRouters().filter((r) => r.name === router.name);
  let targets: StateRouter[];
  if (indexed !== undefined) targets = [indexed];
  else if (action.op === 'replace') targets = sameName.filter((r) => r.order === router.order);
  else targets = sameName.filter((r) => signature(r) === signature(router));
  for (const r of targets) chain.removeRouter(r);
  if (action.op === 'replace') chain.addRouter(router);
  return () => {
    if (action.op === 'replace') chain.removeRouter(router);
    for (const r of targets) chain.addRouter(r);
  };
}

/** What makes two routers "the same rule": name, order, rule text, force and zone options. */
function signature(r: StateRouter): string {
  const x = r as unknown as { label?: unknown; rule?: unknown; force?: unknown; fallback?: unknown; zoneFrom?: unknown };
  const rule = typeof x.label === 'string' ? x.label : typeof x.rule === 'string' ? x.rule : '';
  return JSON.stringify([r.name, r.order, rule, x.force ?? null, x.fallback ?? null, x.zoneFrom ?? null]);
}
