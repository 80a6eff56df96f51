/**
 * Simulated traces (`run --traces`): the TraceObserver that turns sampled requests into spans, as
 * OpenTelemetry's Dubbo instrumentation would record them. One trace per sampled request of the
 * measured window: an internal span for the request (its outcome), a client span per attempt, a
 * server span per execution, and the requests a call graph's execution makes below its server span.
 * Sampling never draws from the simulation's random streams (a hash of the seed and the request's
 * index), so a run gives the same summary with or without traces, and the same traces for a seed.
 * A trace is kept once everything in it has ended (its request, every attempt, every execution and
 * its response); the spans kept are capped. Writing the OTLP JSON is otlp-traces.ts's.
 */
import type { Outcome, RequestHandle } from './observer.js';
import type { AttemptResult, TraceObserver, TracedProvider } from './trace-observer.js';

/** Spans a trace file holds at most by default (about 70 MB of OTLP JSON, within what `import traces` reads). */
export const MAX_TRACE_SPANS = 100_000;

/** Which requests to trace: a fraction of them, or every one whose outcome is not `ok`. */
export type TraceSample = { kind: 'ratio'; ratio: number } | { kind: 'errors' };

/** The default of `--trace-sample`: 1% of the requests. */
export const DEFAULT_TRACE_SAMPLE: TraceSample = { kind: 'ratio', ratio: 0.01 };

/** An attribute value as OTLP types it. */
export type AttributeValue = { s: string } | { i: number } | { d: number } | { b: boolean };

/** OTLP span kinds (the JSON encoding writes the enum's number). */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

/** The process that recorded spans: an application's instance. */
export interface TraceResource {
  readonly attributes: Array<[string, AttributeValue]>;
  /** Spans kept, in the order their traces were completed. */
  readonly spans: SpanRecord[];
}

/** One span; times are simulated ms. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** The parent's span id, empty for the root. */
  parentSpanId: string;
  kind: 1 | 2 | 3;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Array<[string, AttributeValue]>;
  /** The status message of a span that ended in error; null when it did not. */
  error: string | null;
}

interface Span extends SpanRecord {
  resource: TraceResource;
  /** Still open: not ended when the run finished. */
  open: boolean;
}

interface Trace {
  index: number;
  traceId: string;
  spans: Span[];
  /** Requests, attempts and executions of the trace not yet ended. */
  pending: number;
  rootOutcome: Outcome | null;
}

interface TracedRequest {
  trace: Trace;
  span: Span;
  attempts: number;
}

interface TracedCall {
  trace: Trace;
  provider: TracedProvider;
  client: Span;
  /** The attempt has not ended at the consumer. */
  clientOpen: boolean;
  /** The provider side has not ended: the call may still run, or its response is neither used nor orphaned. */
  providerOpen: boolean;
  receivedMs: number;
  server: Span | null;
}

/** What the trace file's resources say of the run. */
export interface TraceRunInfo {
  scenario: string;
  seed: number;
  version: string;
}

/** Creates the spans of sampled requests; see the module comment. */
export class TraceRecorder implements TraceObserver {
  readonly sample: TraceSample;
  readonly maxSpans: number;
  readonly #warmupMs: number;
  readonly #durationMs: number;
  readonly #seedHash: number;
  readonly #threshold: number;
  readonly #requests = new Map<RequestHandle, TracedRequest>();
  readonly #calls = new Map<object, TracedCall>();
  readonly #live = new Map<number, Trace>();
  readonly #resources = new Map<string, TraceResource>();
  #roots = 0;
  /** Traces still under way when the run finished. */
  #unfinished = 0;
  #traces = 0;
  #spans = 0;
  /** When the cap was reached (simulated ms), null until then. */
  #truncatedAtMs: number | null = null;
  readonly #run: TraceRunInfo;

