/**
 * The inverse of loading: a normalized `Scenario` written back in the file format, with every
 * default made explicit, durations as numbers of ms and rates as numbers per second (both valid
 * in files). Loading the dump gives the same `Scenario` back. Used to store "the scenario as
 * run" when the run is not a file plus `--set`s (e.g. `recommend`'s re-run with new timeouts).
 */
import { dubboSettingsToRaw } from './dubbo-schema.js';
import { stringify } from 'yaml';
import { distToRaw } from './units.js';
import type {
  DynamicIsolationSpec,
  ExportSpec,
  FaultAction,
  FaultSpec,
  ReferenceSpec,
  RegistrySpec,
  Scenario,
  StrategySpec,
} from '../model/types.js';

type Raw = Record<string, unknown>;

/** Drops undefined values so the dump has no `key: null` lines. */
function compact(o: Raw): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function attrsToRaw(r: Partial<Omit<ReferenceSpec, 'methods'>>): Raw {
  return compact({
    timeout: r.timeoutMs,
    retries: r.retries,
    loadbalance: r.loadbalance,
    cluster: r.cluster,
    forks: r.forks,
    sticky: r.sticky,
    actives: r.actives,
    tag: r.tag,
    mock: r.mock,
    parameters: r.parameters,
  });
}

function referenceToRaw(r: Partial<ReferenceSpec>): Raw {
  const out = attrsToRaw(r);
  if (r.methods !== undefined) {
    out.methods = Object.fromEntries(Object.entries(r.methods).map(([m, x]) => [m, attrsToRaw(x)]));
  }
  return out;
}

function registryToRaw(r: Partial<RegistrySpec>): Raw {
  return compact({
    type: r.type,
    zone: r.zone,
    pushLag: r.pushLag === undefined ? undefined : distToRaw(r.pushLag),
    heartbeat: r.heartbeatMs,
    unhealthyAfter: r.unhealthyAfterMs,
    removeAfter: r.removeAfterMs,
    sessionTimeout: r.sessionTimeoutMs,
    emptyProtection: r.emptyProtection,
    registration: r.registration,
    registerDelay: r.registerDelayMs,
    connectionBound: r.connectionBound,
    servers: r.servers,
    capacity:
      r.capacity === undefined
        ? undefined
        : compact({
            // Bytes per second, written back in the bytes form the schema reads.
            bandwidth: r.capacity.bandwidthBytesPerSec === undefined ? undefined : `${r.capacity.bandwidthBytesPerSec}B/s`,
            requests: r.capacity.requestsPerSec,
          }),
    pushRate: r.pushRate === undefined ? undefined : { interval: r.pushRate.intervalMs },
    pushDelay: r.pushDelayMs,
    simplified: r.simplified,
    extraKeys: r.extraKeys,
    juteMaxBuffer: r.juteMaxBufferBytes,
    preferred: r.preferred,
    weight: r.weight,
  });
}

function actionToRaw(a: FaultAction): Raw {
  switch (a.kind) {
    case 'zoneDown':
      return { zoneDown: { zone: a.zone, mode: a.mode } };
    case 'zoneUp':
      return { zoneUp: a.zone };
    case 'partition':
      return { partition: a.zones };
    case 'heal':
      return { heal: a.zones };
    case 'registryPartition':
      return { registryPartition: a.zone };
    case 'registryDown':
      return { registryDown: true };
    case 'rtt':
      return { rtt: { between: a.between, set: distToRaw(a.set) } };
    case 'rule':
      return { rule: compact({ [a.op]: a.router, index: a.index }) };
    case 'pushSwitch':
      return { pushSwitch: a.on ? 'on' : 'off' };
    case 'rollingRestart':
      return {
        rollingRestart: compact({ service: a.service, zone: a.zone, group: a.group, batch: a.batch, interval: a.intervalMs }),
      };
    case 'traffic':
      return { traffic: compact({ consumer: a.consumer, zone: a.zone, rate: a.ratePerSec, factor: a.factor }) };
    case 'roomDown':
      return compact({ roomDown: a.zone, shift: a.shift });
    case 'roomUp':
      return { roomUp: a.zone };
    default: {
      const { kind, ...rest } = a;
      return { [kind]: compact(rest) };
    }
  }
}

function faultToRaw(f: FaultSpec): Raw {
  return compact({ at: f.atMs, for: f.forMs, ...actionToRaw(f.action) });
}

