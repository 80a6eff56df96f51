/**
 * Maps a schema-validated raw scenario onto the normalized `Scenario` of `types.ts`: `...Ms` and
 * `ratePerSec` names, URL parameters as strings, fault actions as tagged data, and the defaults
 * that depend on context (provider group names, registry pushLag by type, `registries:` entries
 * inheriting from `registry:`, zone CIDRs, consumer application names). Validation is done
 * before this runs (`schema.ts`, `cross-check.ts`); this module trusts its input.
 */
import { basename, extname } from 'node:path';
import type { DistSpec } from '../engine/distributions.js';
import { cidrPrefix, providerGroupNames, REFERENCE_ATTRIBUTES } from './cross-check.js';
import { resolveProfile } from './dubbo-profiles.js';
import { defaultThreads } from '../model/thread-pool.js';
import type {
  RawFault,
  RawMethodReference,
  RawPartialReference,
  RawPartialRegistry,
  RawReference,
  RawRegistry,
  RawRouter,
  RawScenario,
} from './schema.js';
import type {
  AttachmentSpec,
  DynamicIsolationSpec,
  ExportSpec,
  FaultAction,
  ReferenceSpec,
  RegistrySpec,
  RouterSpec,
  SentinelRuleSpec,
  SentinelSpec,
  Scenario,
  StrategySpec,
  ZoneSpec,
} from '../model/types.js';

/** Network defaults (SPEC 2.2). */
export const DEFAULT_SAME_ZONE_RTT: DistSpec = { dist: 'constant', value: 0.2 };
export const DEFAULT_RTT: DistSpec = { dist: 'constant', value: 2 };

/** Registry push lag when none is given: 0 for static, uniform 20..300 ms for nacos and zookeeper. */
export function defaultPushLag(type: RegistrySpec['type']): DistSpec {
  return type === 'static' ? { dist: 'constant', value: 0 } : { dist: 'uniform', min: 20, max: 300 };
}

/** Drops undefined values so absent fields stay absent. */
function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

const stringify = (params: Record<string, string | number | boolean> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, String(v)]));

/** The attributes shared by every level of a reference. */
function attrs(r: RawMethodReference | RawPartialReference): Omit<ReferenceSpec, 'methods' | 'parameters'> {
  return compact({
    timeoutMs: r.timeout,
    retries: r.retries,
    loadbalance: r.loadbalance,
    cluster: r.cluster,
    forks: r.forks,
    sticky: r.sticky,
    actives: r.actives,
    tag: r.tag,
    mock: r.mock,
  });
}

function methodReference(r: RawMethodReference): Omit<ReferenceSpec, 'methods'> {
  return { ...attrs(r), parameters: stringify(r.parameters) };
}

function reference(r: RawReference): ReferenceSpec {
  return {
    ...methodReference(r),
    methods: Object.fromEntries(Object.entries(r.methods).map(([m, x]) => [m, methodReference(x)])),
  };
}

function partialReference(r: RawPartialReference): Partial<ReferenceSpec> {
  const out: Partial<ReferenceSpec> = attrs(r);
  if (r.parameters !== undefined) out.parameters = stringify(r.parameters);
  if (r.methods !== undefined) {
    out.methods = Object.fromEntries(
      Object.entries(r.methods).map(([m, x]) => [m, { ...attrs(x), parameters: stringify(x.parameters) }]),
    );
  }
  return out;
}

function registry(r: RawRegistry): RegistrySpec {
  const type = r.type ?? 'static';
  return compact({
    type,
    zone: r.zone,
    pushLag: r.pushLag ?? defaultPushLag(type),
    heartbeatMs: r.heartbeat!,
    unhealthyAfterMs: r.unhealthyAfter!,
    removeAfterMs: r.removeAfter!,
    sessionTimeoutMs: r.sessionTimeout!,
    emptyProtection: r.emptyProtection!,
    registration: r.registration,
    registerDelayMs: r.registerDelay!,
    connectionBound: r.connectionBound,
    ...serverFields(r),
    preferred: r.preferred!,
    weight: r.weight!,
  });
}

function partialRegistry(r: RawPartialRegistry): Partial<RegistrySpec> {
  return compact({
    type: r.type,
    zone: r.zone,
    pushLag: r.pushLag,
    heartbeatMs: r.heartbeat,
    unhealthyAfterMs: r.unhealthyAfter,
    removeAfterMs: r.removeAfter,
    sessionTimeoutMs: r.sessionTimeout,
    emptyProtection: r.emptyProtection,
    registration: r.registration,
    registerDelayMs: r.registerDelay,
    connectionBound: r.connectionBound,
    ...serverFields(r),
    preferred: r.preferred,
    weight: r.weight,
  });
}

