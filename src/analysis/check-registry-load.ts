/**
 * The push-load part of `zonesim check`: a fault whose estimated pushes (registry-push-load.ts)
 * offer one registry node more bytes in a second than its NIC sends (`registry.capacity.bandwidth`,
 * else 1 Gbit/s). The warning names the fault, the peak, how long the NIC stays behind, what the
 * backlog does to the registry's clients (push lag; with ZooKeeper, ping replies queued behind the
 * pushes put sessions at risk) and the cures. Owns the finding and its words; the warning shape is
 * check-warnings.ts's.
 */
import type { RegistrySpec, Scenario } from '../model/types.js';
import type { ProviderGroup } from '../world/provider.js';
import { faultLabel, type PhaseSpan } from '../world/faults.js';
import { registryPushLoads, type FaultPushLoad } from './registry-push-load.js';
import { nacosServerPushDelayMs } from '../world/registry-push-merge.js';

/** The figures of a `registry-push-overload` warning (`--json`), per node unless said otherwise. */
export interface RegistryLoadEstimate {
  /** Notifications the fault sends and their bytes, every node together. */
  pushes: number;
  bytes: number;
  /** The busiest second's bytes sent by one node. */
  peakBytesPerSec: number;
  /** One node's NIC (`capacity.bandwidth`, else 1 Gbit/s) and whether the scenario set it. */
  nicBytesPerSec: number;
  nicSet: boolean;
  nodes: number;
  /** Seconds in which one node is offered more than its NIC sends. */
  secondsOverNic: number;
  /** The longest a push waits behind the backlog, in seconds. */
  backlogSec: number;
}

/** A fault whose pushes exceed a registry node's NIC. */
export interface RegistryLoadWarning {
  kind: 'registry-push-overload';
  registry: string;
  /** The registry's `zone`, or empty. */
  zone: string;
  fault: string;
  /** When the fault's pushes leave the registry (whole seconds). */
  phase: PhaseSpan;
  estimate: RegistryLoadEstimate;
  message: string;
}

/** `22 Gbit/s`, `850 Mbit/s`: a rate in bytes per second, in bits. */
export function bitRate(bytesPerSec: number): string {
  const bits = bytesPerSec * 8;
  const [value, unit] =
    bits >= 1e12 ? [bits / 1e12, 'Tbit/s'] : bits >= 1e9 ? [bits / 1e9, 'Gbit/s'] : bits >= 1e6 ? [bits / 1e6, 'Mbit/s'] : [bits / 1e3, 'kbit/s'];
  return `${value >= 10 ? Math.round(value) : +value.toFixed(1)} ${unit}`;
}

/** `17.9 GB`, `640 MB` (decimal units). */
function volume(bytes: number): string {
  const [value, unit] = bytes >= 1e9 ? [bytes / 1e9, 'GB'] : bytes >= 1e6 ? [bytes / 1e6, 'MB'] : [bytes / 1e3, 'kB'];
  return `${+value.toFixed(1)} ${unit}`;
}

/** `4.2 s`, `56 s`, `12 min`, `8.3 h`. */
const secs = (s: number): string =>
  s >= 7200 ? `${+(s / 3600).toFixed(1)} h` : s >= 600 ? `${Math.round(s / 60)} min` : s >= 10 ? `${Math.round(s)} s` : `${+s.toFixed(1)} s`;

/** Every fault whose estimated pushes offer a registry node more than its NIC sends in a second. */
export function registryLoadWarnings(scenario: Scenario, groups: readonly ProviderGroup[]): RegistryLoadWarning[] {
  return registryPushLoads(scenario, groups)
    .filter((l) => l.peakBytesPerSec / l.nodes > l.nicBytesPerSec)
    .map((l) => warningOf(scenario, l));
}

// The Nacos clients of the scenario's provider and consumer groups (connectionBound forces 2.x), in version order.
function nacosClients(scenario: Scenario, spec: RegistrySpec): Array<'1.x' | '2.x'> {
  if (spec.connectionBound !== undefined) return [spec.connectionBound ? '2.x' : '1.x'];
  const versions = new Set([...scenario.providers, ...scenario.consumers].map((g) => g.dubbo.nacosClient));
  return (['1.x', '2.x'] as const).filter((v) => versions.has(v));
}

function warningOf(scenario: Scenario, l: FaultPushLoad): RegistryLoadWarning {
  const spec = l.registry === 'registry' ? scenario.registry : scenario.registries[l.registry]!;
  const perNode = l.peakBytesPerSec / l.nodes;
  const who = `${l.registry === 'registry' ? 'the registry' : `registry ${l.registry}`} (${spec.type}, ${l.nodes === 1 ? '1 node' : `${l.nodes} nodes, clients spread evenly`})`;
  const nic = `${bitRate(l.nicBytesPerSec)} NIC${l.nicSet ? '' : ' (capacity.bandwidth unset: 1 Gbit/s assumed)'}`;
  const spanS = (l.toMs - l.fromMs) / 1000;
  const consequence =
    spec.type === 'zookeeper'
      ? `ping replies queue behind the pushes: a session whose ping waits past the read timeout (2/3 of sessionTimeout, ` +
        `${secs((2 * spec.sessionTimeoutMs) / 3000)}) reconnects, and one not heard from for sessionTimeout (${secs(spec.sessionTimeoutMs / 1000)}) ` +
        'expires: its providers leave every list (mass deregistration, then empty:// and forbidden calls)'
      : nacosClients(scenario, spec)
          .map((v) => (v === '1.x' ? 'Nacos 1.x UDP pushes not acknowledged in time are lost (clients fall back to polling every 10 s)' : 'Nacos 2.x gRPC pushes time out and are retried, adding to the backlog'))
          .join('; ');
  const delayMs = spec.pushRate === undefined ? nacosServerPushDelayMs(spec) : undefined;
  const merged = delayMs === undefined ? '' : `, each list's changes merged per the server's ${delayMs} ms push delay`;
  const modeled =
    spec.capacity === undefined
      ? ' zonesim runs the registry with unlimited capacity until `registry.capacity` is set: set it to see these effects.'
      : '';
  return {
    kind: 'registry-push-overload',
    registry: l.registry,
    zone: spec.zone ?? '',
    fault: l.fault.label,
    phase: { fromMs: l.fromMs, toMs: l.toMs },
    estimate: {
      pushes: l.pushes,
      bytes: l.bytes,
      peakBytesPerSec: perNode,
      nicBytesPerSec: l.nicBytesPerSec,
      nicSet: l.nicSet,
      nodes: l.nodes,
      secondsOverNic: l.secondsOverNic,
      backlogSec: l.backlogSec,
    },
    message:
      `${l.fault.label} (${faultLabel(l.fault.action)}): ${who} would send about ${bitRate(perNode)} per node for ~${secs(Math.max(1, l.secondsOverNic))} ` +
      `(the busiest second; ${volume(l.bytes)} in ${l.pushes.toLocaleString('en-US')} pushes over ${secs(spanS)}${merged}), ` +
      `${Math.round(perNode / l.nicBytesPerSec)}x its ${nic}. Push lag grows as the backlog waits for the NIC (up to ~${secs(l.backlogSec)}: ` +
      `consumers keep stale lists that long); ${consequence}. Cures: registry.pushRate (merge a list's changes per interval), ` +
      'registry.simplified: true (shorter URLs), registration: application (one list per application), more nodes in registry.servers.' +
      modeled,
  };
}
