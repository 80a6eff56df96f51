/**
 * The fault timeline (SPEC 2.8): schedules every normalized `FaultSpec` at its `atMs`, applies
 * it to the world (providers, network, registry, consumer arrival rates), undoes it after
 * `forMs` where an undo makes sense, and records start/end markers. It owns the instance
 * life-cycle choices of faults:
 *
 * - `zoneDown` black-holes or crashes every live provider of the zone; both stop heartbeating
 *   (`registry.providerStopped(p, false)`).
 * - Coming back: a black-holed instance resumes as the SAME instance (same timestamp, so no new
 *   warmup) and registers again (`registry.providerStarted(p)`, as a Nacos client does when its
 *   heartbeat finds the instance gone, or Dubbo's ZooKeeper recovery after a new session). A
 *   crashed instance comes back as a NEW instance (new IP, new `timestamp`, so warmup applies),
 *   as a restarted or rescheduled process does; the old one stays crashed and is retired.
 * - `restart`, `rollingRestart` and scale-in stop a live instance gracefully: deregister at once,
 *   keep serving what is in flight (and what arrives before the consumers hear of it), and close
 *   (state `stopped`) when the thread pool is idle, at most 10 s later.
 * - `roomDown` black-holes the room's providers as `zoneDown` does; its consumers and the registry's
 *   view of the room are `RoomOutages`' (room-outage.ts). `roomUp` and the undo bring the room back
 *   first, so that the providers' first heartbeat gets through, then the providers as `zoneUp` does.
 *
 * Router changes (`rule`) belong to the Dubbo layer and come in through `FaultHooks.onRule`.
 * Deciding what a fault means for metrics is not done here: the observer only gets markers.
 */
import { measuredLabel, type DistSpec } from '../engine/distributions.js';
import type { Rng } from '../engine/random.js';
import type { FaultAction, FaultSpec, ProviderGroupSpec, RouterSpec, Scenario } from '../model/types.js';
import type { ProviderGroup, ProviderInstance } from './provider.js';
import { RoomOutages } from './room-outage.js';
import type { World } from './world.js';

/** Undoes one applied fault. */
export type FaultUndo = () => void;

/** A `rule` fault action. */
export type RuleFaultAction = Extract<FaultAction, { kind: 'rule' }>;

/** A `sentinel` fault action (a Sentinel datasource update). */
export type SentinelFaultAction = Extract<FaultAction, { kind: 'sentinel' }>;

/** What the layers above implement for faults the world cannot apply itself. */
export interface FaultHooks {
  /**
   * Applies a `rule` fault (add / replace / remove a router) on every consumer instance at
   * `atMs`; returns how to undo it (used when the fault has `for:`).
   */
  onRule?(action: RuleFaultAction, atMs: number): FaultUndo | void;
  /** Applies a `sentinel` fault (new rules for the JVMs of an application, or of all); returns its undo. */
  onSentinel?(action: SentinelFaultAction, atMs: number): FaultUndo | void;
}

/**
 * Dubbo's default graceful-shutdown wait (`dubbo.service.shutdown.wait`,
 * `ConfigurationUtils.getServerShutdownTimeout`): in-flight calls get this long to finish.
 */
export const SERVER_SHUTDOWN_TIMEOUT_MS = 10_000;
/** How often a draining instance checks whether its thread pool is idle. */
const DRAIN_POLL_MS = 100;

/** Which provider instances a fault addresses. */
export interface FaultTarget {
  zone?: string;
  service?: string;
  group?: string;
  /** One instance, `<group>#<index>` (0-based among the group's current instances in start order). */
  instance?: string;
}

/** The group and index of an `instance` target. */
export function parseInstance(ref: string): { group: string; index: number } {
  const at = ref.lastIndexOf('#');
  return { group: ref.slice(0, at), index: Number(ref.slice(at + 1)) };
}