/** The fields of the registry as a server (SPEC 2.5), each absent when not written. */
function serverFields(r: RawPartialRegistry): Partial<RegistrySpec> {
  return {
    servers: r.servers,
    capacity:
      r.capacity === undefined
        ? undefined
        : compact({ bandwidthBytesPerSec: r.capacity.bandwidth, requestsPerSec: r.capacity.requests }),
    pushRate: r.pushRate === undefined ? undefined : { intervalMs: r.pushRate.interval },
    pushDelayMs: r.pushDelay,
    simplified: r.simplified,
    extraKeys: r.extraKeys,
    juteMaxBufferBytes: r.juteMaxBuffer,
  };
}

/** A `registries:` entry: its own fields, then `registry:`'s (except zone, servers, preferred, weight), then defaults. */
function inheritedRegistry(entry: RawPartialRegistry, base: RegistrySpec, baseGavePushLag: boolean): RegistrySpec {
  const own = partialRegistry(entry);
  const type = own.type ?? base.type;
  const pushLag = own.pushLag ?? (baseGavePushLag ? base.pushLag : defaultPushLag(type));
  const { zone: _zone, servers: _servers, ...inherited } = base;
  return { ...inherited, preferred: false, weight: 100, ...own, type, pushLag };
}

function router(r: RawRouter): RouterSpec {
  return compact(r) as RouterSpec;
}

/** Default CIDRs for zones without one: 10.10.0.0/16, 10.20.0.0/16, ... skipping second octets already taken. */
function zones(raw: RawScenario['zones']): Record<string, ZoneSpec> {
  const taken = new Set<number>();
  for (const z of Object.values(raw)) {
    if (z.cidr !== undefined && (cidrPrefix(z.cidr) ?? 0) >= 8) taken.add(Number(z.cidr.split('.')[1]));
  }
  const candidates = [...Array.from({ length: 25 }, (_, i) => (i + 1) * 10), ...Array.from({ length: 256 }, (_, i) => i)];
  const out: Record<string, ZoneSpec> = {};
  for (const [name, z] of Object.entries(raw)) {
    let cidr = z.cidr?.trim();
    if (cidr === undefined) {
      const octet = candidates.find((o) => !taken.has(o)) ?? 0;
      taken.add(octet);
      cidr = `10.${octet}.0.0/16`;
    }
    out[name] = { cidr };
  }
  return out;
}

function attachment(v: RawScenario['consumers'][number]['attachments'][string]): AttachmentSpec {
  if (typeof v !== 'object') return { kind: 'all', value: String(v) };
  const value = String(v.value);
  if (v.fraction !== undefined) return { kind: 'fraction', value, fraction: v.fraction };
  if (v.when !== undefined) return { kind: 'when', value, when: v.when };
  return { kind: 'all', value };
}

function faultAction(f: RawFault): FaultAction {
  if (f.zoneDown !== undefined) {
    return typeof f.zoneDown === 'string'
      ? { kind: 'zoneDown', zone: f.zoneDown, mode: f.mode ?? 'blackhole' }
      : compact({
          kind: 'zoneDown' as const,
          // A group or instance target has no zone: '' never matches a zone (the target names who).
          zone: f.zoneDown.zone ?? '',
          group: f.zoneDown.group,
          instance: f.zoneDown.instance,
          mode: f.zoneDown.mode ?? 'blackhole',
        });
  }
  if (f.zoneUp !== undefined) return { kind: 'zoneUp', zone: f.zoneUp };
  if (f.roomDown !== undefined) return compact({ kind: 'roomDown' as const, zone: f.roomDown, shift: f.shift });
  if (f.roomUp !== undefined) return { kind: 'roomUp', zone: f.roomUp };
  if (f.sentinel !== undefined) {
    const { application, ...rules } = f.sentinel;
    return compact({ kind: 'sentinel' as const, application, rules: sentinelSpec(rules)! });
  }
  if (f.crash !== undefined) return { kind: 'crash', ...compact(f.crash) };
  if (f.restart !== undefined) return { kind: 'restart', ...compact(f.restart) };
  if (f.slowdown !== undefined) return { kind: 'slowdown', ...compact(f.slowdown) };
  if (f.partition !== undefined) return { kind: 'partition', zones: f.partition };
  if (f.heal !== undefined) return { kind: 'heal', zones: f.heal };
  if (f.registryPartition !== undefined) return { kind: 'registryPartition', zone: f.registryPartition };
  if (f.registryDown !== undefined) return { kind: 'registryDown' };
  if (f.rtt !== undefined) return { kind: 'rtt', between: f.rtt.between, set: f.rtt.set };
  if (f.scale !== undefined) return { kind: 'scale', ...compact(f.scale) };
  if (f.rule !== undefined) {
    const op = f.rule.add ? 'add' : f.rule.replace ? 'replace' : 'remove';
    return compact({ kind: 'rule' as const, op, router: router(f.rule[op]!), index: f.rule.index });
  }
  if (f.pushSwitch !== undefined) return { kind: 'pushSwitch', on: f.pushSwitch === 'on' || f.pushSwitch === true };
  if (f.traffic !== undefined) {
    const t = f.traffic;
    return compact({ kind: 'traffic' as const, consumer: t.consumer, zone: t.zone, ratePerSec: t.rate, factor: t.factor });
  }
  const r = f.rollingRestart!;
  return compact({
    kind: 'rollingRestart' as const,
    service: r.service,
    zone: r.zone,
    group: r.group,
    instance: r.instance,
    batch: r.batch,
    intervalMs: r.interval,
  });
}

