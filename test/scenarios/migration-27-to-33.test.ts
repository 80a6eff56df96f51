/**
 * scenarios/migration-27-to-33.yaml: 2.7 providers at interface level, 3.3 providers registering both
 * levels from 30 s to 70 s, 3.3 consumers at APPLICATION_FIRST and 2.7 consumers. Who calls whom follows
 * 3.3 MigrationInvoker.calcPreferredInvoker with DefaultMigrationAddressComparator's threshold 0
 * (MigrationInvoker.java:499-518, DefaultMigrationAddressComparator.java:53-64): the application level
 * as soon as it holds one address, the interface level when it holds none.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/migration-27-to-33.yaml', import.meta.url));
const run = (sets: string[] = []): Summary => runScenario(loadScenarioWithRaw(file, sets).scenario, { version: 'test' }).summary;

const OLD = 6; // 2.7 providers
const NEW = 2; // 3.3 providers, up from 30 s to 70 s
const SHOP = 20; // 3.3 consumer instances (both levels)
const LEGACY = 10; // 2.7 consumer instances (interface level)
const CHANGES = 2 * NEW; // each 3.3 provider registers once and deregisters once

/** Executions of a provider group in the timeline buckets starting in [fromS, toS). */
function executions(s: Summary, group: string, fromS: number, toS: number): number {
  return s.timelineByProviderGroup![group]!.filter((r) => r.tMs >= fromS * 1000 && r.tMs < toS * 1000).reduce((n, r) => n + r.executions, 0);
}

describe('migration-27-to-33', () => {
  const both = run();
  // Each consumer application alone: whose calls go where.
  const shop = run(['consumers[1].rate=0']);
  const legacy = run(['consumers[0].rate=0']);

  it('the 3.3 consumers call the 2.7 providers until a 3.3 provider is listed at application level, then only the 3.3 ones, then the 2.7 ones again once those leave', () => {
    // The buckets of the two changes (30 s, 70 s) are left out: the pushes land within them.
    expect(executions(shop, 'orders-33', 5, 30)).toBe(0);
    expect(executions(shop, 'orders-27', 5, 30)).toBeGreaterThan(0);
    expect(executions(shop, 'orders-27', 31, 70)).toBe(0);
    expect(executions(shop, 'orders-33', 31, 70)).toBeGreaterThan(0);
    expect(executions(shop, 'orders-33', 71, 90)).toBe(0);
    expect(executions(shop, 'orders-27', 71, 90)).toBeGreaterThan(0);
  });

  it('the 2.7 consumers call every provider at interface level: a quarter to the 3.3 ones while they run', () => {
    const toNew = executions(legacy, 'orders-33', 31, 70);
    const n = toNew + executions(legacy, 'orders-27', 31, 70);
    const p = NEW / (NEW + OLD);
    expect(Math.abs(toNew - n * p)).toBeLessThan(4.5 * Math.sqrt(n * p * (1 - p)));
  });

  it('pushes per level: every change of a 3.3 provider at both levels, one first read per subscription', () => {
    const interfaceWatchers = SHOP + LEGACY;
    const applicationWatchers = SHOP;
    expect(both.registry.byLevel).toEqual({
      interface: { pushes: (1 + CHANGES) * interfaceWatchers, pushBytes: expect.any(Number) },
      application: { pushes: (1 + CHANGES) * applicationWatchers, pushBytes: expect.any(Number) },
    });
    expect(both.registry.pushes).toBe((1 + CHANGES) * (interfaceWatchers + applicationWatchers));
    // Each shop instance fetched the 3.3 revision's MetadataInfo once (the 2.7 processes have none).
    expect(both.events['registry.metadataFetches']).toBe(SHOP);
  });

  it('no call fails: the 3.3 providers stop gracefully, and shop goes back to interface level on the empty push', () => {
    expect(both.errorRate).toBe(0);
  });
});
