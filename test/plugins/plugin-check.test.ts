/**
 * `zonesim check` runs in release pipelines: it imports only the router plugins its routes go
 * through (the scenario's and those of the strategies it checks), never a load balancer or a
 * cluster plugin (it routes, it does not invoke).
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { cli, FIRST_ONLY_ROUTER, scenarioYaml, THROWS_ON_IMPORT, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();

describe('zonesim check and plugins', () => {
  it('does not import a load-balancer or cluster plugin, which it never calls, nor the router of a strategy it does not check', async () => {
    const path = writeFixture(
      tempDir('zs-check-plugins-'),
      scenarioYaml({
        reference: 'loadbalance: ./lb.js\ncluster: ./cluster.js',
        extra: 'strategies:\n  other:\n    routers: [{ type: plugin, module: ./strategy-router.js }]\n    reference: { cluster: ./cluster2.js }',
      }),
      { 'lb.js': THROWS_ON_IMPORT, 'cluster.js': THROWS_ON_IMPORT, 'cluster2.js': THROWS_ON_IMPORT, 'strategy-router.js': THROWS_ON_IMPORT },
    );
    const r = await cli(['check', path, '--json', '--no-strategies']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.problems).toEqual([]);
    expect(report.phases[0].routes[0]).toMatchObject({ service: 'com.example.S', providers: 2, providersAfter: 2 });
  });

  it('imports the router plugin of a strategy it checks (not its cluster plugin) and shows its step under that strategy', async () => {
    const path = writeFixture(
      tempDir('zs-check-plugins-'),
      scenarioYaml({
        reference: 'loadbalance: ./lb.js',
        extra: 'strategies:\n  other:\n    routers: [{ type: plugin, module: ./first-only.js }]\n    reference: { cluster: ./cluster.js }',
      }),
      { 'lb.js': THROWS_ON_IMPORT, 'cluster.js': THROWS_ON_IMPORT, 'first-only.js': FIRST_ONLY_ROUTER },
    );
    const r = await cli(['check', path, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.phases[0].routes[0].providersAfter).toBe(2);
    expect(report.strategies[0].name).toBe('other');
    expect(report.strategies[0].phases[0].routes[0].trace.at(-1)).toEqual({ router: 'first-only', before: 2, after: 1 });
  });

  it('does not import a router plugin scoped to a service nobody calls', async () => {
    const path = writeFixture(
      tempDir('zs-check-plugins-'),
      scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./other.js, service: com.example.Other }' }),
      { 'other.js': THROWS_ON_IMPORT },
    );
    const r = await cli(['check', path, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('imports a router plugin its routes go through and shows its step', async () => {
    const path = writeFixture(
      tempDir('zs-check-plugins-'),
      scenarioYaml({ reference: 'loadbalance: ./lb.js', extra: 'routers:\n  - { type: plugin, module: ./first-only.js }' }),
      { 'first-only.js': FIRST_ONLY_ROUTER, 'lb.js': THROWS_ON_IMPORT },
    );
    const r = await cli(['check', path, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const route = JSON.parse(r.out).phases[0].routes[0];
    expect(route.providersAfter).toBe(1);
    expect(route.trace.at(-1)).toEqual({ router: 'first-only', before: 2, after: 1 });
  });

  it('reports a router plugin that cannot be imported as bad input (exit 2)', async () => {
    const path = writeFixture(
      tempDir('zs-check-plugins-'),
      scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./broken.js }' }),
      { 'broken.js': THROWS_ON_IMPORT },
    );
    const r = await cli(['check', path]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^zonesim: cannot load plugin "\.\/broken\.js" \(.*broken\.js\): this plugin must not be imported\n$/);
  });
});

describe('--no-plugins', () => {
  const withLb = () =>
    writeFixture(tempDir('zs-no-plugins-'), scenarioYaml({ reference: 'loadbalance: ./lb.js' }), { 'lb.js': THROWS_ON_IMPORT });

  it.each([
    ['run', []],
    ['check', []],
    ['compare', ['--strategies', 'dubbo-default']],
    ['recommend', []],
    ['sweep', ['--grid', 'duration=2s,3s']],
  ])('refuses %s of a scenario that names a plugin, naming the plugin and its place in the file (exit 2)', async (command, more) => {
    const path = withLb();
    const r = await cli([command, path, '--no-plugins', ...more]);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `${path}:24:22: consumers[0].reference["com.example.S"].loadbalance: loadbalance plugin "./lb.js" named, ` +
        'but plugins are disabled by --no-plugins (a plugin runs its code with your rights)\n',
    );
    expect(r.code).toBe(2);
  });

  it('names every plugin the scenario names, routers and rule faults included', async () => {
    const path = writeFixture(
      tempDir('zs-no-plugins-'),
      scenarioYaml({
        reference: 'cluster: ./c.js',
        extra: 'routers:\n  - { type: plugin, module: ./r.js }\nfaults:\n  - { at: 1s, rule: { add: { type: plugin, module: ./f.js } } }',
      }),
    );
    const r = await cli(['check', path, '--no-plugins']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n').filter(Boolean).map((l) => l.replace(`${path}:`, ''))).toEqual([
      '24:18: consumers[0].reference["com.example.S"].cluster: cluster plugin "./c.js" named, but plugins are disabled by --no-plugins (a plugin runs its code with your rights)',
      '26:29: routers[0].module: router plugin "./r.js" named, but plugins are disabled by --no-plugins (a plugin runs its code with your rights)',
      '28:52: faults[0].rule.add.module: router plugin "./f.js" named, but plugins are disabled by --no-plugins (a plugin runs its code with your rights)',
    ]);
  });

  it('refuses a plugin a --grid value names', async () => {
    const path = writeFixture(tempDir('zs-no-plugins-'), scenarioYaml(), { 'lb.js': THROWS_ON_IMPORT });
    const r = await cli(['sweep', path, '--no-plugins', '--grid', 'consumers[0].reference["com.example.S"].loadbalance=random,./lb.js']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'zonesim: plugin "./lb.js" named (by --grid, --set or a strategy), but plugins are disabled by --no-plugins (a plugin runs its code with your rights)\n',
    );
  });

  it('refuses a plugin a --set names, saying so', async () => {
    const path = writeFixture(tempDir('zs-no-plugins-'), scenarioYaml(), { 'lb.js': THROWS_ON_IMPORT });
    const r = await cli(['run', path, '--no-plugins', '--set', 'consumers[0].reference["com.example.S"].loadbalance=./lb.js']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('consumers[0].reference["com.example.S"].loadbalance: loadbalance plugin "./lb.js" named (by --set), but plugins are disabled');
  });

  it('refuses select --loadbalance with a module path', async () => {
    const dir = tempDir('zs-no-plugins-');
    writeFixture(dir, scenarioYaml(), { 'lb.js': THROWS_ON_IMPORT });
    const r = await cli(['select', '--no-plugins', '--loadbalance', './lb.js', '--provider', 'dubbo://10.0.0.1:20880/com.example.S'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe('zonesim: --loadbalance "./lb.js" names a plugin module, but plugins are disabled by --no-plugins (a plugin runs its code with your rights)\n');
  });

  it('lets a scenario without plugins run', async () => {
    const path = writeFixture(tempDir('zs-no-plugins-'), scenarioYaml());
    const r = await cli(['check', path, '--no-plugins', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).problems).toEqual([]);
  });
});
