// The two readers of `samples` CSV files: a file without quotes is read line by line, any other
// through csv-parse. On every plain file, however awkward, both must give the same values or the
// same positioned error, so which reader ran never shows.
import { describe, expect, it } from 'vitest';
import { isPlainCsv } from '../../src/scenario/csv-records.js';
import { parseSamplesCsv } from '../../src/scenario/data-files.js';

type Opts = { column?: string; unit?: 'ms' | 's' | 'us' };

/** Plain files (no quote, line ends all \n or all \r\n) with what makes CSV reading subtle. */
const PLAIN: Array<[string, string, Opts]> = [
  ['header and values', 'rt\n3\n1\n2\n', {}],
  ['no header, no final line end', '3\n1\n2', {}],
  ['BOM and CRLF', '\ufeffrt\r\n5\r\n4\r\n', {}],
  ['comments, indented comments and blank lines', '# export\n  # indented\n\nrt\n1\n   \n#2\n\t\n3\n', {}],
  ['a named column, ragged rows', 'ts,rt_ms,x\n1,10\n2,20,y\n3\n', { column: 'rt_ms' }],
  ['a named column, other case', 'ts;RT\n1;10\n2;0.5\n', { column: 'rt' }],
  ['tab-delimited with leading tabs, a tab before #, a tab-only line', 'a\tb\n\t5\n\t# c\n\t\n1\t2\n', { column: 'b' }],
  ['blanks around fields, unicode blanks', 'ts , rt\n1 ,\u00a0 7\u3000\n2,\t8 \n', { column: 'rt' }],
  ['trailing delimiters', 'ts,rt,\n1,4,\n2,6,\n', { column: 'rt' }],
  ['a comment mark inside a field is text', 'ts,rt\n1,#2\n', { column: 'rt' }],
  ['seconds', '0.012\n0.0105\n0.2\n', { unit: 's' }],
  ['bad cells: text, negative, a unit, too large, empty', 'rt\n1\nabc\n-2\n5ms\n1e400\n\n7\n', {}],
  ['a bad cell in the second column', 'ts,rt\n1,  x\n', { column: 'rt' }],
  ['an empty file', '', {}],
  ['only blank lines and comments', '\n# x\n\n', {}],
  ['a header only', 'rt\n', {}],
  ['two columns without column:', 'a,b\n1,2\n', {}],
  ['a column that is not there', 'a,b\n1,2\n', { column: 'c' }],
  ['two columns that match ignoring case', 'RT,rt2,Rt\n1,2,3\n', { column: 'rt' }],
];

describe('samples CSV: the line reader and csv-parse read plain files alike', () => {
  it.each(PLAIN)('%s', (_name, text, opts) => {
    expect(isPlainCsv(text)).toBe(true);
    const lines = parseSamplesCsv(text, opts);
    const csvParse = parseSamplesCsv(text, { ...opts, reader: 'csv-parse' });
    expect(lines).toEqual(csvParse);
  });

  it('the cases above cover values, positioned errors and the header checks (so the comparison compares something)', () => {
    const results = PLAIN.map(([, text, opts]) => parseSamplesCsv(text, opts));
    expect(results.filter((r) => r.ok).length).toBeGreaterThanOrEqual(8);
    const messages = results.flatMap((r) => (r.ok ? [] : [r.message]));
    for (const m of ['expected a number', 'no column', 'columns: name one', 'holds no values (it is empty)', 'below its header row', 'more bad rows']) {
      expect(messages.some((x) => x.includes(m))).toBe(true);
    }
  });

  it('reads values in the file unit, sorted, as 8-byte floats', () => {
    const r = parseSamplesCsv('ts\telapsed_us\n1\t1500\n2\t900\n', { column: 'elapsed_us', unit: 'us' });
    expect(r).toEqual({ ok: true, value: Float64Array.of(0.9, 1.5) });
  });
});

describe('samples CSV: files that need csv-parse', () => {
  it('quoted fields (a Kibana export) and lone \\r line ends are read by csv-parse', () => {
    const kibana = '"@timestamp","rt_ms"\n"May 14, 2024 @ 10:00:00.060","11.5"\n"May 14, 2024 @ 10:00:00.067","2"\n';
    expect(isPlainCsv(kibana)).toBe(false);
    expect(parseSamplesCsv(kibana, { column: 'rt_ms' })).toEqual({ ok: true, value: Float64Array.of(2, 11.5) });
    const oldMac = 'rt\r3\r1\r';
    expect(isPlainCsv(oldMac)).toBe(false);
    expect(parseSamplesCsv(oldMac, {})).toEqual({ ok: true, value: Float64Array.of(1, 3) });
  });

  it('a first line ending in \\r\\n and a later one in \\n alone is left to csv-parse, which reads them differently', () => {
    const mixed = 'rt\r\n1\n2\r\n';
    expect(isPlainCsv(mixed)).toBe(false);
    // csv-parse keeps the first line end it meets: "1\n2" is one field.
    expect(parseSamplesCsv(mixed, {})).toMatchObject({ ok: false, at: { line: 3, col: 1 } });
  });

  it('a broken quote is reported at its line, without quoting the file', () => {
    const r = parseSamplesCsv('rt\n1\n"2\n3\n', {});
    expect(r).toMatchObject({ ok: false, message: 'not a readable CSV file: a quote that is never closed' });
  });
});
