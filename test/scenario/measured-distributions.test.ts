import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { p99 } from '../../src/analysis/check.js';
import { main } from '../../src/cli/main.js';
import {
  measuredCdf,
  quantile,
  sampler,
  samplesQuantile,
  type DistSpec,
  type HistogramSpec,
  type SamplesSpec,
} from '../../src/engine/distributions.js';
import { RandomStreams } from '../../src/engine/random.js';
import { withDataAccess } from '../../src/scenario/data-root.js';
import { dumpScenarioYaml } from '../../src/scenario/dump.js';
import { loadScenarioFile, parseScenario, ScenarioError } from '../../src/scenario/load.js';
import { distQuantile } from '../../src/analysis/recommend.js';
import { runScenario } from '../../src/scenario/run.js';
import { faultLabel } from '../../src/world/faults.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => join(here, 'fixtures', 'measured', name);
const SCENARIO = fixture('measured.yaml');
/** The Prometheus scrape of the fixtures, copied next to a test's scenario (data files stay in its folder). */
const PROM = readFileSync(fixture('user-service-metrics.prom'), 'utf8');

/** The measured RTs of the CSV fixture, parsed independently of zonesim (sorted, ms). */
function csvColumn(): number[] {
  const lines = readFileSync(fixture('user-service-rt.csv'), 'utf8').trim().split('\n').slice(1);
  return lines.map((l) => Number(l.split('","')[3])).sort((a, b) => a - b);
}

const methods = (file = SCENARIO, sets: string[] = []) => loadScenarioFile(file, sets).services['com.example.UserService']!.methods;

/**
 * How far the q-quantile of `n` draws may stray from the true quantile of `quantileOf`: 4 standard
 * errors of the binomial proportion at q, sqrt(q(1-q)/n), turned into ms by the slope of the
 * quantile function around q (a central difference over ±3 standard errors, at least two order
 * statistics wide), plus the simulator's 0.1% percentile resolution when `recorded`.
 */
function tolerance(quantileOf: (q: number) => number, q: number, n: number, minStep: number, recorded: boolean): number {
  const se = Math.sqrt((q * (1 - q)) / n);
  const d = Math.max(3 * se, minStep);
  const slope = (quantileOf(q + d) - quantileOf(q - d)) / (2 * d);
  return 4 * se * slope + (recorded ? 0.001 * quantileOf(q) : 0);
}

/** The q-quantile of n seeded draws (nearest rank). */
function drawnQuantiles(spec: DistSpec, n: number, qs: number[]): number[] {
  const draw = sampler(spec, new RandomStreams(11).stream('quantiles'));
  const xs = new Float64Array(n);
  for (let i = 0; i < n; i++) xs[i] = draw();
  xs.sort();
  return qs.map((q) => xs[Math.min(n - 1, Math.ceil(q * n) - 1)]!);
}

function scenarioError(fn: () => unknown): ScenarioError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected a ScenarioError');
}

