/**
 * The provider churn of the cost estimate (estimate.ts): what the fault timeline does to the provider
 * side, read from the normalized scenario. Scale-outs, restarts, rolling restarts and the replacements
 * of crashed instances start instances; every registration and deregistration is a list change pushed
 * to the subscribers; registry faults make every subscription re-read its lists; and the sets of changes
 * made at one instant (per group) are the registry bursts the memory estimate allows for.
 */
import type { FaultAction, ProviderGroupSpec, Scenario } from '../model/types.js';

/** The provider groups a fault targets (by instance, or by zone, service and group). */
export function targetGroups(scenario: Scenario, t: { zone?: string; service?: string; group?: string; instance?: string }): ProviderGroupSpec[] {
  if (t.instance !== undefined) {
    const hash = t.instance.lastIndexOf('#');
    const name = hash >= 0 ? t.instance.slice(0, hash) : t.instance;
    return scenario.providers.filter((g) => g.name === name);
  }
  return scenario.providers.filter(
    (g) => (t.zone === undefined || g.zone === t.zone) && (t.service === undefined || g.services.includes(t.service)) && (t.group === undefined || g.name === t.group),
  );
}

/** How many of a group's `n` live instances a fault takes: one instance, `count`, `fraction` or all. */
function amount(n: number, a: { count?: number; fraction?: number; instance?: string }): number {
  if (a.instance !== undefined) return Math.min(1, n);
  if (a.count !== undefined) return Math.min(n, a.count);
  if (a.fraction !== undefined) return Math.round(n * a.fraction);
  return n;
}

/** A set of changes to one group's lists made at one instant (one fault): they are pushed, and queued, together. */
export interface ChurnBurst {
  /** When the changes are made (for a fault undone after `for`, when it is undone). */
  atMs: number;
  group: string;
  changes: number;
  /** The group's own instances in its lists besides the changing ones. */
  listSize: number;
}

/** What the fault timeline does to the provider side: instances it starts, list changes, bursts. */
export interface ProviderChurn {
  added: Map<string, number>;
  /** Per provider group: list changes (registrations and deregistrations) pushed one by one. */
  changes: Map<string, number>;
  /** Re-reads of every subscription (registry back, push switch on, partition healed). */
  resyncs: number;
  /** Per zone: re-reads of the subscriptions of its consumers only (a dark room's processes starting again). */
  roomResyncs: Map<string, number>;
  /** Every set of changes made at one instant, per group (several groups may change at the same instant). */
  bursts: ChurnBurst[];
}

/**
 * Walks the fault timeline in time order and counts what it does to the provider side; `pushLagMaxMs`
 * is how long a rolling restart's batches overlap in the registry's pushes.
 */
export function providerChurn(scenario: Scenario, pushLagMaxMs: number): ProviderChurn {
  const live = new Map(scenario.providers.map((g) => [g.name, g.count]));
  const down = new Map<string, { n: number; crashed: boolean }>();
  const added = new Map<string, number>();
  const changes = new Map<string, number>();
  let resyncs = 0;
  const roomResyncs = new Map<string, number>();
  const bursts: ChurnBurst[] = [];
  const bump = (m: Map<string, number>, k: string, by: number) => m.set(k, (m.get(k) ?? 0) + by);
  const burst = (atMs: number, group: string, k: number, size: number) => {
    if (k > 0) bursts.push({ atMs, group, changes: k, listSize: Math.max(0, size) });
  };
  const roomBack = (zone: string) => {
    if (scenario.registry.zone === zone && scenario.registry.servers === undefined) resyncs++;
    else roomResyncs.set(zone, (roomResyncs.get(zone) ?? 0) + 1);
  };
  if (scenario.registry.registerDelayMs > 0) {
    for (const g of scenario.providers) {
      bump(changes, g.name, g.count);
      burst(scenario.registry.registerDelayMs, g.name, g.count, 0);
    }
  }
  const inTime = scenario.faults.filter((f) => f.atMs <= scenario.durationMs).sort((x, y) => x.atMs - y.atMs);
  for (const f of inTime) {
    const a: FaultAction = f.action;
    const undone = f.forMs !== undefined && f.atMs + f.forMs <= scenario.durationMs;
    switch (a.kind) {
      case 'scale':
        for (const g of targetGroups(scenario, a)) {
          const before = live.get(g.name) ?? 0;
          const delta = a.count - before;
          bump(changes, g.name, Math.abs(delta) * (undone ? 2 : 1));
          if (delta > 0) bump(added, g.name, delta);
          if (undone && delta < 0) bump(added, g.name, -delta);
          burst(f.atMs, g.name, Math.abs(delta), Math.min(before, a.count));
          if (undone) burst(f.atMs + f.forMs!, g.name, Math.abs(delta), Math.min(before, a.count));
          live.set(g.name, undone ? before : a.count);
        }
        break;
      case 'restart':
        for (const g of targetGroups(scenario, a)) {
          const n = amount(live.get(g.name) ?? 0, a);
          bump(added, g.name, n);
          bump(changes, g.name, 2 * n);
          burst(f.atMs, g.name, 2 * n, live.get(g.name) ?? 0);
        }
        break;
      case 'rollingRestart':
        for (const g of targetGroups(scenario, a)) {
          const n = live.get(g.name) ?? 0;
          bump(added, g.name, n);
          bump(changes, g.name, 2 * n);
          const overlap = Math.max(1, Math.ceil(pushLagMaxMs / Math.max(1, a.intervalMs)));
          burst(f.atMs, g.name, Math.min(2 * n, 2 * a.batch * overlap), n);
        }
        break;
      case 'crash':
      case 'zoneDown':
      case 'roomDown': {
        // A dark room black-holes its providers as `zoneDown` does (world/faults.ts); its consumers' subscriptions
        // read their lists again when it is back, or every one does when the registry was in it (no servers).
        const target = a.kind === 'roomDown' || (a.kind === 'zoneDown' && a.group === undefined && a.instance === undefined) ? { zone: a.zone } : a;
        const crashed = a.kind !== 'roomDown' && (a.mode ?? (a.kind === 'crash' ? 'crash' : 'blackhole')) === 'crash';
        if (a.kind === 'roomDown' && undone) roomBack(a.zone);
        for (const g of targetGroups(scenario, target)) {
          const n = a.kind === 'crash' ? amount(live.get(g.name) ?? 0, a) : a.kind === 'zoneDown' && a.instance !== undefined ? 1 : (live.get(g.name) ?? 0);
          bump(changes, g.name, 1);
          if (undone) {
            // Replaced (crash) or heard again (black hole): each comes back with its own push.
            if (crashed) bump(added, g.name, n);
            bump(changes, g.name, n);
            burst(f.atMs + f.forMs!, g.name, n, (live.get(g.name) ?? 0) - n);
          } else down.set(g.name, { n: (down.get(g.name)?.n ?? 0) + n, crashed });
        }
        break;
      }
      case 'zoneUp':
      case 'roomUp':
        if (a.kind === 'roomUp') roomBack(a.zone);
        for (const g of targetGroups(scenario, { zone: a.zone })) {
          const d = down.get(g.name);
          if (d === undefined) continue;
          if (d.crashed) bump(added, g.name, d.n);
          bump(changes, g.name, d.n);
          burst(f.atMs, g.name, d.n, (live.get(g.name) ?? 0) - d.n);
          down.delete(g.name);
        }
        break;
      case 'registryDown':
      case 'pushSwitch':
      case 'registryPartition':
        resyncs += undone ? 2 : 1;
        break;
      default:
        break;
    }
  }
  return { added, changes, resyncs, roomResyncs, bursts };
}
