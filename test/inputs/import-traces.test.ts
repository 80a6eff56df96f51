import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importTraces, selfTimeDist, formatTracesYaml, type ImportedTraces } from '../../src/inputs/import-traces.js';
import type { TraceFormat } from '../../src/inputs/trace-formats.js';
import { main } from '../../src/cli/main.js';
import { parseScenario } from '../../src/scenario/load.js';
import { quantile } from '../../src/engine/distributions.js';
import { quantileOf } from '../../src/inputs/trace-graph.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'cli', 'fixtures', 'import', 'traces');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const load = (name: string, format?: TraceFormat) => importTraces([{ file: name, text: read(name) }], format);

async function run(args: string[], cwd = fixtures) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

const method = (r: ImportedTraces, name: string) => r.estate.methods.find((m) => `${m.service}.${m.method}` === name)!;

// The fixtures' estate (README.md): true self-time quantile functions.
const TRUE_QUANTILE: Record<string, (p: number) => number> = {
  'com.example.OrderService.place': (p) => 1 - 4 * Math.log(1 - p),
  'com.example.InventoryService.reserve': (p) => 2 + 4 * p,
  'com.example.PriceService.quote': (p) => -3 * Math.log(1 - p),
  'com.example.RateService.lookup': (p) => 0.5 + p,
};

const FIXTURES: Array<{ file: string; format: TraceFormat; traces: number; zones: boolean; resolutionMs: number }> = [
  { file: 'zipkin.json', format: 'zipkin', traces: 100, zones: true, resolutionMs: 0.001 },
  { file: 'jaeger.json', format: 'jaeger', traces: 40, zones: true, resolutionMs: 0.001 },
  { file: 'otlp.json', format: 'otlp', traces: 100, zones: true, resolutionMs: 0.001 },
  { file: 'otlp-file-exporter.jsonl', format: 'otlp', traces: 40, zones: true, resolutionMs: 0.001 },
  { file: 'skywalking-segments.json', format: 'skywalking', traces: 40, zones: false, resolutionMs: 1 },
  { file: 'skywalking-query.json', format: 'skywalking', traces: 10, zones: false, resolutionMs: 1 },
];