/** A scenario in a fresh folder whose one method has `serviceTime` (YAML flow text), with data files beside it. */
function scenarioWith(serviceTime: string, files: Record<string, string> = {}): string {
  const dir = tempDir('zs-measured-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const file = join(dir, 'scenario.yaml');
  writeFileSync(
    file,
    [
      'zones: { zoneA: {} }',
      'services:',
      '  S:',
      '    methods:',
      `      m: { serviceTime: ${serviceTime} }`,
      'providers: [{ service: S, zone: zoneA }]',
      'consumers: [{ zone: zoneA, rate: 10/s, calls: { S.m: 1 } }]',
      '',
    ].join('\n'),
  );
  return file;
}

describe('samples: measured values from a CSV export', () => {
  it('loads the column named in the scenario, relative to the scenario file, into sorted milliseconds', () => {
    const spec = methods().getUserById!.serviceTime as SamplesSpec;
    expect(spec.dist).toBe('samples');
    expect(spec.values).toEqual(Float64Array.from(csvColumn()));
    expect(spec.source).toEqual({ file: fixture('user-service-rt.csv'), column: 'rt_ms' });
  });

  it('has quantiles equal to the data\'s (linear between order statistics) wherever the tools read them', () => {
    const data = csvColumn();
    const spec = methods().getUserById!.serviceTime;
    expect(quantile(spec, 0.5)).toBe(samplesQuantile(data, 0.5));
    expect(p99(spec)).toBe(samplesQuantile(data, 0.99));
    expect(Math.abs(distQuantile(spec, 0.99) / samplesQuantile(data, 0.99) - 1)).toBeLessThan(0.01);
  });

  it('draws reproduce the data\'s p50 and p99 within 1% (2 million draws; the bound comes from the sampling error)', () => {
    const data = csvColumn();
    const spec = methods().getUserById!.serviceTime;
    const n = 2_000_000;
    const drawn = drawnQuantiles(spec, n, [0.5, 0.99]);
    [0.5, 0.99].forEach((q, i) => {
      const truth = samplesQuantile(data, q);
      const tol = tolerance((x) => samplesQuantile(data, x), q, n, 2 / (data.length - 1), false);
      expect(tol / truth, `tolerance at p${q * 100}`).toBeLessThan(0.01);
      expect(Math.abs(drawn[i]! - truth), `p${q * 100}: drawn ${drawn[i]}, data ${truth}`).toBeLessThan(tol);
    });
  });

  it('a simulated run reproduces the data\'s p50 and p99 service time within 1% (700 000 calls, no network time)', () => {
    const data = csvColumn();
    const s = loadScenarioFile(SCENARIO, [
      'duration=70s',
      'consumers[0].rate=10000/s',
      'consumers[0].instances=1',
      'consumers[0].calls={com.example.UserService.getUserById: 1}',
      'providers[0].count=2',
    ]);
    const summary = runScenario(s, { version: 'test' }).summary;
    expect(summary.ok).toBe(summary.requests);
    const n = summary.requests;
    expect(n).toBeGreaterThan(690_000);
    for (const [q, key] of [[0.5, 'p50'], [0.99, 'p99']] as const) {
      const truth = samplesQuantile(data, q);
      const tol = tolerance((x) => samplesQuantile(data, x), q, n, 2 / (data.length - 1), true);
      expect(tol / truth, `tolerance at ${key}`).toBeLessThan(0.01);
      expect(Math.abs(summary.latencyMs[key] - truth), `${key}: simulated ${summary.latencyMs[key]}, data ${truth}`).toBeLessThan(tol);
    }
  }, 240_000);

  it('reads a headerless single-column file, seconds or microseconds with unit:', () => {
    const file = scenarioWith('{ dist: samples, file: rt.csv, unit: s }', { 'rt.csv': '0.012\n0.0105\n0.2\n' });
    expect((loadScenarioFile(file).services.S!.methods.m!.serviceTime as SamplesSpec).values).toEqual(Float64Array.of(10.5, 12, 200));
    const us = scenarioWith('{ dist: samples, file: data/rt.tsv, column: elapsed_us, unit: us }', {
      'data/rt.tsv': 'ts\telapsed_us\n1\t1500\n2\t900\n',
    });
    expect((loadScenarioFile(us).services.S!.methods.m!.serviceTime as SamplesSpec).values).toEqual(Float64Array.of(0.9, 1.5));
  });

  it('accepts values written inline', () => {
    const s = parseScenario(readFileSync(scenarioWith('{ dist: samples, values: [30, 10, 20] }'), 'utf8'), 'inline.yaml');
    expect(s.services.S!.methods.m!.serviceTime).toEqual({ dist: 'samples', values: [10, 20, 30] });
  });
});

describe('histogram: cumulative bucket counts', () => {
  it('takes SPEC 2.1\'s inline buckets as cumulative counts per upper bound', () => {
    const file = scenarioWith('{ dist: histogram, buckets: { 5ms: 120, 10ms: 480, 25ms: 910, 100ms: 990, +Inf: 1000 } }');
    const spec = loadScenarioFile(file).services.S!.methods.m!.serviceTime;
    expect(spec).toEqual({ dist: 'histogram', le: [5, 10, 25, 100], counts: [120, 480, 910, 990], total: 1000 });
  });

  it('reads the one Prometheus _bucket series whose labels match, le in seconds turned into ms', () => {
    const spec = methods().updateUser!.serviceTime as HistogramSpec;
    expect(spec.le).toEqual([5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]);
    expect(spec.counts.slice(0, 6)).toEqual([6, 160, 1916, 4127, 4783, 4989]);
    expect(spec.total).toBe(5120);
    expect(spec.source).toEqual({
      file: fixture('user-service-metrics.prom'),
      metric: 'dubbo_provider_rt_seconds',
      labels: { method: 'updateUser' },
    });
  });

  it('is exact at the bucket bounds of the scrape: CDF at each le = the bucket\'s share of the count', () => {
    const spec = methods().updateUser!.serviceTime as HistogramSpec;
    const cdf = measuredCdf(spec);
    spec.le.forEach((le, i) => expect(cdf(le)).toBe(spec.counts[i]! / spec.total));
  });

  it('a simulated run has the histogram\'s p50 and p99 (service time from the Prometheus scrape)', () => {
    const spec = methods().updateUser!.serviceTime;
    const s = loadScenarioFile(SCENARIO, [
      'duration=30s',
      'consumers[0].rate=5000/s',
      'consumers[0].instances=1',
      'consumers[0].calls={com.example.UserService.updateUser: 1}',
    ]);
    const summary = runScenario(s, { version: 'test' }).summary;
    const n = summary.requests;
    for (const [q, key] of [[0.5, 'p50'], [0.99, 'p99']] as const) {
      const truth = quantile(spec, q)!;
      const tol = tolerance((x) => quantile(spec, x)!, q, n, 1e-4, true);
      expect(Math.abs(summary.latencyMs[key] - truth), `${key}: simulated ${summary.latencyMs[key]}, histogram ${truth}`).toBeLessThan(tol);
    }
  }, 120_000);

  it('closes the +Inf bucket with max: in a mixture component', () => {
    const mix = methods().listUsers!.serviceTime;
    expect(mix.dist).toBe('mixture');
    const h = (mix as { components: Array<HistogramSpec & { weight: number }> }).components[0]!;
    expect([h.weight, h.max, h.total, h.counts[h.counts.length - 1]]).toEqual([99, 14_000, 9874, 9859]);
    expect(quantile(h, 1)).toBe(14_000);
  });
});

describe('round trips and tools', () => {
  it('dumps measured distributions so that they load back to the same scenario', () => {
    const s = loadScenarioFile(SCENARIO);
    s.network.default = { dist: 'histogram', le: [1, 3], counts: [5, 9], total: 10, max: 4 };
    s.registry.pushLag = { dist: 'samples', values: [20, 35, 300] };
    // The dump names the data files by absolute path, outside the dump's own folder: allowed by a data root.
    const back = withDataAccess({ root: dirname(SCENARIO) }, () => parseScenario(dumpScenarioYaml(s), join(tempDir('zs-dump-'), 'dumped.yaml')));
    expect(back).toEqual(s);
  });

  it('labels a measured RTT in fault descriptions and feeds check\'s p99', () => {
    const spec = methods().updateUser!.serviceTime;
    expect(p99(spec)).toBe(quantile(spec, 0.99));
    expect(faultLabel({ kind: 'rtt', between: ['zoneA', 'zoneB'], set: spec })).toBe(
      'rtt zoneA<->zoneB = histogram user-service-metrics.prom dubbo_provider_rt_seconds{method="updateUser"} (14 buckets, 5120 counts)',
    );
    expect(faultLabel({ kind: 'rtt', between: ['zoneA', 'zoneB'], set: methods().getUserById!.serviceTime })).toBe(
      'rtt zoneA<->zoneB = samples user-service-rt.csv:rt_ms (3000 values)',
    );
  });
});

describe('bad data is reported at the data file\'s line', () => {
  const first = (e: ScenarioError) => e.format().split('\n')[0]!;

  it('a value that is not a number: file:line:col of the cell', () => {
    const file = scenarioWith('{ dist: samples, file: rt.csv, column: rt_ms }', {
      'rt.csv': 'ts,rt_ms\n1,12.5\n2,n/a\n3,14\n4,\n',
    });
    const e = scenarioError(() => loadScenarioFile(file));
    expect(first(e)).toBe(
      `${join(dirname(file), 'rt.csv')}:3:3: services.S.methods.m.serviceTime: column "rt_ms": expected a number, found text that is not one (3 characters) (and 1 more bad rows)`,
    );
    expect(e.format()).toContain(`hint: named at ${file}:5:`);
  });

  it('a missing column: the header line and how many columns it has (not their names: the file\'s content)', () => {
    const file = scenarioWith('{ dist: samples, file: rt.csv, column: rtms }', { 'rt.csv': '\n\nts,rt_ms\n1,12\n' });
    expect(first(scenarioError(() => loadScenarioFile(file)))).toMatch(
      /rt\.csv:3:1: services\.S\.methods\.m\.serviceTime: no column "rtms" in the header row \(2 columns; the name must match exactly or ignoring case\)$/,
    );
  });

  it('an empty file, a header without rows, and several columns without column:', () => {
    expect(first(scenarioError(() => loadScenarioFile(scenarioWith('{ dist: samples, file: rt.csv }', { 'rt.csv': '' }))))).toMatch(
      /rt\.csv:1:1: .*: the file holds no values \(it is empty\)$/,
    );
    expect(
      first(scenarioError(() => loadScenarioFile(scenarioWith('{ dist: samples, file: rt.csv, column: rt_ms }', { 'rt.csv': 'ts,rt_ms\n' })))),
    ).toMatch(/rt\.csv:2:1: .*: the file holds no values below its header row$/);
    expect(first(scenarioError(() => loadScenarioFile(scenarioWith('{ dist: samples, file: rt.csv }', { 'rt.csv': 'ts,rt_ms\n1,2\n' }))))).toMatch(
      /rt\.csv:1:1: .*: the file has 2 columns: name one with column:$/,
    );
  });

  it('a negative value', () => {
    const file = scenarioWith('{ dist: samples, file: rt.csv }', { 'rt.csv': 'rt_ms\n3\n-1\n' });
    expect(first(scenarioError(() => loadScenarioFile(file)))).toMatch(/rt\.csv:3:1: .*the column: expected a measured value >= 0, found a negative number$/);
  });

  it('a number too large to represent is an error at its line, not Infinity: CSV values, Prometheus counts and le', () => {
    const err = (serviceTime: string, files: Record<string, string>) => first(scenarioError(() => loadScenarioFile(scenarioWith(serviceTime, files))));
    expect(err('{ dist: samples, file: rt.csv }', { 'rt.csv': 'rt_ms\n3\n1e400\n' })).toMatch(
      /rt\.csv:3:1: services\.S\.methods\.m\.serviceTime: the column: expected a finite number, found a number too large to represent$/,
    );
    // Finite as written, infinite once seconds are turned into milliseconds.
    expect(err('{ dist: samples, file: rt.csv, unit: s }', { 'rt.csv': '1\n1e306\n' })).toMatch(/rt\.csv:2:1: .*too large to represent$/);
    const prom = (le: string, count: string) => `rt_seconds_bucket{le="0.1"} 1\nrt_seconds_bucket{le="${le}"} ${count}\nrt_seconds_bucket{le="+Inf"} 3\n`;
    const histogram = '{ dist: histogram, file: m.prom, metric: rt_seconds }';
    expect(err(histogram, { 'm.prom': prom('1', '1e400') })).toMatch(
      /m\.prom:2:1: services\.S\.methods\.m\.serviceTime: expected a cumulative count >= 0, found a number too large to represent$/,
    );
    expect(err(histogram, { 'm.prom': prom('1e400', '2') })).toMatch(
      /m\.prom:2:1: services\.S\.methods\.m\.serviceTime: expected le to be a number >= 0 or \+Inf, found a number too large to represent$/,
    );
  });

  it('a missing data file: the scenario line that names it', () => {
    const file = scenarioWith('{ dist: samples, file: nowhere.csv }');
    expect(first(scenarioError(() => loadScenarioFile(file)))).toBe(
      `${file}:5:48: services.S.methods.m.serviceTime.file: cannot read the data file ${join(dirname(file), 'nowhere.csv')}: no such file`,
    );
  });

  it('bucket counts that decrease: the line of the bucket in the Prometheus file', () => {
    const prom = [
      '# TYPE rt_seconds histogram',
      'rt_seconds_bucket{method="a",le="0.01"} 10',
      'rt_seconds_bucket{method="a",le="0.1"} 8',
      'rt_seconds_bucket{method="a",le="+Inf"} 12',
    ].join('\n');
    const file = scenarioWith('{ dist: histogram, file: m.prom, metric: rt_seconds, labels: { method: a } }', { 'm.prom': prom });
    expect(first(scenarioError(() => loadScenarioFile(file)))).toMatch(
      /m\.prom:3:1: services\.S\.methods\.m\.serviceTime: cumulative count 8 at le=100ms is below 10 at le=10ms; bucket counts never decrease$/,
    );
  });

  it('inline buckets that decrease or do not parse: the scenario line of the bucket', () => {
    const file = scenarioWith('{ dist: histogram, buckets: { 5ms: 120, 10ms: 100, 1 week: 3, +Inf: 130 } }');
    const text = scenarioError(() => loadScenarioFile(file)).format();
    expect(text).toContain('services.S.methods.m.serviceTime.buckets["1 week"]: expected an upper bound such as 5ms, 0.25s or +Inf, found "1 week"');
    expect(text).toContain(
      `${file}:5:71: services.S.methods.m.serviceTime.buckets["10ms"]: cumulative count 100 at le=10ms is below 120 at le=5ms; bucket counts never decrease`,
    );
  });

  it('no series with the labels: the scenario\'s labels, with the lines where the file\'s series start', () => {
    const file = scenarioWith('{ dist: histogram, file: m.prom, metric: dubbo_provider_rt_seconds, labels: { method: getUser } }', { 'm.prom': PROM });
    expect(first(scenarioError(() => loadScenarioFile(file)))).toMatch(
      /scenario\.yaml:5:\d+: services\.S\.methods\.m\.serviceTime\.labels: no dubbo_provider_rt_seconds_bucket series has the labels \{method="getUser"\}: method="getUser" appears nowhere \(series with 3 other method values start at lines 16, 33, 50\)$/,
    );
    const both = scenarioWith('{ dist: histogram, file: m.prom, metric: dubbo_provider_rt_seconds, labels: { method: updateUser, zone: x } }', { 'm.prom': PROM });
    expect(first(scenarioError(() => loadScenarioFile(both)))).toMatch(
      /\.labels: no dubbo_provider_rt_seconds_bucket series has the labels \{method="updateUser",zone="x"\}: method="updateUser" appears, but not together with the other labels; no series has a label zone$/,
    );
  });

  it('several series with the labels: the line each one starts at', () => {
    const file = scenarioWith('{ dist: histogram, file: m.prom, metric: dubbo_provider_rt_seconds, labels: { interface: com.example.UserService } }', { 'm.prom': PROM });
    expect(first(scenarioError(() => loadScenarioFile(file)))).toMatch(
      /\.labels: 3 dubbo_provider_rt_seconds_bucket series have the labels \{interface="com\.example\.UserService"\}, at lines 16, 33, 50; add labels that pick one$/,
    );
  });

  it('a metric that is not in the file, and one whose unit the name does not tell', () => {
    const wrong = scenarioWith('{ dist: histogram, file: m.prom, metric: dubbo_provider_rt_second }', { 'm.prom': PROM });
    expect(first(scenarioError(() => loadScenarioFile(wrong)))).toMatch(
      /\.metric: no dubbo_provider_rt_second_bucket series in the file \(other histograms start at lines 16\)$/,
    );
    const unitless = scenarioWith('{ dist: histogram, file: m.prom, metric: rt }', { 'm.prom': 'rt_bucket{le="1"} 1\n' });
    expect(first(scenarioError(() => loadScenarioFile(unitless)))).toMatch(/\.metric: cannot tell the unit of le from the name "rt": add unit: s, ms or us$/);
    const withUnit = scenarioWith('{ dist: histogram, file: m.prom, metric: rt, unit: ms }', { 'm.prom': 'rt_bucket{le="1"} 1\nrt_bucket{le="+Inf"} 1\n' });
    expect(loadScenarioFile(withUnit).services.S!.methods.m!.serviceTime).toMatchObject({ le: [1], counts: [1], total: 1 });
  });

  it('exits 2 from the CLI with the data file position, no stack trace', async () => {
    const file = scenarioWith('{ dist: samples, file: rt.csv }', { 'rt.csv': 'rt_ms\n12\n13ms\n' });
    const err: string[] = [];
    const code = await main(['run', file, '--json'], { stdout: () => {}, stderr: (s) => err.push(s), cwd: dirname(file) });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(
      /rt\.csv:3:1: services\.S\.methods\.m\.serviceTime: the column: expected a number, found a number with a unit \(write plain numbers and give unit: on the distribution\)\n/,
    );
  });
});
