/**
 * The records of a CSV export, one at a time and never all at once (a 100 MB data file holds
 * millions of rows): a file without quotes is read line by line, any other through csv-parse,
 * which the line reader matches on the files it takes (test/scenario/samples-csv-readers.test.ts).
 * The delimiter (`,` `;` or tab) is sniffed; `#` comment lines and blank lines are skipped and
 * fields trimmed. What the records mean is `data-files.ts`'s business; a reason here never quotes
 * the file.
 */
import { parse as parseCsv } from 'csv-parse/sync';

/** One record: its fields (trimmed), the line it ends on, and the 1-based column where a field starts. */
export interface CsvRecord {
  fields: string[];
  line: number;
  column: (index: number) => number;
}

/** What a record visitor says: go on to the next record, or stop reading. */
export type Visit = (record: CsvRecord) => 'next' | 'stop';

/** Why a file cannot be read as CSV at all (a broken quote), and where. */
export interface CsvFailure {
  at: { line: number; col: number };
  message: string;
}

/**
 * Hands every record of `text` to `visit` in order, until it says stop; returns the failure if the
 * file is not readable CSV. `reader: 'csv-parse'` sends even plain files through csv-parse (for
 * tests that compare the two readers).
 */
export function readCsvRecords(text: string, visit: Visit, reader?: 'csv-parse'): CsvFailure | undefined {
  const delimiter = sniffDelimiter(text);
  if (reader === undefined && isPlainCsv(text)) {
    readPlainCsv(text, delimiter, visit);
    return undefined;
  }
  return readWithCsvParse(text, delimiter, visit);
}

/** The most records `text` can hold: one per line (lines end at \n, \r\n or a lone \r, as csv-parse reads them). */
export function maxRecords(text: string): number {
  return countOf(text, '\n') + countOf(text, '\r') - countOf(text, '\r\n') + 1;
}

/** csv-parse's error codes in words; its own messages can quote the field they stopped at. */
function csvProblem(code: string | undefined): string {
  switch (code) {
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside a field that does not start with one';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'a closing quote followed by something other than a delimiter or the end of the line';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote that is never closed';
    case 'CSV_MAX_RECORD_SIZE':
      return 'a record larger than the parser takes';
    default:
      return `the CSV parser stopped (${code ?? 'unknown error'})`;
  }
}

/**
 * The delimiter of a CSV export: the most frequent of `,` `;` tab on its first data line (outside
 * quotes). Looks at lines one at a time: splitting a 100 MB file into lines costs more than reading it.
 */
function sniffDelimiter(text: string): string {
  let first = '';
  for (let start = 0; start < text.length; ) {
    const end = lineEnd(text, start);
    const line = text.slice(start, end).replace(/\r$/, '');
    if (line.trim() !== '' && !line.trimStart().startsWith('#')) {
      first = line;
      break;
    }
    start = end + 1;
  }
  const unquoted = first.replace(/"[^"]*"/g, '');
  let best = ',';
  let bestCount = 0;
  for (const d of [',', ';', '\t']) {
    const n = unquoted.split(d).length - 1;
    if (n > bestCount) [best, bestCount] = [d, n];
  }
  return best;
}

/** Where the line that starts at `start` ends: the index of its `\n`, or the end of the text. */
function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start);
  return end < 0 ? text.length : end;
}

function countOf(text: string, piece: string): number {
  let n = 0;
  for (let i = text.indexOf(piece); i >= 0; i = text.indexOf(piece, i + piece.length)) n++;
  return n;
}

/**
 * True when splitting lines at `\n` and fields at the delimiter reads `text` exactly as csv-parse
 * does: no quote anywhere, and no carriage return other than in `\r\n` line ends used throughout
 * (csv-parse takes the first line end it meets as the only one).
 */
export function isPlainCsv(text: string): boolean {
  if (text.includes('"')) return false;
  const cr = countOf(text, '\r');
  return cr === 0 || (cr === countOf(text, '\r\n') && cr === countOf(text, '\n'));
}

/**
 * The records of a plain CSV file (`isPlainCsv`), one line at a time, with csv-parse's reading
 * under the options of `readWithCsvParse`: a leading BOM dropped, fields trimmed, blank lines and
 * lines whose first non-blank is `#` skipped. No per-row object outlives its visit.
 */
function readPlainCsv(text: string, delimiter: string, visit: Visit): void {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let line = 1; start <= text.length; line++) {
    const end = lineEnd(text, start);
    const raw = text.slice(start, end);
    start = end + 1;
    // Blanks before a comment mark or the end of the line; a blank delimiter (tab) starts a field.
    let i = 0;
    while (i < raw.length && raw[i] !== delimiter && isBlank(raw.charCodeAt(i))) i++;
    if (i === raw.length || raw[i] === '#') continue;
    const fields = raw.includes(delimiter) ? raw.split(delimiter).map((f) => f.trim()) : [raw.trim()];
    if (visit({ fields, line, column: (index) => fieldColumn(raw, index, delimiter) }) === 'stop') return;
  }
}

/** What JavaScript's trim() and csv-parse's trim option take for white space (the same set). */
function isBlank(code: number): boolean {
  if (code > 32 && code < 127) return false;
  return (
    code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

const STOP = Symbol('stop');

/** The records of any CSV file through csv-parse (quoted fields, lone `\r` line ends), handed over one at a time. */
function readWithCsvParse(text: string, delimiter: string, visit: Visit): CsvFailure | undefined {
  try {
    parseCsv(text, {
      bom: true,
      delimiter,
      comment: '#',
      comment_no_infix: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      raw: true,
      // Records are not collected: each is visited and dropped.
      on_record: (record, info) => {
        // With raw: true csv-parse hands over { record, raw } where its types say string[].
        const r = record as unknown as { record: string[]; raw: string };
        const column = (index: number) => fieldColumn(r.raw.replace(/\r?\n$/, '').split(/\r?\n/).pop() ?? '', index, delimiter);
        if (visit({ fields: r.record, line: info.lines, column }) === 'stop') throw STOP;
        return null;
      },
    });
  } catch (e) {
    if (e === STOP) return undefined;
    const err = e as Error & { lines?: number; code?: string };
    return { at: { line: err.lines ?? 1, col: 1 }, message: `not a readable CSV file: ${csvProblem(err.code)}` };
  }
  return undefined;
}

/** 1-based column of field `index` in the last line of its record (1 when quoting makes it unclear). */
function fieldColumn(line: string, index: number, delimiter: string): number {
  if (line.includes('"')) return 1;
  const fields = line.split(delimiter);
  let col = 1;
  for (let i = 0; i < index && i < fields.length; i++) col += fields[i]!.length + delimiter.length;
  const field = fields[index] ?? '';
  return col + (field.length - field.trimStart().length);
}
