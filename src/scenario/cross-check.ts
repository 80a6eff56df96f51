/**
 * Checks that names in a scenario refer to things the scenario declares: zones (providers,
 * consumers, registries, RTT pairs, faults), services and methods (providers, consumer calls,
 * reference keys, call graphs, routers, faults), provider groups, registries; plus the checks
 * that need the whole file (zone CIDR big enough for its instances, call-graph cycles, warmup
 * shorter than duration, duplicate group names). It reads the RAW document defensively, so it
 * runs even when the schema found type errors; field types and units are `schema.ts`'s job.
 */
import { suggestion } from './did-you-mean.js';
import type { PathIssue } from './zod-issues.js';
import { describeFound } from './zod-issues.js';
import { parseDuration } from './units.js';
import { parseConditionRule } from '../dubbo/router/condition/condition-rule-router.js';
import { TagStateRouter } from '../dubbo/router/tag/tag-state-router.js';
import { capacityOfSize } from '../world/addresses.js';
import { isUserExpression } from '../world/consumer.js';
import { dubboChecks } from './dubbo-checks.js';

type Obj = Record<string, unknown>;
type Path = Array<string | number>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const keys = (v: unknown): string[] => (isObj(v) ? Object.keys(v) : []);

/** Reference attribute names (keys of a strategy `reference` override that are not services). */
export const REFERENCE_ATTRIBUTES = [
  'timeout', 'retries', 'loadbalance', 'cluster', 'forks', 'sticky', 'actives', 'tag', 'mock', 'parameters', 'methods',
];

const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

/** Prefix length of a valid IPv4 CIDR, or undefined. */
export function cidrPrefix(cidr: string): number | undefined {
  const m = IPV4_CIDR.exec(cidr.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const prefix = Number(m[5]);
  return octets.every((o) => o <= 255) && prefix <= 32 ? prefix : undefined;
}

/** First and last address (as numbers) of a valid IPv4 CIDR with this prefix length. */
function cidrRange(cidr: string, prefix: number): { first: number; last: number } {
  const octets = cidr.trim().split('/')[0]!.split('.').map(Number);
  const ip = ((octets[0]! * 256 + octets[1]!) * 256 + octets[2]!) * 256 + octets[3]!;
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ip / size) * size;
  return { first, last: first + size - 1 };
}

/** Addresses the run hands out from a CIDR of this prefix length (`world/addresses.ts`: no network, broadcast, .0 or .255 above a /24). */
export function usableAddresses(prefix: number): number {
  return capacityOfSize(2 ** (32 - prefix));
}

/** Group names of provider entries: `name`, or `<service>@<zone>#<index>` with index among groups of that service+zone. */
export function providerGroupNames(
  providers: ReadonlyArray<{ name?: unknown; service?: unknown; services?: unknown; zone?: unknown }>,
): string[] {
  const seen = new Map<string, number>();
  return providers.map((p) => {
    const first = p.service === undefined && Array.isArray(p.services) ? p.services[0] : p.service;
    const key = `${String(first)}@${String(p.zone)}`;
    const index = seen.get(key) ?? 0;
    seen.set(key, index + 1);
    return typeof p.name === 'string' ? p.name : `${key}#${index}`;
  });
}

/** Splits a `service.method` calls key at its last dot. */
export function splitCallKey(key: string): { service: string; method: string } | undefined {
  const dot = key.lastIndexOf('.');
  if (dot <= 0 || dot === key.length - 1) return undefined;
  return { service: key.slice(0, dot), method: key.slice(dot + 1) };
}

/** Unknown names given a "did you mean" (see `crossCheck`). */
const MAX_SUGGESTIONS = 200;
/** Known names an "expected a ... declared under ..." message lists; the rest are counted. */
const MAX_LISTED = 20;

