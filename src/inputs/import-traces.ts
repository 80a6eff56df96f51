/**
 * `zonesim import traces FILE...`: trace exports (Zipkin, Jaeger, OTLP, SkyWalking; trace-formats.ts)
 * turned into a scenario that loads as it is: zones, services with their methods' self-time
 * distributions and call graphs, provider groups, consumer groups with the rates the traces show
 * (trace-graph.ts infers them). A header comment says what was inferred, from how many traces and
 * spans, and what was dropped. Owns JSON parsing with positions and the output; the CLI reads the files.
 */
import { Document, isMap, isSeq } from 'yaml';
import { escapeControl } from '../scenario/clip-text.js';
import { UsageError } from '../scenario/io.js';
import { readSpans, TraceInputError, type TraceFormat } from './trace-formats.js';
import { inferEstate, quantileOf, type InferredEstate, type InferredMethod } from './trace-graph.js';
import type { TraceSpan } from './trace-span.js';

/** Trace files above this size are refused before reading (100 MB, as measured-data files). */
export const MAX_TRACE_FILE_BYTES = 100 * 1024 * 1024;
/** Spans over all files above this are refused: the inference holds every span in memory. */
export const MAX_TRACE_SPANS = 2_000_000;
/** Up to this many executions a self time is written as inline `samples`; above, as a `histogram`. */
export const MAX_INLINE_SAMPLES = 200;
/** A call made more often than this per execution is written this many times (noted). */
const MAX_CALLS_PER_EXECUTION = 100;

/** One input file: its name (for messages) and text. */
export interface TraceFile {
  file: string;
  text: string;
}

/** What `import traces` found: the estate, the scenario written from it, and its notes. */
export interface ImportedTraces {
  files: string[];
  formats: TraceFormat[];
  estate: InferredEstate;
  notes: string[];
  scenario: Record<string, unknown>;
}

/** Line and column of a character offset. */
function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, col: offset - last };
}

/** Parses one file (a JSON document, or OTLP's one document per line) into spans; errors name the file and place. */
export function readTraceFile(f: TraceFile, format: TraceFormat | undefined): { format: TraceFormat; spans: TraceSpan[]; incomplete: number } {
  const text = f.text.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new UsageError(`${f.file}: the file is empty`, 'expected a trace export (JSON)');
  let doc: unknown;
  let lines: string | undefined;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const firstLine = text.trimStart().split('\n', 1)[0]!;
    if (/non-whitespace character after JSON/.test(message) && isOtlpLine(firstLine)) lines = text;
    else {
      const pos = /position (\d+)/.exec(message);
      const { line, col } = lineCol(text, pos ? Number(pos[1]) : text.length);
      const atEnd = pos === null || /Unterminated string/.test(message) || Number(pos[1]) >= text.trimEnd().length - 1;
      const truncated = atEnd ? ' (the file ends in the middle of the JSON: truncated?)' : '';
      throw new UsageError(`${f.file}:${line}:${col}: not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}${truncated}`);
    }
  }
  try {
    return readSpans(doc, format, lines);
  } catch (e) {
    if (e instanceof TraceInputError) throw new UsageError(`${f.file}: ${e.where}: ${e.message}`);
    throw e;
  }
}

function isOtlpLine(line: string): boolean {
  try {
    const d = JSON.parse(line) as unknown;
    return typeof d === 'object' && d !== null && 'resourceSpans' in d;
  } catch {
    return false;
  }
}

const ms = (x: number) => Math.round(x * 1000) / 1000;
const fmtMs = (x: number) => `${ms(x)}ms`;

