/**
 * Writes the spans a TraceRecorder kept as one OTLP JSON document (`{resourceSpans: [{resource,
 * scopeSpans: [{scope, spans}]}]}`, what an OTLP/HTTP JSON export and the collector's file exporter
 * hold; Jaeger and Tempo read it), in pieces. Simulated time t becomes the Unix time `epochMs + t`.
 * One resource per process, in the order their first trace was kept; one span per line.
 */
import type { AttributeValue, SpanRecord, TraceRecorder } from './trace-recorder.js';

/** The instrumentation scope the spans are written under. */
export const TRACE_SCOPE = 'zonesim';

/** Gathered pieces are handed on at about this size. */
const CHUNK_CHARS = 256 * 1024;

/** Writes the OTLP JSON document of `traces` to `write`, a piece at a time. */
export function writeOtlpTraces(traces: TraceRecorder, opts: { epochMs: number; version: string }, write: (chunk: string) => void): void {
  let buf = '{"resourceSpans":[';
  const flush = (force = false) => {
    if (force || buf.length >= CHUNK_CHARS) {
      write(buf);
      buf = '';
    }
  };
  const run = traces.runAttributes();
  const scope = JSON.stringify({ name: TRACE_SCOPE, version: opts.version });
  let firstResource = true;
  for (const resource of traces.resources()) {
    if (resource.spans.length === 0) continue;
    buf += `${firstResource ? '' : ','}\n{"resource":{"attributes":${attributes([...resource.attributes, ...run])}},"scopeSpans":[{"scope":${scope},"spans":[`;
    firstResource = false;
    resource.spans.forEach((span, i) => {
      buf += `${i === 0 ? '' : ','}\n${spanJson(span, opts.epochMs)}`;
      flush();
    });
    buf += ']}]}';
  }
  buf += '\n]}\n';
  flush(true);
}

function spanJson(s: SpanRecord, epochMs: number): string {
  const span: Record<string, unknown> = { traceId: s.traceId, spanId: s.spanId };
  if (s.parentSpanId !== '') span.parentSpanId = s.parentSpanId;
  span.name = s.name;
  span.kind = s.kind;
  span.startTimeUnixNano = unixNano(epochMs, s.startMs);
  span.endTimeUnixNano = unixNano(epochMs, s.endMs);
  const text = JSON.stringify(span);
  const status = s.error === null ? '' : `,"status":{"code":2,"message":${JSON.stringify(s.error)}}`;
  return `${text.slice(0, -1)},"attributes":${attributes(s.attributes)}${status}}`;
}

/** OTLP's `[{key, value: {stringValue | intValue | doubleValue | boolValue}}]`; 64-bit integers as strings, as proto3 JSON writes them. */
function attributes(attrs: ReadonlyArray<[string, AttributeValue]>): string {
  const out = attrs.map(([key, v]) => {
    const value = 's' in v ? { stringValue: v.s } : 'i' in v ? { intValue: String(v.i) } : 'd' in v ? { doubleValue: v.d } : { boolValue: v.b };
    return { key, value };
  });
  return JSON.stringify(out);
}

/** Nanoseconds since the Unix epoch of simulated `ms`, as the decimal string OTLP JSON uses for fixed64. */
export function unixNano(epochMs: number, ms: number): string {
  return (BigInt(epochMs) * 1_000_000n + BigInt(Math.round(ms * 1e6))).toString();
}
