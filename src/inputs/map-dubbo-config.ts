/**
 * Dubbo settings as Dubbo users write them (Dubbo's path-based keys `dubbo.{type}.{item}`,
 * `dubbo.{type}s.{id}.{item}`, `dubbo.reference.{interface}[.{method}].{item}`, read from Spring
 * Boot YAML or properties) mapped onto the scenario format: `consumers[].consumerDefaults` /
 * `reference`, provider `threads` / `queues` / `exports` (executes, tps, params), and the registry
 * type. Every `dubbo.*` property that has no counterpart is listed as ignored with the reason. Owns
 * the mapping only: config-files.ts reads the formats (with line numbers), import-config.ts chooses
 * the format and the encoding of a file.
 */
import { clusters, loadBalances } from '../dubbo/extensions.js';
import { suggestionOfKind } from '../scenario/did-you-mean.js';
import { extensionNames } from '../scenario/schema-reference.js';
import { THREAD_POOLS } from '../scenario/schema-providers.js';
import { ZK_SESSION_TIMEOUT_RANGE_MS, ZK_TICK_TIME_MS, zookeeperGrantedSessionMs } from '../world/registry-zookeeper.js';
import { Placeholders, type Property } from './config-files.js';

/** A property left out, and why. */
export interface IgnoredProperty {
  line: number;
  key: string;
  value: string;
  reason: string;
}

type Attrs = Record<string, unknown>;

/** The fragment: scenario-format sections, plus what was ignored. */
export interface ImportedConfig {
  registry?: Attrs;
  registries?: Record<string, Attrs>;
  consumers?: Attrs[];
  providers?: Attrs[];
  ignored: IgnoredProperty[];
  /** Notes on properties that were mapped with an assumption. */
  notes: string[];
  /** Values that were changed on the way (a ZooKeeper session a server would clamp), also printed on stderr. */
  warnings: string[];
}

/** Spring's relaxed binding for Dubbo's config types and items: case, `-` and `_` do not matter. */
const canon = (s: string) => s.toLowerCase().replace(/[-_]/g, '');

const REFERENCE_ATTRS: Record<string, 'int' | 'bool' | 'lb' | 'cluster' | 'string'> = {
  timeout: 'int', retries: 'int', loadbalance: 'lb', cluster: 'cluster', forks: 'int', sticky: 'bool', actives: 'int', tag: 'string', mock: 'string',
};
const OUT_NAME: Record<string, string> = { loadbalance: 'loadbalance', timeout: 'timeout', retries: 'retries', cluster: 'cluster', forks: 'forks', sticky: 'sticky', actives: 'actives', tag: 'tag', mock: 'mock' };
/** Reference items that Dubbo puts on the consumer URL and zonesim keeps as `parameters`. */
const REFERENCE_PARAMS = new Set(['group', 'version', 'check']);
/** Provider-side items that travel to consumers on the provider URL (kept as `params`). */
const PROVIDER_URL_PARAMS = new Set(['timeout', 'retries', 'loadbalance', 'cluster', 'group', 'version', 'tag', 'actives']);

const NOT_MODELLED: Record<string, string> = {
  port: 'zonesim gives every instance port 20880',
  name: 'the protocol is always dubbo in zonesim',
  host: 'instance IPs come from the zone CIDRs',
  serialization: 'serialization is not modelled',
  payload: 'message sizes are not modelled',
  dispatcher: 'the dispatcher is not modelled (all requests run on the pool)',
  iothreads: 'IO threads are not modelled',
  accepts: 'connection limits are not modelled',
  connections: 'connections are not modelled',
  async: 'async calls are not modelled (each call waits for its result)',
  lazy: 'lazy connections are not modelled',
  filter: 'filters are not configurable in zonesim',
  listener: 'listeners are not modelled',
  proxy: 'proxies are not modelled',
  validation: 'validation is not modelled',
  owner: 'metadata only',
  organization: 'metadata only',
  qosenable: 'QoS is not modelled',
  qosport: 'QoS is not modelled',
  qosacceptforeignip: 'QoS is not modelled',
  logger: 'not modelled',
  delay: 'zonesim registers providers after registry.registerDelay',
  url: 'direct connection (url=) is not modelled: consumers use the registry',
  id: 'an id only names the config',
  interface: 'names the service',
  generic: 'generic calls are not modelled',
  stub: 'stubs are not modelled',
  init: 'reference initialisation is not modelled',
  scope: 'local/remote scope is not modelled',
  export: 'services are always exported in zonesim',
  register: 'providers always register in zonesim',
};