/** Whether a fault target addresses (some instances of) a provider group: its zone, a service it exports, its name, or one of its instances. */
export function targetsGroup(g: Pick<ProviderGroupSpec, 'name' | 'zone' | 'services'>, t: FaultTarget): boolean {
  if (t.instance !== undefined) return parseInstance(t.instance).group === g.name;
  return (t.zone === undefined || g.zone === t.zone) && (t.service === undefined || g.services.includes(t.service)) && (t.group === undefined || g.name === t.group);
}

/** Schedules every fault of the world's scenario (and its undo) on the world's simulation. */
export function scheduleFaults(world: World, hooks: FaultHooks = {}): void {
  const timeline = new FaultTimeline(world, hooks);
  for (const fault of world.scenario.faults) timeline.schedule(fault);
}

/** A readable one-line description of a fault action, e.g. `zoneDown zoneA (blackhole)`. */
export function faultLabel(action: FaultAction): string {
  switch (action.kind) {
    case 'zoneDown':
      return `zoneDown ${action.instance ?? (action.group !== undefined ? `group ${action.group}` : action.zone)} (${action.mode})`;
    case 'zoneUp':
      return `zoneUp ${action.zone}`;
    case 'crash':
    case 'restart':
      if (action.instance !== undefined) return `${action.kind} ${action.instance}${action.kind === 'crash' && action.mode === 'blackhole' ? ' (blackhole)' : ''}`;
      return `${action.kind} ${amountLabel(action)} of ${targetLabel(action)}${action.kind === 'crash' && action.mode === 'blackhole' ? ' (blackhole)' : ''}`;
    case 'slowdown': {
      const what = action.method !== undefined ? `${action.service ?? '*'}.${action.method}` : (action.service ?? 'all services');
      const where = action.instance ?? (action.group !== undefined ? `group ${action.group}` : action.zone);
      return `slowdown ${what}${where !== undefined ? ` in ${where}` : ''} x${action.factor}`;
    }
    case 'partition':
    case 'heal':
      return `${action.kind} ${action.zones[0]}<->${action.zones[1]}`;
    case 'registryPartition':
      return `registryPartition ${action.zone}`;
    case 'registryDown':
      return 'registryDown';
    case 'rtt':
      return `rtt ${action.between[0]}<->${action.between[1]} = ${distLabel(action.set)}`;
    case 'scale':
      return `scale ${targetLabel(action)} to ${action.count}`;
    case 'rule':
      if (action.index === undefined) return `rule ${action.op} ${routerLabel(action.router)}`;
      return action.op === 'replace'
        ? `rule replace routers[${action.index}] with ${routerLabel(action.router)}`
        : `rule ${action.op} routers[${action.index}]`;
    case 'pushSwitch':
      return `pushSwitch ${action.on ? 'on' : 'off'}`;
    case 'sentinel': {
      const kinds = (['flowRules', 'degradeRules', 'systemRules', 'paramFlowRules'] as const).filter((k) => action.rules[k] !== undefined);
      return `sentinel ${kinds.map((k) => `${k}[${action.rules[k]!.length}]`).join(' ')}${action.application !== undefined ? ` for ${action.application}` : ''}`.trimEnd();
    }
    case 'rollingRestart':
      return `rollingRestart ${targetLabel(action)} (batch ${action.batch} every ${msLabel(action.intervalMs)})`;
    case 'traffic': {
      const change = action.ratePerSec !== undefined ? `to ${action.ratePerSec}/s` : `x${action.factor}`;
      return `traffic ${action.consumer}${action.zone !== undefined ? ` in ${action.zone}` : ''} ${change}`;
    }
    case 'roomDown': {
      const shift = action.shift === undefined ? '' : ` (shift ${Object.entries(action.shift).map(([z, w]) => `${z} ${w}`).join(', ')})`;
      return `roomDown ${action.zone}${shift}`;
    }
    case 'roomUp':
      return `roomUp ${action.zone}`;
  }
}

/** A phase of the fault timeline: `[fromMs, toMs)`. */
export interface PhaseSpan {
  fromMs: number;
  toMs: number;
}

/**
 * The times where the fault timeline changes the world (every `atMs` and `atMs + forMs`), plus 0
 * and the duration: sorted, unique, inside [0, duration]. Consecutive pairs are `check`'s phases.
 * A rolling restart counts as one boundary (its start): it keeps the provider count steady.
 */
