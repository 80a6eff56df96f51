/**
 * The plugin time budget: a plugin call that does not return stops the command with one line
 * naming the plugin and the call (exit 1) instead of hanging it. The watchdog's rule is tested on
 * its own with given wall times; the end-to-end cases run the built CLI as users do, in a child
 * process with a hard limit (so a hang fails the test; the limit is a safety net, not an assertion).
 */
import { describe, expect, it } from 'vitest';
import { guarded, usePluginSlot } from '../../src/plugins/plugin-guard.js';
import { formatBudget, PluginWatchdog } from '../../src/plugins/plugin-watchdog.js';
import { pluginTimeoutOption } from '../../src/plugins/plugin-policy.js';
import { useTempDirs } from '../helpers/tmp.js';
import { bin, cli, FIRST_ONLY_ROUTER, LOOPING_LB, scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();

describe('PluginWatchdog.poll', () => {
  const PLUGINS = ['./a.js', './b.js'];

  function watched<T>(f: (w: PluginWatchdog) => T): T {
    const w = new PluginWatchdog(1, PLUGINS, 1000);
    usePluginSlot(w.slot(0));
    try {
      return f(w);
    } finally {
      usePluginSlot(undefined);
    }
  }

  it('names the plugin and the call once the same call has run for the budget', () => {
    const seen = watched((w) => guarded('./b.js', 'select', () => [w.poll(0), w.poll(999), w.poll(1000)]));
    expect(seen).toEqual([undefined, undefined, 'plugin ./b.js: select() did not return within 1 s']);
  });

  it('says nothing while no plugin call runs', () => {
    expect(watched((w) => [w.poll(0), w.poll(60_000)])).toEqual([undefined, undefined]);
  });

  it('gives each new call a fresh budget', () => {
    const seen = watched((w) => {
      const first = guarded('./a.js', 'route', () => w.poll(0));
      const second = guarded('./a.js', 'route', () => w.poll(900));
      return [first, second, guarded('./a.js', 'route', () => w.poll(1800))];
    });
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it('times the outermost call and names the innermost one running', () => {
    const seen = watched((w) =>
      guarded('./a.js', 'invoke', () => {
        w.poll(0);
        guarded('./b.js', 'select', () => undefined);
        return guarded('./b.js', 'select', () => w.poll(1000));
      }),
    );
    expect(seen).toBe('plugin ./b.js: select() did not return within 1 s');
  });

  it('says loading the module for an import that does not finish', () => {
    const seen = watched((w) => guarded('./a.js', 'load', () => [w.poll(5), w.poll(1005)]));
    expect(seen[1]).toBe('plugin ./a.js: loading the module did not finish within 1 s');
  });
});

describe('--plugin-timeout', () => {
  it.each([
    ['1s', 1000],
    ['500ms', 500],
    ['250', 250],
    ['1.5s', 1500],
  ])('reads %s as %d ms', (text, ms) => {
    expect(pluginTimeoutOption(text)).toBe(ms);
  });

  it.each(['0s', '-1s', 'abc', '2h'])('refuses %s (exit 2)', async (text) => {
    const path = writeFixture(tempDir('zs-timeout-'), scenarioYaml());
    const r = await cli(['run', path, '--plugin-timeout', text]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^zonesim: --plugin-timeout: expected a duration above 0 and at most 1h, such as 10s or 500ms, found /);
  });

  it('formats budgets for messages', () => {
    expect([formatBudget(10_000), formatBudget(1500), formatBudget(250)]).toEqual(['10 s', '1.5 s', '250 ms']);
  });
});

describe('a plugin that loops forever', () => {
  const loopingLb = () => writeFixture(tempDir('zs-loop-'), scenarioYaml({ reference: 'loadbalance: ./my-lb.js' }), { 'my-lb.js': LOOPING_LB });

  it('stops zonesim run with exit 1 and one line naming the plugin and the call', () => {
    const path = loopingLb();
    const r = bin(['run', path, '--plugin-timeout', '1s', '--out', tempDir('zs-loop-out-')], tempDir('zs-loop-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.err).toBe('zonesim: plugin ./my-lb.js: select() did not return within 1 s\n');
    expect(r.code).toBe(1);
  });

  it('stops a run of several seeds on several workers the same way', () => {
    const path = loopingLb();
    const r = bin(['run', path, '--seeds', '3', '--jobs', '2', '--plugin-timeout', '1s', '--out', tempDir('zs-loop-out-')], tempDir('zs-loop-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.err).toBe('zonesim: plugin ./my-lb.js: select() did not return within 1 s\n');
    expect(r.code).toBe(1);
  });

  it('stops a module whose top level never finishes loading', () => {
    const path = writeFixture(tempDir('zs-loop-'), scenarioYaml({ reference: 'loadbalance: ./my-lb.js' }), { 'my-lb.js': 'for (;;) {}\n' });
    const r = bin(['run', path, '--plugin-timeout', '1s', '--out', tempDir('zs-loop-out-')], tempDir('zs-loop-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.err).toBe('zonesim: plugin ./my-lb.js: loading the module did not finish within 1 s\n');
    expect(r.code).toBe(1);
  });

  it.each([
    ['a callback it scheduled on runtime.sim', 'runtime.sim.schedule(5, () => { for (;;) {} });', 'scheduled()'],
    ['a process it started on runtime.sim', 'runtime.sim.process((function* () { yield runtime.sim.timeout(5); for (;;) {} })());', 'process()'],
  ])('stops %s, naming the plugin', (_what, code, call) => {
    const lb = `export function createLoadBalance(runtime) {\n  ${code}\n  return { select(invokers) { return invokers[0]; } };\n}\n`;
    const path = writeFixture(tempDir('zs-loop-'), scenarioYaml({ reference: 'loadbalance: ./my-lb.js' }), { 'my-lb.js': lb });
    const r = bin(['run', path, '--plugin-timeout', '1s', '--out', tempDir('zs-loop-out-')], tempDir('zs-loop-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.err).toBe(`zonesim: plugin ./my-lb.js: ${call} did not return within 1 s\n`);
    expect(r.code).toBe(1);
  });

  it('stops zonesim check in a router plugin', () => {
    const looping = FIRST_ONLY_ROUTER.replace('const kept', 'for (;;) {}\n      const kept');
    const path = writeFixture(tempDir('zs-loop-'), scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./my-router.js }' }), { 'my-router.js': looping });
    const r = bin(['check', path, '--plugin-timeout', '1s'], tempDir('zs-loop-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.err).toBe('zonesim: plugin ./my-router.js: route() did not return within 1 s\n');
    expect(r.code).toBe(1);
  });

  // A getter runs plugin code where zonesim only reads a property: every read of what a plugin hands
  // over happens inside the timed call (audit 3, defect 12).
  const GETTER_LOOP_LB = `export function createLoadBalance() {
  const lb = {};
  Object.defineProperty(lb, 'select', { get() { for (;;) {} } });
  return lb;
}
`;
  const expectStopped = (r: ReturnType<typeof bin>, line: string) => {
    expect(r.signal).toBeNull();
    expect([r.err, r.code]).toEqual([`zonesim: ${line}\n`, 1]);
  };
  // `zonesim run` of a fixture (scenario `yaml`, plugin `file` with `source`) under a 1 s budget.
  const runFixture = (yaml: string, file: string, source: string) => {
    const path = writeFixture(tempDir('zs-loop-'), yaml, { [file]: source });
    return bin(['run', path, '--plugin-timeout', '1s', '--out', tempDir('zs-loop-out-')], tempDir('zs-loop-cwd-'));
  };

  it('stops a balancer whose select is a getter that never returns, as its factory call', () => {
    const r = runFixture(scenarioYaml({ reference: 'loadbalance: ./my-lb.js' }), 'my-lb.js', GETTER_LOOP_LB);
    expectStopped(r, 'plugin ./my-lb.js: createLoadBalance() did not return within 1 s');
  });

  it('stops zonesim select of that balancer the same way', () => {
    const dir = tempDir('zs-loop-');
    writeFixture(dir, scenarioYaml(), { 'my-lb.js': GETTER_LOOP_LB });
    const r = bin(['select', '--loadbalance', './my-lb.js', '--provider', 'dubbo://10.0.0.1:20880/com.example.S', '--plugin-timeout', '500ms'], dir);
    expectStopped(r, 'plugin ./my-lb.js: createLoadBalance() did not return within 500 ms');
  });

  it.each([
    ['a result whose invokers getter never returns', 'return { get invokers() { for (;;) {} }, trace: {} };'],
    ['a thrown Proxy whose prototype lookup never returns', 'throw new Proxy({}, { getPrototypeOf() { for (;;) {} } });'],
  ])('stops a router that hands back %s, as its route() call', (_what, body) => {
    const router = `export function createRouter() { return { name: 'r', order: 200, route(invokers) { ${body} } }; }\n`;
    const r = runFixture(scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./my-router.js }' }), 'my-router.js', router);
    expectStopped(r, 'plugin ./my-router.js: route() did not return within 1 s');
  });

  it('stops zonesim select', () => {
    const dir = tempDir('zs-loop-');
    writeFixture(dir, scenarioYaml(), { 'my-lb.js': LOOPING_LB });
    const providers = ['--provider', 'dubbo://10.0.0.1:20880/com.example.S', '--provider', 'dubbo://10.0.0.2:20880/com.example.S'];
    const r = bin(['select', '--loadbalance', './my-lb.js', ...providers, '--plugin-timeout', '1s'], dir);
    expect(r.signal).toBeNull();
    expect(r.err).toBe('zonesim: plugin ./my-lb.js: select() did not return within 1 s\n');
    expect(r.code).toBe(1);
  });
});