describe('import traces: the fixtures of every format', () => {
  it.each(FIXTURES)('$file is detected as $format and gives the three-tier graph with its parallel fan-out', ({ file, format, traces }) => {
    const r = load(file);
    expect(r.formats).toEqual([format]);
    expect(r.estate.traces).toBe(traces);
    expect(r.estate.spans).toBe(traces * 11);
    expect(r.estate.methods.map((m) => `${m.service}.${m.method}`)).toEqual(Object.keys(TRUE_QUANTILE).sort());
    const place = method(r, 'com.example.OrderService.place');
    expect(place.executions).toBe(traces);
    expect(place.calls.map((c) => [`${c.service}.${c.method}`, c.total, c.meanPerExecution])).toEqual([
      ['com.example.InventoryService.reserve', 2 * traces, 2],
      ['com.example.PriceService.quote', traces, 1],
    ]);
    expect(place.parallel).toBe(true);
    const quote = method(r, 'com.example.PriceService.quote');
    expect(quote.calls.map((c) => [`${c.service}.${c.method}`, c.meanPerExecution])).toEqual([['com.example.RateService.lookup', 1]]);
    expect(quote.parallel).toBe(false);
    expect(method(r, 'com.example.InventoryService.reserve').calls).toEqual([]);
    expect(method(r, 'com.example.InventoryService.reserve').executions).toBe(2 * traces);
    // The edge: web's HTTP handler calls place once per request.
    expect(r.estate.consumers.map((c) => [c.application, c.requests, c.calls])).toEqual([['web', traces, { 'com.example.OrderService.place': traces }]]);
    expect(r.estate.dropped).toEqual({ incomplete: 0, duplicate: 0, orphan: 0, belowOrphans: 0, skewed: 0, negativeSelfTime: 0, negativeRtt: 0 });
  });

  it.each(FIXTURES)('$file writes a scenario that loads, with calls repeated per mean count and parallel: true', ({ file }) => {
    const r = load(file);
    const s = parseScenario(formatTracesYaml(r), join(fixtures, 'imported.yaml'));
    const place = s.services['com.example.OrderService']!.methods.place!;
    expect(place.calls.map((c) => `${c.service}.${c.method}`)).toEqual([
      'com.example.InventoryService.reserve',
      'com.example.InventoryService.reserve',
      'com.example.PriceService.quote',
    ]);
    expect(place.parallel).toBe(true);
    expect(s.services['com.example.PriceService']!.methods.quote!.parallel).toBe(false);
    // The loaded distribution draws the measured self times: same quantiles as the samples.
    for (const m of r.estate.methods) {
      const spec = s.services[m.service]!.methods[m.method]!.serviceTime;
      expect(quantile(spec, 0.5)).toBeCloseTo(quantileOf(m.selfTimeMs, 0.5), 2);
    }
  });

  it.each(FIXTURES.filter((f) => f.zones && f.traces >= 40))('$file counts provider hosts per application and zone', ({ file }) => {
    const r = load(file);
    const groups = r.estate.providers.map((p) => [p.application, p.zone, p.count, p.services]);
    expect(groups).toEqual([
      ['inventory', 'zoneA', 1, ['com.example.InventoryService']],
      ['inventory', 'zoneB', 2, ['com.example.InventoryService']],
      ['order', 'zoneA', 2, ['com.example.OrderService']],
      ['order', 'zoneB', 1, ['com.example.OrderService']],
      ['pricing', 'zoneA', 2, ['com.example.PriceService']],
      ['rates', 'zoneA', 1, ['com.example.RateService']],
    ]);
    expect(r.estate.consumers[0]!).toMatchObject({ zone: 'zoneA', instances: 2 });
  });

  it('Zipkin with shared server spans and OTLP with distinct ids give the same estate from the same traces', () => {
    const z = load('zipkin.json').estate;
    const o = load('otlp.json').estate;
    expect(z.methods).toEqual(o.methods);
    expect(z.consumers).toEqual(o.consumers);
    expect(z.providers).toEqual(o.providers);
    expect(z.rtts).toEqual(o.rtts);
  });

  it('the file exporter lines and the Jaeger export of the same 40 traces agree', () => {
    expect(load('otlp-file-exporter.jsonl').estate.methods).toEqual(load('jaeger.json').estate.methods);
  });

  it.each(FIXTURES.filter((f) => f.traces >= 40))('$file: self-time p50 and p90 lie within the sampling error of the true distribution', ({ file, resolutionMs }) => {
    const r = load(file);
    for (const m of r.estate.methods) {
      const n = m.selfTimeMs.length;
      const F = TRUE_QUANTILE[`${m.service}.${m.method}`]!;
      for (const p of [0.5, 0.9]) {
        // The sample p-quantile's rank is binomial: within 3.5 standard errors of p in probability, and the
        // tracer's clock resolution on each of the (up to) four span ends that make a self time.
        const d = 3.5 * Math.sqrt((p * (1 - p)) / n);
        const got = quantileOf(m.selfTimeMs, p);
        expect(got, `${m.method} p${p * 100}`).toBeGreaterThanOrEqual(F(Math.max(0, p - d)) - 2 * resolutionMs);
        expect(got, `${m.method} p${p * 100}`).toBeLessThanOrEqual(F(Math.min(0.9999, p + d)) + 2 * resolutionMs);
      }
    }
  });

  it('the arrival rate is the edge calls over the trace window, and near the 10/s the fixtures were drawn at', () => {
    const r = load('otlp.json');
    const web = r.estate.consumers[0]!;
    expect(web.ratePerSec).toBeCloseTo(100 / r.estate.windowSec, 9);
    // 100 Poisson arrivals: the rate estimate has a relative standard error of 1/sqrt(100).
    expect(Math.abs(web.ratePerSec - 10)).toBeLessThan(3 * (10 / Math.sqrt(100)));
    expect((r.scenario.consumers as Array<{ rate: string }>)[0]!.rate).toBe(`${Math.round(web.ratePerSec * 1000) / 1000}/s`);
  });

  it('RTT estimates are the client span minus the server span of each hop (0.4 ms in the fixtures)', () => {
    const r = load('otlp.json');
    expect(r.estate.rtts.map((t) => [t.from, `${t.service}.${t.method}`, t.rttMs.p50, t.rttMs.p99])).toEqual([
      ['order', 'com.example.InventoryService.reserve', 0.4, 0.4],
      ['order', 'com.example.PriceService.quote', 0.4, 0.4],
      ['pricing', 'com.example.RateService.lookup', 0.4, 0.4],
      ['web', 'com.example.OrderService.place', 0.4, 0.4],
    ]);
  });
});

