/**
 * `zonesim import providers <file>`: a provider list as users have it — a zkCli `ls
 * /dubbo/<iface>/providers` answer (a bracketed list of URL-encoded URLs), one URL per line (raw or
 * encoded), or a Nacos instance-list JSON (open API or console) — turned into a `providers:` YAML
 * fragment: one group per service, zone and distinguishing parameters, with counts. The zone comes
 * from the `zone` URL parameter (Nacos: metadata) or, with `--zone-from cidr`, from the zone of a
 * scenario whose CIDR holds the IP. `--json` prints SPEC 4.2a. Lines that hold no provider are
 * listed as skipped with the reason. `import config` lives in import-config.ts.
 */
import { isUtf8 } from 'node:buffer';
import { Document, isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { URL } from '../dubbo/url.js';
import { escapeControl } from '../scenario/clip-text.js';
import { loadScenarioFile } from '../scenario/load.js';
import { formatDuration } from '../scenario/units.js';
import { parseCidr } from '../world/addresses.js';
import { UsageError, type Io } from '../scenario/io.js';
import { decodeProviderUrl, isZkCliNoise, portProblem } from '../analysis/provider-list.js';

/** One provider instance found in the input. */
interface FoundProvider {
  service: string;
  ip: string;
  port: number;
  /** The distinguishing parameters (Dubbo's bookkeeping ones dropped), zone included when present. */
  params: Record<string, string>;
}

/** A group of the output (SPEC 4.2a): instances of one service in one zone with the same parameters. */
export interface ImportedProviderGroup {
  service: string;
  /** null when neither a zone parameter nor a CIDR tells the zone. */
  zone: string | null;
  count: number;
  params: Record<string, string>;
}

/** Something in the input that is not a provider, and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** The result of reading a provider list. */
export interface ImportedProviders {
  providers: ImportedProviderGroup[];
  skipped: SkippedLine[];
}

/**
 * Parameters Dubbo puts on every provider URL that do not tell provider groups apart (per-instance
 * values, protocol and metadata bookkeeping). Every other parameter is kept.
 */
export const BOOKKEEPING_PARAMS = new Set([
  'anyhost', 'background', 'bind.ip', 'bind.port', 'category', 'check', 'deprecated', 'dubbo', 'dynamic',
  'executor-management-mode', 'generic', 'interface', 'ipv6', 'metadata-type', 'methods', 'path', 'pid',
  'prefer.serialization', 'qos.accept.foreign.ip', 'qos.enable', 'qos.port', 'register-mode', 'release',
  'serialization', 'service-name-mapping', 'side', 'timestamp', 'token', 'heartbeat', 'codec', 'threadname',
  'preferred.protocol', 'service.name', 'service-name', 'dubbo.metadata-service.url-params', 'dubbo.endpoints',
  'dubbo.metadata.revision', 'dubbo.metadata.storage-type', 'dubbo.metadata-service.urls', 'ephemeral', 'protocol',
]);

const NON_PROVIDER_PROTOCOLS: Record<string, string> = {
  consumer: 'a consumer URL (from a consumers/ node), not a provider',
  empty: 'empty:// — the registry says this service has no provider',
  override: 'an override rule URL (configurators/), not a provider',
  route: 'a route rule URL (routers/), not a provider',
  condition: 'a condition rule URL, not a provider',
};

function keptParams(all: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of all) if (!BOOKKEEPING_PARAMS.has(k)) out[k] = v;
  return out;
}

// ---- zkCli `ls` answers and one-URL-per-line files ----

/** A provider from one URL text (raw or encoded), or why it is not one. */
function providerOfUrl(text: string): FoundProvider | string {
  let decoded: string;
  try {
    decoded = decodeProviderUrl(text);
  } catch {
    return `looks URL-encoded but does not decode (a broken %XX escape?): ${clip(text)}`;
  }
  let url: URL;
  try {
    url = URL.valueOf(decoded);
  } catch {
    return `not a URL: ${clip(text)}`;
  }
  if (url.protocol === '' || url.host === '') return `not a provider URL (expected dubbo://IP:PORT/Service?...): ${clip(text)}`;
  const nonProvider = NON_PROVIDER_PROTOCOLS[url.protocol];
  if (nonProvider !== undefined) return nonProvider;
  if (url.params.get('side') === 'consumer') return 'a consumer URL (side=consumer), not a provider';
  // A port that is not a number reads as part of the host: say what is wrong with it, as route/select do.
  const badPort = portProblem(decoded);
  if (badPort !== undefined) return badPort;
  if (url.port <= 0) return `no port in ${clip(decoded)}`;
  const service = url.getServiceInterface();
  if (service === '') return `no service interface in ${clip(decoded)}`;
  return { service, ip: url.host, port: url.port, params: keptParams(url.params) };
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

function fromLines(text: string): { found: FoundProvider[]; skipped: SkippedLine[] } {
  const found: FoundProvider[] = [];
  const skipped: SkippedLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || isZkCliNoise(line)) return;
    const bracketed = line.startsWith('[') && line.endsWith(']');
    // zkCli prints Java's List.toString: ", " between elements (an encoded URL holds no raw comma or space).
    const items = bracketed ? line.slice(1, -1).split(/,\s+/).map((x) => x.trim()).filter((x) => x !== '') : [line];
    items.forEach((item, k) => {
      const p = providerOfUrl(item);
      if (typeof p === 'string') skipped.push({ line: i + 1, reason: items.length > 1 ? `element ${k + 1}: ${p}` : p });
      else found.push(p);
    });
  });
  return { found, skipped };
}