function strategy(s: RawScenario['strategies'][string]): StrategySpec {
  const out: StrategySpec = {};
  if (s.description !== undefined) out.description = s.description;
  if (s.reference !== undefined) {
    const flat: Record<string, unknown> = {};
    const byService: Record<string, Partial<ReferenceSpec>> = {};
    for (const [k, v] of Object.entries(s.reference)) {
      if (REFERENCE_ATTRIBUTES.includes(k)) flat[k] = v;
      else byService[k] = partialReference(v as RawPartialReference);
    }
    out.reference = partialReference(flat as RawPartialReference);
    if (Object.keys(byService).length > 0) out.referenceByService = byService;
  }
  if (s.routers !== undefined) out.routers = s.routers.map(router);
  if (s.addRouters !== undefined) out.addRouters = s.addRouters.map(router);
  if (s.registry !== undefined) out.registry = partialRegistry(s.registry);
  if (s.dubbo !== undefined) out.dubbo = s.dubbo;
  if (s.sentinel !== undefined) out.sentinel = sentinelSpec(s.sentinel);
  if (s.providers !== undefined) {
    out.providers = Object.fromEntries(
      Object.entries(s.providers).map(([g, o]) => [
        g,
        compact({
          threadpool: o.threadpool,
          threads: o.threads,
          queues: o.queues,
          exports: o.exports === undefined ? undefined : Object.fromEntries(Object.entries(o.exports).map(([k, e]) => [k, exportSpec(e)])),
          isolation: o.isolation === undefined ? undefined : isolationSpec(o.isolation),
        }),
      ]),
    );
  }
  return out;
}

function isolationSpec(i: NonNullable<RawScenario['providers'][number]['isolation']>): { dynamic?: DynamicIsolationSpec } {
  const d = i.dynamic;
  if (d === undefined) return {};
  return {
    dynamic: { concurrency: d.concurrency, rtMs: d.rt, threads: d.threads, windowMs: d.window, restoreAfterMs: d.restoreAfter },
  };
}

function exportSpec(e: RawScenario['providers'][number]['exports'][string]): ExportSpec {
  return compact({
    executor: e.executor === undefined ? undefined : { threads: e.executor.threads, queues: e.executor.queues },
    executes: e.executes,
    tps: e.tps,
    tpsIntervalMs: e['tps.interval'],
    params: stringify(e.params),
    methods: Object.fromEntries(Object.entries(e.methods).map(([m, x]) => [m, compact({ executes: x.executes })])),
  });
}