export function faultBoundaries(scenario: Scenario): number[] {
  const times = new Set<number>([0, scenario.durationMs]);
  for (const f of scenario.faults) {
    if (f.atMs >= 0 && f.atMs <= scenario.durationMs) times.add(f.atMs);
    if (f.forMs !== undefined) {
      const end = f.atMs + f.forMs;
      if (end >= 0 && end <= scenario.durationMs) times.add(end);
    }
  }
  return [...times].sort((a, b) => a - b);
}

/** A fault's marker label, which applying the fault may complete with what it hit. */
interface FaultMarkerLabel {
  label: string;
}

/** The state of the timeline in one world: the pick stream and the instances faults have replaced. */
class FaultTimeline {
  readonly #world: World;
  readonly #hooks: FaultHooks;
  readonly #rng: Rng;
  /** Instances replaced by a new one or scaled away: faults no longer address them. */
  readonly #retired = new Set<ProviderInstance>();
  readonly #rooms: RoomOutages;

  constructor(world: World, hooks: FaultHooks) {
    this.#world = world;
    this.#hooks = hooks;
    this.#rng = world.streams.stream('faults');
    this.#rooms = new RoomOutages(world);
  }

  schedule(fault: FaultSpec): void {
    const world = this.#world;
    if (fault.action.kind === 'sentinel' && this.#hooks.onSentinel === undefined) {
      throw new Error(`${fault.label}: a sentinel fault needs the onSentinel hook of scheduleFaults`);
    }
    if (fault.action.kind === 'rule' && this.#hooks.onRule === undefined) {
      throw new Error(`${fault.label}: a rule fault needs the onRule hook of scheduleFaults`);
    }
    this.#at(fault.atMs, () => {
      // The marker names what the fault hit once it is applied (`crash 2 of ...: users-a#3, users-a#7`).
      const marker: FaultMarkerLabel = { label: faultLabel(fault.action) };
      const undo = this.#apply(fault.action, marker);
      world.observer.marker({ tMs: world.sim.now, kind: 'start', label: marker.label });
      if (fault.forMs === undefined || undo === undefined) return;
      this.#at(fault.atMs + fault.forMs, () => {
        undo();
        world.observer.marker({ tMs: world.sim.now, kind: 'end', label: marker.label });
      });
    });
  }

  // Runs `fire` at the absolute time `tMs` (never after the scenario's duration).
  #at(tMs: number, fire: () => void): void {
    const sim = this.#world.sim;
    if (tMs > this.#world.scenario.durationMs) return;
    sim.schedule(Math.max(0, tMs - sim.now), fire);
  }

  // Applies one action now; returns its undo, or undefined when it has none.
  #apply(action: FaultAction, marker: FaultMarkerLabel): FaultUndo | undefined {
    const world = this.#world;
    switch (action.kind) {
      case 'zoneDown': {
        const target: FaultTarget = action.group !== undefined || action.instance !== undefined ? { group: action.group, instance: action.instance } : { zone: action.zone };
        const hit = this.#live(target).filter((p) => p.state === 'up' || action.mode === 'crash');
        for (const p of hit) {
          if (action.mode === 'crash') this.#crash(p);
          else this.#blackhole(p);
        }
        return () => this.#bringBack(hit);
      }
      case 'zoneUp':
        this.#bringBack(this.#current({ zone: action.zone }));
        return undefined;
      case 'crash': {
        const up = this.#live(action).filter((p) => p.state === 'up');
        const hit = this.#pick(up, action);
        if (action.instance === undefined && hit.length < up.length) marker.label += `: ${this.#names(hit)}`;
        for (const p of hit) {
          if (action.mode === 'blackhole') this.#blackhole(p);
          else this.#crash(p);
        }
        return () => this.#bringBack(hit);
      }
      case 'restart': {
        const all = this.#current(action);
        // Dead instances come back first; live ones to reach the amount are picked at random.
        const dead = all.filter((p) => p.state !== 'up');
        const n = amount(all.length, action);
        const chosen = dead.length >= n ? dead.slice(0, n) : [...dead, ...this.#pick(all.filter((p) => p.state === 'up'), { count: n - dead.length })];
        if (action.instance === undefined && chosen.length < all.length) marker.label += `: ${this.#names(all.filter((p) => chosen.includes(p)))}`;
        for (const p of all) if (chosen.includes(p)) this.#restart(p);
        return undefined;
      }
      case 'slowdown': {
        if (action.instance !== undefined) {
          // One instance: its own factors, on top of its group's.
          const undos = this.#current({ instance: action.instance }).map((p) => {
            const key = p.group.slowdownKey(action.service, action.method);
            const before = p.slowdown.get(key);
            p.slowdown.set(key, action.factor);
            return () => {
              if (p.slowdown.get(key) !== action.factor) return;
              if (before === undefined) p.slowdown.delete(key);
              else p.slowdown.set(key, before);
            };
          });
          return () => undos.forEach((u) => u());
        }
        const undos = this.#groups(action).map((g) => {
          const key = g.slowdownKey(action.service, action.method);
          const before = g.slowdown.get(key);
          g.slowdown.set(key, action.factor);
          return () => {
            // A later slowdown of the same key has taken over: leave it.
            if (g.slowdown.get(key) !== action.factor) return;
            if (before === undefined) g.slowdown.delete(key);
            else g.slowdown.set(key, before);
          };
        });
        return () => undos.forEach((u) => u());
      }
      case 'partition':
        world.network.partition(...action.zones);
        return () => world.network.heal(...action.zones);
      case 'heal':
        world.network.heal(...action.zones);
        return () => world.network.partition(...action.zones);
      case 'registryPartition':
        world.registry.setZoneCut(action.zone, true);
        return () => world.registry.setZoneCut(action.zone, false);
      case 'registryDown':
        world.registry.setDown(true);
        return () => world.registry.setDown(false);
      case 'rtt':
        return world.network.setRtt(action.between[0], action.between[1], action.set);
      case 'scale': {
        const previous = this.#groups(action).map((g) => [g, this.#members(g).length] as const);
        for (const [g] of previous) this.#scale(g, action.count);
        return () => {
          for (const [g, count] of previous) this.#scale(g, count);
        };
      }
      case 'rule': {
        const undo = this.#hooks.onRule!(action, world.sim.now);
        return undo ?? undefined;
      }
      case 'sentinel':
        return this.#hooks.onSentinel!(action, world.sim.now) ?? undefined;
      case 'pushSwitch':
        world.registry.setPushSwitch(action.on);
        return () => world.registry.setPushSwitch(!action.on);
      case 'rollingRestart':
        this.#rollingRestart(action, marker);
        return undefined;
      case 'traffic': {
        const undos = world.consumerGroups
          .filter((g) => g.spec.application === action.consumer && (action.zone === undefined || g.spec.zone === action.zone))
          .map((g) => {
            const before = g.ratePerSec;
            const after = action.ratePerSec ?? before * action.factor!;
            g.setRate(after);
            return () => {
              // A later traffic change of the group has taken over: leave it.
              if (g.ratePerSec === after) g.setRate(before);
            };
          });
        return () => undos.forEach((u) => u());
      }
      case 'roomDown': {
        const hit = this.#live({ zone: action.zone }).filter((p) => p.state === 'up');
        for (const p of hit) this.#blackhole(p);
        const lost = this.#rooms.down(action.zone, action.shift);
        marker.label += `: ${lost} request${lost === 1 ? '' : 's'} lost`;
        return () => {
          this.#rooms.up(action.zone);
          this.#bringBack(hit);
        };
      }
      case 'roomUp':
        this.#rooms.up(action.zone);
        this.#bringBack(this.#current({ zone: action.zone }));
        return undefined;
    }
  }

  /** Provider groups a target addresses. */
  #groups(t: FaultTarget): ProviderGroup[] {
    return this.#world.providerGroups.filter((g) => targetsGroup(g.spec, t));
  }

  /** Instances not replaced or scaled away, in group order then start order. */
  #current(t: FaultTarget): ProviderInstance[] {
    const all = this.#groups(t).flatMap((g) => g.instances.filter((p) => !this.#retired.has(p)));
    if (t.instance === undefined) return all;
    const one = all[parseInstance(t.instance).index];
    return one === undefined ? [] : [one];
  }

  /** Current instances whose process runs (up or black-holed). */
  #live(t: FaultTarget): ProviderInstance[] {
    return this.#current(t).filter((p) => p.state === 'up' || p.state === 'blackhole');
  }

  /** The group's instances as a replica count sees them: current ones, crashed ones included (a restart brings them back). */
  #members(g: ProviderGroup): ProviderInstance[] {
    return g.instances.filter((p) => !this.#retired.has(p) && p.state !== 'stopped');
  }

  /** `count` / `fraction` of `from`, drawn without replacement from the faults stream; kept in `from` order. */
  #pick(from: ProviderInstance[], a: { count?: number; fraction?: number }): ProviderInstance[] {
    const n = amount(from.length, a);
    if (n >= from.length) return from;
    const pool = [...from];
    const chosen = new Set<ProviderInstance>();
    for (let i = 0; i < n; i++) {
      const j = i + this.#rng.nextInt(pool.length - i);
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
      chosen.add(pool[i]!);
    }
    return from.filter((p) => chosen.has(p));
  }

  // The process dies: connections are refused at once, heartbeats stop.
  #crash(p: ProviderInstance): void {
    const wasSilent = p.state === 'blackhole';
    p.state = 'crashed';
    if (!wasSilent) this.#world.registry.providerStopped(p, false);
  }

  // The process stops answering anything (calls time out), heartbeats included.
  #blackhole(p: ProviderInstance): void {
    p.state = 'blackhole';
    this.#world.registry.providerStopped(p, false);
  }

  // zoneUp / undo: black-holed instances resume, crashed ones are replaced by new instances.
  #bringBack(instances: ProviderInstance[]): void {
    for (const p of instances) {
      if (this.#retired.has(p)) continue;
      if (p.state === 'blackhole') {
        p.state = 'up';
        this.#world.registry.providerStarted(p);
      } else if (p.state === 'crashed') {
        this.#replace(p);
      }
    }
  }

  // A restart: a live instance stops gracefully; either way a new instance takes its place.
  #restart(p: ProviderInstance): void {
    if (p.state === 'up') this.#gracefulStop(p);
    this.#replace(p);
  }

  #replace(p: ProviderInstance): void {
    this.#retired.add(p);
    this.#world.startProvider(p.group);
  }

  // Deregisters at once and closes the server when its pool is idle (or after the shutdown wait).
  // DIVERGENCE: Dubbo also sends a READONLY event so connected consumers stop sending at once;
  // here consumers learn of the departure only through the registry push, and the instance keeps
  // serving what they send meanwhile.
  #gracefulStop(p: ProviderInstance): void {
    this.#retired.add(p);
    this.#world.registry.providerStopped(p, true);
    const sim = this.#world.sim;
    const deadline = sim.now + SERVER_SHUTDOWN_TIMEOUT_MS;
    const close = (): void => {
      if (p.state !== 'up') return;
      if ((p.pool.inUse === 0 && p.pool.queued === 0) || sim.now >= deadline) p.state = 'stopped';
      else sim.schedule(Math.min(DRAIN_POLL_MS, deadline - sim.now), close);
    };
    close();
  }

  // Brings the group to `count` members (a replica count: crashed members count, as a restart
  // brings them back): new instances, or the newest members taken away.
  #scale(g: ProviderGroup, count: number): void {
    const members = this.#members(g);
    for (let i = members.length; i < count; i++) this.#world.startProvider(g);
    if (members.length <= count) return;
    const newestFirst = members.map((p, i) => ({ p, i })).sort((a, b) => b.p.startMs - a.p.startMs || b.i - a.i);
    for (const { p } of newestFirst.slice(0, members.length - count)) {
      if (p.state === 'up') this.#gracefulStop(p);
      else if (p.state === 'blackhole') {
        // Already silent: it is taken away (deregistered) without a drain.
        this.#retired.add(p);
        p.state = 'stopped';
        this.#world.registry.providerStopped(p, true);
      } else {
        // Crashed: it simply is not restarted (the registry already lets it expire).
        this.#retired.add(p);
      }
    }
  }

  // `batch` instances every `intervalMs`, oldest first, until every instance present at the start is done.
  #rollingRestart(action: Extract<FaultAction, { kind: 'rollingRestart' }>, marker: FaultMarkerLabel): void {
    const world = this.#world;
    const targets = this.#live(action);
    const batch = Math.max(1, action.batch);
    const batches = Math.ceil(targets.length / batch);
    const startMs = world.sim.now;
    marker.label += `: ${targets.length} instance${targets.length === 1 ? '' : 's'} in ${batches} batch${batches === 1 ? '' : 'es'}`;
    // Even with nothing to restart, the end marker comes after the start marker.
    if (batches === 0) this.#at(startMs, () => world.observer.marker({ tMs: world.sim.now, kind: 'end', label: marker.label }));
    for (let b = 0; b < batches; b++) {
      const slice = targets.slice(b * batch, (b + 1) * batch);
      this.#at(startMs + b * action.intervalMs, () => {
        for (const p of slice) if (!this.#retired.has(p)) this.#restart(p);
        if (b === batches - 1) world.observer.marker({ tMs: world.sim.now, kind: 'end', label: marker.label });
      });
    }
  }

  /** `users-a#3, users-a#7` (as `instance:` targets name them now), at most four, then how many more. */
  #names(instances: ProviderInstance[]): string {
    const names = instances.slice(0, 4).map((p) => {
      const name = p.group.spec.name;
      return `${name}#${this.#current({ group: name }).indexOf(p)}`;
    });
    if (instances.length > 4) names.push(`${instances.length - 4} more`);
    return instances.length === 0 ? 'no live instance' : names.join(', ');
  }
}

