import { describe, expect, it } from 'vitest';
import { existsSync, lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { parseTraceSample } from '../../src/cli/traces-out.js';
import { useTempDirs } from '../helpers/tmp.js';
import { scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function run(args: string[], cwd = root) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

const SHORT = ['--set', 'duration=6s', '--set', 'warmup=1s'];
const LANE = join(root, 'scenarios', 'lane-gray.yaml');

describe('zonesim run --traces', () => {
  it('writes the OTLP file, prints one JSON document with --json, and the summary is the same as without --traces', async () => {
    const tmp = tempDir('zs-traces-');
    const traced = await run(['run', LANE, '--json', '--out', tmp, '--traces', join(tmp, 't.json'), '--trace-sample', '0.1', ...SHORT]);
    expect(traced.code).toBe(0);
    const plain = await run(['run', LANE, '--json', '--out', tmp, ...SHORT]);
    expect(traced.out).toBe(plain.out);
    JSON.parse(traced.out);
    const doc = JSON.parse(readFileSync(join(tmp, 't.json'), 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> };
    const spans = doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.length).toBeGreaterThan(1000);
    // The results folder is written as usual.
    expect(readdirSync(join(tmp, 'lane-gray'))).toHaveLength(2);
  });

  it('says where the traces went under the table, and the file names the run in its resources', async () => {
    const tmp = tempDir('zs-traces-');
    const r = await run(['run', LANE, '--out', tmp, '--traces', 'traces.json', ...SHORT], tmp.replace(/\/?$/, ''));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`traces: ${join(tmp, 'traces.json')} \\(\\d+ traces, \\d+ spans\\)\\n$`));
    const text = readFileSync(join(tmp, 'traces.json'), 'utf8');
    expect(text).toContain('{"key":"zonesim.trace.sample","value":{"stringValue":"0.01"}}');
    expect(text).toContain('{"key":"zonesim.trace.truncated","value":{"boolValue":false}}');
  });

  it('with several seeds traces the first, whose figures stay those of its untraced run', async () => {
    const tmp = tempDir('zs-traces-');
    const traced = await run(['run', LANE, '--json', '--jobs', '1', '--seeds', '2', '--out', tmp, '--traces', join(tmp, 't.json'), ...SHORT]);
    const plain = await run(['run', LANE, '--json', '--jobs', '1', '--seeds', '2', '--out', tmp, ...SHORT]);
    expect(traced.code).toBe(0);
    expect(traced.out).toBe(plain.out);
    expect(readFileSync(join(tmp, 't.json'), 'utf8')).toContain('{"key":"zonesim.seed","value":{"intValue":"1"}}');
  });

  it('replaces a symlink at the path instead of writing through it', async () => {
    const tmp = tempDir('zs-traces-');
    const victim = join(tmp, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(tmp, 't.json'));
    const r = await run(['run', LANE, '--json', '--out', tmp, '--traces', join(tmp, 't.json'), ...SHORT]);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(join(tmp, 't.json')).isSymbolicLink()).toBe(false);
  });

  it('warns on stderr when the cap cuts the traces short', async () => {
    const tmp = tempDir('zs-traces-');
    // 1000 requests/s for 21 s, every one traced with its 6 spans: about 126000 spans, over the 100000 cap.
    const r = await run(['run', LANE, '--json', '--out', tmp, '--traces', join(tmp, 't.json'), '--trace-sample', '1', '--set', 'duration=22s', '--set', 'warmup=1s']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: --traces: the cap of 100000 spans was reached at simulated \d+\.\d{3} s/);
    expect(readFileSync(join(tmp, 't.json'), 'utf8')).toContain('{"key":"zonesim.trace.truncated","value":{"boolValue":true}}');
  });

  it.each([
    [['--trace-sample', '0.1'], /--trace-sample: only with --traces/],
    [['--traces', 'T', '--trace-sample', '0'], /--trace-sample: expected a fraction of requests in \(0, 1\]/],
    [['--traces', 'T', '--trace-sample', '1.5'], /found "1.5"/],
    [['--traces', 'T', '--trace-sample', 'some'], /found "some"/],
    [['--traces', 'missing/t.json'], /--traces: cannot write .*missing\/t.json/],
    [['--traces', '.'], /--traces: .* is a folder/],
  ])('refuses %j with exit 2 before running', async (args, message) => {
    const tmp = tempDir('zs-traces-');
    const r = await run(['run', LANE, '--out', join(tmp, 'results'), ...args.map((a) => (a === 'T' ? join(tmp, 't.json') : a)), ...SHORT], tmp);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(tmp, 'results'))).toBe(false);
  });

  it('refuses a scenario that calls plugins (they run on a worker thread)', async () => {
    const tmp = tempDir('zs-traces-');
    writeFixture(tmp, scenarioYaml({ reference: 'loadbalance: ./lb.js' }), { 'lb.js': 'export default { select: (invokers) => invokers[0] };\n' });
    const r = await run(['run', 'scenario.yaml', '--traces', 't.json', '--out', 'results'], tmp);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--traces: the scenario calls plugins \(.*lb\.js\)/);
    expect(existsSync(join(tmp, 'results'))).toBe(false);
  });
});

describe('--trace-sample', () => {
  it('reads fractions and errors', () => {
    expect(parseTraceSample('0.01')).toEqual({ kind: 'ratio', ratio: 0.01 });
    expect(parseTraceSample('1')).toEqual({ kind: 'ratio', ratio: 1 });
    expect(parseTraceSample('1e-3')).toEqual({ kind: 'ratio', ratio: 0.001 });
    expect(parseTraceSample('errors')).toEqual({ kind: 'errors' });
    expect(() => parseTraceSample('-0.1')).toThrow(/expected a fraction/);
    expect(() => parseTraceSample('NaN')).toThrow(/expected a fraction/);
  });
});
