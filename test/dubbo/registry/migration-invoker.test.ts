/**
 * MigrationInvoker at APPLICATION_FIRST (3.3 MigrationInvoker.java, DefaultMigrationAddressComparator.java):
 * which level a call goes through, from the two directories' lists.
 */
import { describe, expect, it } from 'vitest';
import { clusters } from '../../../src/dubbo/extensions.js';
import { DynamicDirectory } from '../../../src/dubbo/directory/directory.js';
import { MigrationInvoker, shouldMigrate } from '../../../src/dubbo/registry/migration-invoker.js';
import { RandomStreams } from '../../../src/engine/random.js';
import { consumerUrl, invocation, makeRuntime, ok, providerUrl, registryUrl, runCall, ScriptedInvoker, type AttemptRecord } from '../cluster/fixtures.js';

const HORIZON_MS = 60_000;

/** A reference with an interface-level and an application-level directory (both empty at first). */
function twoLevels(params: Record<string, string> = {}) {
  const { sim, runtime } = makeRuntime();
  const cUrl = consumerUrl(params);
  const log: AttemptRecord[] = [];
  let n = 0;
  const provider = (name: string) =>
    new ScriptedInvoker({ name, url: providerUrl(n++, cUrl), sim, script: () => ok(name), log });
  const level = () => {
    const directory = new DynamicDirectory(runtime, registryUrl(), cUrl);
    return { directory, invoker: clusters.failover!(directory, runtime) };
  };
  const iface = level();
  const app = level();
  const migration = new MigrationInvoker(iface, app, cUrl, new RandomStreams(7).stream('migration'));
  const call = () => runCall(sim, migration.invoke(invocation()), sim.now + HORIZON_MS).result;
  return { sim, migration, iface: iface.directory, app: app.directory, provider, call, log };
}

const names = (n: number, prefix: string, make: (name: string) => ScriptedInvoker) => Array.from({ length: n }, (_, i) => make(`${prefix}${i}`));

describe('DefaultMigrationAddressComparator.shouldMigrate (DefaultMigrationAddressComparator.java:53-64,92-99)', () => {
  it('stays at interface level while the application level holds no invoker', () => {
    const { iface, app, provider } = twoLevels();
    iface.notify(names(10, 'i', provider));
    expect(shouldMigrate(app, iface, 0)).toBe(false);
  });

  it('migrates with one application-level address against ten interface-level ones at the default threshold 0', () => {
    const { iface, app, provider } = twoLevels();
    iface.notify(names(10, 'i', provider));
    app.notify(names(1, 'a', provider));
    expect(shouldMigrate(app, iface, 0)).toBe(true);
  });

  it('compares the address counts with a threshold above 0 (1/10 < 0.5, 1/10 >= 0.1)', () => {
    const { iface, app, provider } = twoLevels();
    iface.notify(names(10, 'i', provider));
    app.notify(names(1, 'a', provider));
    expect(shouldMigrate(app, iface, 0.5)).toBe(false);
    expect(shouldMigrate(app, iface, 0.1)).toBe(true);
  });

  it('migrates when the interface level holds no invoker, whatever the threshold', () => {
    const { app, iface, provider } = twoLevels();
    app.notify(names(1, 'a', provider));
    expect(shouldMigrate(app, iface, 5)).toBe(true);
  });
});

describe('MigrationInvoker at APPLICATION_FIRST', () => {
  it('calls through the application level as soon as it has one address, and back at interface level when it has none (calcPreferredInvoker, MigrationInvoker.java:499-518)', () => {
    const { iface, app, provider, call, migration } = twoLevels();
    iface.notify(names(3, 'i', provider));
    expect(call()).toEqual({ kind: 'ok', value: expect.stringMatching(/^i/) });
    expect(migration.serviceDiscoveryPreferred).toBe(false);
    app.notify([provider('a0')]);
    for (let k = 0; k < 20; k++) expect(call()).toEqual({ kind: 'ok', value: 'a0' });
    expect(migration.getDirectory()).toBe(app);
    // Every application-level address gone: `empty://` clears that directory, the next calls go to interface level.
    app.notifyEmpty();
    expect(call()).toEqual({ kind: 'ok', value: expect.stringMatching(/^i/) });
    expect(migration.getDirectory()).toBe(iface);
    app.notify([provider('a1')]);
    expect(call()).toEqual({ kind: 'ok', value: 'a1' });
  });

  it('sends a call to the interface level while the preferred application level has no available invoker (decideInvoker, MigrationInvoker.java:314-323)', () => {
    const { iface, app, provider, call, migration } = twoLevels();
    iface.notify(names(2, 'i', provider));
    const a0 = provider('a0');
    app.notify([a0]);
    a0.available = false;
    expect(call()).toEqual({ kind: 'ok', value: expect.stringMatching(/^i/) });
    // Still preferred: the next call that finds it available goes there.
    expect(migration.serviceDiscoveryPreferred).toBe(true);
    a0.available = true;
    expect(call()).toEqual({ kind: 'ok', value: 'a0' });
  });

  it('keeps the interface level when the consumer URL sets migration.threshold above the application level`s share', () => {
    const { iface, app, provider, call } = twoLevels({ 'migration.threshold': '0.5' });
    iface.notify(names(4, 'i', provider));
    app.notify([provider('a0')]);
    expect(call()).toEqual({ kind: 'ok', value: expect.stringMatching(/^i/) });
    app.notify([provider('a1'), provider('a2')]);
    expect(call()).toEqual({ kind: 'ok', value: expect.stringMatching(/^a/) });
  });

  it('sends the share of calls above migration.promotion to the interface level (MigrationInvoker.java:287-292)', () => {
    const { iface, app, provider, call } = twoLevels({ 'migration.promotion': '30' });
    iface.notify([provider('i0')]);
    app.notify([provider('a0')]);
    const n = 2000;
    let toApp = 0;
    for (let k = 0; k < n; k++) if ((call() as { value: string }).value === 'a0') toApp++;
    const sd = Math.sqrt(n * 0.3 * 0.7);
    expect(Math.abs(toApp - 0.3 * n)).toBeLessThan(4.5 * sd);
  });
});
