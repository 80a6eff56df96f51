/**
 * The registry-zone part of `zonesim check`: faults of the timeline that take down or cut off the
 * zone a registry lives in (`registry.zone`, each `registries:` entry's `zone`). A network
 * `partition` from that zone, or a `registryPartition`, cuts the other side off the registry as
 * zonesim models it: its consumers get no pushes and keep their last (stale) lists, and its
 * providers are not heard, so the registry drops them although they still serve. A `roomDown` of
 * that zone takes the registry's only node (without `servers`; with them, check-registry-quorum.ts
 * weighs the nodes). A `zoneDown` of
 * that zone takes only its providers in zonesim; the registry keeps running, which is not what
 * happens when its nodes are in that zone too. Static registries are skipped (registry faults do
 * not touch them). Owns the finding and its words; the warning shape is check-warnings.ts's.
 */
import type { FaultSpec, RegistrySpec, Scenario } from '../model/types.js';
import { faultLabel, type PhaseSpan } from '../world/faults.js';
import { NACOS_DETECTION_TIMEOUT_MS, NACOS_EJECT_PERIOD_MS, NACOS_KEEP_ALIVE_TIME_MS } from '../world/registry-nacos.js';

/** A fault that takes down or cuts off a registry's zone. */
export interface RegistryZoneWarning {
  kind: 'registry-zone-down' | 'registry-zone-cut';
  /** `registry`, or the name of a `registries:` entry. */
  registry: string;
  /** The registry's zone. */
  zone: string;
  /** Where the fault is written (`faults[2]`). */
  fault: string;
  phase: PhaseSpan;
  message: string;
}

const seconds = (ms: number): string => `${+(ms / 1000).toFixed(3)} s`;

/** Until when a fault holds: its `for:`, else the first later undo of it (`zoneUp`, `heal`, `roomUp`), else the end of the run. */
export function spanOf(scenario: Scenario, f: FaultSpec, undoes: (g: FaultSpec) => boolean): PhaseSpan {
  const undo = f.forMs !== undefined ? f.atMs + f.forMs : scenario.faults.find((g) => g.atMs > f.atMs && undoes(g))?.atMs;
  return { fromMs: f.atMs, toMs: Math.min(scenario.durationMs, undo ?? scenario.durationMs) };
}

