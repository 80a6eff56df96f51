import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { quantile, type DistSpec } from '../../src/engine/distributions.js';
import { importTraces, formatTracesYaml } from '../../src/inputs/import-traces.js';
import { writeOtlpTraces } from '../../src/metrics/otlp-traces.js';
import { TraceRecorder, type TraceSample } from '../../src/metrics/trace-recorder.js';
import { distTail } from '../../src/scenario/dist-figures.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { EPOCH_MS } from '../../src/world/provider.js';

const scenarioFile = (name: string) => fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url));
const load = (name: string, sets: string[] = []) => loadScenarioWithRaw(scenarioFile(name), sets).scenario;

/** One run with a trace recorder: the summary JSON, the OTLP text and the recorder. */
function traced(name: string, sample: TraceSample, sets: string[] = [], seed?: number, maxSpans?: number) {
  const scenario = load(name, sets);
  const s = seed ?? scenario.seed;
  const traces = new TraceRecorder({ sample, warmupMs: scenario.warmupMs, durationMs: scenario.durationMs, run: { scenario: scenario.name, seed: s, version: 'test' }, maxSpans });
  const { summary } = runScenario(scenario, { version: 'test', seed: s, traces });
  const parts: string[] = [];
  writeOtlpTraces(traces, { epochMs: EPOCH_MS, version: 'test' }, (c) => parts.push(c));
  return { summary: JSON.stringify(summary), text: parts.join(''), traces };
}

interface Span {
  app: string;
  instance: string;
  zone: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attrs: Record<string, string | number | boolean>;
  status?: { code: number; message: string };
}

/** The OTLP document's spans with their resource's names and times back in simulated ms. */
function spansOf(text: string): Span[] {
  const doc = JSON.parse(text) as { resourceSpans: Array<{ resource: { attributes: Attr[] }; scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
  const out: Span[] = [];
  for (const rs of doc.resourceSpans) {
    const r = attrs(rs.resource.attributes);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        const ms = (ns: unknown) => Number(BigInt(ns as string) - BigInt(EPOCH_MS) * 1_000_000n) / 1e6;
        out.push({
          ...(s as unknown as Span),
          app: r['service.name'] as string,
          instance: r['service.instance.id'] as string,
          zone: r['cloud.availability_zone'] as string,
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          attrs: attrs(s.attributes as Attr[]),
        });
      }
    }
  }
  return out;
}
type Attr = { key: string; value: Record<string, string | number | boolean> };
function attrs(list: Attr[]): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]!]));
}
function byTrace(spans: Span[]): Map<string, Span[]> {
  const m = new Map<string, Span[]>();
  for (const s of spans) (m.get(s.traceId) ?? m.set(s.traceId, []).get(s.traceId)!).push(s);
  return m;
}

const tmp = mkdtempSync(join(tmpdir(), 'zs-traces-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('simulated traces: the run is the same with or without them', () => {
  it.each([
    ['call-graph-amplification', { kind: 'errors' } as TraceSample],
    ['lane-gray', { kind: 'ratio', ratio: 0.2 } as TraceSample],
    ['zone-a-down', { kind: 'ratio', ratio: 1 } as TraceSample],
  ])('%s: the summary is byte-identical with --traces (%o)', (name, sample) => {
    const sets = name === 'zone-a-down' ? ['duration=40s'] : [];
    const plain = JSON.stringify(runScenario(load(name, sets), { version: 'test' }).summary);
    const t = traced(name, sample, sets);
    expect(t.summary).toBe(plain);
    expect(t.traces.traces).toBeGreaterThan(100);
    // Every trace ended in the run: each attempt and execution was seen to its end.
    expect(t.traces.unfinished).toBe(0);
  });

  it('gives the same bytes for the same seed and other traces for another seed', () => {
    const sets = ['duration=6s'];
    const a = traced('lane-gray', { kind: 'ratio', ratio: 0.05 }, sets);
    const b = traced('lane-gray', { kind: 'ratio', ratio: 0.05 }, sets);
    expect(b.text).toBe(a.text);
    const c = traced('lane-gray', { kind: 'ratio', ratio: 0.05 }, sets, 2);
    expect(c.text).not.toBe(a.text);
    const ids = (t: string) => new Set(spansOf(t).map((s) => s.traceId));
    const shared = [...ids(a.text)].filter((id) => ids(c.text).has(id));
    expect(shared).toEqual([]);
  });

  it('samples about the fraction asked of the measured requests, each kept whole', () => {
    const { summary, text, traces } = traced('lane-gray', { kind: 'ratio', ratio: 0.05 });
    const s = JSON.parse(summary) as { byService: Record<string, { requests: number }> };
    const edge = s.byService['com.example.OrderService.place']!.requests;
    const p = 0.05;
    // Binomial: within 4 standard deviations of n * p.
    expect(Math.abs(traces.traces - edge * p)).toBeLessThan(4 * Math.sqrt(edge * p * (1 - p)));
    const all = spansOf(text);
    // A healthy two-tier request: request, attempt, execution, downstream request, attempt, execution.
    // Span ids end with the span's number in its trace: their order is the order the spans began.
    for (const spans of byTrace(all).values()) expect(spans.sort((x, y) => (x.spanId < y.spanId ? -1 : 1)).map((x) => x.kind)).toEqual([1, 3, 2, 1, 3, 2]);
    expect(all.length).toBe(traces.spans);
    expect(all.every((x) => x.startMs >= 2000 || x.parentSpanId !== undefined)).toBe(true);
  });
});

