/** The scenarios `npm run bench` runs, and those measured by hand, stay valid against the scenario schema. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.js';

const BENCH = join(import.meta.dirname, '../../bench');
const files = readdirSync(BENCH).filter((f) => f.endsWith('.yaml'));

describe('bench scenarios', () => {
  it('there are the bench scenarios the docs name', () => {
    expect(files).toEqual(expect.arrayContaining(['large-deployment.yaml', 'many-providers.yaml', 'extra-large.yaml', 'zone-crash-mixed.yaml']));
  });

  it.each(files)('%s loads and validates', (file) => {
    const scenario = loadScenarioFile(join(BENCH, file));
    expect(scenario.name).not.toBe('');
    expect(scenario.consumers.length).toBeGreaterThan(0);
  });
});
