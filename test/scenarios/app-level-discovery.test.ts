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

  it('application level moves far fewer bytes: per process ip:port and metadata once, not a full URL per service', () => {
    // 37.2 MB against 8.7 MB here: a quarter.
    expect(app.registry.pushBytes).toBeLessThan(iface.registry.pushBytes / 4);
    // One revision (all processes export the same services): one MetadataInfo fetch per consumer instance.
    expect(app.events['registry.metadataFetches']).toBe(M);
  });

  it('the consumers never notice either way', () => {
    expect([iface.errorRate, app.errorRate]).toEqual([0, 0]);
  });
});
