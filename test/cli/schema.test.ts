import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

describe('zonesim schema', () => {
  it('prints the JSON Schema that the shipped scenarios point their editors at (scenario.schema.json is up to date)', async () => {
    const out: string[] = [];
    const code = await main(['schema'], { stdout: (s) => out.push(s), stderr: () => {}, cwd: root });
    expect(code).toBe(0);
    const printed = out.join('');
    const schema = JSON.parse(printed);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['zones', 'network', 'registry', 'services', 'providers', 'consumers', 'routers', 'faults', 'strategies']),
    );
    // Regenerate with: node bin/zonesim.js schema > scenario.schema.json
    expect(readFileSync(join(root, 'scenario.schema.json'), 'utf8')).toBe(printed);
  });
});
