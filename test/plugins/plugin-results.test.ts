/**
 * What a plugin hands back is checked where the model takes it: a load balancer's pick must be one
 * of the invokers it was given, a router's result `{ invokers, trace }` with invokers from its input,
 * a cluster's `invoke` a generator of simulation events ending in a result. A broken plugin stops
 * the run with one line naming the plugin and what was wrong (exit 1), not an internal TypeError.
 * And the end-of-run invariant: every `ok` request had at least one attempt.
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { cli, scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();

async function runWith(kind: 'loadbalance' | 'cluster' | 'router', source: string) {
  const dir = tempDir('zs-plugin-result-');
  const yaml =
    kind === 'router'
      ? scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./p.js }' })
      : scenarioYaml({ reference: `${kind}: ./p.js\nretries: 0` });
  const path = writeFixture(dir, yaml, { 'p.js': source });
  return cli(['run', path, '--json', '--out', tempDir('zs-plugin-result-out-')]);
}

describe('load-balancer plugin results', () => {
  it.each([
    ['an invoker from elsewhere', 'return { getUrl: () => ({ getAddress: () => "10.9.9.9:1" }) };', 'select() returned an invoker (10.9.9.9:1), not one of the 2 invokers it was given'],
    ['null for a list of two', 'return null;', 'select() returned null, not one of the 2 invokers it was given'],
    ['an index', 'return 0;', 'select() returned 0, not one of the 2 invokers it was given'],
    ['a Promise', 'return Promise.resolve(invokers[0]);', 'select() returned a Promise (plugin calls are synchronous), not one of the 2 invokers it was given'],
    ['an exception', 'return invokers.nope.length;', "select() threw TypeError: Cannot read properties of undefined (reading 'length')"],
  ])('%s stops the run naming the plugin (exit 1)', async (_what, body, message) => {
    const r = await runWith('loadbalance', `export function createLoadBalance() { return { select(invokers) { ${body} } }; }\n`);
    expect(r.out).toBe('');
    expect(r.err).toBe(`zonesim: plugin ./p.js: ${message}\n`);
    expect(r.code).toBe(1);
  });

  // Whatever a plugin throws, the line names the plugin and the call (audit 3, defect 15).
  const HOSTILE = "new Proxy({}, { get() { throw new Error('gotcha'); }, getPrototypeOf() { throw new Error('gotcha'); } })";
  it.each([
    ['a Proxy whose every read throws', `throw ${HOSTILE};`, 'an object that throws when read'],
    ['an Error whose message getter throws', "const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw e; } }); throw e;", 'an object'],
    ['a Symbol', "throw Symbol('s');", 'Symbol(s)'],
  ])('throwing %s stops the run naming the plugin and select() (exit 1)', async (_what, body, thrown) => {
    const r = await runWith('loadbalance', `export function createLoadBalance() { return { select(invokers) { ${body} } }; }\n`);
    expect(r.err).toBe(`zonesim: plugin ./p.js: select() threw ${thrown}\n`);
    expect(r.code).toBe(1);
  });

  it('a factory that throws a Proxy whose every read throws stops the run naming the factory', async () => {
    const r = await runWith('loadbalance', `export default function () { throw ${HOSTILE}; }\n`);
    expect(r.err).toBe('zonesim: plugin ./p.js: createLoadBalance() threw an object that throws when read\n');
    expect(r.code).toBe(1);
  });

  it('a module that throws such a Proxy as it loads is bad input naming the plugin (exit 2)', async () => {
    const r = await runWith('loadbalance', `throw ${HOSTILE};\n`);
    // Node's loader reads the thrown value first, so what reaches zonesim may be the trap's own Error.
    expect(r.err).toMatch(/^zonesim: cannot load plugin "\.\/p\.js" \(.*p\.js\): (an object that throws when read|gotcha)\n$/);
    expect(r.code).toBe(2);
  });

  it('a balancer whose select getter throws stops the run naming its factory', async () => {
    const r = await runWith('loadbalance', "export default function () { return { get select() { throw new RangeError('no'); } }; }\n");
    expect(r.err).toBe('zonesim: plugin ./p.js: createLoadBalance() threw RangeError: no\n');
    expect(r.code).toBe(1);
  });

  it('a factory that returns no balancer stops the run', async () => {
    const r = await runWith('loadbalance', 'export default function () { return {}; }\n');
    expect(r.err).toBe('zonesim: plugin ./p.js: createLoadBalance() returned an object, not a load balancer { select(invokers, url, invocation) }\n');
    expect(r.code).toBe(1);
  });
});

describe('router plugin results', () => {
  const router = (route: string) =>
    `export function createRouter() { return { name: 'mine', order: 200, route(invokers) { ${route} } }; }\n`;

  it.each([
    ['a bare array', 'return invokers;', 'route() returned an array of 2, not { invokers, trace }'],
    ['invokers that are not an array', "return { invokers: 'all', trace: {} };", 'route() returned invokers: "all", not an array'],
    ['an invoker not in its input', 'return { invokers: [...invokers, {}], trace: {} };', 'route() returned an object, which is not one of the 2 invokers it was given'],
    ['no trace', 'return { invokers };', 'route() returned trace: undefined, not { router, before, after }'],
  ])('%s stops the run naming the plugin (exit 1)', async (_what, body, message) => {
    const r = await runWith('router', router(body));
    expect(r.err).toBe(`zonesim: plugin ./p.js: ${message}\n`);
    expect(r.code).toBe(1);
  });

  it('a thrown Proxy whose every read throws names the plugin and route()', async () => {
    const r = await runWith('router', router("throw new Proxy({}, { get() { throw new Error('gotcha'); }, getPrototypeOf() { throw new Error('gotcha'); } });"));
    expect(r.err).toBe('zonesim: plugin ./p.js: route() threw an object that throws when read\n');
    expect(r.code).toBe(1);
  });

  it('a trace is read once, where the route runs, and copied as plain data', async () => {
    // A getter that throws at its second read: `check` reads the trace again when it prints it.
    const dir = tempDir('zs-plugin-result-');
    const body = "let reads = 0; return { invokers: invokers.slice(0, 1), trace: { router: 'mine', before: invokers.length, get after() { if (++reads > 1) throw new Error('read twice'); return 1; } } };";
    const path = writeFixture(dir, scenarioYaml({ extra: 'routers:\n  - { type: plugin, module: ./p.js }' }), { 'p.js': router(body) });
    const r = await cli(['check', path, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).phases[0].routes[0].trace.at(-1)).toEqual({ router: 'mine', before: 2, after: 1 });
  });

  it('a router without name and order is refused when the chain is built', async () => {
    const r = await runWith('router', 'export function createRouter() { return { route: (invokers) => ({ invokers, trace: {} }) }; }\n');
    expect(r.err).toBe(
      'zonesim: plugin ./p.js: createRouter() returned an object, not a state router { name, order, route(invokers, consumerUrl, invocation) }\n',
    );
    expect(r.code).toBe(1);
  });

  it('a router that keeps part of its input runs', async () => {
    const r = await runWith(
      'router',
      router("const kept = invokers.slice(0, 1); return { invokers: kept, trace: { router: 'mine', before: invokers.length, after: kept.length } };"),
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(Object.values(JSON.parse(r.out).byProviderGroup as Record<string, { executions: number }>)[0]!.executions).toBeGreaterThan(0);
  });
});

describe('cluster plugin results', () => {
  // A cluster over the directory: list, pick the first, invoke it; `ret` is what invoke returns.
  const cluster = (body: string) => `export function createCluster(directory) {
  return {
    getUrl: () => directory.getConsumerUrl(),
    isAvailable: () => true,
    isDestroyed: () => false,
    getRegistryUrl: () => directory.getUrl(),
    destroy() {},
    *invoke(invocation) { ${body} },
  };
}
`;

  it.each([
    ['a value that is not a result', 'const r = yield* directory.list(invocation)[0].invoke(invocation); return "done";', `invoke() returned "done", not a result ({ kind: 'ok', value } or { kind: 'error', error: { code, message } })`],
    ['an error result without a code', "return { kind: 'error', error: { message: 'x' } };", 'invoke() returned an error result without error.code (a number) and error.message (a string)'],
    ['a yield of something that is not an event', 'yield 42;', "invoke() yielded 42, not a simulation event (yield* an invoker's invoke(), or yield an event of runtime.sim)"],
    ['an exception in a step', 'yield* directory.list(invocation)[0].invoke(invocation); throw new RangeError("no more");', 'invoke() threw RangeError: no more'],
  ])('%s stops the run naming the plugin (exit 1)', async (_what, body, message) => {
    const r = await runWith('cluster', cluster(body));
    expect(r.err).toBe(`zonesim: plugin ./p.js: ${message}\n`);
    expect(r.code).toBe(1);
  });

  it('invoke() that is not a generator stops the run', async () => {
    const r = await runWith('cluster', cluster('return 1;').replace('*invoke(', 'invoke('));
    expect(r.err).toBe('zonesim: plugin ./p.js: invoke() returned 1, not a generator (write it as function* and yield* the invokers\' invoke())\n');
    expect(r.code).toBe(1);
  });

  it('a cluster that invokes a provider and returns its result runs', async () => {
    const r = await runWith('cluster', cluster('return yield* directory.list(invocation)[0].invoke(invocation);'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s.outcomes.ok).toBe(s.requests);
    expect(s.attempts).toBe(s.requests);
  });
});

describe('the invariant: every ok request had at least one attempt', () => {
  it('fails a run whose cluster plugin answers ok without calling any provider (exit 1)', async () => {
    const r = await runWith(
      'cluster',
      "export function createCluster(directory) { return { getUrl: () => directory.getConsumerUrl(), isAvailable: () => true, *invoke() { return { kind: 'ok' }; } }; }\n",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^zonesim: simulation invariants broken:\n {2}\d+ requests ended ok without any attempt \(an ok outcome needs a provider's answer, or a cluster's empty result\)\n$/);
  });

  it("accepts a cluster's empty result (value null, as failsafe returns after swallowing a failure) without attempt", async () => {
    const r = await runWith(
      'cluster',
      "export function createCluster(directory) { return { getUrl: () => directory.getConsumerUrl(), isAvailable: () => true, *invoke() { return { kind: 'ok', value: null }; } }; }\n",
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect([s.outcomes.ok, s.attempts]).toEqual([s.requests, 0]);
  });
});
