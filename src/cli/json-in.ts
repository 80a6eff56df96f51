/**
 * JSON input larger than one JavaScript string: parses the bytes of a results file into what
 * `JSON.parse` gives for their text, without ever making that text one string (V8 caps a string at
 * about 512 MB, and zonesim writes larger sweeps). Containers larger than a piece are walked member
 * by member; everything smaller is handed to `JSON.parse` whole. Also finds the byte offset of a
 * field in such a file, for positioned errors. Structural characters are ASCII, so a piece never
 * cuts a UTF-8 sequence.
 */

/** Values whose text is at most this many bytes are parsed by one JSON.parse. */
const PIECE_BYTES = 16 * 1024 * 1024;
/** Containers larger than a piece nested deeper than this are refused (zonesim's documents nest about 8 deep). */
const MAX_WALK_DEPTH = 64;

/** Bytes that are not valid JSON: `offset` is where, `message` says what was expected there. */
export class JsonBytesError extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(message);
    this.name = 'JsonBytesError';
    this.offset = offset;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isOpen = (c: number | undefined) => c === 0x7b || c === 0x5b;
const isClose = (c: number | undefined) => c === 0x7d || c === 0x5d;

/** 1 for the bytes that matter when looking for a value's end: `"`, `{`, `}`, `[`, `]`. */
const STRUCTURAL = new Uint8Array(256);
for (const c of '"{}[]') STRUCTURAL[c.charCodeAt(0)] = 1;

/** The first index at or after `i` that is not JSON whitespace. */
function skipSpace(bytes: Uint8Array, i: number): number {
  while (isSpace(bytes[i])) i++;
  return i;
}

