/**
 * The faults that change offered load, phase by phase of the fault timeline, for the pool-load
 * model (pool-load.ts): `slowdown` (service-time factors of provider groups and single instances),
 * `traffic` (consumer groups' arrival rates) and `roomDown` (the dark room's consumer groups stop, and
 * its `shift` adds their rates to other rooms' groups as the world does, `RoomOutages`; in force until
 * its `for:` or the room's next `roomUp`). For each phase between fault boundaries it says
 * which of them are in force and what they give, applied in timeline order as the fault timeline
 * applies them (a later slowdown of the same key or a later rate replaces an earlier one).
 * It owns no arithmetic of load; instance counts stay as written (crashes, scale and zoneDown are
 * not reflected).
 */
import { faultBoundaries, parseInstance, targetsGroup } from '../world/faults.js';
import { slowdownFactor, slowdownKey } from '../world/provider.js';
import type { FaultSpec, ProviderGroupSpec, Scenario } from '../model/types.js';

type Slowdown = Extract<FaultSpec['action'], { kind: 'slowdown' }>;
type Traffic = Extract<FaultSpec['action'], { kind: 'traffic' }>;
type RoomDown = Extract<FaultSpec['action'], { kind: 'roomDown' }>;

/** What the load-changing faults in force give during one phase. */
export class LoadPhase {
  /** The first span of the timeline with exactly these faults in force. */
  readonly fromMs: number;
  readonly toMs: number;
  /** The slowdown and traffic faults in force, in the order they were applied. */
  readonly faults: readonly FaultSpec[];
  /** Each consumer group's arrival rate, by index in `scenario.consumers`. */
  readonly ratePerSec: readonly number[];
  readonly #groupFactors = new Map<string, Map<string, number>>();
  readonly #instanceFactors = new Map<string, Map<number, Map<string, number>>>();
  readonly #providers: readonly ProviderGroupSpec[];

  constructor(scenario: Scenario, span: { fromMs: number; toMs: number }, faults: readonly FaultSpec[]) {
    this.fromMs = span.fromMs;
    this.toMs = span.toMs;
    this.faults = faults;
    this.#providers = scenario.providers;
    const rates = scenario.consumers.map((c) => c.ratePerSec);
    const shifted = rates.map(() => 0);
    const dark = new Set<number>();
    for (const f of faults) {
      if (f.action.kind === 'traffic') this.#traffic(scenario, rates, f.action);
      else if (f.action.kind === 'slowdown') this.#slowdown(f.action);
      else if (f.action.kind === 'roomDown') roomDown(scenario, rates, shifted, dark, f.action);
    }
    this.ratePerSec = rates.map((r, i) => (dark.has(i) ? 0 : r + shifted[i]!));
  }

  /** The instance indices of a group with factors of their own (an `instance:` slowdown), below its count. */
  slowedInstances(g: ProviderGroupSpec): number[] {
    const own = this.#instanceFactors.get(g.name);
    return own === undefined ? [] : [...own.keys()].filter((i) => i < g.count).sort((a, b) => a - b);
  }

  /** The service-time factor of `service.method` on group `g` (on its instance `instance` when given). */
  factor(g: ProviderGroupSpec, service: string, method: string, instance?: number): number {
    const group = this.#groupFactors.get(g.name);
    let f = group === undefined ? 1 : slowdownFactor(group, g, service, method);
    const own = instance === undefined ? undefined : this.#instanceFactors.get(g.name)?.get(instance);
    if (own !== undefined) f *= slowdownFactor(own, g, service, method);
    return f;
  }

  #traffic(scenario: Scenario, rates: number[], a: Traffic): void {
    scenario.consumers.forEach((c, i) => {
      if (c.application !== a.consumer || (a.zone !== undefined && c.zone !== a.zone)) return;
      rates[i] = a.ratePerSec ?? rates[i]! * a.factor!;
    });
  }

  #slowdown(a: Slowdown): void {
    for (const g of this.#providers) {
      if (!targetsGroup(g, a)) continue;
      const key = slowdownKey(g, a.service, a.method);
      if (a.instance === undefined) {
        let own = this.#groupFactors.get(g.name);
        if (own === undefined) this.#groupFactors.set(g.name, (own = new Map()));
        own.set(key, a.factor);
        continue;
      }
      let instances = this.#instanceFactors.get(g.name);
      if (instances === undefined) this.#instanceFactors.set(g.name, (instances = new Map()));
      const index = parseInstance(a.instance).index;
      let own = instances.get(index);
      if (own === undefined) instances.set(index, (own = new Map()));
      own.set(key, a.factor);
    }
  }
}

