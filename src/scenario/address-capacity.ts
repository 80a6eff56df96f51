/**
 * Whether every zone's CIDR holds every instance the scenario will ever start there. Each
 * instance takes an address of its zone that is never handed out again (`world/addresses.ts`), and
 * the fault timeline starts new instances: scale-outs (and the scale-back of an undone scale-in),
 * restarts and rolling restarts (a new instance per restarted one), and the replacements of crashed
 * instances (when a crash or crash-mode zoneDown ends, or at zoneUp). This module counts them on the
 * normalized scenario, in time order, as an upper bound the run cannot exceed, and names the first
 * fault that needs more addresses than the zone has. Instances at start are `cross-check.ts`'s job
 * (for CIDRs in the file; here for the default ones); what the run does is `world/faults.ts`'s.
 */
import { addressCapacity, capacityOfSize, ipToString, parseCidr } from '../world/addresses.js';
import type { FaultAction, ProviderGroupSpec, Scenario } from '../model/types.js';
import type { PathIssue } from './zod-issues.js';

type Target = { zone?: string; service?: string; group?: string; instance?: string };

/** One moment of the timeline that starts instances: a fault firing, or its `for:` ending. */
interface Step {
  tMs: number;
  /** 0: a fault firing; 1: an undo (scheduled when its fault fired, so after the faults of that instant). */
  phase: 0 | 1;
  fault: number;
  run: () => void;
}

/** Instances a fault step starts in one zone. */
interface Start {
  fault: number;
  zone: string;
  count: number;
  undo: boolean;
  kind: FaultAction['kind'];
}

function groupsOf(scenario: Scenario, t: Target): ProviderGroupSpec[] {
  if (t.instance !== undefined) {
    const name = t.instance.slice(0, t.instance.lastIndexOf('#'));
    return scenario.providers.filter((g) => g.name === name);
  }
  return scenario.providers.filter(
    (g) => (t.zone === undefined || g.zone === t.zone) && (t.service === undefined || g.services.includes(t.service)) && (t.group === undefined || g.name === t.group),
  );
}

/** `world/faults.ts`'s `amount`: how many of `n` instances a count / fraction means (default all). */
function amount(n: number, a: { count?: number; fraction?: number; instance?: string }): number {
  if (a.instance !== undefined) return Math.min(1, n);
  if (a.count !== undefined) return Math.min(n, Math.max(0, a.count));
  if (a.fraction !== undefined) return Math.min(n, Math.max(0, Math.round(a.fraction * n)));
  return n;
}

/**
 * The instances each fault starts, per zone, in the order the run starts them: an upper bound.
 * A group's replica count follows its `scale` faults exactly (crashes, restarts and replacements
 * keep it); crashed instances waiting for a replacement are counted per zone and never taken off
 * by a restart or a scale-in, which may only make the bound higher than what happens.
 */
export function faultInstanceStarts(scenario: Scenario): Start[] {
  const members = new Map(scenario.providers.map((g) => [g.name, g.count]));
  const crashedWaiting = new Map<string, number>();
  const starts: Start[] = [];
  const steps: Step[] = [];
  const zonesOf = (groups: ProviderGroupSpec[]) => [...new Set(groups.map((g) => g.zone))];
  const membersIn = (groups: ProviderGroupSpec[], zone: string) =>
    groups.filter((g) => g.zone === zone).reduce((s, g) => s + (members.get(g.name) ?? 0), 0);
  const membersOfZone = (zone: string) => membersIn(scenario.providers, zone);
  const start = (s: Omit<Start, 'count'>, count: number) => {
    if (count > 0) starts.push({ ...s, count });
  };
  const inRun = (tMs: number) => tMs >= 0 && tMs <= scenario.durationMs;

  scenario.faults.forEach((f, i) => {
    if (!inRun(f.atMs)) return;
    const a = f.action;
    const endMs = f.forMs === undefined ? undefined : f.atMs + f.forMs;
    const undoAt = (run: () => void) => {
      if (endMs !== undefined && inRun(endMs)) steps.push({ tMs: endMs, phase: 1, fault: i, run });
    };
    const at = (run: () => void) => steps.push({ tMs: f.atMs, phase: 0, fault: i, run });
    switch (a.kind) {
      case 'scale': {
        const groups = groupsOf(scenario, a);
        const before = new Map<string, number>();
        const scaleTo = (undo: boolean, countOf: (g: ProviderGroupSpec) => number) => {
          for (const z of zonesOf(groups)) {
            let n = 0;
            for (const g of groups.filter((x) => x.zone === z)) {
              const now = members.get(g.name) ?? 0;
              const to = countOf(g);
              n += Math.max(0, to - now);
              if (!undo) before.set(g.name, now);
              members.set(g.name, to);
            }
            start({ fault: i, zone: z, undo, kind: a.kind }, n);
          }
        };
        at(() => scaleTo(false, () => a.count));
        undoAt(() => scaleTo(true, (g) => before.get(g.name) ?? 0));
        break;
      }
      case 'restart': {
        const groups = groupsOf(scenario, a);
        at(() => {
          const total = groups.reduce((s, g) => s + (members.get(g.name) ?? 0), 0);
          const n = amount(total, a);
          for (const z of zonesOf(groups)) start({ fault: i, zone: z, undo: false, kind: a.kind }, Math.min(n, membersIn(groups, z)));
        });
        break;
      }
      case 'rollingRestart': {
        const groups = groupsOf(scenario, a);
        at(() => {
          // Batches past the end of the run never start.
          const batch = Math.max(1, a.batch);
          const batches = a.intervalMs > 0 ? Math.floor((scenario.durationMs - f.atMs) / a.intervalMs) + 1 : Infinity;
          for (const z of zonesOf(groups)) {
            const live = a.instance !== undefined ? Math.min(1, membersIn(groups, z)) : membersIn(groups, z);
            start({ fault: i, zone: z, undo: false, kind: a.kind }, Math.min(live, batches * batch));
          }
        });
        break;
      }
      case 'crash':
      case 'zoneDown': {
        const crashes = a.kind === 'crash' ? a.mode !== 'blackhole' : a.mode === 'crash';
        if (!crashes) break;
        const target: Target = a.kind === 'zoneDown' && a.group === undefined && a.instance === undefined ? { zone: a.zone } : a;
        const groups = groupsOf(scenario, target);
        const hit = new Map<string, number>();
        at(() => {
          const total = groups.reduce((s, g) => s + (members.get(g.name) ?? 0), 0);
          const n = a.kind === 'crash' ? amount(total, a) : amount(total, { instance: a.instance });
          for (const z of zonesOf(groups)) {
            const k = Math.min(n, membersIn(groups, z));
            hit.set(z, k);
            crashedWaiting.set(z, Math.min(membersOfZone(z), (crashedWaiting.get(z) ?? 0) + k));
          }
        });
        // The undo brings them back: each crashed one is replaced by a new instance.
        undoAt(() => {
          for (const [z, k] of hit) {
            const n = Math.min(k, crashedWaiting.get(z) ?? 0);
            crashedWaiting.set(z, (crashedWaiting.get(z) ?? 0) - n);
            start({ fault: i, zone: z, undo: true, kind: a.kind }, n);
          }
        });
        break;
      }
      case 'zoneUp':
        at(() => {
          const n = crashedWaiting.get(a.zone) ?? 0;
          crashedWaiting.set(a.zone, 0);
          start({ fault: i, zone: a.zone, undo: false, kind: a.kind }, n);
        });
        break;
      default:
        break;
    }
  });
  steps.sort((x, y) => x.tMs - y.tMs || x.phase - y.phase || x.fault - y.fault);
  for (const s of steps) s.run();
  return starts;
}