// ---- Nacos instance lists ----

const scalarText = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

/** The instance nodes of a Nacos answer: `{hosts}` (open API v1), `{data: {hosts}}` (v2), `{list}` (console), or a bare array. */
function nacosInstances(doc: Document): Node[] | undefined {
  let node: unknown = doc.contents;
  for (let depth = 0; depth < 3; depth++) {
    if (isSeq(node)) return node.items as Node[];
    if (!isMap(node)) return undefined;
    const m = node;
    const next = ['hosts', 'list', 'instances', 'data'].map((k) => m.get(k, true)).find((x) => x !== undefined);
    if (next === undefined) return undefined;
    node = next;
  }
  return undefined;
}

/** `DEFAULT_GROUP@@providers:com.example.UserService:1.0.0:gold` → its parts. */
function nacosServiceName(name: string): { category: string; service: string; version: string; group: string } | undefined {
  const plain = name.includes('@@') ? name.slice(name.indexOf('@@') + 2) : name;
  const parts = plain.split(':');
  if (parts.length < 2 || !['providers', 'consumers', 'configurators', 'routers'].includes(parts[0]!)) return undefined;
  return { category: parts[0]!, service: parts[1]!, version: parts[2] ?? '', group: parts[3] ?? '' };
}

function fromNacos(doc: Document, lc: LineCounter): { found: FoundProvider[]; skipped: SkippedLine[] } | undefined {
  const nodes = nacosInstances(doc);
  if (nodes === undefined) return undefined;
  const found: FoundProvider[] = [];
  const skipped: SkippedLine[] = [];
  const serviceOfList = isMap(doc.contents) ? scalarText(doc.contents.get('name')) ?? scalarText(doc.getIn(['data', 'name'])) : undefined;
  for (const node of nodes) {
    const line = lc.linePos(node.range?.[0] ?? 0).line;
    const inst = (node as { toJSON(): unknown }).toJSON() as Record<string, unknown> | null;
    if (inst === null || typeof inst !== 'object' || Array.isArray(inst)) {
      skipped.push({ line, reason: 'not a Nacos instance object' });
      continue;
    }
    const ip = scalarText(inst.ip);
    const port = Number(inst.port);
    const where = `${ip ?? '?'}:${scalarText(inst.port) ?? '?'}`;
    if (ip === undefined || !(port > 0)) {
      skipped.push({ line, reason: 'a Nacos instance without ip and port' });
      continue;
    }
    if (inst.enabled === false) {
      skipped.push({ line, reason: `instance ${where} is disabled (enabled: false): Nacos does not push it to consumers` });
      continue;
    }
    if (inst.healthy === false) {
      // Nacos pushes it and Dubbo keeps it in its list (NacosRegistry filters on `enabled` only) until
      // Nacos deletes it, but an instance that stopped beating is no provider to build a scenario with.
      skipped.push({ line, reason: `instance ${where} is unhealthy (healthy: false): left out, as it stopped beating (Dubbo would still list it until Nacos deletes it)` });
      continue;
    }
    const metadata: Record<string, string> = {};
    if (inst.metadata !== null && typeof inst.metadata === 'object') {
      for (const [k, v] of Object.entries(inst.metadata as Record<string, unknown>)) {
        const t = scalarText(v);
        if (t !== undefined) metadata[k] = t;
      }
    }
    const name = nacosServiceName(scalarText(inst.serviceName) ?? serviceOfList ?? '');
    if (name !== undefined && name.category !== 'providers') {
      skipped.push({ line, reason: `instance ${where} is registered under ${name.category}:, not providers:` });
      continue;
    }
    if (metadata.side === 'consumer') {
      skipped.push({ line, reason: `instance ${where} is a consumer (side=consumer)` });
      continue;
    }
    const service = metadata.interface ?? name?.service;
    if (service === undefined || service === '') {
      skipped.push({
        line,
        reason: `instance ${where} is an application-level instance (Dubbo 3 service discovery) that names no interface; import the interface-level providers:<interface> service`,
      });
      continue;
    }
    const params = keptParams(Object.entries(metadata));
    if (name?.version && params.version === undefined) params.version = name.version;
    if (name?.group && params.group === undefined) params.group = name.group;
    found.push({ service, ip, port, params });
  }
  return { found, skipped };
}

