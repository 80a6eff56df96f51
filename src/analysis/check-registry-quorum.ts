/**
 * The registry-node part of `zonesim check`: a `roomDown` or `partition` that leaves a registry
 * placed on nodes (`registry.servers`) without a quorum, or leaves the clients of a zone without a
 * node they can reach. ZooKeeper accepts writes only while a leader reaches a majority of the
 * ensemble (followers talk to the leader, not to each other, so the quorum side is a leader's zone
 * and the zones not cut from it); without one every node stops serving. A Nacos node serves its own
 * clients whatever the others do, so only reach matters. The state (rooms down, zone pairs cut) is
 * walked in time order with each fault's `for:` and its undo (`roomUp`, `heal`), and a fault is
 * reported only when it is what loses the quorum or the reach. Without `servers` the registry's
 * zone warnings (check-registry-zone.ts) cover it. Owns the finding and its words.
 */
import type { RegistrySpec, Scenario } from '../model/types.js';
import { faultLabel, type PhaseSpan } from '../world/faults.js';
import { spanOf } from './check-registry-zone.js';

/** A fault that takes a registry's quorum, or every node some of its clients can reach. */
export interface RegistryQuorumWarning {
  kind: 'registry-quorum-lost' | 'registry-unreachable';
  registry: string;
  /** registry-unreachable: the zone whose clients reach no node; registry-quorum-lost: empty. */
  zone: string;
  fault: string;
  phase: PhaseSpan;
  message: string;
}