/** A self-time distribution: inline samples when few, else histogram buckets at the sample quantiles. */
export function selfTimeDist(sortedMs: number[]): Record<string, unknown> {
  if (sortedMs.length <= MAX_INLINE_SAMPLES) return { dist: 'samples', values: sortedMs.map(ms) };
  const n = sortedMs.length;
  const qs = [0, ...Array.from({ length: 49 }, (_, i) => (i + 1) / 50), 0.99, 0.995, 0.999, 1];
  const buckets = new Map<number, number>();
  for (const q of qs) {
    const bound = ms(sortedMs[Math.max(0, Math.ceil(q * n) - 1)]!);
    buckets.set(bound, 0);
  }
  // Cumulative counts: the samples at or below each (rounded) bound.
  let i = 0;
  for (const bound of [...buckets.keys()].sort((a, b) => a - b)) {
    while (i < n && ms(sortedMs[i]!) <= bound) i++;
    buckets.set(bound, i);
  }
  const out: Record<string, number> = {};
  for (const [bound, count] of [...buckets.entries()].sort((a, b) => a[0] - b[0])) out[fmtMs(bound)] = count;
  out['+Inf'] = n;
  return { dist: 'histogram', buckets: out };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Builds the scenario and its notes from the estate. */
function scenarioOf(estate: InferredEstate, notes: string[]): Record<string, unknown> {
  const zoneNames = new Set<string>();
  for (const g of [...estate.providers, ...estate.consumers]) if (g.zone !== null) zoneNames.add(g.zone);
  const fallbackZone = zoneNames.size === 0 ? 'dc' : 'unknown';
  const unzoned = [...estate.providers, ...estate.consumers].some((g) => g.zone === null);
  if (zoneNames.size === 0) notes.push('no zone in the spans: every instance is in zone dc (a cloud.availability_zone or zone attribute names one)');
  else if (unzoned) notes.push('some instances carry no zone (cloud.availability_zone or zone attribute): they are in zone unknown');
  if (unzoned) zoneNames.add(fallbackZone);
  const zones: Record<string, { cidr: string }> = {};
  [...zoneNames].sort().forEach((z, i) => (zones[z] = { cidr: `10.${(i % 250) + 1}.0.0/16` }));

  const services: Record<string, { methods: Record<string, unknown> }> = {};
  for (const m of estate.methods) {
    const entry: Record<string, unknown> = { serviceTime: selfTimeDist(m.selfTimeMs) };
    const calls = callsOf(m, notes);
    if (calls.length > 0) {
      entry.calls = calls;
      if (m.parallel && calls.length > 1) entry.parallel = true;
    }
    (services[m.service] ??= { methods: {} }).methods[m.method] = entry;
    if (m.fromClientSide) {
      notes.push(`${m.service}.${m.method}: no server span, so its service time is the caller's client span (network included) and its provider is application unknown`);
    }
  }
  const providers: Array<Record<string, unknown>> = estate.providers.map((p) => ({
    application: p.application,
    ...(p.services.length === 1 ? { service: p.services[0] } : { services: p.services }),
    zone: p.zone ?? fallbackZone,
    count: p.count,
  }));
  const unserved = [...new Set(estate.methods.filter((m) => m.fromClientSide).map((m) => m.service))].filter((s) => !estate.providers.some((p) => p.services.includes(s)));
  if (unserved.length > 0) providers.push({ application: 'unknown', ...(unserved.length === 1 ? { service: unserved[0] } : { services: unserved }), zone: Object.keys(zones)[0] ?? 'dc', count: 1 });
  const hostless = estate.providers.filter((p) => !p.hostsKnown).map((p) => p.application);
  if (hostless.length > 0) notes.push(`no host on the server spans of ${hostless.join(', ')}: count 1`);
  if (Object.keys(zones).length === 0) zones.dc = { cidr: '10.1.0.0/16' };

  const consumers = estate.consumers.map((c) => ({
    application: c.application,
    zone: c.zone ?? fallbackZone,
    instances: c.instances,
    rate: `${Math.max(0.001, Math.round(c.ratePerSec * 1000) / 1000)}/s`,
    calls: c.calls,
  }));
  return {
    name: 'imported-traces',
    description: `Inferred by zonesim import traces from ${plural(estate.traces, 'trace')} (${plural(estate.spans, 'span')}).`,
    seed: 1,
    duration: '60s',
    warmup: '5s',
    zones,
    services,
    providers,
    consumers,
  };
}

function callsOf(m: InferredMethod, notes: string[]): Array<{ service: string; method: string }> {
  const out: Array<{ service: string; method: string }> = [];
  for (const c of m.calls) {
    const times = Math.min(MAX_CALLS_PER_EXECUTION, Math.round(c.meanPerExecution));
    const what = `${m.service}.${m.method} -> ${c.service}.${c.method}`;
    if (times === 0) notes.push(`${what}: ${c.meanPerExecution.toFixed(2)} calls per execution, below 0.5: left out (zonesim's calls are made on every execution)`);
    else if (Math.abs(times - c.meanPerExecution) > 0.05) notes.push(`${what}: ${c.meanPerExecution.toFixed(2)} calls per execution, written ${plural(times, 'time')}`);
    for (let i = 0; i < times; i++) out.push({ service: c.service, method: c.method });
  }
  return out;
}

/** Reads the files, infers the estate and writes the scenario (`format` undefined: detected per file). */
export function importTraces(files: TraceFile[], format?: TraceFormat): ImportedTraces {
  const spans: TraceSpan[] = [];
  const formats = new Set<TraceFormat>();
  let incomplete = 0;
  for (const f of files) {
    const read = readTraceFile(f, format);
    formats.add(read.format);
    incomplete += read.incomplete;
    if (spans.length + read.spans.length > MAX_TRACE_SPANS) {
      throw new UsageError(`${f.file}: more than ${MAX_TRACE_SPANS} spans over the files given; import a sample of the traces`);
    }
    for (const s of read.spans) spans.push(s);
  }
  const estate = inferEstate(spans, incomplete);
  if (estate.methods.length === 0) {
    throw new UsageError(
      `no Dubbo call in ${files.map((f) => f.file).join(', ')} (${plural(estate.spans, 'span')} read)`,
      'expected server or client spans named interface/method or interface.method(Types), or with rpc.service and rpc.method attributes',
    );
  }
  const notes: string[] = [];
  const scenario = scenarioOf(estate, notes);
  return { files: files.map((f) => f.file), formats: [...formats].sort(), estate, notes, scenario };
}

const quant = (m: InferredMethod) => ({
  p50: ms(quantileOf(m.selfTimeMs, 0.5)),
  p90: ms(quantileOf(m.selfTimeMs, 0.9)),
  p99: ms(quantileOf(m.selfTimeMs, 0.99)),
  max: ms(m.selfTimeMs[m.selfTimeMs.length - 1] ?? 0),
});

/** The header lines of the fragment. */
function headerLines(r: ImportedTraces): string[] {
  const e = r.estate;
  const d = e.dropped;
  const start = e.windowStartUs > 0 ? ` from ${new Date(Math.floor(e.windowStartUs / 1000)).toISOString()}` : '';
  const head = [
    `zonesim import traces ${r.files.join(' ')} (${r.formats.join(', ')}): ${plural(e.traces, 'trace')}, ${plural(e.spans, 'span')} over ${Math.round(e.windowSec * 1000) / 1000} s${start}`,
    `inferred: ${plural(e.methods.length, 'method')} of ${plural(new Set(e.methods.map((m) => m.service)).size, 'service')}, ${plural(e.methods.reduce((n, m) => n + m.calls.length, 0), 'call edge')}, ${plural(e.providers.length, 'provider group')}, ${plural(e.consumers.length, 'consumer group')}`,
    `self time = server span minus the union of its child calls; written as samples up to ${MAX_INLINE_SAMPLES} executions, as histogram buckets at the sample quantiles above`,
    'rates are those of the traces in the files over their window: at a sampling ratio of 1%, multiply them by 100',
  ];
  const dropped = [
    d.incomplete && `${plural(d.incomplete, 'incomplete span')} (no start or duration)`,
    d.duplicate && `${plural(d.duplicate, 'duplicate span id')}`,
    d.orphan && `${plural(d.orphan, 'orphan span')} (parent not in the trace) and ${d.belowOrphans} below them`,
    d.skewed && `${plural(d.skewed, 'clock-skewed span')} (outside its parent; used as read)`,
    d.negativeSelfTime && `${plural(d.negativeSelfTime, 'negative self time')} clamped to 0`,
    d.negativeRtt && `${plural(d.negativeRtt, 'negative RTT')} (server span longer than its client span) clamped to 0`,
  ].filter(Boolean);
  head.push(dropped.length > 0 ? `dropped or clamped: ${dropped.join('; ')}` : 'dropped: nothing');
  for (const m of e.methods) {
    const q = quant(m);
    const fan = m.fanOutExecutions > 0 ? `; ${m.overlappingExecutions}/${m.fanOutExecutions} fan-outs overlap${m.parallel ? ' (parallel)' : ''}` : '';
    const calls = m.calls.map((c) => `${c.service}.${c.method} x${c.meanPerExecution.toFixed(2)}`).join(', ');
    head.push(`${m.service}.${m.method}: ${plural(m.executions, 'execution')}, self time p50 ${q.p50}ms p99 ${q.p99}ms${calls ? `; calls ${calls}` : ''}${fan}`);
  }
  for (const t of e.rtts) head.push(`rtt estimate ${t.from} -> ${t.service}.${t.method}: p50 ${ms(t.rttMs.p50)}ms, p99 ${ms(t.rttMs.p99)}ms over ${plural(t.pairs, 'pair')} (client span minus server span)`);
  for (const n of r.notes) head.push(`note: ${n}`);
  return head;
}

/** The scenario YAML with its header comment. */
export function formatTracesYaml(r: ImportedTraces): string {
  const doc = new Document(r.scenario);
  doc.commentBefore = headerLines(r).map((l) => ` ${escapeControl(l)}`).join('\n');
  // One provider and consumer group, zone and call per line; distributions flow too.
  for (const k of ['providers', 'consumers', 'zones']) {
    const n = doc.get(k, true);
    if (isSeq(n)) for (const item of n.items) if (isMap(item)) item.flow = true;
    if (isMap(n)) for (const item of n.items) if (isMap(item.value)) item.value.flow = true;
  }
  const services = doc.get('services', true);
  if (isMap(services)) {
    for (const s of services.items) {
      const methods = isMap(s.value) ? s.value.get('methods', true) : undefined;
      if (!isMap(methods)) continue;
      for (const m of methods.items) {
        if (!isMap(m.value)) continue;
        const st = m.value.get('serviceTime', true);
        if (isMap(st)) st.flow = true;
        const calls = m.value.get('calls', true);
        if (isSeq(calls)) for (const c of calls.items) if (isMap(c)) c.flow = true;
      }
    }
  }
  return doc.toString({ lineWidth: 0 });
}

/** The `--json` document: the estate (self times as quantiles), the notes and the scenario. */
export function tracesJson(r: ImportedTraces): Record<string, unknown> {
  const e = r.estate;
  return {
    files: r.files,
    formats: r.formats,
    traces: e.traces,
    spans: e.spans,
    windowSec: e.windowSec,
    dropped: e.dropped,
    methods: e.methods.map((m) => ({
      service: m.service,
      method: m.method,
      applications: m.applications,
      executions: m.executions,
      fromClientSide: m.fromClientSide,
      selfTimeMs: quant(m),
      calls: m.calls.map((c) => ({ service: c.service, method: c.method, total: c.total, meanPerExecution: c.meanPerExecution })),
      fanOutExecutions: m.fanOutExecutions,
      overlappingExecutions: m.overlappingExecutions,
      parallel: m.parallel,
    })),
    rtts: e.rtts,
    consumers: e.consumers,
    providers: e.providers,
    notes: r.notes,
    scenario: r.scenario,
  };
}