/** The normalized scenario of a validated raw one; `fileName` supplies the default name. */
export function normalizeScenario(raw: RawScenario, fileName: string): Scenario {
  const reg = registry(raw.registry);
  const groupNames = providerGroupNames(raw.providers);
  return {
    name: raw.name ?? basename(fileName, extname(fileName)),
    description: raw.description,
    seed: raw.seed,
    durationMs: raw.duration,
    warmupMs: raw.warmup,
    bucketMs: raw.bucket,
    zones: zones(raw.zones),
    network: {
      sameZone: raw.network.rtt['same-zone'] ?? DEFAULT_SAME_ZONE_RTT,
      default: raw.network.rtt.default ?? DEFAULT_RTT,
      // Symmetric pairs first so a directed entry written for the same zones wins.
      pairs: [
        ...Object.entries(raw.network.rtt).flatMap(([k, dist]) => {
          const m = /^(.+?)<->(.+)$/.exec(k);
          return m ? [{ from: m[1]!.trim(), to: m[2]!.trim(), dist }, { from: m[2]!.trim(), to: m[1]!.trim(), dist }] : [];
        }),
        ...Object.entries(raw.network.rtt).flatMap(([k, dist]) => {
          const m = /^(.+?)->(.+)$/.exec(k);
          return m && !k.includes('<->') ? [{ from: m[1]!.trim(), to: m[2]!.trim(), dist }] : [];
        }),
      ],
    },
    registry: reg,
    registries: Object.fromEntries(
      Object.entries(raw.registries).map(([n, r]) => [n, inheritedRegistry(r, reg, raw.registry.pushLag !== undefined)]),
    ),
    services: Object.fromEntries(
      Object.entries(raw.services).map(([s, svc]) => [
        s,
        {
          methods: Object.fromEntries(
            Object.entries(svc.methods).map(([m, x]) => [
              m,
              {
                serviceTime: x.serviceTime,
                idempotent: x.idempotent,
                bizErrorRate: x.bizErrorRate,
                calls: x.calls.map((c) => ({ service: c.service, method: c.method, reference: reference(c.reference) })),
                parallel: x.parallel,
              },
            ]),
          ),
        },
      ]),
    ),
    providers: raw.providers.map((p, i) => {
      const services = p.services ?? [p.service!];
      return compact({
        name: groupNames[i]!,
        service: services[0]!,
        services,
        exports: Object.fromEntries(Object.entries(p.exports).map(([s, e]) => [s, exportSpec(e)])),
        isolation: p.isolation?.dynamic === undefined ? undefined : isolationSpec(p.isolation),
        zone: p.zone,
        count: p.count,
        threadpool: p.threadpool,
        threads: p.threads ?? defaultThreads(p.threadpool),
        queues: p.queues,
        weight: p.weight,
        warmupMs: p.warmup,
        application: p.application ?? `${services[0]!.slice(services[0]!.lastIndexOf('.') + 1)}-provider`,
        registries: p.registries,
        params: stringify(p.params),
        propagation: p.propagation === undefined ? undefined : compact(p.propagation),
        dubbo: resolveProfile(raw.dubbo, p.dubbo),
        dubboSettings: p.dubbo,
        sentinel: sentinelSpec(p.sentinel),
      });
    }),
    consumers: raw.consumers.map((c, i) =>
      compact({
        application: c.application ?? `consumer-${i}`,
        zone: c.zone,
        instances: c.instances,
        ratePerSec: c.rate,
        arrival: c.arrival,
        calls: { ...c.calls },
        reference: Object.fromEntries(Object.entries(c.reference).map(([s, r]) => [s, reference(r)])),
        consumerDefaults: methodReference(c.consumerDefaults),
        attachments: Object.fromEntries(Object.entries(c.attachments).map(([k, v]) => [k, attachment(v)])),
        registries: c.registries,
        userIds: c.userIds,
        threads: c.threads,
        dubbo: resolveProfile(raw.dubbo, c.dubbo),
        dubboSettings: c.dubbo,
        sentinel: sentinelSpec(c.sentinel),
        cohorts: c.cohorts,
        representatives: c.representatives,
      }),
    ),
    routers: raw.routers.map(router),
    faults: raw.faults.map((f, i) => compact({ atMs: f.at, forMs: f.for, action: faultAction(f), label: `faults[${i}]` })),
    strategies: Object.fromEntries(Object.entries(raw.strategies).map(([n, s]) => [n, strategy(s)])),
    ...(raw.propagation === undefined ? {} : { propagation: compact(raw.propagation) }),
    ...(raw.dubbo === undefined ? {} : { dubbo: raw.dubbo }),
    ...(raw.sentinel === undefined ? {} : { sentinel: sentinelSpec(raw.sentinel) }),
  };
}

/** A `sentinel:` block as the model holds it: the rule kinds given, rules as written (the port fills in defaults). */
function sentinelSpec(s: RawScenario['sentinel']): SentinelSpec | undefined {
  if (s === undefined) return undefined;
  // What Sentinel's dashboard adds to a rule, and the cluster fields (validated as off), change nothing here.
  const rule = (r: object): SentinelRuleSpec => {
    const { id: _i, app: _a, ip: _ip, port: _p, gmtCreate: _c, gmtModified: _m, clusterMode: _cm, clusterConfig: _cc, refResource: _r, ...own } = r as Record<string, unknown>;
    return compact(own) as SentinelRuleSpec;
  };
  return compact({
    flowRules: s.flowRules?.map(rule),
    degradeRules: s.degradeRules?.map(rule),
    systemRules: s.systemRules?.map(rule),
    paramFlowRules: s.paramFlowRules?.map(rule),
    fallback: s.fallback,
  });
}