/** A small OTLP document: spans given as [id, parent, kind, name, startMs, endMs]. */
function otlpDoc(spans: Array<[string, string, 2 | 3, string, number, number]>, service = 'order'): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: spans.map(([id, parent, kind, name, s, e]) => ({
              traceId: 'aa',
              spanId: id,
              parentSpanId: parent,
              name,
              kind,
              startTimeUnixNano: String(BigInt(Math.round((1e6 + s) * 1e6))),
              endTimeUnixNano: String(BigInt(Math.round((1e6 + e) * 1e6))),
            })),
          },
        ],
      },
    ],
  });
}

describe('import traces: what is dropped or clamped', () => {
  it('a child call outside its server span is counted as skewed, and the negative self time it would give is clamped to 0', () => {
    const text = otlpDoc([
      ['01', '', 2, 'com.example.A/a', 0, 10],
      ['02', '01', 3, 'com.example.B/b', -2, 12],
      ['03', '02', 2, 'com.example.B/b', -1.5, 11.5],
    ]);
    const r = importTraces([{ file: 't.json', text }]);
    expect(r.estate.dropped.skewed).toBe(1);
    expect(r.estate.dropped.negativeSelfTime).toBe(1);
    expect(method(r, 'com.example.A.a').selfTimeMs).toEqual([0]);
    expect(method(r, 'com.example.B.b').selfTimeMs).toEqual([13]);
    expect(formatTracesYaml(r)).toMatch(/1 clock-skewed span .*1 negative self time clamped to 0/);
  });

  it('a server span longer than its client span gives a negative RTT, clamped to 0 and counted', () => {
    const text = otlpDoc([
      ['01', '', 3, 'com.example.B/b', 0, 5],
      ['02', '01', 2, 'com.example.B/b', 0.5, 5.8],
    ]);
    const r = importTraces([{ file: 't.json', text }]);
    expect(r.estate.rtts[0]!.rttMs.p50).toBe(0);
    expect(r.estate.dropped.negativeRtt).toBe(1);
    expect(r.estate.dropped.skewed).toBe(1);
  });

  it('spans whose parent is not in the trace are orphans, dropped with the spans below them', () => {
    const doc = JSON.parse(read('otlp.json')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; name: string; kind: number }> }> }> };
    const firstTrace = doc.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.traceId;
    // Remove place's server span in one trace: its three client calls lose their parent.
    for (const rs of doc.resourceSpans) {
      for (const ss of rs.scopeSpans) ss.spans = ss.spans.filter((x) => !(x.traceId === firstTrace && x.kind === 2 && x.name === 'com.example.OrderService/place'));
    }
    const r = importTraces([{ file: 'otlp.json', text: JSON.stringify(doc) }]);
    expect(r.estate.dropped.orphan).toBe(3);
    // Below them: reserve x2 and quote's server spans, quote's client call and lookup's server span.
    expect(r.estate.dropped.belowOrphans).toBe(5);
    expect(method(r, 'com.example.OrderService.place').executions).toBe(99);
    expect(method(r, 'com.example.InventoryService.reserve').executions).toBe(198);
    expect(formatTracesYaml(r)).toContain('3 orphan spans (parent not in the trace) and 5 below them');
  });

  it('Zipkin spans without timestamp or duration are counted as incomplete', () => {
    const traces = JSON.parse(read('zipkin.json')) as Array<Array<Record<string, unknown>>>;
    delete traces[0]![0]!.duration;
    const r = importTraces([{ file: 'zipkin.json', text: JSON.stringify(traces) }]);
    expect(r.estate.dropped.incomplete).toBe(1);
  });
});

