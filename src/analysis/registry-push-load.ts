/**
 * The push load each fault puts on a registry, estimated from the scenario and the provider URLs of
 * a built world (nothing runs): the provider list changes the fault causes (the instances a
 * rolling restart, restart, scale, crash, zoneDown or roomDown deregisters and registers, the
 * lists a registry outage or push switch re-reads when it ends), each pushed as the full list to
 * every subscriber of that list, in bytes measured the way the registry measures them
 * (world/registry-push-size.ts). Binned by second, it gives each fault's peak bytes per second,
 * per node when the clients spread evenly over `registry.servers`, and the backlog a NIC of the
 * node's `capacity.bandwidth` (else 1 Gbit/s) would build. A ZooKeeper ensemble without a quorum
 * (check-registry-quorum.ts) changes nothing until it returns, so the changes of such a span are
 * counted when it ends. What it ignores (the warning and
 * docs/cli.md say so): pushes of changes outside faults, ZooKeeper's one-shot watches merging
 * changes that arrive before the client re-reads, Nacos names that keep other groups' consumers
 * out of a push, consumers a roomDown takes away, and the spread of URL lengths within a group
 * (the mean is used). `check-registry-load.ts` turns it into warnings.
 */
import type { DubboProfile } from '../model/dubbo-profile.js';
import type { FaultSpec, ReferenceSpec, RegistrySpec, Scenario } from '../model/types.js';
import { consumerMigrationStep, registerLevels, subscribedLevels } from '../world/discovery-levels.js';
import { nacosServiceName } from '../world/nacos-service-name.js';
import type { ProviderGroup } from '../world/provider.js';
import { PushSizer } from '../world/registry-push-size.js';
import { simplifiedUrl } from '../world/registry-simplified-url.js';
import { NACOS_DETECTION_TIMEOUT_MS, NACOS_EJECT_PERIOD_MS, NACOS_KEEP_ALIVE_TIME_MS } from '../world/registry-nacos.js';
import { nacosServerPushDelayMs } from '../world/registry-push-merge.js';
import { targetGroups } from '../scenario/estimate-provider-churn.js';
import { quorumLostSpans } from './check-registry-quorum.js';

/** A NIC of 1 Gbit/s in bytes per second: what a registry node is held against when `capacity.bandwidth` is unset. */
export const DEFAULT_NIC_BYTES_PER_SEC = 125_000_000;

/** The estimated push load of one fault on one registry. */
export interface FaultPushLoad {
  /** `registry`, or the name of a `registries:` entry. */
  registry: string;
  /** The fault (`faults[2]`). */
  fault: FaultSpec;
  /** Notifications sent (one per changed list and subscriber; merged per `pushRate` interval when set). */
  pushes: number;
  /** Bytes of those notifications, every node together. */
  bytes: number;
  /** First and last second (ms) in which the fault's pushes leave the registry. */
  fromMs: number;
  toMs: number;
  /** The busiest second's bytes, every node together. */
  peakBytesPerSec: number;
  /** Nodes the clients spread over (`registry.servers`, else 1). */
  nodes: number;
  /** One node's NIC: `capacity.bandwidth`, else 1 Gbit/s. */
  nicBytesPerSec: number;
  /** Whether `capacity.bandwidth` set the NIC (else the 1 Gbit/s default). */
  nicSet: boolean;
  /** Seconds in which one node is offered more than its NIC sends. */
  secondsOverNic: number;
  /** The longest a push waits behind the node's backlog, in seconds (fluid queue over the 1 s bins). */
  backlogSec: number;
}

/** One list change: at `tMs`, group `group` gains (+1) or loses (-1) one instance; or every list is re-read. */
interface Change {
  tMs: number;
  fault: number;
  group?: string;
  delta: 1 | -1 | 0;
}

