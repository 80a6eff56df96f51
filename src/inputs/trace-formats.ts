/**
 * Reads trace exports into TraceSpans: Zipkin v2 (`/api/v2/traces`: a list of traces, each a list of
 * spans; or one flat span list), Jaeger (the UI's and query API's `{data: [{traceID, spans, processes}]}`),
 * OTLP JSON (`{resourceSpans}`, or the collector file exporter's one such object per line) and SkyWalking
 * (SegmentObject JSON as agents report it to `/v3/segments`, or the query protocol's `queryTrace` spans).
 * Detects the format from the document's shape when none is given. Bad input throws TraceInputError with
 * the JSON pointer (and line) of the field; inferring the estate is trace-graph.ts's.
 */
import { firstOf, rpcOf, zoneOf, type Attributes, type TraceSpan } from './trace-span.js';

/** The formats `import traces` reads. */
export const TRACE_FORMATS = ['zipkin', 'jaeger', 'otlp', 'skywalking'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Bad input at a place of the file: `where` is a JSON pointer, or `line N` (with a pointer) for line-delimited files. */
export class TraceInputError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message);
    this.name = 'TraceInputError';
  }
}

/** The spans of one file, and what was read but cannot be used. */
export interface ReadSpans {
  format: TraceFormat;
  spans: TraceSpan[];
  /** Spans without a start or a duration (Zipkin's incomplete spans, an OTLP span without end). */
  incomplete: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const shape = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v === 'string' ? `"${v.length > 40 ? v.slice(0, 37) + '...' : v}"` : String(v));
const ptr = (base: string, key: string | number) => `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

function obj(v: unknown, at: string, what: string): Obj {
  if (!isObj(v)) throw new TraceInputError(at, `expected ${what} (an object), found ${shape(v)}`);
  return v;
}
function list(v: unknown, at: string, what: string): unknown[] {
  if (!Array.isArray(v)) throw new TraceInputError(at, `expected ${what} (a list), found ${shape(v)}`);
  return v;
}
function optList(o: Obj, key: string, at: string, what: string): unknown[] {
  return o[key] === undefined || o[key] === null ? [] : list(o[key], ptr(at, key), what);
}
/** A string field (ids may be written as numbers by some exporters). */
function text(o: Obj, key: string, at: string, required: true): string;
function text(o: Obj, key: string, at: string, required?: false): string | undefined;
function text(o: Obj, key: string, at: string, required = false): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') {
    if (required) throw new TraceInputError(ptr(at, key), `expected ${key}, found ${v === '' ? 'an empty string' : 'nothing'}`);
    return undefined;
  }
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw new TraceInputError(ptr(at, key), `expected ${key} to be a string, found ${shape(v)}`);
}
/** A time field: a number, or an integer string (OTLP writes 64-bit nanoseconds as strings); `scale` divides it into microseconds. */
function time(o: Obj, key: string, at: string, perUs: number): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v / perUs;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return perUs >= 1000 ? Number(BigInt(v) / BigInt(perUs)) + Number(BigInt(v) % BigInt(perUs)) / perUs : Number(v) / perUs;
  throw new TraceInputError(ptr(at, key), `expected ${key} to be a time (a whole number >= 0), found ${shape(v)}`);
}
const scalar = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

// ---- Zipkin v2 ----

function zipkinTags(s: Obj, at: string): Attributes {
  const out: Attributes = new Map();
  if (s.tags === undefined || s.tags === null) return out;
  for (const [k, v] of Object.entries(obj(s.tags, ptr(at, 'tags'), 'tags'))) {
    const t = scalar(v);
    if (t !== undefined) out.set(k, t);
  }
  return out;
}

function fromZipkin(root: unknown): ReadSpans {
  const top = list(root, '', 'a Zipkin list of traces');
  const traces: Array<{ spans: unknown[]; at: string }> = Array.isArray(top[0]) || top.length === 0
    ? top.map((t, i) => ({ spans: list(t, ptr('', i), 'a trace (a list of spans)'), at: ptr('', i) }))
    : [{ spans: top, at: '' }];
  const spans: TraceSpan[] = [];
  let incomplete = 0;
  for (const trace of traces) {
    const read: Array<TraceSpan & { rawParent?: string; shared: boolean; rawId: string }> = [];
    trace.spans.forEach((raw, i) => {
      const at = ptr(trace.at, i);
      const s = obj(raw, at, 'a Zipkin span');
      const traceId = text(s, 'traceId', at, true);
      const rawId = text(s, 'id', at, true);
      const start = time(s, 'timestamp', at, 1);
      const dur = time(s, 'duration', at, 1);
      const kindText = text(s, 'kind', at);
      if (start === undefined || dur === undefined) {
        incomplete++;
        return;
      }
      const local = s.localEndpoint === undefined || s.localEndpoint === null ? {} : obj(s.localEndpoint, ptr(at, 'localEndpoint'), 'localEndpoint');
      const tags = zipkinTags(s, at);
      const kind = kindText === 'SERVER' ? 'server' : kindText === 'CLIENT' ? 'client' : 'internal';
      const shared = s.shared === true && kind === 'server';
      const rpc = rpcOf(text(s, 'name', at) ?? '', tags);
      read.push({
        traceId,
        rawId,
        id: shared ? `${rawId}#server` : rawId,
        rawParent: text(s, 'parentId', at),
        shared,
        kind,
        app: text(local, 'serviceName', ptr(at, 'localEndpoint')) ?? 'unknown',
        ...rpc,
        startUs: start,
        endUs: start + dur,
        host: text(local, 'ipv4', ptr(at, 'localEndpoint')) ?? text(local, 'ipv6', ptr(at, 'localEndpoint')),
        zone: zoneOf(tags),
        at,
      });
    });
    // B3 single-host spans: a server span may share its client's id (shared: true); the server
    // process's own children then name that id as parent, and mean the server half.
    const sharedServers = new Set(read.filter((s) => s.shared).map((s) => `${s.traceId} ${s.rawId}`));
    for (const { rawParent, shared, rawId, ...span } of read) {
      if (shared) span.parentId = read.some((c) => c.traceId === span.traceId && c.id === rawId) ? rawId : rawParent;
      else if (rawParent !== undefined) span.parentId = sharedServers.has(`${span.traceId} ${rawParent}`) ? `${rawParent}#server` : rawParent;
      spans.push(span);
    }
  }
  return { format: 'zipkin', spans, incomplete };
}

