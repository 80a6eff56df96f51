/**
 * What a measured distribution draws beside what was measured: `check` lists the drawn mean and
 * p99 of every `samples` and `histogram` distribution with the data's own, `run` warns on stderr
 * when the drawn mean is more than 5% from the data's.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { describeFit, farMeasuredMeans, MEAN_GAP_WARNING, measuredFits } from '../../src/analysis/measured-fit.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => join(here, '..', 'scenario', 'fixtures', 'measured', name);
const COARSE = fixture('coarse-buckets.yaml');
const at = (method: string) => `services["com.example.OrderService"].methods.${method}.serviceTime`;

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: here });
  return { code, out: out.join(''), err: err.join('') };
}

describe('measured distributions: drawn figures beside the data’s', () => {
  const fits = measuredFits(loadScenarioFile(COARSE));
  const fit = (method: string) => fits.find((f) => f.path === at(method))!;

  it('a Prometheus histogram: drawn mean at the bucket mid-points, data mean from _sum / _count', () => {
    // getOrder's cumulative counts 100, 300, 600, 1000 at 10, 25, 50, 100 ms.
    const midpoints = (100 * 5 + 200 * 17.5 + 300 * 37.5 + 400 * 75) / 1000;
    expect(fit('getOrder').drawnMeanMs).toBeCloseTo(midpoints, 9);
    expect(fit('getOrder').dataMeanMs).toBeCloseTo(40.4, 9); // 40.4 s over 1,000 calls
    expect(fit('getOrder').meanGap).toBeCloseTo(midpoints / 40.4 - 1, 9);
    expect(fit('getOrder').meanGap).toBeGreaterThan(0.11);
    // p99: 1% below the 100 ms bound, inside the 50-100 ms bucket of 400 calls.
    expect(fit('getOrder').drawnP99Ms).toBeCloseTo(50 + (50 * 390) / 400, 9);
    expect(fit('getOrder').dataP99Ms).toBeUndefined();
  });

  it('takes _sum and _count of the very series the labels pick (Micrometer scrape, several methods)', () => {
    const fits2 = measuredFits(loadScenarioFile(fixture('measured.yaml')));
    const user = (m: string) => fits2.find((f) => f.path.startsWith(`services["com.example.UserService"].methods.${m}.`))!;
    // dubbo_provider_rt_seconds_sum / _count of method="updateUser" and "listUsers" in user-service-metrics.prom (seconds).
    expect(user('updateUser').dataMeanMs).toBeCloseTo((185.412463 / 5120) * 1000, 9);
    expect(user('listUsers').path).toBe('services["com.example.UserService"].methods.listUsers.serviceTime.components[0]');
    expect(user('listUsers').dataMeanMs).toBeCloseTo((1266.222817 / 9874) * 1000, 9);
  });

  it('inline buckets have no data mean: only the drawn figures', () => {
    expect(fit('getUser').drawnMeanMs).toBe((500 * 5 + 500 * 55) / 1000);
    expect([fit('getUser').dataMeanMs, fit('getUser').meanGap]).toEqual([undefined, undefined]);
    expect(describeFit(fit('getUser'))).toMatch(/draws mean 30ms, p99 98\.2ms; the data has no mean to compare with/);
  });

  it('samples: the values’ mean and p99 beside the draws’ (linear between order statistics)', () => {
    const values = [...Array(19).fill(10), 5000];
    const s = loadScenarioFile(COARSE, [`services["com.example.OrderService"].methods.getUser.serviceTime={dist: samples, values: [${values.join(', ')}]}`]);
    const f = measuredFits(s).find((x) => x.path === at('getUser'))!;
    expect(f.dataMeanMs).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 9);
    expect(f.drawnMeanMs).toBeCloseTo((18 * 10 + (10 + 5000) / 2) / 19, 9);
    // The p99 of the draws is the values' type-7 p99: 99% of the way along the 19 gaps, inside the last one.
    expect(f.drawnP99Ms).toBeCloseTo(10 + (5000 - 10) * (0.99 * 19 - 18), 9);
    expect(f.dataP99Ms).toBe(f.drawnP99Ms);
    expect(describeFit(f)).toMatch(/the drawn mean is 45\.5% below the data's \(few values/);
  });

  it('lists a distribution used in several places once', () => {
    const s = loadScenarioFile(COARSE, ['network.rtt={same-zone: {dist: samples, values: [0.1, 0.2, 0.4]}, default: {dist: samples, values: [1, 2]}, zoneA<->zoneB: {dist: samples, values: [3, 4]}}', 'zones.zoneB={cidr: 10.20.0.0/16}']);
    const rtt = measuredFits(s).filter((f) => f.path.startsWith('network'));
    expect(rtt.map((f) => [f.path, f.alsoAt])).toEqual([
      ['network.rtt.same-zone', 0],
      ['network.rtt.default', 0],
      ['network.rtt["zoneA->zoneB"]', 1],
    ]);
  });

  it('run warns only where the drawn mean is more than 5% from the data’s', () => {
    expect(MEAN_GAP_WARNING).toBe(0.05);
    const far = farMeasuredMeans(loadScenarioFile(COARSE));
    expect(far).toHaveLength(1);
    expect(far[0]).toMatch(/^services\["com\.example\.OrderService"\]\.methods\.getOrder\.serviceTime: histogram coarse-buckets\.prom order_rt_seconds\{method="getOrder"\} .* the drawn mean is 12% above the data's/);
  });

  it('check lists every measured distribution as a measured-distribution warning', async () => {
    const r = await cli(['check', COARSE, '--json']);
    expect(r.code).toBe(0);
    const notes = (JSON.parse(r.out) as { warnings: Array<{ kind: string; service: string; message: string }> }).warnings.filter((w) => w.kind === 'measured-distribution');
    expect(notes.map((w) => w.message.slice(0, w.message.indexOf(':')))).toEqual([at('getOrder'), at('listOrders'), at('getUser')]);
    expect(notes.every((w) => w.service === 'com.example.OrderService')).toBe(true);
    expect(notes[1]!.message).toContain('the data: mean 44ms (_sum / _count); the drawn mean is 2.8% above the data\'s');
  });

  it('run prints the far one on stderr, and nothing for a scenario whose draws match the data', async () => {
    const out = tempDir('zs-measured-');
    const r = await cli(['run', COARSE, '--out', out, '--json']);
    expect(r.code).toBe(0);
    expect(r.err.trim().split('\n')).toEqual([expect.stringMatching(/^zonesim: warning: services\["com\.example\.OrderService"\]\.methods\.getOrder\.serviceTime: .* 12% above/)]);
    JSON.parse(r.out);
    const close = await cli(['run', COARSE, '--out', out, '--set', `${at('getOrder')}={dist: constant, value: 40ms}`]);
    expect(close.code).toBe(0);
    expect(close.err).toBe('');
  });
});