/** The subscribers and the bytes of each list a registry pushes, by list key (`i:<service>@<nacos name>` / `a:<application>`). */
interface Lists {
  subscribers: Map<string, number>;
  /** Per list: envelope bytes and, per provider group in it, the mean bytes one instance adds. */
  bytes: Map<string, { envelope: number; perInstance: Map<string, number> }>;
  /** Per provider group: the lists it is in. */
  listsOf: Map<string, string[]>;
}

const nodesOf = (spec: RegistrySpec): number => Object.values(spec.servers ?? {}).reduce((s, n) => s + n, 0) || 1;
const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);

/** Every (non-static) registry's push load per fault that changes a provider list, in fault order. */
export function registryPushLoads(scenario: Scenario, groups: readonly ProviderGroup[]): FaultPushLoad[] {
  const named = Object.entries(scenario.registries);
  const registries: Array<[string, RegistrySpec]> = named.length > 0 ? named : [['registry', scenario.registry]];
  const out: FaultPushLoad[] = [];
  for (const [name, spec] of registries) {
    if (spec.type === 'static') continue;
    const lists = listsOf(scenario, name, spec, groups);
    // ZooKeeper without a quorum changes nothing: what falls in such a span happens when it returns (or never).
    const lost = quorumLostSpans(scenario, spec);
    const changes = changesOf(scenario, spec).flatMap((c) => {
      const span = lost.find((l) => c.tMs >= l.fromMs && c.tMs < l.toMs);
      if (span === undefined) return [c];
      return span.toMs < scenario.durationMs ? [{ ...c, tMs: span.toMs }] : [];
    });
    out.push(...loadsOf(scenario, name, spec, lists, changes));
  }
  const order = (l: FaultPushLoad) => scenario.faults.indexOf(l.fault);
  return out.sort((a, b) => order(a) - order(b));
}

// Who subscribes to which list at this registry, and what each provider of a list weighs in it.
function listsOf(scenario: Scenario, name: string, spec: RegistrySpec, groups: readonly ProviderGroup[]): Lists {
  const type = spec.type as 'nacos' | 'zookeeper';
  const uses = (registries: string[] | undefined) => registries === undefined || registries.includes(name);
  const subscribers = new Map<string, number>();
  const add = (key: string, n: number) => subscribers.set(key, (subscribers.get(key) ?? 0) + n);
  // Interface-level URLs as the registry holds them (`simplified` shortens them, as DiscoveryRegistry.registeredUrl does).
  const iface = new PushSizer('interface', type, spec.simplified === true ? (p) => simplifiedUrl(p.url, p.group.spec.dubbo.version, spec.extraKeys) : undefined);
  const app = new PushSizer('application', type);
  // Consumer sides: the consumer groups, then every provider group's downstream calls.
  const sides: Array<{ instances: number; services: string[]; dubbo: DubboProfile; reference: Record<string, ReferenceSpec | undefined>; defaults?: Record<string, string> }> = scenario.consumers
    .filter((c) => uses(c.registries))
    .map((c) => ({ instances: c.instances, services: Object.keys(c.calls).map((k) => k.slice(0, k.lastIndexOf('.'))), dubbo: c.dubbo, reference: c.reference, defaults: c.consumerDefaults.parameters }));
  for (const g of scenario.providers) {
    if (!uses(g.registries)) continue;
    const calls = g.services.flatMap((s) => Object.values(scenario.services[s]?.methods ?? {}).flatMap((m) => m.calls));
    if (calls.length > 0) sides.push({ instances: g.count, services: calls.map((c) => c.service), dubbo: g.dubbo, reference: Object.fromEntries(calls.map((c) => [c.service, c.reference])) });
  }
  const served = scenario.providers.filter((g) => uses(g.registries));
  for (const side of sides) {
    const apps = new Set<string>();
    for (const s of new Set(side.services)) {
      const step = side.reference[s]?.parameters?.['migration.step'] ?? side.defaults?.['migration.step'];
      const levels = subscribedLevels(consumerMigrationStep(spec, side.dubbo, step));
      if (levels.includes('interface')) for (const key of new Set(served.filter((g) => g.services.includes(s)).map((g) => ifaceKey(type, g.params, s)))) add(key, side.instances);
      if (levels.includes('application')) for (const g of served) if (g.services.includes(s)) apps.add(g.application);
    }
    for (const a of apps) add(`a:${a}`, side.instances);
  }
  const bytes: Lists['bytes'] = new Map();
  const listsOfGroup = new Map<string, string[]>();
  for (const g of groups) {
    const gs = g.spec;
    if (!uses(gs.registries) || g.instances.length === 0) continue;
    const levels = registerLevels(spec, gs.dubbo);
    const keys: string[] = [];
    const put = (key: string, envelope: number, perInstance: number) => {
      const entry = bytes.get(key) ?? { envelope, perInstance: new Map<string, number>() };
      entry.perInstance.set(gs.name, perInstance);
      bytes.set(key, entry);
      keys.push(key);
    };
    if (levels.interface) {
      for (const [i, s] of gs.services.entries()) {
        const nacosName = nacosServiceName(s, gs.params.version, gs.params.group);
        put(ifaceKey(type, gs.params, s), iface.envelopeBytes(s, s, nacosName), mean(g.instances.map((p) => iface.instanceBytes(p.exports[i]!))));
      }
    }
    if (levels.application) put(`a:${gs.application}`, app.envelopeBytes(gs.application, gs.application), mean(g.instances.map((p) => app.processBytes(p))));
    listsOfGroup.set(gs.name, keys);
  }
  return { subscribers, bytes, listsOf: listsOfGroup };
}