/**
 * A `roomDown` in force: its room's groups go dark, and its shift adds each one's own rate to the groups of
 * its application in the named zones by share, split by their own rates (evenly when all are 0).
 */
function roomDown(scenario: Scenario, rates: readonly number[], shifted: number[], dark: Set<number>, a: RoomDown): void {
  const groups = scenario.consumers.map((c, i) => ({ c, i }));
  const inRoom = groups.filter(({ c, i }) => c.zone === a.zone && !dark.has(i));
  for (const { i } of inRoom) dark.add(i);
  const shares = Object.entries(a.shift ?? {});
  const total = shares.reduce((s, [, w]) => s + w, 0);
  for (const { c, i } of inRoom) {
    for (const [zone, weight] of shares) {
      const receivers = groups.filter((g) => g.c.zone === zone && g.c.application === c.application);
      const own = receivers.reduce((s, g) => s + rates[g.i]!, 0);
      for (const g of receivers) shifted[g.i]! += (rates[i]! * weight * (own > 0 ? rates[g.i]! / own : 1 / receivers.length)) / total;
    }
  }
}

/** True for the fault kinds that change offered load. */
export function changesLoad(f: FaultSpec): boolean {
  return f.action.kind === 'slowdown' || f.action.kind === 'traffic' || f.action.kind === 'roomDown';
}

/** Whether `f` is in force at `tMs`: from its `at` until its `for:` ends (a `roomDown` also until its room's next `roomUp`). */
function inForceAt(scenario: Scenario, f: FaultSpec, tMs: number): boolean {
  if (f.atMs > tMs || (f.forMs !== undefined && f.atMs + f.forMs <= tMs)) return false;
  const a = f.action;
  if (a.kind !== 'roomDown') return true;
  return !scenario.faults.some((u) => u.action.kind === 'roomUp' && u.action.zone === a.zone && u.atMs >= f.atMs && u.atMs <= tMs);
}

/** One `LoadPhase` per distinct set of load-changing faults in force over the timeline, in time order. */
export function loadPhases(scenario: Scenario): LoadPhase[] {
  return [...new Set(loadPhaseSpans(scenario).map((s) => s.phase))];
}

/**
 * Every span of the timeline between fault boundaries, in time order, with its phase: spans with
 * the same load-changing faults in force share one `LoadPhase` object (for models that weigh a
 * phase by all the time it is in force, as the cost estimate does).
 */
export function loadPhaseSpans(scenario: Scenario): Array<{ fromMs: number; toMs: number; phase: LoadPhase }> {
  const bounds = faultBoundaries(scenario);
  // Timeline order: by start, then as written (the kernel runs same-time entries in schedule order).
  const faults = scenario.faults.filter(changesLoad).sort((a, b) => a.atMs - b.atMs);
  const phases = new Map<string, LoadPhase>();
  const out: Array<{ fromMs: number; toMs: number; phase: LoadPhase }> = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const fromMs = bounds[i]!;
    const toMs = bounds[i + 1]!;
    const inForce = faults.filter((f) => inForceAt(scenario, f, fromMs));
    const key = inForce.map((f) => f.label).join('\u0000');
    let phase = phases.get(key);
    if (phase === undefined) phases.set(key, (phase = new LoadPhase(scenario, { fromMs, toMs }, inForce)));
    out.push({ fromMs, toMs, phase });
  }
  return out;
}

/** How a phase is named in messages: `as written`, or `during the slowdown at 20 s (faults[0]) and ...`. */
export function loadPhaseLabel(phase: LoadPhase): string {
  if (phase.faults.length === 0) return 'as written';
  const one = (f: FaultSpec): string => {
    const a = f.action;
    const what = a.kind === 'traffic' ? `the traffic ${a.ratePerSec !== undefined ? `${+a.ratePerSec.toFixed(3)}/s` : `x${a.factor}`} of ${a.consumer}${a.zone !== undefined ? ` in ${a.zone}` : ''}` : `the ${a.kind}`;
    return `${what} at ${f.atMs / 1000} s (${f.label})`;
  };
  return `during ${phase.faults.map(one).join(' and ')}`;
}