/** Cross-reference problems, and paths under which schema issues are noise (an unknown key's value). */
export function crossCheck(raw: unknown): { issues: PathIssue[]; suppress: Path[] } {
  const issues: PathIssue[] = [];
  const suppress: Path[] = [];
  if (!isObj(raw)) return { issues, suppress };

  const zones = keys(raw.zones);
  const servicesObj = isObj(raw.services) ? raw.services : {};
  const services = Object.keys(servicesObj);
  const methodsOf = (service: string): string[] => {
    const s = servicesObj[service];
    return isObj(s) ? keys(s.methods) : [];
  };
  const registries = keys(raw.registries);
  const providers = list(raw.providers).filter(isObj);
  const groups = providerGroupNames(list(raw.providers).map((p) => (isObj(p) ? p : {})));
  // Consumer groups as `traffic` faults name them: application (default consumer-<index>) and zone.
  const consumerGroups = list(raw.consumers).map((c, i) => ({
    application: isObj(c) && typeof c.application === 'string' ? c.application : `consumer-${i}`,
    zone: isObj(c) ? c.zone : undefined,
  }));
  const consumerApps = [...new Set(consumerGroups.map((c) => c.application))];
  // PERF: an estate written with templates checks tens of thousands of names against thousands: membership by a
  // Set per list, each list's text made once and of MAX_LISTED names at most, and a suggestion (an edit distance
  // to every known name) for the first MAX_SUGGESTIONS unknown names only (a template naming 4,000 undeclared
  // services among 10,000 took six minutes to refuse, each message carrying all 10,000 names; the CLI prints the
  // first 50 problems).
  const sets = new Map<readonly string[], Set<string>>();
  const texts = new Map<readonly string[], string>();
  const isKnown = (known: readonly string[], v: string): boolean => {
    if (known.length < 16) return known.includes(v);
    let set = sets.get(known);
    if (set === undefined) sets.set(known, (set = new Set(known)));
    return set.has(v);
  };
  const listOf = (known: readonly string[]): string => {
    let text = texts.get(known);
    if (text === undefined) {
      text = known.length <= MAX_LISTED ? known.join(', ') : `${known.slice(0, MAX_LISTED).join(', ')} and ${known.length - MAX_LISTED} more`;
      texts.set(known, text);
    }
    return text;
  };
  let suggested = 0;
  const suggest = (v: string, known: readonly string[]): string => (suggested++ < MAX_SUGGESTIONS ? suggestion(v, known) : '');
  const servicesAndAttributes = [...REFERENCE_ATTRIBUTES, ...services];

  const name = (
    value: unknown,
    known: string[],
    what: string,
    where: string,
    path: Path,
    atKey = false,
  ): boolean => {
    if (typeof value !== 'string' || isKnown(known, value)) return true;
    const listed = known.length ? `(${listOf(known)})` : '(none declared)';
    issues.push({
      path,
      atKey,
      message: `expected a ${what}${where ? ` declared under ${where}` : ''} ${listed}, found ${describeFound(value)}${suggest(value, known)}`,
    });
    return false;
  };
  const zone = (v: unknown, path: Path, atKey = false) => name(v, zones, 'zone', 'zones', path, atKey);
  const service = (v: unknown, path: Path, atKey = false) => name(v, services, 'service', 'services', path, atKey);
  const method = (svc: unknown, m: unknown, path: Path, atKey = false) =>
    typeof svc !== 'string' || !isKnown(services, svc) || name(m, methodsOf(svc), `method of ${svc}`, '', path, atKey);
  const registry = (v: unknown, path: Path) => name(v, registries, 'registry', 'registries', path);
  const group = (v: unknown, path: Path) => name(v, groups, 'provider group', 'providers (name)', path);
  const referenceMethods = (svc: unknown, ref: unknown, path: Path) => {
    if (!isObj(ref)) return;
    for (const m of keys(ref.methods)) method(svc, m, [...path, 'methods', m], true);
  };

  // Zones: names usable in RTT keys, valid CIDRs big enough for what they hold.
  const instancesByZone = new Map<string, number>();
  for (const p of providers) {
    const count = p.count === undefined ? 1 : p.count;
    if (typeof p.zone === 'string' && typeof count === 'number' && count > 0) {
      instancesByZone.set(p.zone, (instancesByZone.get(p.zone) ?? 0) + count);
    }
  }
  for (const c of list(raw.consumers).filter(isObj)) {
    const n = c.instances === undefined ? 1 : c.instances;
    if (typeof c.zone === 'string' && typeof n === 'number' && n > 0) {
      instancesByZone.set(c.zone, (instancesByZone.get(c.zone) ?? 0) + n);
    }
  }
  if (isObj(raw.zones)) {
    const zoneRanges: Array<{ zone: string; cidr: string; first: number; last: number }> = [];
    for (const [z, spec] of Object.entries(raw.zones)) {
      if (z.includes('<') || z.includes('>') || z === 'same-zone' || z === 'default' || z.trim() === '') {
        issues.push({ path: ['zones', z], atKey: true, message: `zone name "${z}" cannot be empty, contain < or >, or be same-zone or default` });
      }
      const cidr = isObj(spec) ? spec.cidr : undefined;
      if (typeof cidr !== 'string') continue;
      const prefix = cidrPrefix(cidr);
      if (prefix === undefined) {
        issues.push({ path: ['zones', z, 'cidr'], message: `expected an IPv4 CIDR such as 10.10.0.0/16, found ${describeFound(cidr)}` });
        continue;
      }
      // Two zones may not share addresses: an IP would belong to both (zone of a call, --zone-from cidr).
      const range = cidrRange(cidr, prefix);
      const other = zoneRanges.find((r) => range.first <= r.last && r.first <= range.last);
      if (other !== undefined) {
        issues.push({ path: ['zones', z, 'cidr'], message: `${cidr} overlaps ${other.cidr} of zone ${other.zone}: the same addresses would be in two zones` });
      }
      zoneRanges.push({ zone: z, cidr, ...range });
      const need = instancesByZone.get(z) ?? 0;
      const have = usableAddresses(prefix);
      if (need > have) {
        issues.push({
          path: ['zones', z, 'cidr'],
          message: `${cidr} has ${have} usable address${have === 1 ? '' : 'es'}, fewer than the ${need} provider and consumer instances placed in ${z}`,
        });
      }
    }
  }

  // Network: RTT keys name known zones.
  const rtt = isObj(raw.network) && isObj(raw.network.rtt) ? raw.network.rtt : {};
  for (const key of Object.keys(rtt)) {
    if (key === 'same-zone' || key === 'default') continue;
    const m = /^(.+?)(<->|->)(.+)$/.exec(key);
    if (!m) {
      issues.push({
        path: ['network', 'rtt', key],
        atKey: true,
        message: `expected same-zone, default, A<->B or A->B (A and B zone names), found ${JSON.stringify(key)}`,
      });
      continue;
    }
    for (const z of [m[1]!.trim(), m[3]!.trim()]) zone(z, ['network', 'rtt', key], true);
  }

  // Registries.
  // A registry's zone and the zones of its server nodes (SPEC 2.5 `servers`) are the scenario's zones.
  const registryZones = (spec: unknown, path: Path) => {
    if (!isObj(spec)) return;
    zone(spec.zone, [...path, 'zone']);
    for (const z of keys(spec.servers)) zone(z, [...path, 'servers', z], true);
  };
  registryZones(raw.registry, ['registry']);
  if (isObj(raw.registries)) for (const [r, spec] of Object.entries(raw.registries)) registryZones(spec, ['registries', r]);

  // Services: call graphs name known services and methods, and do not loop.
  const edges = new Map<string, Array<{ to: string; path: Path }>>();
  for (const [s, spec] of Object.entries(servicesObj)) {
    if (!isObj(spec) || !isObj(spec.methods)) continue;
    for (const [m, mspec] of Object.entries(spec.methods)) {
      if (!isObj(mspec)) continue;
      list(mspec.calls).forEach((call, j) => {
        if (!isObj(call)) return;
        const path: Path = ['services', s, 'methods', m, 'calls', j];
        const okService = service(call.service, [...path, 'service']);
        const okMethod = okService && method(call.service, call.method, [...path, 'method']);
        referenceMethods(call.service, call.reference, [...path, 'reference']);
        if (okService && okMethod && typeof call.service === 'string' && typeof call.method === 'string') {
          const from = `${s}.${m}`;
          edges.set(from, [...(edges.get(from) ?? []), { to: `${call.service}.${call.method}`, path }]);
        }
      });
    }
  }
  const cycle = findCycle(edges);
  if (cycle) {
    issues.push({ path: cycle.path, message: `call graph cycle: ${cycle.nodes.join(' -> ')}; a request would never end` });
  }

  // Providers.
  const firstByName = new Map<string, number>();
  providers.forEach((p, i) => {
    const path: Path = ['providers', i];
    service(p.service, [...path, 'service']);
    const exported = typeof p.service === 'string' ? [p.service] : list(p.services).filter((x): x is string => typeof x === 'string');
    const listed = list(p.services);
    listed.forEach((s, j) => {
      service(s, [...path, 'services', j]);
      if (listed.indexOf(s) !== j) issues.push({ path: [...path, 'services', j], message: `service "${String(s)}" is listed twice` });
    });
    if (isObj(p.exports)) {
      for (const [s, e] of Object.entries(p.exports)) {
        const epath: Path = [...path, 'exports', s];
        if (!name(s, exported, 'service this group exports', `providers[${i}].service(s)`, epath, true)) continue;
        if (isObj(e) && isObj(e.methods)) for (const m of Object.keys(e.methods)) method(s, m, [...epath, 'methods', m], true);
      }
    }
    zone(p.zone, [...path, 'zone']);
    list(p.registries).forEach((r, j) => registry(r, [...path, 'registries', j]));
    const g = groups[i]!;
    const first = firstByName.get(g);
    if (first === undefined) firstByName.set(g, i);
    else {
      issues.push({
        path: p.name === undefined ? path : [...path, 'name'],
        message: `provider group name "${g}" is already used by providers[${first}]`,
        hint: `give each provider group a distinct name: e.g. name: ${g}-${i} on providers[${i}]`,
      });
    }
  });

  // Consumers.
  list(raw.consumers).forEach((c, i) => {
    if (!isObj(c)) return;
    const path: Path = ['consumers', i];
    zone(c.zone, [...path, 'zone']);
    if (isObj(c.calls)) {
      const callKeys = Object.keys(c.calls);
      if (callKeys.length === 0) issues.push({ path: [...path, 'calls'], message: 'expected at least one service.method: weight entry, found an empty map' });
      for (const key of callKeys) {
        const kpath: Path = [...path, 'calls', key];
        const split = splitCallKey(key);
        if (!split) {
          issues.push({ path: kpath, atKey: true, message: `expected service.method, found ${JSON.stringify(key)}` });
          continue;
        }
        if (!isKnown(services, split.service)) {
          issues.push({
            path: kpath,
            atKey: true,
            message: `expected a service declared under services (${listOf(services)}), found "${split.service}" in "${key}"${suggest(split.service, services)}`,
          });
        } else method(split.service, split.method, kpath, true);
      }
    }
    if (isObj(c.reference)) {
      for (const [s, ref] of Object.entries(c.reference)) {
        if (service(s, [...path, 'reference', s], true)) referenceMethods(s, ref, [...path, 'reference', s]);
      }
    }
    if (isObj(c.attachments)) {
      for (const [k, a] of Object.entries(c.attachments)) {
        if (isObj(a) && typeof a.when === 'string' && !isUserExpression(a.when)) {
          issues.push({
            path: [...path, 'attachments', k, 'when'],
            message: `expected an expression such as "userId % 1000 < 5" (userId [% N] <, <=, >, >=, ==, != K), found ${JSON.stringify(a.when)}`,
          });
        }
        const when = isObj(a) && typeof a.when === 'string' ? a.when : undefined;
        const mod = when === undefined ? null : /%\s*(\d+)/.exec(when);
        if (mod !== null && Number(mod[1]) === 0) {
          issues.push({ path: [...path, 'attachments', k, 'when'], message: `userId % 0 divides by zero: expected userId % N with N >= 1, found ${JSON.stringify(when)}` });
        }
      }
    }
    list(c.registries).forEach((r, j) => registry(r, [...path, 'registries', j]));
  });

  // Routers (top level and in strategies).
  const router = (r: unknown, path: Path): void => {
    if (!isObj(r)) return;
    service(r.service, [...path, 'service']);
    if (r.type === 'zone') list(r.fallback).forEach((z, j) => zone(z, [...path, 'fallback', j]));
    // Rules are parsed now, so a malformed rule is bad input with its position, not a failure mid-run.
    const rule = r.rule;
    if ((r.type !== 'condition' && r.type !== 'tag') || (typeof rule !== 'string' && !isObj(rule))) return;
    try {
      if (r.type === 'condition') parseConditionRule(rule as string | Record<string, unknown>, { force: r.force === true });
      else new TagStateRouter(rule as string | Record<string, unknown>);
    } catch (error) {
      issues.push({ path: [...path, 'rule'], message: `expected a valid ${r.type} rule: ${(error as Error).message}` });
    }
  };
  const routers = (value: unknown, path: Path) => list(value).forEach((r, j) => router(r, [...path, j]));
  routers(raw.routers, ['routers']);

  // Faults.
  list(raw.faults).forEach((f, i) => {
    if (!isObj(f)) return;
    const path: Path = ['faults', i];
    const target = (t: unknown, key: string) => {
      if (!isObj(t)) return;
      zone(t.zone, [...path, key, 'zone']);
      service(t.service, [...path, key, 'service']);
      group(t.group, [...path, key, 'group']);
      if (typeof t.instance === 'string') {
        const ipath: Path = [...path, key, 'instance'];
        const m = /^(.+)#(\d+)$/.exec(t.instance);
        if (m === null) issues.push({ path: ipath, message: `expected <provider group>#<index> such as ${groups[0] ?? 'trade-a'}#0, found ${describeFound(t.instance)}` });
        else if (group(m[1], ipath)) {
          const p = providers[groups.indexOf(m[1]!)];
          const count = p === undefined ? 1 : p.count === undefined ? 1 : p.count;
          if (typeof count === 'number' && Number(m[2]) >= count) {
            issues.push({ path: ipath, message: `expected an index below the group's count (${count}; 0-based), found ${m[2]} in "${t.instance}"` });
          }
        }
        for (const other of ['zone', 'group', 'service'] as const) {
          if (t[other] !== undefined && !(key === 'slowdown' && other === 'service')) {
            issues.push({ path: [...path, key, other], message: `give either instance or ${other}, not both` });
          }
        }
      }
      if (t.method !== undefined) {
        if (typeof t.service === 'string') method(t.service, t.method, [...path, key, 'method']);
        else if (typeof t.method === 'string' && !services.some((s) => methodsOf(s).includes(t.method as string))) {
          issues.push({ path: [...path, key, 'method'], message: `expected a method of some service, found ${describeFound(t.method)}` });
        }
      }
    };
    const pair = (v: unknown, key: string) => {
      if (!Array.isArray(v)) return;
      v.forEach((z, j) => zone(z, [...path, key, j]));
      if (v.length === 2 && v[0] === v[1]) issues.push({ path: [...path, key], message: `expected two different zones, found "${String(v[0])}" twice` });
    };
    if (typeof f.zoneDown === 'string') zone(f.zoneDown, [...path, 'zoneDown']);
    else target(f.zoneDown, 'zoneDown');
    zone(f.zoneUp, [...path, 'zoneUp']);
    zone(f.roomDown, [...path, 'roomDown']);
    zone(f.roomUp, [...path, 'roomUp']);
    for (const z of keys(f.shift)) zone(z, [...path, 'shift', z], true);
    if (typeof f.roomDown === 'string' && isObj(f.shift) && f.roomDown in f.shift) {
      issues.push({ path: [...path, 'shift', f.roomDown], atKey: true, message: `the dark room ${f.roomDown} cannot take its own traffic: shift it to other zones` });
    }
    // A share sent to a room where an application of the dark room has no consumer group would vanish.
    if (typeof f.roomDown === 'string' && isObj(f.shift)) {
      const dark = [...new Set(consumerGroups.filter((c) => c.zone === f.roomDown).map((c) => c.application))];
      for (const z of keys(f.shift)) {
        if (z === f.roomDown || !zones.includes(z)) continue;
        const missing = dark.filter((app) => !consumerGroups.some((c) => c.application === app && c.zone === z));
        if (missing.length === 0) continue;
        issues.push({
          path: [...path, 'shift', z],
          atKey: true,
          message: `consumer ${missing.map((a) => `"${a}"`).join(', ')} of the dark room ${f.roomDown} has no group in ${z} to take its share: add one there, or leave ${z} out of shift`,
        });
      }
    }
    for (const key of ['crash', 'restart', 'slowdown', 'scale', 'rollingRestart']) target(f[key], key);
    pair(f.partition, 'partition');
    pair(f.heal, 'heal');
    zone(f.registryPartition, [...path, 'registryPartition']);
    if (isObj(f.rtt)) pair(f.rtt.between, 'rtt');
    if (isObj(f.rule)) for (const op of ['add', 'replace', 'remove']) if (isObj(f.rule[op])) router(f.rule[op], [...path, 'rule', op]);
    if (isObj(f.rule) && typeof f.rule.index === 'number' && Number.isInteger(f.rule.index)) {
      const count = list(raw.routers).length;
      if (f.rule.index < 0 || f.rule.index >= count) {
        issues.push({
          path: [...path, 'rule', 'index'],
          message: count === 0 ? `there is no routers[${f.rule.index}]: the scenario has no routers` : `expected an index of routers (0 to ${count - 1}), found ${f.rule.index}`,
        });
      }
    }
    if (isObj(f.traffic)) {
      const t = f.traffic;
      const tpath: Path = [...path, 'traffic'];
      const okApp = name(t.consumer, consumerApps, 'consumer application', 'consumers (application)', [...tpath, 'consumer']);
      if (zone(t.zone, [...tpath, 'zone']) && okApp && typeof t.consumer === 'string' && typeof t.zone === 'string') {
        const where = consumerGroups.filter((c) => c.application === t.consumer).map((c) => String(c.zone));
        if (!where.includes(t.zone)) {
          issues.push({
            path: [...tpath, 'zone'],
            message: `expected a zone where consumer "${t.consumer}" has a group (${[...new Set(where)].join(', ')}), found "${t.zone}"`,
          });
        }
      }
    }
  });

  // A `sentinel` fault names an application whose JVMs load the rules: a consumer's or a provider's.
  const providerApps = providers.map((p) => {
    if (typeof p.application === 'string') return p.application;
    const first = Array.isArray(p.services) ? p.services[0] : p.service;
    return typeof first === 'string' ? `${first.slice(first.lastIndexOf('.') + 1)}-provider` : '';
  });
  list(raw.faults).forEach((f, i) => {
    if (!isObj(f) || !isObj(f.sentinel)) return;
    name(f.sentinel.application, [...new Set([...consumerApps, ...providerApps])], 'consumer or provider application', 'consumers or providers (application)', ['faults', i, 'sentinel', 'application']);
  });

  // Strategies: reference overrides keyed by attribute or by service.
  if (isObj(raw.strategies)) {
    for (const [n, st] of Object.entries(raw.strategies)) {
      if (!isObj(st)) continue;
      const path: Path = ['strategies', n];
      if (isObj(st.reference)) {
        for (const [k, v] of Object.entries(st.reference)) {
          if (REFERENCE_ATTRIBUTES.includes(k)) continue;
          const kpath: Path = [...path, 'reference', k];
          if (isKnown(services, k)) {
            referenceMethods(k, v, kpath);
            continue;
          }
          issues.push({
            path: kpath,
            atKey: true,
            message: `unknown field "${k}": neither a reference attribute (${REFERENCE_ATTRIBUTES.join(', ')}) nor a service${suggest(k, servicesAndAttributes)}`,
          });
          suppress.push(kpath);
        }
      }
      routers(st.routers, [...path, 'routers']);
      routers(st.addRouters, [...path, 'addRouters']);
      if (isObj(st.registry)) zone(st.registry.zone, [...path, 'registry', 'zone']);
      if (isObj(st.providers)) {
        for (const [g, o] of Object.entries(st.providers)) {
          const gpath: Path = [...path, 'providers', g];
          if (!name(g, groups, 'provider group', 'providers (name)', gpath, true)) continue;
          const p = providers[groups.indexOf(g)];
          const exported = p === undefined ? [] : typeof p.service === 'string' ? [p.service] : list(p.services).filter((x): x is string => typeof x === 'string');
          if (isObj(o) && isObj(o.exports)) {
            for (const s of Object.keys(o.exports)) name(s, exported, 'service this group exports', `providers (${g})`, [...gpath, 'exports', s], true);
          }
        }
      }
    }
  }

  // Timing.
  const durationMs = raw.duration === undefined ? 60_000 : parseDuration(raw.duration);
  const warmupMs = raw.warmup === undefined ? 5_000 : parseDuration(raw.warmup);
  if (durationMs !== undefined && warmupMs !== undefined && warmupMs >= durationMs) {
    issues.push({
      path: raw.warmup === undefined ? ['duration'] : ['warmup'],
      message: `warmup (${warmupMs} ms) must be shorter than duration (${durationMs} ms), or nothing is measured`,
    });
  }
  issues.push(...dubboChecks(raw));
  return { issues, suppress };
}

/** The first cycle in a call graph, with the path of the call that closes it. */
function findCycle(edges: Map<string, Array<{ to: string; path: Path }>>): { nodes: string[]; path: Path } | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): { nodes: string[]; path: Path } | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const e of edges.get(node) ?? []) {
      const s = state.get(e.to);
      if (s === 'open') return { nodes: [...stack.slice(stack.indexOf(e.to)), e.to], path: e.path };
      if (s === undefined) {
        const found = visit(e.to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of edges.keys()) {
    if (state.get(node) === undefined) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}