  constructor(opts: { sample: TraceSample; warmupMs: number; durationMs: number; run: TraceRunInfo; maxSpans?: number }) {
    this.sample = opts.sample;
    this.maxSpans = opts.maxSpans ?? MAX_TRACE_SPANS;
    this.#warmupMs = opts.warmupMs;
    this.#durationMs = opts.durationMs;
    this.#run = opts.run;
    this.#seedHash = mix32(opts.run.seed >>> 0) ^ mix32(Math.floor(opts.run.seed / 2 ** 32) + 0x6a09e667);
    // A request is sampled when the hash of its index is below ratio * 2^32.
    this.#threshold = opts.sample.kind === 'ratio' ? opts.sample.ratio * 2 ** 32 : 2 ** 32;
  }

  /** Traces kept so far. */
  get traces(): number {
    return this.#traces;
  }

  /** Spans kept so far. */
  get spans(): number {
    return this.#spans;
  }

  /** Traces that had not ended when the run finished (kept with `zonesim.unfinished` spans). */
  get unfinished(): number {
    return this.#unfinished;
  }

  /** The simulated time at which the cap stopped the sampling, or null. */
  get truncatedAtMs(): number | null {
    return this.#truncatedAtMs;
  }

  /** The resources with their spans, in the order they first completed a trace. */
  resources(): TraceResource[] {
    return [...this.#resources.values()];
  }

  /** What every resource says of the run: scenario, seed, sampling, cap and whether it was reached. */
  runAttributes(): Array<[string, AttributeValue]> {
    return [
      ['zonesim.scenario', { s: this.#run.scenario }],
      ['zonesim.seed', { i: this.#run.seed }],
      ['zonesim.trace.sample', { s: this.sample.kind === 'errors' ? 'errors' : String(this.sample.ratio) }],
      ['zonesim.trace.max_spans', { i: this.maxSpans }],
      ['zonesim.trace.truncated', { b: this.#truncatedAtMs !== null }],
    ];
  }

  request(req: RequestHandle, application: string, instance: string, host: string, zone: string, service: string, method: string, startMs: number, parent: object | null): void {
    let trace: Trace;
    let parentSpan: Span | null = null;
    if (parent === null) {
      if (this.#truncatedAtMs !== null || !(startMs >= this.#warmupMs && startMs < this.#durationMs)) return;
      const index = this.#roots++;
      // A bijection of the index for a seed: distinct per request, so also the trace ids made from it.
      const hash = mix32(this.#seedHash ^ mix32(index));
      if (this.sample.kind === 'ratio' && !(hash < this.#threshold)) return;
      trace = { index, traceId: traceId(hash), spans: [], pending: 0, rootOutcome: null };
      this.#live.set(index, trace);
    } else {
      const call = this.#calls.get(parent);
      if (call === undefined || call.server === null) return;
      trace = call.trace;
      parentSpan = call.server;
    }
    trace.pending++;
    const span = this.#span(trace, parentSpan, SPAN_KIND.internal, `call ${service}/${method}`, this.#resource(application, instance, host, zone, null), startMs);
    span.attributes.push(['zonesim.service', { s: service }], ['zonesim.method', { s: method }]);
    this.#requests.set(req, { trace, span, attempts: 0 });
  }

  requestEnded(req: RequestHandle, outcome: Outcome, endMs: number, cause: string | undefined): void {
    const r = this.#requests.get(req);
    if (r === undefined) return;
    // Later attempts of an ended request (failback's background retries) are not traced.
    this.#requests.delete(req);
    const span = r.span;
    span.endMs = endMs;
    span.open = false;
    span.attributes.push(['zonesim.outcome', { s: outcome }], ['zonesim.attempts', { i: r.attempts }]);
    if (cause !== undefined) span.attributes.push(['zonesim.cause', { s: cause }]);
    if (outcome !== 'ok') span.error = cause === undefined ? outcome : `${outcome}: ${cause}`;
    if (span.parentSpanId === '') r.trace.rootOutcome = outcome;
    r.trace.pending--;
    this.#settle(r.trace);
  }

  attempt(req: RequestHandle, call: object | null, provider: TracedProvider, service: string, method: string, timeoutMs: number, crossZone: boolean, atMs: number, immediate?: AttemptResult): void {
    const r = this.#requests.get(req);
    if (r === undefined) return;
    const trace = r.trace;
    const span = this.#span(trace, r.span, SPAN_KIND.client, `${service}/${method}`, r.span.resource, atMs);
    span.attributes.push(
      ['rpc.system', { s: 'apache_dubbo' }],
      ['rpc.service', { s: service }],
      ['rpc.method', { s: method }],
      ['server.address', { s: provider.ip }],
      ['server.port', { i: provider.port }],
      ['zonesim.provider.group', { s: provider.group.spec.name }],
      ['zonesim.provider.zone', { s: provider.zone }],
      ['zonesim.retry', { i: r.attempts++ }],
      ['zonesim.timeout_ms', { d: timeoutMs }],
      ['zonesim.cross_zone', { b: crossZone }],
    );
    if (call === null) {
      endClient(span, immediate ?? 'closed', atMs);
      return;
    }
    // Two parts pending: the attempt at the consumer, and the call at the provider.
    trace.pending += 2;
    this.#calls.set(call, { trace, provider, client: span, clientOpen: true, providerOpen: true, receivedMs: NaN, server: null });
  }

  attemptEnded(call: object, result: AttemptResult, atMs: number): void {
    const c = this.#calls.get(call);
    if (c === undefined || !c.clientOpen) return;
    c.clientOpen = false;
    endClient(c.client, result, atMs);
    c.trace.pending--;
    // A reply that reached the consumer after an execution was that execution's response: it was used.
    if (c.providerOpen && c.server !== null && result !== 'timeout') this.#providerDone(c, false);
    this.#forget(call, c);
  }

  notExecuted(call: object): void {
    const c = this.#calls.get(call);
    if (c === undefined || !c.providerOpen) return;
    this.#providerDone(c, null);
    this.#forget(call, c);
  }

  received(call: object, atMs: number): void {
    const c = this.#calls.get(call);
    if (c !== undefined) c.receivedMs = atMs;
  }

  executing(call: object, atMs: number, serviceMs: number): void {
    const c = this.#calls.get(call);
    if (c === undefined || !c.providerOpen) return;
    const provider = c.provider;
    const resource = this.#resource(provider.group.spec.application, `${provider.ip}:${provider.port}`, provider.ip, provider.zone, provider.group.spec.name);
    const server = this.#span(c.trace, c.client, SPAN_KIND.server, c.client.name, resource, atMs);
    const rpc = c.client.attributes;
    server.attributes.push(rpc[0]!, rpc[1]!, rpc[2]!);
    server.attributes.push(['zonesim.queue_wait_ms', { d: roundMs(Number.isNaN(c.receivedMs) ? 0 : atMs - c.receivedMs) }], ['zonesim.service_time_ms', { d: roundMs(serviceMs) }]);
    c.server = server;
  }

  executed(call: object, atMs: number): void {
    const c = this.#calls.get(call);
    if (c === undefined || c.server === null) return;
    c.server.endMs = atMs;
    c.server.open = false;
  }

  orphaned(call: object): void {
    const c = this.#calls.get(call);
    if (c === undefined || c.server === null || !c.providerOpen) return;
    this.#providerDone(c, true);
    this.#forget(call, c);
  }

  /**
   * Ends the run: traces whose request or executions have not ended (the drain gave up) are kept with
   * their open spans ended at `endMs` and marked `zonesim.unfinished`.
   */
  finish(endMs: number): void {
    for (const trace of [...this.#live.values()]) {
      this.#unfinished++;
      for (const s of trace.spans) {
        if (!s.open) continue;
        s.open = false;
        s.endMs = Math.max(s.startMs, endMs);
        s.attributes.push(['zonesim.unfinished', { b: true }]);
      }
      trace.pending = 0;
      this.#settle(trace);
    }
    this.#requests.clear();
    this.#calls.clear();
  }

  // The provider side of a call has ended; `orphaned` says whether an execution's response went unused (null: no execution).
  #providerDone(c: TracedCall, orphaned: boolean | null): void {
    c.providerOpen = false;
    c.trace.pending--;
    if (orphaned !== null && c.server !== null) c.server.attributes.push(['zonesim.orphaned', { b: orphaned }]);
  }

  #forget(call: object, c: TracedCall): void {
    if (!c.clientOpen && !c.providerOpen) this.#calls.delete(call);
    this.#settle(c.trace);
  }

  // A trace whose every part has ended is kept (or dropped: not an error under `errors`, or over the cap).
  #settle(trace: Trace): void {
    if (trace.pending > 0 || !this.#live.has(trace.index)) return;
    const root = trace.spans[0]!;
    this.#live.delete(trace.index);
    if (this.sample.kind === 'errors' && trace.rootOutcome === 'ok') return;
    if (this.#spans + trace.spans.length > this.maxSpans) {
      this.#stop(root.endMs);
      return;
    }
    this.#spans += trace.spans.length;
    this.#traces++;
    for (const s of trace.spans) {
      const { resource, open: _open, ...record } = s;
      resource.spans.push(record);
    }
  }

  // The cap is reached: nothing more is sampled, and the traces under way are let go.
  #stop(atMs: number): void {
    this.#truncatedAtMs = atMs;
    this.#live.clear();
    this.#requests.clear();
    this.#calls.clear();
  }

  #span(trace: Trace, parent: Span | null, kind: 1 | 2 | 3, name: string, resource: TraceResource, startMs: number): Span {
    const n = trace.spans.length + 1;
    const span: Span = {
      traceId: trace.traceId,
      spanId: hex8(mix32(trace.index ^ 0x5bd1e995)) + hex8(n),
      parentSpanId: parent === null ? '' : parent.spanId,
      kind,
      name,
      startMs,
      endMs: startMs,
      attributes: [],
      error: null,
      resource,
      open: true,
    };
    trace.spans.push(span);
    return span;
  }

  #resource(application: string, instance: string, host: string, zone: string, providerGroup: string | null): TraceResource {
    const key = `${application}\u0000${instance}`;
    let r = this.#resources.get(key);
    if (r === undefined) {
      const attributes: Array<[string, AttributeValue]> = [
        ['service.name', { s: application }],
        ['service.instance.id', { s: instance }],
        ['host.name', { s: host }],
        ['net.host.ip', { s: host }],
        ['cloud.availability_zone', { s: zone }],
      ];
      if (providerGroup !== null) attributes.push(['zonesim.provider.group', { s: providerGroup }]);
      this.#resources.set(key, (r = { attributes, spans: [] }));
    }
    return r;
  }
}

// 32 hex digits from a request's hash (distinct per request): its first word decides the others.
function traceId(hash: number): string {
  const w0 = mix32(hash ^ 0x9e3779b9);
  const w1 = mix32(w0 ^ 0x243f6a88);
  const w2 = mix32(w1 ^ 0x85a308d3);
  const w3 = mix32(w2 ^ 0x13198a2e);
  return hex8(w0) + hex8(w1) + hex8(w2) + hex8(w3);
}

function endClient(span: Span, result: AttemptResult, atMs: number): void {
  span.endMs = atMs;
  span.open = false;
  span.attributes.push(['zonesim.attempt.outcome', { s: result }]);
  if (result !== 'ok' && result !== 'biz') span.error = result;
}

/** A 32-bit finalizer (murmur3's fmix32): spreads an integer's bits over all 32. */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex8(x: number): string {
  return (x >>> 0).toString(16).padStart(8, '0');
}

function roundMs(ms: number): number {
  return Math.round(ms * 1e6) / 1e6;
}