// ---- Jaeger ----

function jaegerTags(tags: unknown[], at: string): Attributes {
  const out: Attributes = new Map();
  tags.forEach((t, i) => {
    const o = obj(t, ptr(at, i), 'a tag {key, type, value}');
    const k = text(o, 'key', ptr(at, i), true);
    const v = scalar(o.value);
    if (v !== undefined) out.set(k, v);
  });
  return out;
}

function fromJaeger(root: unknown): ReadSpans {
  const data = list(obj(root, '', 'a Jaeger export {data: [...]}').data, '/data', 'the traces');
  const spans: TraceSpan[] = [];
  data.forEach((rawTrace, ti) => {
    const tat = ptr('/data', ti);
    const trace = obj(rawTrace, tat, 'a Jaeger trace {traceID, spans, processes}');
    const processes = trace.processes === undefined ? {} : obj(trace.processes, ptr(tat, 'processes'), 'processes');
    const procs = new Map<string, { app: string; attrs: Attributes }>();
    for (const [id, p] of Object.entries(processes)) {
      const pat = ptr(ptr(tat, 'processes'), id);
      const po = obj(p, pat, 'a process {serviceName, tags}');
      procs.set(id, { app: text(po, 'serviceName', pat) ?? 'unknown', attrs: jaegerTags(optList(po, 'tags', pat, 'tags'), ptr(pat, 'tags')) });
    }
    list(trace.spans, ptr(tat, 'spans'), 'the spans').forEach((raw, i) => {
      const at = ptr(ptr(tat, 'spans'), i);
      const s = obj(raw, at, 'a Jaeger span');
      const traceId = text(s, 'traceID', at, true);
      const start = time(s, 'startTime', at, 1);
      const dur = time(s, 'duration', at, 1);
      if (start === undefined || dur === undefined) throw new TraceInputError(ptr(at, start === undefined ? 'startTime' : 'duration'), 'expected a time in microseconds, found nothing');
      const tags = jaegerTags(optList(s, 'tags', at, 'tags'), ptr(at, 'tags'));
      const refs = optList(s, 'references', at, 'references').map((r, k) => obj(r, ptr(ptr(at, 'references'), k), 'a reference {refType, traceID, spanID}'));
      const parent = refs.find((r) => r.refType === 'CHILD_OF') ?? refs.find((r) => r.refType === 'FOLLOWS_FROM');
      const processId = text(s, 'processID', at);
      const proc = processId === undefined ? undefined : procs.get(processId);
      if (processId !== undefined && proc === undefined) throw new TraceInputError(ptr(at, 'processID'), `names process "${processId}", which the trace's processes do not hold`);
      const pattrs = proc?.attrs ?? new Map<string, string>();
      const kindTag = tags.get('span.kind');
      spans.push({
        traceId,
        id: text(s, 'spanID', at, true),
        parentId: parent === undefined ? text(s, 'parentSpanID', at) : (scalar(parent.spanID) ?? undefined),
        kind: kindTag === 'server' ? 'server' : kindTag === 'client' ? 'client' : 'internal',
        app: proc?.app ?? 'unknown',
        ...rpcOf(text(s, 'operationName', at) ?? '', tags),
        startUs: start,
        endUs: start + dur,
        host: firstOf(pattrs, ['ip', 'host.ip', 'hostname', 'host.name', 'service.instance.id']),
        zone: zoneOf(tags, pattrs),
        at,
      });
    });
  });
  return { format: 'jaeger', spans, incomplete: 0 };
}

