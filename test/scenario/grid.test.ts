import { describe, expect, it } from 'vitest';
import {
  cellSets,
  expandRange,
  gridCells,
  inShard,
  numericValue,
  parseGridFile,
  parseGridOption,
  parseShard,
  shellWord,
  splitTopLevel,
} from '../../src/scenario/grid.js';
import { UsageError } from '../../src/scenario/io.js';
import { ScenarioError } from '../../src/scenario/load.js';

describe('grid values', () => {
  it('expands a duration range inclusively, in the unit the range is written in', () => {
    expect(expandRange('100ms..500ms/100ms')).toEqual(['100ms', '200ms', '300ms', '400ms', '500ms']);
    expect(expandRange('1s..3s')).toEqual(['1s', '2s', '3s']);
  });

  it('writes a range with mixed units in milliseconds', () => {
    expect(expandRange('500ms..2s/500ms')).toEqual(['500ms', '1000ms', '1500ms', '2000ms']);
  });

  it('expands number ranges without floating-point noise', () => {
    expect(expandRange('0..3')).toEqual(['0', '1', '2', '3']);
    expect(expandRange('0.1..0.5/0.1')).toEqual(['0.1', '0.2', '0.3', '0.4', '0.5']);
  });

  it('stops at the last step that does not pass the end', () => {
    expect(expandRange('100ms..350ms/100ms')).toEqual(['100ms', '200ms', '300ms']);
  });

  it('is no range for plain values', () => {
    expect(expandRange('100ms')).toBeUndefined();
    expect(expandRange('zoneAware')).toBeUndefined();
  });

  it.each([
    ['1s..100ms', /end is below the start/],
    ['1..5/0', /step must be above 0/],
    ['1ms..1h/1ms', /at most 10000 per axis/],
    ['a..b', /not a range/],
    ['100ms..5', /same kind of value/],
  ])('refuses the bad range %s', (text, message) => {
    expect(() => expandRange(text)).toThrow(message);
  });

  it('splits values at top-level commas only, so flow maps stay whole', () => {
    expect(splitTopLevel('0, 1,{dist: constant, value: 5ms},"a,b"')).toEqual(['0', '1', '{dist: constant, value: 5ms}', '"a,b"']);
  });

  it('reads numbers and durations as numbers for charts, anything else not', () => {
    expect(numericValue('250ms')).toBe(250);
    expect(numericValue('1.5s')).toBe(1500);
    expect(numericValue('3')).toBe(3);
    expect(numericValue('random')).toBeUndefined();
  });
});

describe('--grid', () => {
  it('takes a --set path (quoted keys with dots and "=" included) and a list with ranges', () => {
    expect(parseGridOption('consumers[0].reference["a.b=c"].timeout=50ms,100ms..300ms/100ms,1s')).toEqual({
      path: 'consumers[0].reference["a.b=c"].timeout',
      values: ['50ms', '100ms', '200ms', '300ms', '1s'],
    });
  });

  it.each([
    ['no "="', 'retries', /expected path=v1,v2/],
    ['an empty value', 'retries=0,,1', /an empty value/],
    ['a value twice', 'retries=0,1,0', /the value 0 appears twice/],
    ['a malformed path', 'consumers[x].retries=1', /expected a list index/],
    ['a value that is not YAML', 'x={a: 1', /not a YAML value/],
  ])('refuses %s as a usage error', (_label, expr, message) => {
    let error: unknown;
    try {
      parseGridOption(expr);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(`--grid ${expr}`);
  });
});

describe('--grid-file', () => {
  it('reads lists and range strings, keeping scalars as written', () => {
    const axes = parseGridFile(
      ['consumers[0].consumerDefaults.timeout: 100ms..300ms/100ms', 'consumers[0].consumerDefaults.retries: [0, 1, 2]', 'name: ["1", plain]', ''].join('\n'),
      'grid.yaml',
    );
    expect(axes).toEqual([
      { path: 'consumers[0].consumerDefaults.timeout', values: ['100ms', '200ms', '300ms'] },
      { path: 'consumers[0].consumerDefaults.retries', values: ['0', '1', '2'] },
      { path: 'name', values: ['"1"', 'plain'] },
    ]);
  });

  it('names file, line and column of a bad axis', () => {
    let error: unknown;
    try {
      parseGridFile('a: [1, 2]\nb: {x: 1}\n', 'grid.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).format()).toMatch(/^grid\.yaml:2:4: b: expected a list of values/);
  });
});

describe('cells', () => {
  const axes = [
    { path: 'a', values: ['1', '2', '3'] },
    { path: 'b', values: ['x', 'y'] },
  ];

  it('puts strategies outermost, then the axes as given, the last axis fastest', () => {
    const cells = gridCells(axes, ['s1', 's2']);
    expect(cells).toHaveLength(12);
    expect(cells.map((c) => c.index)).toEqual([...Array(12).keys()]);
    expect(cells.slice(0, 3).map((c) => [c.strategy, c.values.a, c.values.b])).toEqual([
      ['s1', '1', 'x'],
      ['s1', '1', 'y'],
      ['s1', '2', 'x'],
    ]);
    expect(cells[6]).toEqual({ index: 6, strategy: 's2', values: { a: '1', b: 'x' } });
  });

  it('has one strategy, null, when none is given', () => {
    expect(gridCells(axes, []).map((c) => c.strategy)).toEqual(Array(6).fill(null));
  });

  it('makes one --set per axis', () => {
    expect(cellSets(gridCells(axes, [])[5]!)).toEqual(['a=3', 'b=y']);
  });
});

describe('--shard', () => {
  it('parses k/n and picks the indexes i with i mod n = k-1', () => {
    const shard = parseShard('2/3');
    expect(shard).toEqual({ k: 2, n: 3 });
    expect([...Array(8).keys()].filter((i) => inShard(i, shard))).toEqual([1, 4, 7]);
  });

  it.each(['0/3', '4/3', '1/0', '1', 'a/b', '-1/2', '1.5/3'])('refuses %s', (text) => {
    expect(() => parseShard(text)).toThrow(/--shard: expected k\/n with 1 <= k <= n/);
  });
});

describe('shell words', () => {
  it('quotes only what the shell would change', () => {
    expect(shellWord('duration=4s')).toBe('duration=4s');
    expect(shellWord('consumers[0].reference["a.b"].timeout=1s')).toBe(`'consumers[0].reference["a.b"].timeout=1s'`);
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