const REGISTRY_TYPES: Record<string, 'nacos' | 'zookeeper' | 'static'> = { nacos: 'nacos', zookeeper: 'zookeeper', 'n/a': 'static' };

/** `nacos://...`, `zookeeper://a:2181?backup=...`, `N/A`: the zonesim registry type, or why there is none. */
function registryType(address: string, protocol?: string): { type: 'nacos' | 'zookeeper' | 'static' } | { reason: string } {
  const a = address.trim();
  if (a.toUpperCase() === 'N/A') return { type: 'static' };
  const scheme = (/^([a-zA-Z][\w+.-]*):\/\//.exec(a)?.[1] ?? protocol ?? '').toLowerCase();
  const t = REGISTRY_TYPES[scheme];
  if (t !== undefined) return { type: t };
  if (scheme === '') return { reason: 'no registry protocol in the address (expected nacos://, zookeeper:// or N/A; or set dubbo.registry.protocol)' };
  return { reason: `registry ${scheme}:// is not modelled (zonesim has nacos, zookeeper and static)` };
}

/** Dubbo reads timeouts, retries, pool sizes and limits as Java ints: Integer.parseInt fails above this. */
const JAVA_INT_MAX = 2_147_483_647;

/** A bad number as a reason shows it: quoted, or said to be too large when it is a whole number beyond `max`. */
function shownNumber(value: string, max = JAVA_INT_MAX): string {
  const v = value.trim();
  if (!/^-?\d+$/.test(v) || Math.abs(Number(v)) <= max) return `"${value}"`;
  const digits = v.replace(/^-0*/, '').length;
  return `a ${digits}-digit number, beyond ${max}${max === JAVA_INT_MAX ? ', the most a Java int holds (Dubbo could not read it)' : ''}`;
}

const upperStart = (s: string) => /^[A-Z]/.test(s);

/**
 * Splits what follows `dubbo.reference.` or `dubbo.service.`: `{interface}.{item}`,
 * `{interface}.{method}.{item}` (an interface ends at its class name, the first segment starting
 * with a capital letter), `{interface}.parameters.{key}`, or `{id}.{item}` when no segment is a class name.
 */
function splitServiceKey(rest: string): { target: string; method?: string; item: string; param?: string } | undefined {
  const segs = rest.split('.');
  let cls = -1;
  for (let i = segs.length - 2; i >= 0; i--) {
    if (upperStart(segs[i]!)) {
      cls = i;
      break;
    }
  }
  const target = cls >= 0 ? segs.slice(0, cls + 1).join('.') : segs[0]!;
  const tail = segs.slice(cls >= 0 ? cls + 1 : 1);
  if (tail.length === 0) return undefined;
  if (tail.length === 2 && canon(tail.join('.')) === 'tps.interval') return { target, item: 'tps.interval' };
  if (canon(tail[0]!) === 'parameters' && tail.length >= 2) return { target, item: 'parameters', param: tail.slice(1).join('.') };
  if (tail.length === 1) return { target, item: tail[0]! };
  if (tail.length === 2) return { target, method: tail[0]!, item: tail[1]! };
  return undefined;
}

interface Reference {
  attrs: Attrs;
  parameters: Record<string, string>;
  methods: Record<string, Attrs>;
}

const emptyRef = (): Reference => ({ attrs: {}, parameters: {}, methods: {} });

/** Maps flattened Dubbo properties onto scenario fragments. */
export function mapDubboConfig(props: Property[]): ImportedConfig {
  const ignored: IgnoredProperty[] = [];
  const notes: string[] = [];
  const warnings: string[] = [];
  /** Where each registry's `session` was read: `''` for `dubbo.registry`, else the `dubbo.registries` id. */
  const sessions = new Map<string, Property>();
  const all = new Map(props.map((p) => [p.key, p.value]));
  const placeholders = new Placeholders(all);
  let application: string | undefined;
  /** `dubbo.version` / `dubbo.release` (the Maven property users keep beside their Dubbo settings): the release profile. */
  let release: '2.7' | '3.3' | undefined;
  let registration: 'interface' | 'application' | undefined;
  const registry: Attrs = {};
  let registryProtocol: string | undefined;
  let registryAddress: Property | undefined;
  const registries: Record<string, Attrs & { address?: Property; protocol?: string }> = {};
  const consumerDefaults: Reference = emptyRef();
  const references = new Map<string, Reference>();
  /** `dubbo.references.{id}`: id → interface, and its method list entries by index. */
  const referenceIds = new Map<string, string>();
  const referenceMethodNames = new Map<string, string>();
  const provider: Attrs = {};
  const providerParams: Record<string, string> = {};
  const providerExports: { executes?: number; tps?: number } = {};
  let protocolThreads: number | undefined;
  let protocolQueues: number | undefined;
  let protocolThreadpool: string | undefined;
  const exportsOf = new Map<string, { executes?: number; tps?: number; 'tps.interval'?: number; params: Record<string, string>; methods: Record<string, { executes: number }> }>();
  const serviceIds = new Map<string, string>();
  const serviceMethodNames = new Map<string, string>();

  const ignore = (p: Property, reason: string): void => {
    ignored.push({ line: p.line, key: p.key, value: p.value, reason });
  };
  /**
   * Where a `dubbo.reference.*` / `dubbo.service.*` property points: its interface (or id), method and
   * item. Spring's list of MethodConfig (`<id>.methods[i].<item>`) takes the method from the
   * `methods[i].name` beside it. Undefined when the property was recorded (a method name) or ignored.
   */
  const locate = (
    p: Property,
    value: string,
    tail: string,
    kind: 'reference' | 'service',
    methodNames: Map<string, string>,
  ): { target: string; method?: string; item: string; param?: string } | undefined => {
    const listed = /^(.+?)\.methods\[(\d+)\]\.(.+)$/.exec(tail);
    if (!listed) {
      const split = splitServiceKey(tail);
      if (split === undefined) ignore(p, `expected dubbo.${kind}.<interface>.<item> or dubbo.${kind}.<interface>.<method>.<item>`);
      return split;
    }
    const [, id, idx, it] = listed;
    if (canon(it!) === 'name') {
      methodNames.set(`${id}[${idx}]`, value);
      return undefined;
    }
    const method = all.get(`${p.key.slice(0, p.key.lastIndexOf('.'))}.name`) ?? methodNames.get(`${id}[${idx}]`);
    if (method === undefined) {
      ignore(p, `no name for ${id}.methods[${idx}]`);
      return undefined;
    }
    return { target: id!, method, item: it! };
  };
  const exportOf = (iface: string) => {
    let e = exportsOf.get(iface);
    if (e === undefined) exportsOf.set(iface, (e = { params: {}, methods: {} }));
    return e;
  };
  const refOf = (iface: string) => {
    let r = references.get(iface);
    if (r === undefined) references.set(iface, (r = emptyRef()));
    return r;
  };

  /** A typed reference attribute, or the reason it cannot be one. */
  const attr = (item: string, value: string): { key: string; value: unknown } | { reason: string } | undefined => {
    const kind = REFERENCE_ATTRS[item];
    if (kind === undefined) return undefined;
    const key = OUT_NAME[item]!;
    switch (kind) {
      case 'int': {
        const n = Number(value.trim());
        if (!/^-?\d+$/.test(value.trim()) || Math.abs(n) > JAVA_INT_MAX) return { reason: `expected a whole number, found ${shownNumber(value)}` };
        // Dubbo reads retries < 0 as 0 extra attempts.
        if (item === 'retries' && n < 0) return { key, value: 0 };
        if (n < 0) return { reason: `expected a number >= 0, found ${n}` };
        return { key, value: n };
      }
      case 'bool':
        return /^(true|false)$/i.test(value.trim()) ? { key, value: value.trim().toLowerCase() === 'true' } : { reason: `expected true or false, found "${value}"` };
      case 'lb': {
        const v = value.trim();
        return v in loadBalances ? { key, value: v } : { reason: `load balancer "${v}" is not one of zonesim's (${Object.keys(loadBalances).join(', ')})${suggestionOfKind(v, 'loadbalance', extensionNames())}` };
      }
      case 'cluster': {
        const v = value.trim();
        return v in clusters ? { key, value: v } : { reason: `cluster "${v}" is not one of zonesim's (${Object.keys(clusters).join(', ')})${suggestionOfKind(v, 'cluster', extensionNames())}` };
      }
      default:
        return { key, value: value.trim() };
    }
  };

  /** Applies a reference-level item (`timeout`, `group`, `parameters.k`, ...) to `ref` (or a method of it). */
  const referenceItem = (p: Property, value: string, ref: Reference, item: string, method?: string, param?: string): void => {
    const c = canon(item);
    if (c === 'parameters' && param !== undefined) {
      if (method !== undefined) return ignore(p, 'method-level parameters are not modelled');
      ref.parameters[param] = value;
      return;
    }
    const a = attr(c, value);
    if (a !== undefined) {
      if ('reason' in a) return ignore(p, a.reason);
      if (method === undefined) ref.attrs[a.key] = a.value;
      else (ref.methods[method] ??= {})[a.key] = a.value;
      return;
    }
    if (REFERENCE_PARAMS.has(c) && method === undefined) {
      ref.parameters[c] = value;
      if (c === 'check') notes.push(`${p.key}: kept as the consumer URL parameter check; zonesim starts consumers with their providers registered, so it changes nothing`);
      return;
    }
    ignore(p, NOT_MODELLED[c] ?? 'not modelled by zonesim');
  };

  const intOf = (v: string, min: number, max = JAVA_INT_MAX): number | undefined =>
    /^-?\d+$/.test(v.trim()) && Number(v) >= min && Number(v) <= max ? Number(v) : undefined;

  /** Provider-side items shared by `dubbo.provider.*` and `dubbo.protocol.*`. */
  const poolItem = (p: Property, value: string, c: string, from: 'provider' | 'protocol'): boolean => {
    if (c === 'threads') {
      const n = intOf(value, 1);
      if (n === undefined) ignore(p, `expected a whole number >= 1, found ${shownNumber(value)}`);
      else if (from === 'protocol') protocolThreads = n;
      else provider.threads = n;
      return true;
    }
    if (c === 'queues') {
      const n = intOf(value, -1e9);
      if (n === undefined) ignore(p, `expected a whole number, found ${shownNumber(value)}`);
      else if (from === 'protocol') protocolQueues = n;
      else provider.queues = n;
      return true;
    }
    if (c === 'threadpool') {
      const pool = value.trim();
      if (!(THREAD_POOLS as readonly string[]).includes(pool)) ignore(p, `zonesim models Dubbo's fixed and eager pools (threads, queues); "${value}" is treated as fixed`);
      else if (from === 'protocol') protocolThreadpool = pool;
      else provider.threadpool = pool;
      return true;
    }
    return false;
  };

  for (const p of props) {
    if (!p.key.startsWith('dubbo.')) continue;
    const resolved = placeholders.resolve(p.value);
    if ('problem' in resolved) {
      ignore(p, resolved.problem);
      continue;
    }
    const value = resolved.value;
    const rest = p.key.slice('dubbo.'.length);
    const dot = rest.indexOf('.');
    const type = canon(dot < 0 ? rest : rest.slice(0, dot));
    const tail = dot < 0 ? '' : rest.slice(dot + 1);
    const item = canon(tail);

    switch (type) {
      case 'application':
        if (item === 'name') application = value;
        else if (item === 'registermode') registration = modeOf(p, value, ignore, notes) ?? registration;
        else ignore(p, NOT_MODELLED[item] ?? 'application settings other than name and register-mode are not modelled');
        break;
      case 'registry': {
        if (item === 'address') registryAddress = { ...p, value };
        else if (item === 'protocol') registryProtocol = value;
        else if (item === 'zone') registry.zone = value;
        else if (item === 'registermode' || item === 'parameters.registermode') registration = modeOf(p, value, ignore, notes) ?? registration;
        else if (item === 'session') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a number of ms, found "${value}"`);
          else {
            registry.sessionTimeout = n;
            sessions.set('', p);
          }
        } else if (item === 'preferred' || item === 'weight') ignore(p, `${item} matters with several registries (dubbo.registries.<id>.${item})`);
        else ignore(p, 'not modelled by zonesim');
        break;
      }
      case 'registries': {
        const d = tail.indexOf('.');
        const id = d < 0 ? tail : tail.slice(0, d);
        const it = canon(d < 0 ? '' : tail.slice(d + 1));
        const r = (registries[id] ??= {});
        if (it === 'address') r.address = { ...p, value };
        else if (it === 'protocol') r.protocol = value;
        else if (it === 'zone') r.zone = value;
        else if (it === 'preferred') r.preferred = /^true$/i.test(value.trim());
        else if (it === 'weight') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a whole number, found ${shownNumber(value)}`);
          else r.weight = n;
        } else if (it === 'session') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a number of ms, found "${value}"`);
          else {
            r.sessionTimeout = n;
            sessions.set(id, p);
          }
        } else if (it === 'default') ignore(p, 'every registry is used in zonesim');
        else ignore(p, 'not modelled by zonesim');
        break;
      }
      case 'consumer': {
        const m = /^parameters\.(.+)$/i.exec(tail);
        referenceItem(p, value, consumerDefaults, m ? 'parameters' : tail, undefined, m?.[1]);
        break;
      }
      case 'reference':
      case 'references': {
        const at = locate(p, value, tail, 'reference', referenceMethodNames);
        if (at === undefined) continue;
        const { target, method, item: itemName, param } = at;
        if (canon(itemName) === 'interface' && method === undefined) {
          referenceIds.set(target, value);
          continue;
        }
        referenceItem(p, value, refOf(target), itemName, method, param);
        break;
      }
      case 'provider': {
        if (poolItem(p, value, item, 'provider')) break;
        if (item === 'executes' || item === 'tps') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a whole number >= 0, found ${shownNumber(value)}`);
          else providerExports[item] = n;
        } else if (item === 'weight') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a whole number >= 0, found ${shownNumber(value)}`);
          else provider.weight = n;
        } else if (item === 'warmup') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a number of ms, found "${value}"`);
          else provider.warmup = n;
        } else if (PROVIDER_URL_PARAMS.has(item)) providerParams[item] = value;
        else ignore(p, NOT_MODELLED[item] ?? 'not modelled by zonesim');
        break;
      }
      case 'protocol':
      case 'protocols': {
        const it = type === 'protocols' ? canon(tail.slice(tail.indexOf('.') + 1)) : item;
        if (!poolItem(p, value, it, 'protocol')) ignore(p, NOT_MODELLED[it] ?? 'not modelled by zonesim');
        break;
      }
      case 'service':
      case 'services': {
        const at = locate(p, value, tail, 'service', serviceMethodNames);
        if (at === undefined) continue;
        const { target, method, item: itemName, param } = at;
        const c = canon(itemName);
        if (c === 'interface' && method === undefined) {
          serviceIds.set(target, value);
          continue;
        }
        const e = exportOf(target);
        if (c === 'executes') {
          const n = intOf(value, 0);
          if (n === undefined) ignore(p, `expected a whole number >= 0, found ${shownNumber(value)}`);
          else if (method === undefined) e.executes = n;
          else e.methods[method] = { executes: n };
        } else if ((c === 'tps' || c === 'tps.interval' || c === 'tpsinterval') && method === undefined) {
          // Dubbo reads tps as an int, tps.interval as a long.
          const max = c === 'tps' ? JAVA_INT_MAX : Number.MAX_SAFE_INTEGER;
          const n = intOf(value, 0, max);
          if (n === undefined) ignore(p, `expected a whole number >= 0, found ${shownNumber(value, max)}`);
          else if (c === 'tps') e.tps = n;
          else e['tps.interval'] = n;
        } else if (c === 'parameters' && param !== undefined && method === undefined) e.params[param] = value;
        else if (PROVIDER_URL_PARAMS.has(c) || c === 'weight') e.params[method === undefined ? c : `${method}.${c}`] = value;
        else ignore(p, NOT_MODELLED[c] ?? 'not modelled by zonesim');
        break;
      }
      case 'scan':
      case 'config':
      case 'configcenter':
      case 'metadatareport':
      case 'metrics':
      case 'monitor':
      case 'module':
      case 'tracing':
      case 'ssl':
        ignore(p, `dubbo.${rest.slice(0, dot < 0 ? undefined : dot)} is not modelled by zonesim`);
        break;
      case 'version':
      case 'release':
        if (tail === '' && /^[23]\.\d/.test(value.trim())) release = value.trim().startsWith('2.') ? '2.7' : '3.3';
        else ignore(p, tail === '' ? `expected a Dubbo release such as 2.7.23 or 3.3.2, found "${value}"` : 'not a Dubbo setting zonesim knows');
        break;
      default:
        ignore(p, 'not a Dubbo setting zonesim knows');
    }
  }

  // Registries.
  if (registryAddress !== undefined) {
    const t = registryType(registryAddress.value, registryProtocol);
    if ('reason' in t) ignore(registryAddress, t.reason);
    else registry.type = t.type;
  }
  if (registration !== undefined) registry.registration = registration;
  /**
   * A ZooKeeper session as the server grants it: a session outside what a default server grants is
   * clamped (Dubbo asks 60 s by default and gets 40 s), so the scenario gets the granted value and a
   * warning. Other registries have no session: the property is ignored.
   */
  const session = (attrs: Attrs, id: string): void => {
    const p = sessions.get(id);
    const asked = attrs.sessionTimeout;
    if (p === undefined || typeof asked !== 'number') return;
    if (attrs.type === 'nacos' || attrs.type === 'static') {
      delete attrs.sessionTimeout;
      ignore(p, `the session timeout is ZooKeeper's: a ${String(attrs.type)} registry has none`);
      return;
    }
    const granted = zookeeperGrantedSessionMs(asked);
    if (granted === asked) return;
    attrs.sessionTimeout = granted;
    const { min, max } = ZK_SESSION_TIMEOUT_RANGE_MS;
    warnings.push(
      `line ${p.line}: ${p.key}=${p.value}: a ZooKeeper server with the default tickTime (${ZK_TICK_TIME_MS} ms) grants session timeouts ` +
        `from ${min} to ${max} ms and clamps ${asked} to ${granted}; written as ${id === '' ? 'registry' : `registries.${id}`}.sessionTimeout: ${granted} ` +
        `(if your servers set minSessionTimeout / maxSessionTimeout or another tickTime, write what they grant)`,
    );
  };
  session(registry, '');
  const outRegistries: Record<string, Attrs> = {};
  for (const [id, r] of Object.entries(registries)) {
    const { address, protocol, ...rest } = r;
    if (address === undefined) continue;
    const t = registryType(address.value, protocol);
    if ('reason' in t) {
      ignore(address, t.reason);
      continue;
    }
    outRegistries[id] = { type: t.type, ...rest };
    session(outRegistries[id]!, id);
  }

  // References named by id: key them by their interface.
  for (const [id, iface] of referenceIds) {
    const r = references.get(id);
    references.delete(id);
    const into = refOf(iface);
    if (r !== undefined) {
      Object.assign(into.attrs, r.attrs);
      Object.assign(into.parameters, r.parameters);
      for (const [m, a] of Object.entries(r.methods)) Object.assign((into.methods[m] ??= {}), a);
    }
  }
  for (const [id] of references) {
    if (!id.includes('.') && !referenceIds.has(id)) notes.push(`reference "${id}" names no interface (dubbo.references.${id}.interface): its settings are under "${id}"; rename the key to the service's interface`);
  }
  for (const [id, iface] of serviceIds) {
    const e = exportsOf.get(id);
    exportsOf.delete(id);
    const into = exportOf(iface);
    if (e !== undefined) Object.assign(into, { ...e, params: { ...into.params, ...e.params }, methods: { ...into.methods, ...e.methods } });
  }

  const out: ImportedConfig = { ignored, notes, warnings };
  if (Object.keys(registry).length > 0) out.registry = registry;
  if (Object.keys(outRegistries).length > 0) out.registries = outRegistries;

  const refToRaw = (r: Reference): Attrs => {
    const o: Attrs = { ...r.attrs };
    if (Object.keys(r.parameters).length > 0) o.parameters = r.parameters;
    if (Object.keys(r.methods).length > 0) o.methods = r.methods;
    return o;
  };
  const hasConsumer = references.size > 0 || Object.keys(consumerDefaults.attrs).length + Object.keys(consumerDefaults.parameters).length > 0;
  if (hasConsumer) {
    const c: Attrs = {};
    if (application !== undefined) c.application = application;
    if (release !== undefined) c.dubbo = release;
    const defaults = refToRaw(consumerDefaults);
    delete defaults.methods;
    if (Object.keys(defaults).length > 0) c.consumerDefaults = defaults;
    if (references.size > 0) c.reference = Object.fromEntries([...references].map(([k, r]) => [k, refToRaw(r)]));
    out.consumers = [c];
  }

  const threads = protocolThreads ?? (provider.threads as number | undefined);
  const queues = protocolQueues ?? (provider.queues as number | undefined);
  const threadpool = protocolThreadpool ?? (provider.threadpool as string | undefined);
  if (protocolThreads !== undefined && provider.threads !== undefined && provider.threads !== protocolThreads) {
    notes.push(`threads: dubbo.protocol.threads (${protocolThreads}) wins over dubbo.provider.threads (${String(provider.threads)}), as in Dubbo`);
  }
  const hasProvider =
    exportsOf.size > 0 || threads !== undefined || queues !== undefined || threadpool !== undefined || Object.keys(providerParams).length > 0 ||
    Object.keys(providerExports).length > 0 || provider.weight !== undefined || provider.warmup !== undefined;
  if (hasProvider) {
    const g: Attrs = {};
    if (application !== undefined) g.application = application;
    if (release !== undefined) g.dubbo = release;
    const services = [...exportsOf.keys()];
    if (services.length === 1) g.service = services[0];
    else if (services.length > 1) g.services = services;
    if (threadpool !== undefined) g.threadpool = threadpool;
    if (threads !== undefined) g.threads = threads;
    if (queues !== undefined) g.queues = queues;
    if (provider.weight !== undefined) g.weight = provider.weight;
    if (provider.warmup !== undefined) g.warmup = provider.warmup;
    const exportsRaw: Record<string, Attrs> = {};
    for (const [iface, e] of exportsOf) {
      const o: Attrs = {};
      const executes = e.executes ?? providerExports.executes;
      const tps = e.tps ?? providerExports.tps;
      if (executes !== undefined) o.executes = executes;
      if (tps !== undefined) o.tps = tps;
      if (e['tps.interval'] !== undefined) o['tps.interval'] = e['tps.interval'];
      if (Object.keys(e.params).length > 0) o.params = e.params;
      if (Object.keys(e.methods).length > 0) o.methods = e.methods;
      if (Object.keys(o).length > 0) exportsRaw[iface] = o;
    }
    if (services.length === 0 && Object.keys(providerExports).length > 0) {
      notes.push(
        `dubbo.provider.${Object.keys(providerExports).join('/')} applies to every exported service: add ${Object.entries(providerExports).map(([k, v]) => `${k}: ${v}`).join(', ')} under exports.<service> of the provider group`,
      );
    }
    if (Object.keys(exportsRaw).length > 0) g.exports = exportsRaw;
    if (Object.keys(providerParams).length > 0) g.params = providerParams;
    out.providers = [g];
  }
  return out;
}

function modeOf(p: Property, value: string, ignore: (p: Property, r: string) => void, notes: string[]): 'interface' | 'application' | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'interface') return 'interface';
  if (v === 'instance') return 'application';
  if (v === 'all') {
    notes.push(`${p.key}=all registers both ways; zonesim models one: application-level (registration: application), what Dubbo 3 consumers use by default`);
    return 'application';
  }
  ignore(p, `expected interface, instance or all, found "${value}"`);
  return undefined;
}