describe('simulated traces: what the spans say (call-graph-amplification, errors)', () => {
  const { text, summary } = traced('call-graph-amplification', { kind: 'errors' });
  const spans = spansOf(text);
  const traces = byTrace(spans);
  const s = JSON.parse(summary) as { byService: Record<string, { requests: number; outcomes: Record<string, number> }> };

  it('keeps every request that did not end ok: here each web request, as every place attempt times out', () => {
    expect(traces.size).toBe(s.byService['com.example.OrderService.place']!.outcomes.timeout);
  });

  it('shows the 3 x 3 retry storm: three place attempts, each execution running reserve three times, nine orphaned reserve executions', () => {
    for (const t of traces.values()) {
      const root = t.filter((x) => x.parentSpanId === undefined);
      expect(root).toHaveLength(1);
      expect(root[0]!.attrs).toMatchObject({ 'zonesim.outcome': 'timeout', 'zonesim.attempts': '3' });
      expect(root[0]!.status?.code).toBe(2);
      const placeAttempts = t.filter((x) => x.kind === 3 && x.name === 'com.example.OrderService/place');
      expect(placeAttempts.map((x) => [x.parentSpanId, x.attrs['zonesim.retry'], x.attrs['zonesim.attempt.outcome'], x.attrs['zonesim.timeout_ms']])).toEqual(
        ['0', '1', '2'].map((r) => [root[0]!.spanId, r, 'timeout', 1000]),
      );
      const reserveServers = t.filter((x) => x.kind === 2 && x.name === 'com.example.InventoryService/reserve');
      expect(reserveServers).toHaveLength(9);
      for (const x of reserveServers) {
        expect(x.attrs['zonesim.orphaned']).toBe(true);
        expect(x.endMs - x.startMs).toBeCloseTo(1500, 5);
      }
    }
  });

  it('hangs each execution under its attempt and the downstream calls under the execution that makes them', () => {
    const t = [...traces.values()][0]!;
    const byId = new Map(t.map((x) => [x.spanId, x]));
    for (const server of t.filter((x) => x.kind === 2)) {
      const client = byId.get(server.parentSpanId!)!;
      expect(client.kind).toBe(3);
      expect(server.name).toBe(client.name);
      expect(server.app).toBe(server.name.includes('Order') ? 'OrderService-provider' : 'InventoryService-provider');
      // The server's resource is the provider the client span names.
      expect(server.instance).toBe(`${client.attrs['server.address']}:${client.attrs['server.port']}`);
      expect(server.attrs['rpc.system']).toBe('apache_dubbo');
    }
    for (const call of t.filter((x) => x.kind === 1 && x.parentSpanId !== undefined)) {
      const parent = byId.get(call.parentSpanId!)!;
      expect(parent.kind).toBe(2);
      expect(parent.name).toBe('com.example.OrderService/place');
      // The provider makes the downstream call after its own 2 ms of work, from its own process.
      expect(call.startMs - parent.startMs).toBeCloseTo(2, 6);
      expect(call.instance).toBe(parent.instance);
    }
  });
});

describe('simulated traces: queue wait and the provider zone', () => {
  it('a server span starts when a thread takes the call: queue wait is its start minus the arrival', () => {
    // One provider thread with a queue, 20 ms of work, 40 calls/s: calls queue. RTT is exact (no jitter): one way 0.15 ms.
    const { text } = traced('lane-gray', { kind: 'ratio', ratio: 1 }, [
      'duration=4s',
      'warmup=0s',
      'providers[0].threads=1',
      'providers[0].queues=1000',
      'providers[0].count=1',
      'providers[1].count=0',
      'consumers[0].rate=40/s',
      'consumers[1].rate=0/s',
      'services["com.example.OrderService"].methods.place.serviceTime=20ms',
      'services["com.example.OrderService"].methods.place.calls=[]',
    ]);
    const spans = spansOf(text);
    const byId = new Map(spans.map((x) => [x.spanId + x.traceId, x]));
    const servers = spans.filter((x) => x.kind === 2);
    expect(servers.length).toBeGreaterThan(100);
    let queued = 0;
    for (const server of servers) {
      const client = byId.get(server.parentSpanId! + server.traceId)!;
      const wait = server.attrs['zonesim.queue_wait_ms'] as number;
      expect(server.startMs - client.startMs - wait).toBeCloseTo(0.15, 5);
      expect(server.endMs - server.startMs).toBeCloseTo(20, 6);
      expect(server.zone).toBe('dc');
      if (wait > 0) queued++;
    }
    expect(queued).toBeGreaterThan(10);
  });
});