// ---- grouping ----

/** The zone of each CIDR, longest prefix first. */
function cidrZones(zones: Record<string, { cidr: string }>): Array<{ zone: string; base: number; size: number }> {
  return Object.entries(zones)
    .map(([zone, z]) => ({ zone, ...parseCidr(z.cidr) }))
    .sort((a, b) => a.size - b.size);
}

function ipNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const o = m.slice(1, 5).map(Number);
  return o.some((x) => x > 255) ? undefined : ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
}

/** The zone of a provider: by CIDR when `cidrs` is given, else its `zone` parameter; the `zone` parameter is dropped when it says the same. */
function zoneOf(p: FoundProvider, cidrs: ReturnType<typeof cidrZones> | undefined): { zone: string | null; params: Record<string, string> } {
  const { zone: param, ...rest } = p.params;
  if (cidrs === undefined) return { zone: param ?? null, params: rest };
  const n = ipNumber(p.ip);
  const zone = n === undefined ? undefined : cidrs.find((c) => n >= c.base && n < c.base + c.size)?.zone;
  // A zone parameter that disagrees with the CIDR is what the registered URL says: keep it.
  return { zone: zone ?? null, params: param !== undefined && param !== zone ? p.params : rest };
}

const sortedEntries = (o: Record<string, string>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Groups instances by service, zone and parameters (duplicate IP:port entries counted once). */
export function groupProviders(found: FoundProvider[], zones?: Record<string, { cidr: string }>): ImportedProviderGroup[] {
  const cidrs = zones === undefined ? undefined : cidrZones(zones);
  const groups = new Map<string, ImportedProviderGroup & { instances: Set<string> }>();
  for (const p of found) {
    const { zone, params } = zoneOf(p, cidrs);
    const sorted = Object.fromEntries(sortedEntries(params));
    const key = JSON.stringify([p.service, zone, sorted]);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { service: p.service, zone, count: 0, params: sorted, instances: new Set() }));
    g.instances.add(`${p.ip}:${p.port}`);
    g.count = g.instances.size;
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...groups.values()]
    .map(({ instances: _i, ...g }) => g)
    .sort((a, b) => cmp(a.service, b.service) || cmp(a.zone ?? '\uffff', b.zone ?? '\uffff') || b.count - a.count || cmp(JSON.stringify(a.params), JSON.stringify(b.params)));
}