// Nacos keeps one list per (interface, version, group); ZooKeeper one `/providers` node per interface.
function ifaceKey(type: 'nacos' | 'zookeeper', params: Record<string, string>, service: string): string {
  return type === 'zookeeper' ? `i:${service}` : `i:${service}@${nacosServiceName(service, params.version, params.group)}`;
}

// When the registry drops a provider that fell silent (check-registry-zone.ts words the same rules).
function detectionMs(spec: RegistrySpec, group: Scenario['providers'][number]): number {
  if (spec.type === 'zookeeper') return spec.sessionTimeoutMs;
  if (spec.connectionBound ?? group.dubbo.nacosClient === '2.x') return NACOS_KEEP_ALIVE_TIME_MS + NACOS_EJECT_PERIOD_MS / 2 + NACOS_DETECTION_TIMEOUT_MS;
  return spec.removeAfterMs;
}

/** `k` of `items`, evenly over the list (the world picks at random; what matters here is how many of each group). */
function spread<T>(items: readonly T[], k: number): T[] {
  if (k >= items.length) return [...items];
  return Array.from({ length: k }, (_, i) => items[Math.floor((i * items.length) / k)]!);
}

/** The list changes of the fault timeline, in fault order (each carries its fault's index). */
function changesOf(scenario: Scenario, spec: RegistrySpec): Change[] {
  const live = new Map(scenario.providers.map((g) => [g.name, g.count]));
  const down = new Map<string, Change[]>();
  const out: Change[] = [];
  const reg = spec.registerDelayMs;
  const each = (n: number, f: (k: number) => void) => {
    for (let k = 0; k < n; k++) f(k);
  };
  // How many of `n` instances a fault takes: one instance, `count`, `fraction` or all (the world picks over every target).
  const amount = (n: number, t: { count?: number; fraction?: number; instance?: string }) =>
    t.instance !== undefined ? Math.min(1, n) : t.count !== undefined ? Math.min(n, t.count) : t.fraction !== undefined ? Math.round(n * t.fraction) : n;
  const faults = scenario.faults.map((f, i) => ({ f, i })).filter(({ f }) => f.atMs <= scenario.durationMs).sort((x, y) => x.f.atMs - y.f.atMs);
  for (const { f, i } of faults) {
    const a = f.action;
    const at = f.atMs;
    const undoAt = f.forMs !== undefined && at + f.forMs <= scenario.durationMs ? at + f.forMs : undefined;
    const change = (tMs: number, group: string, delta: 1 | -1) => out.push({ tMs, fault: i, group, delta });
    const resync = (tMs: number) => out.push({ tMs, fault: i, delta: 0 });
    switch (a.kind) {
      case 'scale':
        for (const g of targetGroups(scenario, a)) {
          const before = live.get(g.name) ?? 0;
          const delta = a.count - before;
          // Scale-in deregisters at once (a graceful stop); a scale-out registers after registerDelay.
          each(Math.abs(delta), () => change(delta > 0 ? at + reg : at, g.name, delta > 0 ? 1 : -1));
          if (undoAt !== undefined) each(Math.abs(delta), () => change(delta > 0 ? undoAt : undoAt + reg, g.name, delta > 0 ? -1 : 1));
          else live.set(g.name, a.count);
        }
        break;
      case 'restart':
      case 'rollingRestart': {
        // The targets' instances as one list, group by group (the world's order): a rolling restart takes
        // `batch` of them every interval, a restart its amount. Each instance deregisters (a graceful stop)
        // and its replacement registers after registerDelay.
        const targets = targetGroups(scenario, a).flatMap((g) => Array.from({ length: live.get(g.name) ?? 0 }, () => g.name));
        const k = a.kind === 'restart' ? amount(targets.length, a) : targets.length;
        spread(targets, k).forEach((group, j) => {
          const t = a.kind === 'rollingRestart' ? at + Math.floor(j / Math.max(1, a.batch)) * a.intervalMs : at;
          change(t, group, -1);
          change(t + reg, group, 1);
        });
        break;
      }
      case 'crash':
      case 'zoneDown':
      case 'roomDown': {
        const target = a.kind === 'roomDown' || (a.kind === 'zoneDown' && a.group === undefined && a.instance === undefined) ? { zone: a.zone } : a;
        const targets = targetGroups(scenario, target).flatMap((g) => Array.from({ length: live.get(g.name) ?? 0 }, () => g));
        const k = a.kind === 'crash' ? amount(targets.length, a) : a.kind === 'zoneDown' && a.instance !== undefined ? Math.min(1, targets.length) : targets.length;
        // Silent providers leave the lists when the registry's rules drop them, and come back when undone;
        // back before the registry dropped them, nothing changed.
        for (const g of spread(targets, k)) {
          const dropMs = at + detectionMs(spec, g);
          if (undoAt !== undefined && undoAt < dropMs) continue;
          const drop: Change = { tMs: dropMs, fault: i, group: g.name, delta: -1 };
          out.push(drop);
          if (undoAt !== undefined) change(undoAt + reg, g.name, 1);
          else down.set(g.name, [...(down.get(g.name) ?? []), drop]);
        }
        break;
      }
      case 'zoneUp':
      case 'roomUp':
        for (const g of targetGroups(scenario, { zone: a.zone })) {
          for (const drop of down.get(g.name) ?? []) {
            if (drop.tMs > at) out.splice(out.indexOf(drop), 1);
            else change(at + reg, g.name, 1);
          }
          down.delete(g.name);
        }
        break;
      case 'registryDown':
      case 'registryPartition':
        // Back (or reachable again): every subscription re-reads its lists.
        if (undoAt !== undefined) resync(undoAt);
        break;
      case 'pushSwitch':
        if (a.on) resync(at);
        else if (undoAt !== undefined) resync(undoAt);
        break;
      default:
        break;
    }
  }
  return out;
}