function strategyToRaw(s: StrategySpec): Raw {
  const reference =
    s.reference === undefined && s.referenceByService === undefined
      ? undefined
      : {
          ...referenceToRaw(s.reference ?? {}),
          ...Object.fromEntries(Object.entries(s.referenceByService ?? {}).map(([k, r]) => [k, referenceToRaw(r)])),
        };
  return compact({
    description: s.description,
    reference,
    routers: s.routers,
    addRouters: s.addRouters,
    registry: s.registry === undefined ? undefined : registryToRaw(s.registry),
    dubbo: s.dubbo === undefined ? undefined : dubboSettingsToRaw(s.dubbo),
    providers:
      s.providers === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(s.providers).map(([g, o]) => [
              g,
              compact({
                threadpool: o.threadpool,
                threads: o.threads,
                queues: o.queues,
                exports: o.exports === undefined ? undefined : Object.fromEntries(Object.entries(o.exports).map(([k, e]) => [k, exportToRaw(e)])),
                isolation: o.isolation === undefined ? undefined : o.isolation.dynamic === undefined ? {} : { dynamic: isolationToRaw(o.isolation.dynamic) },
              }),
            ]),
          ),
  });
}

function exportToRaw(e: ExportSpec): Raw {
  return compact({
    executor: e.executor,
    executes: e.executes,
    tps: e.tps,
    'tps.interval': e.tpsIntervalMs,
    params: e.params,
    methods: e.methods,
  });
}

function isolationToRaw(d: DynamicIsolationSpec): Raw {
  return { concurrency: d.concurrency, rt: d.rtMs, threads: d.threads, window: d.windowMs, restoreAfter: d.restoreAfterMs };
}

/** The scenario in the raw file format (a plain object), every default explicit. */
export function scenarioToRaw(s: Scenario): Raw {
  const rtt: Raw = { 'same-zone': distToRaw(s.network.sameZone), default: distToRaw(s.network.default) };
  for (const p of s.network.pairs) rtt[`${p.from}->${p.to}`] = distToRaw(p.dist);
  return {
    name: s.name,
    description: s.description,
    seed: s.seed,
    duration: s.durationMs,
    warmup: s.warmupMs,
    bucket: s.bucketMs,
    zones: s.zones,
    network: { rtt },
    registry: registryToRaw(s.registry),
    registries: Object.fromEntries(Object.entries(s.registries).map(([n, r]) => [n, registryToRaw(r)])),
    services: Object.fromEntries(
      Object.entries(s.services).map(([name, svc]) => [
        name,
        {
          methods: Object.fromEntries(
            Object.entries(svc.methods).map(([m, x]) => [
              m,
              {
                serviceTime: distToRaw(x.serviceTime),
                idempotent: x.idempotent,
                bizErrorRate: x.bizErrorRate,
                calls: x.calls.map((c) => ({ service: c.service, method: c.method, reference: referenceToRaw(c.reference) })),
                parallel: x.parallel,
              },
            ]),
          ),
        },
      ]),
    ),
    providers: s.providers.map((p) =>
      compact({
        name: p.name,
        service: p.services.length === 1 ? p.service : undefined,
        services: p.services.length === 1 ? undefined : p.services,
        exports: Object.keys(p.exports).length === 0 ? undefined : Object.fromEntries(Object.entries(p.exports).map(([k, e]) => [k, exportToRaw(e)])),
        isolation: p.isolation?.dynamic === undefined ? undefined : { dynamic: isolationToRaw(p.isolation.dynamic) },
        zone: p.zone,
        count: p.count,
        threadpool: p.threadpool,
        threads: p.threads,
        queues: p.queues,
        weight: p.weight,
        warmup: p.warmupMs,
        application: p.application,
        registries: p.registries,
        params: p.params,
        propagation: p.propagation,
        dubbo: p.dubboSettings === undefined ? undefined : dubboSettingsToRaw(p.dubboSettings),
      }),
    ),
    consumers: s.consumers.map((c) =>
      compact({
        application: c.application,
        zone: c.zone,
        instances: c.instances,
        rate: c.ratePerSec,
        arrival: c.arrival,
        calls: c.calls,
        reference: Object.fromEntries(Object.entries(c.reference).map(([k, r]) => [k, referenceToRaw(r)])),
        consumerDefaults: attrsToRaw(c.consumerDefaults),
        attachments: Object.fromEntries(
          Object.entries(c.attachments).map(([k, a]) => [
            k,
            a.kind === 'all' ? a.value : a.kind === 'fraction' ? { value: a.value, fraction: a.fraction } : { value: a.value, when: a.when },
          ]),
        ),
        registries: c.registries,
        userIds: c.userIds,
        threads: c.threads,
        dubbo: c.dubboSettings === undefined ? undefined : dubboSettingsToRaw(c.dubboSettings),
        cohorts: c.cohorts,
        representatives: c.representatives,
      }),
    ),
    routers: s.routers,
    faults: s.faults.map(faultToRaw),
    strategies: Object.fromEntries(Object.entries(s.strategies).map(([n, st]) => [n, strategyToRaw(st)])),
    ...(s.propagation === undefined ? {} : { propagation: s.propagation }),
    ...(s.dubbo === undefined ? {} : { dubbo: dubboSettingsToRaw(s.dubbo) }),
  };
}

/** The scenario as a YAML file (loads back to an equal `Scenario`). */
export function dumpScenarioYaml(s: Scenario): string {
  return stringify(scenarioToRaw(s), { aliasDuplicateObjects: false, lineWidth: 0 });
}
