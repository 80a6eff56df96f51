import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dumpScenarioYaml, scenarioToRaw } from '../../src/scenario/dump.js';
import { loadScenarioFile, parseScenario } from '../../src/scenario/load.js';

const fixture = (name: string) => join(dirname(fileURLToPath(import.meta.url)), 'fixtures', name);

describe('dumpScenarioYaml', () => {
  it.each(['spec-example.yaml', 'full.yaml'])('writes %s so that it loads back to the same scenario', (name) => {
    const s = loadScenarioFile(fixture(name));
    expect(parseScenario(dumpScenarioYaml(s), 'dumped.yaml')).toEqual(s);
  });

  it('round-trips a provider application: services, exports (executor, executes, tps, params, methods), isolation and provider strategy overrides', () => {
    const s = loadScenarioFile(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scenarios', 'shared-pool-exhaustion.yaml'));
    s.providers[0]!.exports['com.example.OrderService'] = {
      executes: 3,
      tps: 100,
      tpsIntervalMs: 1000,
      params: { timeout: '3000' },
      methods: { getOrder: { executes: 2 } },
    };
    const back = parseScenario(dumpScenarioYaml(s), 'dumped.yaml');
    expect(back).toEqual(s);
    expect(back.providers[0]!.services).toEqual(['com.example.OrderService', 'com.example.PaymentService']);
    expect(back.strategies['dynamic-isolation']!.providers!['trade-a']!.isolation!.dynamic!.rtMs).toBe(300);
  });

  it("keeps a consumer group's cohort settings through the round trip", () => {
    const s = loadScenarioFile(fixture('spec-example.yaml'), ['consumers[0].cohorts=on', 'consumers[0].representatives=8']);
    const back = parseScenario(dumpScenarioYaml(s), 'dumped.yaml');
    expect(back).toEqual(s);
    expect([back.consumers[0]!.cohorts, back.consumers[0]!.representatives]).toEqual(['on', 8]);
  });

  it('keeps a changed value through the round trip', () => {
    const s = loadScenarioFile(fixture('spec-example.yaml'));
    s.consumers[0]!.reference['com.example.UserService']!.timeoutMs = 250;
    expect(parseScenario(dumpScenarioYaml(s), 'dumped.yaml').consumers[0]!.reference['com.example.UserService']!.timeoutMs).toBe(250);
  });
});

describe('scenarioToRaw', () => {
  it('uses the file key names, durations in ms and rates per second', () => {
    const raw = scenarioToRaw(loadScenarioFile(fixture('spec-example.yaml')));
    expect([raw.duration, raw.warmup, (raw.consumers as Array<Record<string, unknown>>)[0]!.rate]).toEqual([180_000, 10_000, 2000]);
  });
});