// Walks the changes in time order over the live counts, pushes each changed list to its subscribers, and bins per fault.
function loadsOf(scenario: Scenario, name: string, spec: RegistrySpec, lists: Lists, changes: Change[]): FaultPushLoad[] {
  const live = new Map(scenario.providers.map((g) => [g.name, g.count]));
  const listBytes = (key: string): number => {
    const b = lists.bytes.get(key)!;
    let bytes = b.envelope;
    for (const [g, per] of b.perInstance) bytes += Math.max(0, live.get(g) ?? 0) * per;
    return bytes;
  };
  // `pushRate`'s windows, or a Nacos server's push delay (each list's changes merged into one push per delay: taken as
  // windows of the delay, which the binning by second cannot tell apart).
  const intervalMs = spec.pushRate?.intervalMs ?? nacosServerPushDelayMs(spec);
  // Per fault: bytes per second, pushes; merged, per (list, interval) the last list state, sent at the interval's end.
  const perFault = new Map<number, { bins: Map<number, number>; pushes: number; merged: Map<string, { tMs: number; key: string; bytes: number }> }>();
  const sorted = changes.map((c, seq) => ({ c, seq })).sort((x, y) => x.c.tMs - y.c.tMs || x.seq - y.seq);
  for (const { c } of sorted) {
    if (c.group !== undefined) live.set(c.group, (live.get(c.group) ?? 0) + c.delta);
    const keys = c.group === undefined ? [...lists.bytes.keys()] : (lists.listsOf.get(c.group) ?? []);
    const entry = perFault.get(c.fault) ?? { bins: new Map<number, number>(), pushes: 0, merged: new Map() };
    perFault.set(c.fault, entry);
    for (const key of keys) {
      const subs = lists.subscribers.get(key) ?? 0;
      if (subs === 0) continue;
      const bytes = subs * listBytes(key);
      if (intervalMs !== undefined) {
        const window = Math.floor(c.tMs / intervalMs);
        entry.merged.set(`${key}\u0000${window}`, { tMs: (window + 1) * intervalMs, key, bytes });
        continue;
      }
      entry.pushes += subs;
      const bin = Math.floor(c.tMs / 1000);
      entry.bins.set(bin, (entry.bins.get(bin) ?? 0) + bytes);
    }
  }
  const nodes = nodesOf(spec);
  const nicSet = spec.capacity?.bandwidthBytesPerSec !== undefined;
  const nic = spec.capacity?.bandwidthBytesPerSec ?? DEFAULT_NIC_BYTES_PER_SEC;
  const out: FaultPushLoad[] = [];
  for (const [i, entry] of perFault) {
    for (const m of entry.merged.values()) {
      entry.pushes += lists.subscribers.get(m.key) ?? 0;
      const bin = Math.floor(m.tMs / 1000);
      entry.bins.set(bin, (entry.bins.get(bin) ?? 0) + m.bytes);
    }
    if (entry.bins.size === 0) continue;
    const bins = [...entry.bins].sort((x, y) => x[0] - y[0]);
    let backlog = 0;
    let worst = 0;
    let over = 0;
    // A loop, not Math.max(...): a fault's pushes may span more seconds than a call takes arguments.
    let peak = 0;
    let last = bins[0]![0] - 1;
    for (const [bin, bytes] of bins) {
      // The backlog drains at the NIC's rate through the quiet seconds, then takes this second's bytes.
      backlog = Math.max(0, backlog - nic * (bin - last - 1));
      backlog = Math.max(0, backlog + bytes / nodes - nic);
      worst = Math.max(worst, backlog);
      if (bytes / nodes > nic) over++;
      if (bytes > peak) peak = bytes;
      last = bin;
    }
    out.push({
      registry: name,
      fault: scenario.faults[i]!,
      pushes: entry.pushes,
      bytes: bins.reduce((s, [, b]) => s + b, 0),
      fromMs: bins[0]![0] * 1000,
      toMs: (bins[bins.length - 1]![0] + 1) * 1000,
      peakBytesPerSec: peak,
      nodes,
      nicBytesPerSec: nic,
      nicSet,
      secondsOverNic: over,
      backlogSec: worst / nic,
    });
  }
  return out;
}