// How many of `n` instances a `count` / `fraction` means (default all; a fraction rounds to nearest).
function amount(n: number, a: { count?: number; fraction?: number }): number {
  if (a.count !== undefined) return Math.min(n, Math.max(0, a.count));
  if (a.fraction !== undefined) return Math.min(n, Math.max(0, Math.round(a.fraction * n)));
  return n;
}

function amountLabel(a: { count?: number; fraction?: number }): string {
  if (a.count !== undefined) return String(a.count);
  if (a.fraction !== undefined) return `${+(a.fraction * 100).toFixed(3)}%`;
  return 'all';
}

function targetLabel(t: FaultTarget): string {
  if (t.instance !== undefined) return t.instance;
  if (t.group !== undefined) return `group ${t.group}`;
  const what = t.service ?? 'providers';
  return t.zone !== undefined ? `${what} in ${t.zone}` : what;
}

function msLabel(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function distLabel(d: DistSpec): string {
  switch (d.dist) {
    case 'constant':
      return msLabel(d.value);
    case 'mixture':
      return `mixture of ${d.components.length}`;
    case 'samples':
    case 'histogram':
      return measuredLabel(d);
    default: {
      const { dist, ...params } = d;
      return `${dist} ${Object.entries(params)
        .map(([k, v]) => `${k} ${typeof v === 'number' ? msLabel(v) : String(v)}`)
        .join(' ')}`;
    }
  }
}

function routerLabel(r: RouterSpec): string {
  switch (r.type) {
    case 'condition':
    case 'tag': {
      const text = typeof r.rule === 'string' ? r.rule : JSON.stringify(r.rule);
      const short = text.replace(/\s+/g, ' ').trim();
      return `${r.type} "${short.length > 60 ? `${short.slice(0, 57)}...` : short}"`;
    }
    case 'zone':
      return `zone (${r.fallback === true ? 'fallback' : r.fallback === false ? 'strict' : r.fallback === 'nearest' ? 'fallback nearest' : `fallback ${r.fallback.join(', ')}`}, from ${r.zoneFrom})`;
    case 'plugin':
      return `plugin ${r.module}`;
  }
}