// ---- OTLP ----

const OTLP_KINDS: Record<string, TraceSpan['kind']> = { '2': 'server', SPAN_KIND_SERVER: 'server', '3': 'client', SPAN_KIND_CLIENT: 'client' };

function otlpAttrs(v: unknown[], at: string): Attributes {
  const out: Attributes = new Map();
  v.forEach((a, i) => {
    const o = obj(a, ptr(at, i), 'an attribute {key, value}');
    const k = text(o, 'key', ptr(at, i), true);
    const val = isObj(o.value) ? o.value : {};
    const t = scalar(val.stringValue) ?? scalar(val.intValue) ?? scalar(val.doubleValue) ?? scalar(val.boolValue);
    if (t !== undefined) out.set(k, t);
    else if (isObj(val.arrayValue) && Array.isArray(val.arrayValue.values) && isObj(val.arrayValue.values[0])) {
      const first = scalar(val.arrayValue.values[0].stringValue);
      if (first !== undefined) out.set(k, first);
    }
  });
  return out;
}

function fromOtlp(root: unknown, base = '', spans: TraceSpan[] = [], counts = { incomplete: 0 }): ReadSpans {
  const doc = obj(root, base || '/', 'an OTLP export {resourceSpans: [...]}');
  list(doc.resourceSpans, ptr(base, 'resourceSpans'), 'resourceSpans').forEach((rs, ri) => {
    const rat = ptr(ptr(base, 'resourceSpans'), ri);
    const r = obj(rs, rat, 'a resourceSpans entry');
    const resource = r.resource === undefined ? {} : obj(r.resource, ptr(rat, 'resource'), 'resource');
    const rattrs = otlpAttrs(optList(resource, 'attributes', ptr(rat, 'resource'), 'attributes'), ptr(ptr(rat, 'resource'), 'attributes'));
    const app = rattrs.get('service.name') ?? 'unknown';
    // Exporters before OTLP 0.19 wrote instrumentationLibrarySpans.
    const scopeKey = r.scopeSpans === undefined && r.instrumentationLibrarySpans !== undefined ? 'instrumentationLibrarySpans' : 'scopeSpans';
    optList(r, scopeKey, rat, scopeKey).forEach((ss, si) => {
      const sat = ptr(ptr(rat, scopeKey), si);
      optList(obj(ss, sat, 'a scopeSpans entry'), 'spans', sat, 'spans').forEach((raw, i) => {
        const at = ptr(ptr(sat, 'spans'), i);
        const s = obj(raw, at, 'an OTLP span');
        const start = time(s, 'startTimeUnixNano', at, 1000);
        const end = time(s, 'endTimeUnixNano', at, 1000);
        const traceId = text(s, 'traceId', at, true);
        const id = text(s, 'spanId', at, true);
        if (start === undefined || end === undefined || start === 0 || end === 0) {
          counts.incomplete++;
          return;
        }
        const attrs = otlpAttrs(optList(s, 'attributes', at, 'attributes'), ptr(at, 'attributes'));
        const kind = OTLP_KINDS[String(s.kind)] ?? 'internal';
        spans.push({
          traceId,
          id,
          parentId: text(s, 'parentSpanId', at),
          kind,
          app,
          ...rpcOf(text(s, 'name', at) ?? '', attrs),
          startUs: start,
          endUs: end,
          host: firstOf(rattrs, ['service.instance.id', 'host.ip', 'host.name', 'k8s.pod.name']) ?? (kind === 'server' ? firstOf(attrs, ['server.address', 'net.host.name']) : undefined),
          zone: zoneOf(attrs, rattrs),
          at,
        });
      });
    });
  });
  return { format: 'otlp', spans, incomplete: counts.incomplete };
}

