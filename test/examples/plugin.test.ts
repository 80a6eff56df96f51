import { describe, expect, it } from 'vitest';
import { writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd: root });
  return { code, out: out.join(''), err: err.join('') };
}

const slowShare = (s: { byProviderGroup: Record<string, { executions: number }> }) =>
  s.byProviderGroup['search-slow']!.executions /
  (s.byProviderGroup['search-slow']!.executions + s.byProviderGroup['search-fast']!.executions);

describe('the example load-balancer plugin (examples/plugins/slowest-last-lb.js)', () => {
  const out = tempDir('zs-plugin-');

  it('is loaded from the path the scenario names and steers calls away from the slow provider', async () => {
    const r = await run(['run', 'examples/plugin-scenario.yaml', '--json', '--out', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s.events['slowestLast.compared']).toBeGreaterThan(0);
    expect(slowShare(s)).toBeLessThan(0.15);
  });

  it('compares with Dubbo random, which gives the slow provider its quarter of the calls', async () => {
    const r = await run([
      'run', 'examples/plugin-scenario.yaml', '--json', '--out', out,
      '--set', 'consumers[0].reference["com.example.SearchService"].loadbalance=random',
    ]);
    const s = JSON.parse(r.out);
    const n = s.providerExecutions;
    // Binomial standard error at p = 0.25 over ~6000 executions is ~0.006; allow 4 of them.
    expect(Math.abs(slowShare(s) - 0.25)).toBeLessThan(4 * Math.sqrt((0.25 * 0.75) / n));
  });

  it('rejects an unknown balancer name with the list of valid ones (exit 2)', async () => {
    const dir = tempDir('zs-plugin-bad-');
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      readFileSync(join(root, 'examples/plugin-scenario.yaml'), 'utf8').replace('./plugins/slowest-last-lb.js', 'fastest'),
    );
    const r = await run(['run', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.yaml:\d+:\d+: consumers\[0\]\.reference\["com\.example\.SearchService"\]\.loadbalance: expected a loadbalance name \(random, roundrobin, leastactive, .*found "fastest"/);
  });

  it('fails with a clear message when the plugin file does not exist (exit 2)', async () => {
    const dir = tempDir('zs-plugin-missing-');
    const file = join(dir, 'missing.yaml');
    writeFileSync(file, readFileSync(join(root, 'examples/plugin-scenario.yaml'), 'utf8'));
    const r = await run(['run', file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot load plugin "\.\/plugins\/slowest-last-lb\.js"/);
  });

  it('is refused by --no-plugins, which names it and where the scenario names it (exit 2)', async () => {
    const r = await run(['run', 'examples/plugin-scenario.yaml', '--no-plugins', '--out', out]);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `${join(root, 'examples/plugin-scenario.yaml')}:40:22: consumers[0].reference["com.example.SearchService"].loadbalance: ` +
        'loadbalance plugin "./plugins/slowest-last-lb.js" named, but plugins are disabled by --no-plugins (a plugin runs its code with your rights)\n',
    );
    expect(r.code).toBe(2);
  });

  it.each(['run', 'compare', 'recommend'])('is refused by --no-plugins in a %s --dry-run too (pipelines vet scenarios that way)', async (command) => {
    const r = await run([command, 'examples/plugin-scenario.yaml', '--no-plugins', '--dry-run']);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/plugin-scenario\.yaml:40:22: .*loadbalance plugin "\.\/plugins\/slowest-last-lb\.js" named, but plugins are disabled by --no-plugins/);
    expect(r.code).toBe(2);
  });

  it('can be driven by zonesim select by its path', async () => {
    const r = await run([
      'select', '--loadbalance', './examples/plugins/slowest-last-lb.js', '--json', '--count', '20',
      '--provider', 'dubbo://10.0.0.1:20880/com.example.SearchService', '--provider', 'dubbo://10.0.0.2:20880/com.example.SearchService',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const picks: string[] = JSON.parse(r.out).picks;
    expect(picks).toHaveLength(20);
    expect(new Set(picks)).toEqual(new Set(['10.0.0.1:20880', '10.0.0.2:20880']));
  });
});