/** Just past the string that starts with the quote at `i`. */
function stringEnd(bytes: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = bytes.indexOf(QUOTE, from);
    if (q < 0) throw new JsonBytesError(i, 'a string that never ends');
    let backslashes = 0;
    while (bytes[q - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Just past the value that starts at `i` (not checked inside: JSON.parse or the walk does that), or
 * -1 for a list or map that does not end within `limit` bytes (a large one, to be walked).
 */
function valueEnd(bytes: Buffer, i: number, limit = Infinity): number {
  const c = bytes[i];
  if (c === QUOTE) return stringEnd(bytes, i);
  if (isOpen(c)) {
    let depth = 0;
    const stop = Math.min(bytes.length, i + limit + 1);
    for (let k = i; k < stop; k++) {
      const b = bytes[k]!;
      // PERF: most bytes are digits, letters and spaces; one table lookup passes them.
      if (STRUCTURAL[b] === 0) continue;
      if (b === QUOTE) k = stringEnd(bytes, k) - 1;
      else if (isOpen(b)) depth++;
      else if (--depth === 0) return k + 1;
    }
    if (stop < bytes.length) return -1;
    throw new JsonBytesError(i, c === 0x7b ? 'the text ends inside a map' : 'the text ends inside a list');
  }
  let k = i;
  while (k < bytes.length && !isSpace(bytes[k]) && bytes[k] !== 0x2c && !isClose(bytes[k]) && !isOpen(bytes[k]) && bytes[k] !== QUOTE && bytes[k] !== 0x3a) k++;
  if (k === i) throw new JsonBytesError(i, i >= bytes.length ? 'the text ends where a value was expected' : 'expected a value (a number, string, true, false, null, { or [)');
  return k;
}

/**
 * Where the list or map opening at `i` ends if the text is indented as JSON.stringify indents it
 * (zonesim's files are): at the first closer on a line indented as the opening one. PERF: one
 * `indexOf` instead of looking at every byte; -1 when there is no such line. Only a guess: a slice
 * that JSON.parse accepts is a whole value (a shorter or longer one is not), anything else is
 * looked at byte by byte after all.
 */
function indentedEnd(bytes: Buffer, i: number, closers: Map<number, Buffer>): number {
  const lineStart = bytes.lastIndexOf(0x0a, i) + 1;
  let spaces = 0;
  while (bytes[lineStart + spaces] === 0x20) spaces++;
  const key = spaces * 2 + (bytes[i] === 0x7b ? 1 : 0);
  let closer = closers.get(key);
  if (closer === undefined) {
    closer = Buffer.from(`\n${' '.repeat(spaces)}${bytes[i] === 0x7b ? '}' : ']'}`);
    closers.set(key, closer);
  }
  const at = bytes.indexOf(closer, i);
  return at < 0 ? -1 : at + closer.length;
}

/** JSON.parse of bytes[from, to); a syntax error becomes a JsonBytesError at its offset. */
function parsePiece(bytes: Buffer, from: number, to: number, explain: (text: string) => { offset: number; message: string } | undefined): unknown {
  const text = bytes.toString('utf8', from, to);
  try {
    return JSON.parse(text);
  } catch (error) {
    const problem = explain(text);
    throw new JsonBytesError(from + (problem?.offset ?? 0), problem?.message ?? (error as Error).message);
  }
}

/** Sets a member as JSON.parse does: `__proto__` becomes an own property, not the prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * What `JSON.parse(bytes.toString('utf8'))` gives, for bytes of any length a Buffer holds.
 * `explain` turns a piece's text that JSON.parse refused into the offset and reason of the problem
 * (`scanJson` in report-input.ts); throws JsonBytesError.
 */
export function parseJsonBytes(
  bytes: Buffer,
  explain: (text: string) => { offset: number; message: string } | undefined = () => undefined,
  pieceBytes = PIECE_BYTES,
): unknown {
  const closers = new Map<number, Buffer>();
  const parse = (i: number, depth: number): [unknown, number] => {
    const guess = isOpen(bytes[i]) ? indentedEnd(bytes, i, closers) : -1;
    if (guess >= 0 && guess - i <= pieceBytes) {
      try {
        return [JSON.parse(bytes.toString('utf8', i, guess)), guess];
      } catch {
        // Not what it looked like: found the long way below.
      }
    }
    // A value that ends within a piece is parsed whole; a larger list or map is walked (and the walk finds its end).
    const end = guess - i > pieceBytes ? -1 : valueEnd(bytes, i, pieceBytes);
    if (end >= 0) return [parsePiece(bytes, i, end, explain), end];
    if (depth >= MAX_WALK_DEPTH) throw new JsonBytesError(i, `nested more than ${MAX_WALK_DEPTH} levels deep in a large file`);
    const array = bytes[i] === 0x5b;
    const close = array ? 0x5d : 0x7d;
    const items: unknown[] = [];
    const members: Record<string, unknown> = {};
    let j = skipSpace(bytes, i + 1);
    if (bytes[j] === close) return [array ? items : members, j + 1];
    for (;;) {
      let key = '';
      if (!array) {
        if (bytes[j] !== QUOTE) throw new JsonBytesError(j, 'expected a key in double quotes');
        const keyEnd = stringEnd(bytes, j);
        key = parsePiece(bytes, j, keyEnd, explain) as string;
        j = skipSpace(bytes, keyEnd);
        if (bytes[j] !== 0x3a) throw new JsonBytesError(j, 'expected ":" after a key');
        j = skipSpace(bytes, j + 1);
      }
      const [value, after] = parse(j, depth + 1);
      if (array) items.push(value);
      else setMember(members, key, value);
      j = skipSpace(bytes, after);
      if (bytes[j] === close) return [array ? items : members, j + 1];
      if (j >= bytes.length) throw new JsonBytesError(j, array ? 'the text ends inside a list' : 'the text ends inside a map');
      if (bytes[j] !== 0x2c) throw new JsonBytesError(j, array ? 'expected "," or "]" after a list item' : 'expected "," or "}" after a value in a map');
      j = skipSpace(bytes, j + 1);
    }
  };
  const start = skipSpace(bytes, 0);
  if (start >= bytes.length) throw new JsonBytesError(start, 'the file is empty');
  const [value, end] = parse(start, 0);
  const rest = skipSpace(bytes, end);
  if (rest < bytes.length) throw new JsonBytesError(rest, 'unexpected text after the JSON value');
  return value;
}

/**
 * The byte offset of the value at `path` in valid JSON `bytes`, or of its deepest ancestor there
 * (for an error about a field of a file too large for one string).
 */
export function locateJsonBytes(bytes: Buffer, path: ReadonlyArray<string | number>): number {
  let i = skipSpace(bytes, 0);
  for (const segment of path) {
    const array = bytes[i] === 0x5b;
    if (!isOpen(bytes[i])) return i;
    let j = skipSpace(bytes, i + 1);
    let index = 0;
    let found = false;
    while (!isClose(bytes[j]) && j < bytes.length) {
      let key: string | number = index;
      if (!array) {
        const keyEnd = stringEnd(bytes, j);
        key = JSON.parse(bytes.toString('utf8', j, keyEnd)) as string;
        j = skipSpace(bytes, skipSpace(bytes, keyEnd) + 1);
      }
      if (String(key) === String(segment)) {
        found = true;
        break;
      }
      j = skipSpace(bytes, valueEnd(bytes, j));
      if (bytes[j] === 0x2c) j = skipSpace(bytes, j + 1);
      index++;
    }
    if (!found) return i;
    i = j;
  }
  return i;
}

/** Line and column (1-based, the column in bytes) of a byte offset. */
export function lineAndColumn(bytes: Buffer, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = bytes.indexOf(0x0a); nl >= 0 && nl < offset; nl = bytes.indexOf(0x0a, nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, col: offset - lineStart + 1 };
}