describe('import traces: bad input', () => {
  it('a truncated file is exit 2 naming the file, the line and column where the JSON ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonesim-traces-'));
    const text = read('zipkin.json');
    const cut = text.slice(0, Math.floor(text.length / 2));
    writeFileSync(join(dir, 'cut.json'), cut);
    const r = await run(['import', 'traces', 'cut.json'], dir);
    expect(r.code).toBe(2);
    const lines = cut.split('\n');
    expect(r.err).toContain(`cut.json:${lines.length}:${lines[lines.length - 1]!.length + 1}: not valid JSON`);
    expect(r.err).toContain('truncated?');
    expect(r.out).toBe('');
  });

  it('a gigantic file is refused before it is read (exit 2, the limit named)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonesim-traces-'));
    writeFileSync(join(dir, 'huge.json'), '');
    truncateSync(join(dir, 'huge.json'), 101 * 1024 * 1024); // sparse: no disk used
    const r = await run(['import', 'traces', 'huge.json'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('cannot read file "huge.json": the file is 101.0 MB; at most 100.0 MB is read');
  });

  it('a field of the wrong type is named by its JSON pointer', () => {
    const doc = JSON.parse(read('jaeger.json')) as { data: Array<{ spans: Array<Record<string, unknown>> }> };
    doc.data[1]!.spans[3]!.startTime = 'soon';
    expect(() => importTraces([{ file: 'j.json', text: JSON.stringify(doc) }])).toThrow(/^j\.json: \/data\/1\/spans\/3\/startTime: expected startTime to be a time \(a whole number >= 0\), found "soon"$/);
  });

  it('a bad line of the OTLP file exporter is named by its line', () => {
    const lines = read('otlp-file-exporter.jsonl').split('\n');
    lines[1] = lines[1]!.slice(0, 100);
    expect(() => importTraces([{ file: 'o.jsonl', text: lines.join('\n') }])).toThrow(/^o\.jsonl: line 2: not JSON/);
  });

  it('--format that does not match the file is exit 2 saying what the file looks like', async () => {
    const r = await run(['import', 'traces', 'jaeger.json', '--format', 'zipkin']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--format zipkin, but this looks like jaeger');
  });

  it('a file without a Dubbo call is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonesim-traces-'));
    writeFileSync(join(dir, 'http.json'), JSON.stringify([[{ traceId: 'a', id: '1', kind: 'SERVER', name: 'get /', timestamp: 1, duration: 5, localEndpoint: { serviceName: 'web' } }]]));
    const r = await run(['import', 'traces', 'http.json'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no Dubbo call in http.json (1 span read)');
  });
});

describe('import traces: output', () => {
  it('--json prints one JSON document with the estate and the scenario', async () => {
    const r = await run(['import', 'traces', 'otlp.json', 'jaeger.json', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { files: string[]; traces: number; methods: Array<{ service: string; parallel: boolean }>; scenario: { services: object } };
    expect(doc.files).toEqual(['otlp.json', 'jaeger.json']);
    // The 40 Jaeger traces are the first 40 OTLP ones: same trace ids, counted once.
    expect(doc.traces).toBe(100);
    expect(Object.keys(doc.scenario.services)).toHaveLength(4);
  });

  it('the YAML output starts with a header saying what was inferred and loads as a scenario', async () => {
    const r = await run(['import', 'traces', 'skywalking-segments.json']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^# zonesim import traces skywalking-segments\.json \(skywalking\): 40 traces, 440 spans over /);
    expect(r.out).toContain('# note: no zone in the spans: every instance is in zone dc');
    const s = parseScenario(r.out, join(fixtures, 'imported.yaml'));
    expect(s.consumers[0]!.application).toBe('web');
  });

  it('more self times than inline samples hold become histogram buckets at the sample quantiles', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => 1 + (i * i) / 10000).sort((a, b) => a - b);
    const d = selfTimeDist(xs) as { dist: string; buckets: Record<string, number> };
    expect(d.dist).toBe('histogram');
    expect(d.buckets['+Inf']).toBe(1000);
    const s = parseScenario(
      `zones: { dc: { cidr: 10.0.0.0/16 } }\nservices: { S: { methods: { m: { serviceTime: ${JSON.stringify(d)} } } } }\nproviders: [{ service: S, zone: dc }]\nconsumers: [{ zone: dc, rate: 1/s, calls: { S.m: 1 } }]\n`,
      join(fixtures, 'h.yaml'),
    );
    const spec = s.services.S!.methods.m!.serviceTime;
    for (const p of [0.1, 0.5, 0.9, 0.99]) {
      // Uniform within a bucket: off by at most the bucket's width (a fiftieth of the samples, or less).
      const i = Math.round(p * 999);
      const width = xs[Math.min(999, i + 20)]! - xs[Math.max(0, i - 20)]!;
      expect(Math.abs(quantile(spec, p)! - quantileOf(xs, p))).toBeLessThanOrEqual(width);
    }
  });
});