/** Every fault of the timeline that takes down or cuts off the zone of a (non-static) registry. */
export function registryZoneWarnings(scenario: Scenario): RegistryZoneWarning[] {
  const named = Object.entries(scenario.registries);
  const registries: Array<[string, RegistrySpec]> = named.length > 0 ? named : [['registry', scenario.registry]];
  const out: RegistryZoneWarning[] = [];
  for (const [name, spec] of registries) {
    const home = spec.zone;
    if (home === undefined || spec.type === 'static') continue;
    const what = `${name === 'registry' ? 'the registry' : `registry ${name}`} (${spec.type}, in ${home})`;
    const consumersIn = (zone: string) =>
      [...new Set(scenario.consumers.filter((c) => c.zone === zone && (c.registries === undefined || c.registries.includes(name))).map((c) => c.application))];
    const providersIn = (zone: string) =>
      scenario.providers.filter((p) => p.zone === zone && (p.registries === undefined || p.registries.includes(name))).map((p) => p.name);
    const groupsIn = (zone: string) =>
      scenario.providers.filter((p) => p.zone === zone && (p.registries === undefined || p.registries.includes(name)));
    // Nacos 1.x deletes a silent instance after removeAfter (Dubbo keeps unhealthy ones listed); 2.x ejects its
    // connection once idle 20 s, at the next 3 s ejector run, after a 5 s probe (world/registry-nacos.ts).
    const dropped = (zone: string): string => {
      if (spec.type !== 'nacos') return `its session expires after ${seconds(spec.sessionTimeoutMs)}`;
      const clients = new Set(groupsIn(zone).map((g) => (spec.connectionBound ?? g.dubbo.nacosClient === '2.x' ? '2.x' : '1.x')));
      const texts: string[] = [];
      if (clients.has('1.x')) texts.push(`Nacos 1.x deletes them after ${seconds(spec.removeAfterMs)}`);
      if (clients.has('2.x')) {
        // Silent since at most one keepalive after the last one: idle long enough, the next run, the probe.
        const earliest = NACOS_KEEP_ALIVE_TIME_MS + NACOS_DETECTION_TIMEOUT_MS - spec.heartbeatMs;
        const latest = NACOS_KEEP_ALIVE_TIME_MS + NACOS_EJECT_PERIOD_MS + NACOS_DETECTION_TIMEOUT_MS;
        texts.push(`Nacos 2.x ejects their connections ${earliest / 1000}-${seconds(latest)} after they fall silent`);
      }
      return texts.join('; ');
    };
    for (const f of scenario.faults) {
      if (f.atMs > scenario.durationMs) continue;
      const a = f.action;
      const head = `${f.label} (${faultLabel(a)})`;
      if (a.kind === 'roomDown' && a.zone === home && spec.servers === undefined) {
        // With `servers`, check-registry-quorum.ts weighs the nodes a room takes.
        const phase = spanOf(scenario, f, (g) => g.action.kind === 'roomUp' && g.action.zone === home);
        out.push({
          kind: 'registry-zone-down',
          registry: name,
          zone: home,
          fault: f.label,
          phase,
          message:
            `${head}, ${seconds(phase.fromMs)} - ${seconds(phase.toMs)}, takes down ${home} and with it ${what}, its only node ` +
            '(no `servers`): no registration, removal or push reaches anyone until it returns; the consumers of the other rooms ' +
            `keep their last (stale) lists, ${home}'s providers included (give it nodes in other rooms with \`registry.servers\`)`,
        });
        continue;
      }
      if (a.kind === 'zoneDown' && a.group === undefined && a.instance === undefined && a.zone === home) {
        const phase = spanOf(scenario, f, (g) => g.action.kind === 'zoneUp' && g.action.zone === home);
        out.push({
          kind: 'registry-zone-down',
          registry: name,
          zone: home,
          fault: f.label,
          phase,
          message:
            `${head}, ${seconds(phase.fromMs)} - ${seconds(phase.toMs)}, takes down ${home}, where ${what} lives. zoneDown takes only ` +
            `the providers, so zonesim keeps the registry running; if its nodes are in ${home} they go down too, and then consumers ` +
            'keep their last (stale) lists and no registration or removal reaches them (model that with `registryDown: true` over the same span)',
        });
        continue;
      }
      let cut: string | undefined;
      let phase: PhaseSpan | undefined;
      if (a.kind === 'partition' && a.zones.includes(home) && spec.servers === undefined) {
        cut = a.zones[0] === home ? a.zones[1] : a.zones[0];
        const [x, y] = a.zones;
        phase = spanOf(scenario, f, (g) => g.action.kind === 'heal' && g.action.zones.includes(x) && g.action.zones.includes(y));
      } else if (a.kind === 'registryPartition' && a.zone === home) {
        cut = home;
        phase = spanOf(scenario, f, () => false);
      }
      if (cut === undefined || phase === undefined) continue;
      const consumers = consumersIn(cut);
      const providers = providersIn(cut);
      // Nobody on the cut side uses this registry: nothing goes stale.
      if (consumers.length === 0 && providers.length === 0) continue;
      const effects: string[] = [];
      if (consumers.length > 0) effects.push(`its consumers (${consumers.join(', ')}) get no pushes and keep their last (stale) lists`);
      if (providers.length > 0) {
        effects.push(`its providers (${providers.join(', ')}) are not heard, so the registry drops them from every list (${dropped(cut)}) although they still serve`);
      }
      out.push({
        kind: 'registry-zone-cut',
        registry: name,
        zone: home,
        fault: f.label,
        phase,
        message: `${head}, ${seconds(phase.fromMs)} - ${seconds(phase.toMs)}, cuts ${cut} off ${what}: ${effects.join('; ')}`,
      });
    }
  }
  return out;
}