/** Reads a provider list (zkCli `ls`, URL lines, or Nacos JSON). */
export function importProviders(text: string, zones?: Record<string, { cidr: string }>): ImportedProviders {
  const t = text.replace(/^\uFEFF/, '').trim();
  let read: { found: FoundProvider[]; skipped: SkippedLine[] } | undefined;
  if (t.startsWith('{') || /^\[\s*(\{|\]$)/.test(t)) {
    const lc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      throw new UsageError(`not a Nacos instance list: the JSON does not parse at line ${lc.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
    }
    read = fromNacos(doc, lc);
    if (read === undefined) {
      throw new UsageError('a JSON document without instances: expected a Nacos instance list ({"hosts": [...]}, {"data": {"hosts": [...]}}, {"list": [...]} or [...])');
    }
  } else read = fromLines(text);
  return { providers: groupProviders(read.found, zones), skipped: read.skipped };
}

// ---- output ----

/** A whole number >= 0 that Dubbo can read (a Java int): larger ones stay params rather than become .inf. */
const isInt = (v: string) => /^\d{1,10}$/.test(v) && Number(v) <= 2_147_483_647;

/** One group as a provider group of the scenario format: application, weight, warmup and pool sizes as fields, the rest as params. */
function providerGroupYaml(g: ImportedProviderGroup): Record<string, unknown> {
  const params = { ...g.params };
  const out: Record<string, unknown> = { service: g.service, zone: g.zone ?? 'unknown', count: g.count };
  const take = (key: string, ok: (v: string) => boolean, as: (v: string) => unknown, field = key) => {
    const v = params[key];
    if (v !== undefined && ok(v)) {
      out[field] = as(v);
      delete params[key];
    }
  };
  take('application', () => true, (v) => v);
  take('weight', isInt, Number);
  take('warmup', isInt, (v) => formatDuration(Number(v)));
  take('threads', (v) => isInt(v) && Number(v) >= 1, Number);
  take('queues', (v) => isInt(v.replace(/^-/, '')), Number);
  const exp: Record<string, unknown> = {};
  const methods: Record<string, { executes: number }> = {};
  for (const [k, v] of Object.entries(params)) {
    if (!isInt(v)) continue;
    if (k === 'executes' || k === 'tps') exp[k] = Number(v);
    else if (k === 'tps.interval') exp[k] = Number(v);
    else if (k.endsWith('.executes') && !k.slice(0, -'.executes'.length).includes('.')) methods[k.slice(0, -'.executes'.length)] = { executes: Number(v) };
    else continue;
    delete params[k];
  }
  if (Object.keys(methods).length > 0) exp.methods = methods;
  if (Object.keys(exp).length > 0) out.exports = { [g.service]: exp };
  if (Object.keys(params).length > 0) out.params = params;
  return out;
}

/** The YAML fragment: `providers:` with a comment header, skipped lines as trailing comments. */
export function formatProvidersYaml(result: ImportedProviders, source: string): string {
  const instances = result.providers.reduce((n, g) => n + g.count, 0);
  const doc = new Document({ providers: result.providers.map(providerGroupYaml) });
  const services = new Set(result.providers.map((g) => g.service)).size;
  const head = [
    `zonesim import providers ${source}: ${instances} provider${instances === 1 ? '' : 's'} of ${services} service${services === 1 ? '' : 's'} in ${result.providers.length} group${result.providers.length === 1 ? '' : 's'}` +
      (result.skipped.length > 0 ? `; ${result.skipped.length} skipped (listed at the end)` : ''),
  ];
  const unknown = result.providers.filter((g) => g.zone === null).reduce((n, g) => n + g.count, 0);
  if (unknown > 0) head.push(`${unknown} provider${unknown === 1 ? ' has' : 's have'} no zone (zone: unknown): give them a zone parameter, or use --zone-from cidr --scenario S`);
  doc.commentBefore = head.map((l) => ` ${escapeControl(l)}`).join('\n');
  // params maps in flow style keep one group per few lines.
  const seq = doc.get('providers', true);
  if (isSeq(seq)) {
    for (const item of seq.items) {
      if (!isMap(item)) continue;
      for (const key of ['params', 'exports']) {
        const n = item.get(key, true);
        if (isMap(n)) n.flow = key === 'params';
      }
    }
  }
  if (result.skipped.length > 0) {
    // Reasons quote the skipped text: control characters in it are shown, not sent to the terminal.
    doc.comment = ['skipped:', ...result.skipped.map((s) => `  line ${s.line}: ${s.reason}`)].map((l) => ` ${escapeControl(l)}`).join('\n');
  }
  return doc.toString({ lineWidth: 0 });
}

/** Options of `zonesim import providers`. */
export interface ImportProvidersOptions {
  file: string;
  zoneFrom: 'param' | 'cidr';
  scenario?: string;
  json: boolean;
}

/**
 * Runs `zonesim import providers`; `input` is the file's content (its bytes, as read: a file that
 * is not UTF-8 is read as ISO-8859-1, with a note on stderr). Returns the exit code.
 */
export function runImportProviders(opts: ImportProvidersOptions, input: string | Uint8Array, io: Io): number {
  if (opts.zoneFrom === 'cidr' && opts.scenario === undefined) {
    throw new UsageError('--zone-from cidr needs --scenario S: the zones and CIDRs to place the IPs in');
  }
  let text: string;
  if (typeof input === 'string') text = input;
  else if (isUtf8(input)) text = Buffer.from(input).toString('utf8');
  else {
    text = Buffer.from(input).toString('latin1');
    io.stderr(`zonesim: note: ${opts.file} is not UTF-8 text: read as ISO-8859-1 (Latin-1)\n`);
  }
  const zones = opts.zoneFrom === 'cidr' ? loadScenarioFile(opts.scenario!).zones : undefined;
  const result = importProviders(text, zones);
  if (result.providers.length === 0) {
    const why = result.skipped.length > 0 ? ` (${result.skipped.length} skipped: ${result.skipped[0]!.reason}${result.skipped.length > 1 ? ', ...' : ''})` : '';
    throw new UsageError(`no provider in ${opts.file}${why}`, 'expected a zkCli `ls /dubbo/<iface>/providers` answer, one provider URL per line, or a Nacos instance-list JSON');
  }
  io.stdout(opts.json ? JSON.stringify(result, null, 2) + '\n' : formatProvidersYaml(result, opts.file));
  return 0;
}