/** The OTel collector's file exporter: one ExportTraceServiceRequest JSON object per line. */
function fromOtlpLines(textIn: string): ReadSpans {
  const spans: TraceSpan[] = [];
  const counts = { incomplete: 0 };
  textIn.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (e) {
      throw new TraceInputError(`line ${i + 1}`, `not JSON: ${(e as Error).message}`);
    }
    try {
      fromOtlp(doc, '', spans, counts);
    } catch (e) {
      if (e instanceof TraceInputError) throw new TraceInputError(`line ${i + 1}, ${e.where}`, e.message);
      throw e;
    }
  });
  return { format: 'otlp', spans, incomplete: counts.incomplete };
}

// ---- SkyWalking ----

const SW_TYPES: Record<string, TraceSpan['kind']> = { Entry: 'server', '0': 'server', Exit: 'client', '1': 'client' };

function swTags(s: Obj, at: string): Attributes {
  const out: Attributes = new Map();
  optList(s, 'tags', at, 'tags').forEach((t, i) => {
    const o = obj(t, ptr(ptr(at, 'tags'), i), 'a tag {key, value}');
    const v = scalar(o.value);
    if (typeof o.key === 'string' && v !== undefined) out.set(o.key, v);
  });
  return out;
}

/** SegmentObject JSON (trace-data-protocol v3): segments whose spans point at parents in other segments through `refs`. */
function fromSkyWalkingSegments(segments: unknown[], base: string, single = false): ReadSpans {
  const spans: TraceSpan[] = [];
  segments.forEach((rawSeg, gi) => {
    const gat = single ? base : ptr(base, gi);
    const seg = obj(rawSeg, gat || '/', 'a SkyWalking segment {traceId, traceSegmentId, service, spans}');
    const traceId = text(seg, 'traceId', gat, true);
    const segId = text(seg, 'traceSegmentId', gat, true);
    const app = text(seg, 'service', gat) ?? 'unknown';
    const instance = text(seg, 'serviceInstance', gat);
    list(seg.spans, ptr(gat, 'spans'), 'the spans').forEach((raw, i) => {
      const at = ptr(ptr(gat, 'spans'), i);
      const s = obj(raw, at, 'a SkyWalking span');
      spans.push(swSpan(s, at, { traceId, segId, app, instance, name: text(s, 'operationName', at) ?? '', type: s.spanType, refSegment: 'parentTraceSegmentId' }));
    });
  });
  return { format: 'skywalking', spans, incomplete: 0 };
}

/** The query protocol's `queryTrace` answer: every span of a trace, each naming its segment. */
function fromSkyWalkingQuery(rawSpans: unknown[], base: string): ReadSpans {
  const spans = rawSpans.map((raw, i) => {
    const at = ptr(base, i);
    const s = obj(raw, at, 'a SkyWalking span');
    return swSpan(s, at, {
      traceId: text(s, 'traceId', at, true),
      segId: text(s, 'segmentId', at, true),
      app: text(s, 'serviceCode', at) ?? 'unknown',
      instance: text(s, 'serviceInstanceName', at),
      name: text(s, 'endpointName', at) ?? '',
      type: s.type,
      refSegment: 'parentSegmentId',
    });
  });
  return { format: 'skywalking', spans, incomplete: 0 };
}

function swSpan(s: Obj, at: string, c: { traceId: string; segId: string; app: string; instance?: string; name: string; type: unknown; refSegment: string }): TraceSpan {
  const spanId = text(s, 'spanId', at, true);
  const parentSpanId = text(s, 'parentSpanId', at);
  const start = time(s, 'startTime', at, 0.001);
  const end = time(s, 'endTime', at, 0.001);
  if (start === undefined || end === undefined) throw new TraceInputError(ptr(at, start === undefined ? 'startTime' : 'endTime'), 'expected a time in milliseconds, found nothing');
  const refs = optList(s, 'refs', at, 'refs').map((r, k) => obj(r, ptr(ptr(at, 'refs'), k), 'a reference'));
  let parentId: string | undefined;
  if (parentSpanId !== undefined && Number(parentSpanId) >= 0) parentId = `${c.segId}/${parentSpanId}`;
  else if (refs.length > 0) {
    const ref = refs[0]!;
    const rat = ptr(ptr(at, 'refs'), 0);
    parentId = `${text(ref, c.refSegment, rat, true)}/${text(ref, 'parentSpanId', rat, true)}`;
  }
  const tags = swTags(s, at);
  return {
    traceId: c.traceId,
    id: `${c.segId}/${spanId}`,
    parentId,
    kind: SW_TYPES[String(c.type)] ?? 'internal',
    app: c.app,
    ...rpcOf(c.name, tags),
    startUs: start,
    endUs: end,
    host: c.instance,
    zone: zoneOf(tags),
    at,
  };
}