/** The smallest CIDR around `cidr`'s base that gives at least `need` addresses, with its capacity. */
function largerCidr(cidr: string, need: number): { cidr: string; capacity: number } | undefined {
  const { base } = parseCidr(cidr);
  for (let prefix = 32; prefix >= 1; prefix--) {
    const size = 2 ** (32 - prefix);
    const capacity = capacityOfSize(size);
    if (capacity >= need) return { cidr: `${ipToString(base - (base % size))}/${prefix}`, capacity };
  }
  return undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One problem per zone whose CIDR runs out: at the first fault that needs more (or the zone, when the start does). */
export function addressCapacityIssues(scenario: Scenario): PathIssue[] {
  const atStart = new Map<string, number>();
  const bump = (z: string, n: number) => atStart.set(z, (atStart.get(z) ?? 0) + n);
  for (const g of scenario.providers) bump(g.zone, g.count);
  for (const c of scenario.consumers) bump(c.zone, c.instances);
  const issues: PathIssue[] = [];
  const capacity = new Map<string, number>();
  const hint = (z: string, need: number) => {
    const bigger = largerCidr(scenario.zones[z]!.cidr, need);
    return bigger === undefined ? undefined : `give ${z} a larger cidr, such as ${bigger.cidr} (${bigger.capacity} addresses)`;
  };
  for (const [z, spec] of Object.entries(scenario.zones)) {
    const have = addressCapacity(spec.cidr);
    capacity.set(z, have);
    const need = atStart.get(z) ?? 0;
    // A CIDR written in the file is checked by cross-check.ts; this catches a default one.
    if (need > have) {
      const h = hint(z, need);
      issues.push({
        path: ['zones', z],
        atKey: true,
        message: `the default cidr ${spec.cidr} of ${z} gives ${have} addresses, fewer than the ${need} provider and consumer instances placed in ${z}`,
        ...(h ? { hint: h } : {}),
      });
    }
  }
  const used = new Map(atStart);
  const reported = new Set<string>(issues.map((i) => String(i.path[1])));
  for (const s of faultInstanceStarts(scenario)) {
    const before = used.get(s.zone) ?? 0;
    const after = before + s.count;
    used.set(s.zone, after);
    const have = capacity.get(s.zone);
    if (have === undefined || after <= have || reported.has(s.zone)) continue;
    reported.add(s.zone);
    const a = scenario.faults[s.fault]!.action;
    const path: PathIssue['path'] = s.undo
      ? ['faults', s.fault, 'for']
      : a.kind === 'scale'
        ? ['faults', s.fault, 'scale', 'count']
        : ['faults', s.fault, a.kind];
    const startedBefore = before - (atStart.get(s.zone) ?? 0);
    const h = hint(s.zone, after);
    issues.push({
      path,
      message:
        `${s.undo ? 'when this fault ends it starts' : 'this fault starts'} ${plural(s.count, 'provider instance')} in ${s.zone}: ` +
        `${after} addresses over the run (${atStart.get(s.zone) ?? 0} at start, ${startedBefore + s.count} started by faults), ` +
        `more than the ${have} of its cidr ${scenario.zones[s.zone]!.cidr}; each instance a fault starts takes a new address`,
      ...(h ? { hint: h } : {}),
    });
  }
  return issues;
}
