import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';
import { ALIAS_COUNT_PER_ALIAS, MIN_ALIAS_COUNT, maxAliasCountOf } from '../../src/scenario/yaml-aliases.js';

// The seed scale's pattern: one anchored method table, one alias per service.
function estate(services: number, extra = ''): string {
  const lines = [
    'zones: { zoneA: {}, zoneB: {} }',
    'x-call: &call { methods: { call: { serviceTime: 5ms } } }',
    extra,
    'services:',
  ];
  for (let i = 0; i < services; i++) lines.push(`  com.w.S${i}: *call`);
  lines.push(
    'providers:',
    '  - { service: com.w.S0, zone: zoneA }',
    'consumers:',
    '  - { zone: zoneA, rate: 10, calls: { com.w.S0.call: 1 } }',
  );
  return `${lines.join('\n')}\n`;
}

// Nine anchors, each but the first a list of ten aliases of the one before: 10^9 values from 80 aliases.
const BOMB = ['x-l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]']
  .concat(Array.from({ length: 8 }, (_, k) => `x-l${k + 1}: &l${k + 1} [${Array(10).fill(`*l${k}`).join(', ')}]`))
  .join('\n');

function refusal(text: string): string {
  try {
    parseScenario(text, 'bomb.yaml');
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return e.issues.map((i) => `${i.file}:${i.line}:${i.col}: ${i.message}`).join('\n');
  }
  throw new Error('expected a refusal');
}

describe('YAML aliases: the bound grows with the aliases written', () => {
  it('counts the aliases written in the file', () => {
    expect(maxAliasCountOf(parseDocument('a: &a 1\nb: *a\nc: *a\n'))).toBe(MIN_ALIAS_COUNT);
    const many = parseDocument(estate(12_000));
    expect(maxAliasCountOf(many)).toBe(ALIAS_COUNT_PER_ALIAS * 12_000);
  });

  it('loads an estate of 12,000 services that share one anchored method table (refused at 10,000 before)', () => {
    const s = parseScenario(estate(12_000), 'wide.yaml');
    expect(Object.keys(s.services)).toHaveLength(12_000);
    expect(s.services['com.w.S11999']!.methods.call!.serviceTime).toEqual(s.services['com.w.S0']!.methods.call!.serviceTime);
  });

  it('refuses aliases that multiply, naming the bound, also in a file with many flat aliases', () => {
    expect(refusal(estate(1, BOMB))).toMatch(
      /^bomb\.yaml:1:1: YAML: Excessive alias count indicates a resource exhaustion attack: its aliases expand to more than 10,000 values \(4 per alias written, at least 10,000\)/,
    );
    // 4 x (12,000 + 80) aliases written.
    expect(refusal(estate(12_000, BOMB))).toMatch(/expand to more than 48,320 values/);
  });
});