// ---- detection ----

/** The format of a parsed document, from its shape; undefined when it is none of them. */
export function detectFormat(doc: unknown): TraceFormat | undefined {
  if (Array.isArray(doc)) {
    const first = doc[0];
    if (first === undefined || Array.isArray(first)) return 'zipkin';
    if (isObj(first) && ('traceSegmentId' in first || ('service' in first && 'spans' in first))) return 'skywalking';
    if (isObj(first) && 'traceId' in first && 'id' in first) return 'zipkin';
    return undefined;
  }
  if (!isObj(doc)) return undefined;
  if ('resourceSpans' in doc) return 'otlp';
  if (Array.isArray(doc.data) && (doc.data.length === 0 || (isObj(doc.data[0]) && 'spans' in doc.data[0] && ('processes' in doc.data[0] || 'traceID' in doc.data[0])))) return 'jaeger';
  if (skyWalkingQuerySpans(doc) !== undefined || 'traceSegmentId' in doc || Array.isArray(doc.segments)) return 'skywalking';
  return undefined;
}

/** `{data: {trace: {spans}}}` (GraphQL answer with the UI's alias), `{data: {queryTrace: {spans}}}`, `{trace: {spans}}` or `{spans}`. */
function skyWalkingQuerySpans(doc: Obj): { spans: unknown[]; at: string } | undefined {
  const candidates: Array<[unknown, string]> = [
    [isObj(doc.data) && isObj(doc.data.trace) ? doc.data.trace.spans : undefined, '/data/trace/spans'],
    [isObj(doc.data) && isObj(doc.data.queryTrace) ? doc.data.queryTrace.spans : undefined, '/data/queryTrace/spans'],
    [isObj(doc.trace) ? doc.trace.spans : undefined, '/trace/spans'],
    [doc.spans, '/spans'],
  ];
  for (const [spans, at] of candidates) {
    if (Array.isArray(spans) && (spans.length === 0 || (isObj(spans[0]) && 'segmentId' in spans[0]))) return { spans, at };
  }
  return undefined;
}

const EXPECTED: Record<TraceFormat, string> = {
  zipkin: 'a Zipkin v2 list of traces ([[span, ...], ...]) or of spans',
  jaeger: 'a Jaeger export {"data": [{"traceID", "spans", "processes"}]}',
  otlp: 'an OTLP JSON export {"resourceSpans": [...]} (or one per line)',
  skywalking: 'SkyWalking segments ([{"traceId", "traceSegmentId", "spans"}]) or a queryTrace answer ({"data": {"trace": {"spans"}}})',
};

/** A short description of what each format looks like, for messages. */
export const expectedShape = (f?: TraceFormat) => (f === undefined ? Object.values(EXPECTED).join('; or ') : EXPECTED[f]);

/**
 * The spans of a parsed document in `format` (detected when undefined). `lines` is the file's text when
 * it holds one JSON object per line (the OTLP file exporter), in which case `doc` is undefined.
 */
export function readSpans(doc: unknown, format: TraceFormat | undefined, lines?: string): ReadSpans {
  if (lines !== undefined) {
    if (format !== undefined && format !== 'otlp') throw new TraceInputError('line 2', `one JSON document per line is the OTLP file exporter's form; expected ${expectedShape(format)}`);
    return fromOtlpLines(lines);
  }
  const detected = detectFormat(doc);
  const f = format ?? detected;
  if (f === undefined) throw new TraceInputError('/', `not a trace export this reads: expected ${expectedShape()}`);
  if (format !== undefined && detected !== undefined && detected !== format) {
    throw new TraceInputError('/', `--format ${format}, but this looks like ${detected}: expected ${expectedShape(format)}`);
  }
  switch (f) {
    case 'zipkin':
      return fromZipkin(doc);
    case 'jaeger':
      return fromJaeger(doc);
    case 'otlp':
      return fromOtlp(doc);
    case 'skywalking': {
      if (Array.isArray(doc)) return fromSkyWalkingSegments(doc, '');
      const o = obj(doc, '/', EXPECTED.skywalking);
      if (Array.isArray(o.segments)) return fromSkyWalkingSegments(o.segments, '/segments');
      if ('traceSegmentId' in o) return fromSkyWalkingSegments([o], '', true);
      const q = skyWalkingQuerySpans(o);
      if (q === undefined) throw new TraceInputError('/', `expected ${EXPECTED.skywalking}`);
      return fromSkyWalkingQuery(q.spans, q.at);
    }
  }
}
