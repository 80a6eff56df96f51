import { describe, expect, it } from 'vitest';
import { scenarioJsonSchema } from '../../src/scenario/schema.js';

describe('scenarioJsonSchema', () => {
  const schema = scenarioJsonSchema();

  it('is a JSON document with $schema and title', () => {
    const again = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    expect(again.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(again.title).toBe('zonesim scenario');
    expect(again.type).toBe('object');
  });

  it('lists every top-level key of the file format and requires the four essential ones', () => {
    const props = Object.keys(schema.properties as object);
    for (const key of [
      'name', 'description', 'seed', 'duration', 'warmup', 'zones', 'network', 'registry', 'registries',
      'services', 'providers', 'consumers', 'routers', 'faults', 'strategies',
    ]) {
      expect(props).toContain(key);
    }
    expect((schema.required as string[]).sort()).toEqual(['consumers', 'providers', 'services', 'zones']);
  });

  it('forbids unknown top-level keys', () => {
    expect(schema.additionalProperties).toBe(false);
  });

  it('shows input defaults with units and descriptions', () => {
    const duration = (schema.properties as Record<string, Record<string, unknown>>).duration!;
    expect(duration.default).toBe('60s');
    expect(typeof duration.description).toBe('string');
  });

  it('shares the distribution, duration and reference definitions', () => {
    expect(Object.keys(schema.$defs as object)).toEqual(expect.arrayContaining(['Distribution', 'Duration', 'Reference', 'Router']));
  });
});