/** Rooms down and zone pairs cut at one instant. */
interface NetState {
  down: Set<string>;
  cut: Set<string>;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
const seconds = (ms: number): string => `${+(ms / 1000).toFixed(3)} s`;
const placement = (servers: Record<string, number>): string => Object.entries(servers).map(([z, n]) => `${z} ${n}`).join(', ');

/** What the nodes can do in one state: the quorum side's nodes (ZooKeeper) and, per zone, the nodes its clients reach. */
function serving(spec: RegistrySpec, servers: Record<string, number>, s: NetState): { quorum: number; serving: Set<string> } {
  const reach = (a: string, b: string) => a === b || !s.cut.has(pairKey(a, b));
  const live = Object.entries(servers).filter(([z]) => !s.down.has(z));
  if (spec.type !== 'zookeeper') return { quorum: live.reduce((n, [, k]) => n + k, 0), serving: new Set(live.map(([z]) => z)) };
  // The best leader: the live zone whose reachable live nodes are the most; a majority is a quorum.
  let best: { quorum: number; zones: string[] } = { quorum: 0, zones: [] };
  for (const [leader] of live) {
    const zones = live.filter(([z]) => reach(leader, z));
    const quorum = zones.reduce((n, [, k]) => n + k, 0);
    if (quorum > best.quorum) best = { quorum, zones: zones.map(([z]) => z) };
  }
  const total = Object.values(servers).reduce((n, k) => n + k, 0);
  return { quorum: best.quorum, serving: new Set(best.quorum * 2 > total ? best.zones : []) };
}

/** One change of the rooms down or zone pairs cut; `fault` is the index of a roomDown or partition that starts here. */
interface NetStep {
  tMs: number;
  order: number;
  apply: (s: NetState) => void;
  fault?: number;
}

/** The timeline's room and partition changes, in time order (an undo before a start at the same instant). */
function netSteps(scenario: Scenario): NetStep[] {
  const steps: NetStep[] = [];
  scenario.faults.forEach((f, i) => {
    const a = f.action;
    const end = f.forMs !== undefined ? f.atMs + f.forMs : undefined;
    if (a.kind === 'roomDown' || a.kind === 'roomUp') {
      steps.push({ tMs: f.atMs, order: 1, fault: a.kind === 'roomDown' ? i : undefined, apply: (s) => (a.kind === 'roomDown' ? s.down.add(a.zone) : s.down.delete(a.zone)) });
      if (end !== undefined && a.kind === 'roomDown') steps.push({ tMs: end, order: 0, apply: (s) => s.down.delete(a.zone) });
    } else if (a.kind === 'partition' || a.kind === 'heal') {
      const key = pairKey(a.zones[0], a.zones[1]);
      steps.push({ tMs: f.atMs, order: 1, fault: a.kind === 'partition' ? i : undefined, apply: (s) => (a.kind === 'partition' ? s.cut.add(key) : s.cut.delete(key)) });
      if (end !== undefined && a.kind === 'partition') steps.push({ tMs: end, order: 0, apply: (s) => s.cut.delete(key) });
    }
  });
  return steps.sort((x, y) => x.tMs - y.tMs || x.order - y.order);
}

/**
 * The spans in which a ZooKeeper ensemble placed on `servers` has no quorum (no write, no expiry, no
 * watch fires); `toMs` is the end of the run when it never returns. Empty for Nacos and without `servers`.
 */
export function quorumLostSpans(scenario: Scenario, spec: RegistrySpec): PhaseSpan[] {
  const servers = spec.servers;
  if (servers === undefined || spec.type !== 'zookeeper') return [];
  const total = Object.values(servers).reduce((n, k) => n + k, 0);
  const state: NetState = { down: new Set(), cut: new Set() };
  const spans: PhaseSpan[] = [];
  let lostAt: number | undefined;
  for (const step of netSteps(scenario)) {
    step.apply(state);
    const lost = serving(spec, servers, state).quorum * 2 <= total;
    if (lost && lostAt === undefined) lostAt = step.tMs;
    if (!lost && lostAt !== undefined) {
      if (step.tMs > lostAt) spans.push({ fromMs: lostAt, toMs: step.tMs });
      lostAt = undefined;
    }
  }
  if (lostAt !== undefined && lostAt < scenario.durationMs) spans.push({ fromMs: lostAt, toMs: scenario.durationMs });
  return spans;
}

/** Every `roomDown` / `partition` of the timeline that takes a registry's quorum or every node a zone's clients reach. */
export function registryQuorumWarnings(scenario: Scenario): RegistryQuorumWarning[] {
  const named = Object.entries(scenario.registries);
  const registries: Array<[string, RegistrySpec]> = named.length > 0 ? named : [['registry', scenario.registry]];
  const out: RegistryQuorumWarning[] = [];
  const steps = netSteps(scenario);
  for (const [name, spec] of registries) {
    const servers = spec.servers;
    if (servers === undefined || spec.type === 'static') continue;
    const total = Object.values(servers).reduce((n, k) => n + k, 0);
    const what = `${name === 'registry' ? 'the registry' : `registry ${name}`} (${spec.type}, nodes ${placement(servers)})`;
    const uses = (registries: string[] | undefined) => registries === undefined || registries.includes(name);
    const state: NetState = { down: new Set(), cut: new Set() };
    for (const step of steps) {
      const prev: NetState = { down: new Set(state.down), cut: new Set(state.cut) };
      const before = serving(spec, servers, prev);
      step.apply(state);
      if (step.fault === undefined || step.tMs > scenario.durationMs) continue;
      const after = serving(spec, servers, state);
      const f = scenario.faults[step.fault]!;
      const a = f.action;
      const phase = spanOf(scenario, f, (g) =>
        a.kind === 'roomDown'
          ? g.action.kind === 'roomUp' && g.action.zone === a.zone
          : a.kind === 'partition' && g.action.kind === 'heal' && g.action.zones.includes(a.zones[0]) && g.action.zones.includes(a.zones[1]),
      );
      const head = `${f.label} (${faultLabel(a)}), ${seconds(phase.fromMs)} - ${seconds(phase.toMs)}`;
      const base = { registry: name, fault: f.label, phase };
      if (spec.type === 'zookeeper' && before.quorum * 2 > total && after.quorum * 2 <= total) {
        out.push({
          kind: 'registry-quorum-lost',
          zone: '',
          ...base,
          message:
            `${head}: ${what} keeps at most ${after.quorum} of its ${total} nodes able to reach one leader, not a majority, so it ` +
            'has no quorum: writes stop: no registrations, no expiries, no watches; consumers keep stale lists until it returns',
        });
        continue;
      }
      // Zones with registry clients that could reach a serving node before and cannot now.
      const reaches = (s: NetState, served: Set<string>, zone: string) => [...served].some((z) => z === zone || !s.cut.has(pairKey(z, zone)));
      for (const zone of Object.keys(scenario.zones)) {
        if (state.down.has(zone) || after.serving.size === 0) continue;
        const consumers = [...new Set(scenario.consumers.filter((c) => c.zone === zone && uses(c.registries)).map((c) => c.application))];
        const providers = scenario.providers.filter((p) => p.zone === zone && uses(p.registries)).map((p) => p.name);
        if (consumers.length + providers.length === 0 || reaches(state, after.serving, zone) || !reaches(prev, before.serving, zone)) continue;
        const effects: string[] = [];
        if (consumers.length > 0) effects.push(`its consumers (${consumers.join(', ')}) get no pushes and keep stale lists`);
        if (providers.length > 0) {
          effects.push(
            `its providers (${providers.join(', ')}) are not heard, so ${spec.type === 'zookeeper' ? `their sessions expire after ${seconds(spec.sessionTimeoutMs)}` : 'Nacos drops them'} and they leave every list although they still serve`,
          );
        }
        out.push({
          kind: 'registry-unreachable',
          zone,
          ...base,
          message: `${head}: the clients of ${what} in ${zone} can reach no ${spec.type === 'zookeeper' ? 'node of the quorum' : 'node'}: ${effects.join('; ')}`,
        });
      }
    }
  }
  return out;
}
