import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { parseScenario } from '../../src/scenario/load.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';

/** Where the yaml library's own (quadratic) duplicate-key check reports, as `line:col`. */
function libraryDuplicates(text: string): string[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, merge: true });
  return doc.errors.filter((e) => e.code === 'DUPLICATE_KEY').map((e) => {
    const { line, col } = lc.linePos(e.pos[0]);
    return `${line}:${col}`;
  });
}

/** The duplicate-key issues a scenario load reports, as `line:col`. */
function reported(text: string): string[] {
  try {
    parseScenario(text, 'dup.yaml');
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return e.issues.filter((i) => i.message === 'YAML: Map keys must be unique').map((i) => `${i.line}:${i.col}`);
  }
  return [];
}

// Each case with how many duplicates the parser finds.
const cases: Record<string, [string, number]> = {
  'a top-level key twice': ['name: x\nzones: {}\nname: y\n', 1],
  'a zone twice, three times': ['zones:\n  a: {}\n  b: {}\n  a: {}\n  a: {}\n', 2],
  'in a flow map': ['zones: { a: {}, b: {}, a: {} }\n', 1],
  'deep inside a list': ['providers:\n  - name: p\n    zone: a\n    zone: b\n  - name: q\n    services: [s]\n    services: [t]\n', 2],
  'a number and a string of the same digits are two keys': ['x-a:\n  1: a\n  "1": b\n  1: c\n', 1],
  'equal keys in different maps are no duplicates': ['x-a: { k: 1 }\nx-b: { k: 2 }\n', 0],
};

describe('duplicate keys in a scenario file', () => {
  it.each(Object.entries(cases))('are reported where the YAML parser reports them: %s', (_name, [text, n]) => {
    expect(libraryDuplicates(text)).toHaveLength(n);
    expect(reported(text)).toEqual(libraryDuplicates(text));
  });

  it('are found in a map of thousands of services, each at its line', () => {
    const lines = ['services:'];
    for (let i = 0; i < 4000; i++) lines.push(`  com.x.S${i}: { methods: { call: {} } }`);
    lines.push('  com.x.S17: { methods: { call: {} } }', '  com.x.S3999: { methods: { call: {} } }');
    expect(reported(lines.join('\n') + '\n')).toEqual(['4002:3', '4003:3']);
  });
});
