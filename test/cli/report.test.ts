import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

describe('HTML report', () => {
  it('is written by run --report: self-contained (uPlot inlined, no external scripts) with the run\'s timeline', async () => {
    const out = tempDir('zs-report-');
    const r = await cli(['run', 'scenarios/zone-scale-in.yaml', '--report', '--out', out, '--set', 'duration=40s']);
    expect(r.code).toBe(0);
    const [run] = readdirSync(join(out, 'zone-scale-in'));
    const html = readFileSync(join(out, 'zone-scale-in', run!, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script src=|<link /);
    expect(html).toContain('uPlot');
    const summary = JSON.parse(readFileSync(join(out, 'zone-scale-in', run!, 'summary.json'), 'utf8'));
    expect(html).toContain(JSON.stringify(summary.timeline[0]));
    expect(html).toContain('router:zone');
  });

  it('is rebuilt by zonesim report from a comparison folder, one series per strategy', async () => {
    const out = tempDir('zs-report-');
    expect((await cli(['compare', 'scenarios/zone-scale-in.yaml', '--out', out, '--set', 'duration=40s'])).code).toBe(0);
    const [run] = readdirSync(join(out, 'zone-scale-in'));
    const dir = join(out, 'zone-scale-in', run!);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(join(dir, 'report.html'));
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<th>strict</th>');
    expect(html).toContain('<th>fallback</th>');
  });

  it('exits 2 for a folder without results', async () => {
    const r = await cli(['report', tempDir('zs-empty-')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no summary\.json or compare\.json/);
  });
});