describe('simulated traces: the cap', () => {
  it('stops sampling once the next trace would pass the cap, and the file says so', () => {
    const { traces, text } = traced('lane-gray', { kind: 'ratio', ratio: 1 }, ['duration=4s'], undefined, 1000);
    expect(traces.truncatedAtMs).not.toBeNull();
    expect(traces.spans).toBeLessThanOrEqual(1000);
    expect(traces.spans).toBeGreaterThan(1000 - 6);
    const doc = JSON.parse(text) as { resourceSpans: Array<{ resource: { attributes: Attr[] } }> };
    for (const rs of doc.resourceSpans) expect(attrs(rs.resource.attributes)).toMatchObject({ 'zonesim.trace.truncated': true, 'zonesim.trace.max_spans': '1000' });
  });
});

describe('round trip: lane-gray simulated with traces, re-imported with import traces', () => {
  const original = load('lane-gray');
  const run = traced('lane-gray', { kind: 'ratio', ratio: 0.1 });
  const imported = importTraces([{ file: 'lane-gray.traces.json', text: run.text }]);
  // The scenario import traces prints loads as it is.
  const file = join(tmp, 'imported.yaml');
  writeFileSync(file, formatTracesYaml(imported));
  const reloaded = loadScenarioWithRaw(file, []).scenario;

  it('finds the two methods, one reserve call per place execution, not in parallel, and nothing dropped', () => {
    expect(Object.keys(reloaded.services).sort()).toEqual(['com.example.InventoryService', 'com.example.OrderService']);
    const place = imported.estate.methods.find((m) => m.method === 'place')!;
    expect(place.calls.map((c) => [`${c.service}.${c.method}`, c.meanPerExecution])).toEqual([['com.example.InventoryService.reserve', 1]]);
    expect(place.parallel).toBe(false);
    expect(reloaded.services['com.example.OrderService']!.methods.place!.calls.map((c) => c.method)).toEqual(['reserve']);
    expect(Object.values(imported.estate.dropped).every((n) => n === 0)).toBe(true);
  });

  it.each([
    ['com.example.OrderService', 'place'],
    ['com.example.InventoryService', 'reserve'],
  ])('%s.%s: the re-imported p50 and p99 self times are the original quantiles within the sampling error', (service, method) => {
    const n = imported.estate.methods.find((m) => m.method === method)!.executions;
    expect(n).toBeGreaterThan(2000);
    const truth = original.services[service]!.methods[method]!.serviceTime as DistSpec;
    const back = reloaded.services[service]!.methods[method]!.serviceTime as DistSpec;
    for (const q of [0.5, 0.99]) {
      // Where the re-imported quantile falls in the original distribution: within 4 standard errors of q
      // (the empirical CDF at a point is binomial), plus the histogram's interpolation inside a bucket.
      const at = 1 - distTail(truth, quantile(back, q)!);
      expect(Math.abs(at - q), `q=${q}`).toBeLessThan(4 * Math.sqrt((q * (1 - q)) / n) + 1 / 200);
    }
  });

  it('gives the rate of the traced requests (a tenth of the original) and every provider instance', () => {
    const rate = reloaded.consumers.reduce((s, c) => s + c.ratePerSec, 0);
    const n = imported.estate.traces;
    // 1000 requests/s, a tenth traced: Poisson counts over the window, 4 standard deviations.
    expect(Math.abs(rate - 100)).toBeLessThan((4 * Math.sqrt(n)) / imported.estate.windowSec);
    expect(reloaded.providers.map((p) => [p.services[0], p.count]).sort()).toEqual([
      ['com.example.InventoryService', 5],
      ['com.example.OrderService', 5],
    ]);
  });
});

describe('call graphs: a request latency includes its downstream calls (SPEC 2.10)', () => {
  it('place answers after its own 2 ms plus reserve\'s 3 ms and the round trips; the overall figures mix the tiers', () => {
    const scenario = load('call-graph-amplification', [
      'services["com.example.InventoryService"].methods.reserve.serviceTime=3ms',
      'network.rtt.same-zone=0ms',
      'duration=10s',
    ]);
    const s = runScenario(scenario, { version: 'test' }).summary;
    const place = s.byService['com.example.OrderService.place']!;
    const reserve = s.byService['com.example.InventoryService.reserve']!;
    // Percentiles are streamed with at most 0.1% relative error.
    const near = (x: number, ms: number) => expect(Math.abs(x - ms) / ms).toBeLessThanOrEqual(0.001);
    near(place.latencyMs.p50, 5);
    near(place.latencyMs.max, 5);
    near(reserve.latencyMs.p50, 3);
    // One reserve request per place request: the overall median is a mix of both tiers, not place's.
    expect(reserve.requests).toBe(place.requests);
    near(s.latencyMs.max, 5);
    near(s.latencyMs.p50, 3);
  });
});
