/**
 * scenarios/app-level-discovery.yaml: one application exporting 3 services from 20 processes, 50
 * consumer instances, a rolling restart of every process. Interface level pushes once per (service,
 * consumer instance) for each change; application level once per consumer instance.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Summary } from '../../src/metrics/summary.js';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';
import { applyStrategy } from '../../src/scenario/strategies.js';

const file = fileURLToPath(new URL('../../scenarios/app-level-discovery.yaml', import.meta.url));
const N = 20; // processes, each restarted once: 2 changes (deregister, register)
const M = 50; // consumer instances
const S = 3; // services of the application

const run = (strategy: string, sets: string[] = []): Summary => {
  const { scenario } = loadScenarioWithRaw(file, sets);
  return runScenario(applyStrategy(scenario, scenario.strategies[strategy]!), { version: 'test' }).summary;
};

describe('app-level-discovery', () => {
  const iface = run('interface');
  const app = run('application');
  const quietIface = run('interface', ['faults=[]']);
  const quietApp = run('application', ['faults=[]']);

  it('interface level: 2·N·M·S notifications for the restart (one list per service), plus one first read per service and consumer', () => {
    expect(quietIface.registry.pushes).toBe(M * S);
    expect(iface.registry.pushes - quietIface.registry.pushes).toBe(2 * N * M * S);
  });

  it('application level: 2·N·M (one list per application, one push per change whatever the number of services), plus one first read per consumer', () => {
    expect(quietApp.registry.pushes).toBe(M);
    expect(app.registry.pushes - quietApp.registry.pushes).toBe(2 * N * M);
    expect(app.registry.pushes * S).toBe(iface.registry.pushes);
  });

  it('application level moves less than half the bytes: per process ip:port and metadata once, not a full URL per service', () => {
    // Per change, interface level sends S lists of N full URLs (about 300 bytes each here), application level one
    // list of N processes, each ip:port plus the instance metadata Dubbo 3's default metadata-type=local writes
    // (about 390 bytes, the MetadataService's URL parameters included): about 390 / (3 · 300) = 0.43 of the bytes.
    expect(app.registry.pushBytes).toBeLessThan(iface.registry.pushBytes / 2);
    expect(app.registry.pushBytes).toBeGreaterThan(iface.registry.pushBytes / 3);
    // One revision (all processes export the same services): one MetadataInfo fetch per consumer instance, from a
    // provider: its bytes are not registry bytes.
    expect(app.events['registry.metadataFetches']).toBe(M);
    expect(app.events['registry.metadataBytes']).toBeGreaterThan(0);
  });

  it('the consumers never notice either way', () => {
    expect([iface.errorRate, app.errorRate]).toEqual([0, 0]);
  });
});
