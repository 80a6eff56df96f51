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
