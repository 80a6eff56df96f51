/**
 * JSON output in pieces: the exact text `JSON.stringify(value, null, 2)` (or compact) gives, written
 * through a callback a piece at a time, so a document larger than the longest JavaScript string
 * (about 512 MB: a sweep of many cells, a million-bucket timeline) can be written and printed.
 * Values whose text is small are stringified whole (fast); larger arrays and objects are walked
 * member by member, and the runs of small array items between them are stringified in batches.
 */

/** What a file or stdout gets: a string, or a writer that hands its text over in pieces. */
export type Body = string | ((write: (chunk: string) => void) => void);

/** Hands `body` to `write` (a string at once, a writer's pieces as they come). */
export function emitBody(body: Body, write: (chunk: string) => void): void {
  if (typeof body === 'string') write(body);
  else body(write);
}

/** The whole text of a body (for tests and small documents). */
export function bodyText(body: Body): string {
  const parts: string[] = [];
  emitBody(body, (s) => parts.push(s));
  return parts.join('');
}

/** Documents whose text is about this size or less are made one string, written and printed as such. */
const ONE_STRING_CHARS = 32 * 1024 * 1024;

/**
 * `JSON.stringify(value, null, 2) + '\n'` for results files and `--json` output: one string when the
 * document is small, else a body written in pieces (each time it is written or printed).
 */
export function jsonBody(value: unknown): Body {
  if (estimate(value) <= ONE_STRING_CHARS) {
    try {
      return JSON.stringify(value, null, 2) + '\n';
    } catch (error) {
      // Larger than the estimate said, and too long for one string: in pieces after all.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return (write) => {
    writeJson(value, write, { indent: 2 });
    write('\n');
  };
}

// PERF: pieces small enough to be born and die in V8's young generation (a string above 128 KB goes
// straight to the old one, which keeps the garbage until a full collection): writing a long run's 53 MB
// summary.json in 4 MB pieces raised peak RSS by 95 MB, in 64 KB pieces by 55 MB, and was no faster.
/** Roughly how many characters of JSON text are stringified in one piece. */
const PIECE_CHARS = 64 * 1024;
/** Small pieces are gathered up to about this many characters before `write` gets them. */
const FLUSH_CHARS = 64 * 1024;

export interface WriteJsonOptions {
  /** Spaces per level, as JSON.stringify's third argument (0: compact). */
  indent?: number;
  /** Text size below which a value is stringified whole (tests make it tiny to walk everything). */
  pieceChars?: number;
}

/**
 * Writes the text `JSON.stringify(value, null, indent)` gives, in pieces, to `write`. Like
 * JSON.stringify: `toJSON` is called, `undefined`, functions and symbols are left out of objects and
 * are `null` in arrays, non-finite numbers are `null`, a BigInt throws. (A `toJSON` inside a batch of
 * array items gets its index in the batch as key; zonesim's documents have none.)
 */
export function writeJson(value: unknown, write: (chunk: string) => void, options: WriteJsonOptions = {}): void {
  const gap = ' '.repeat(options.indent ?? 0);
  const budget = options.pieceChars ?? PIECE_CHARS;
  const pending: string[] = [];
  let pendingChars = 0;
  const push = (s: string) => {
    if (s.length >= FLUSH_CHARS) {
      // A large piece goes as it is: joining it to the small ones before would only copy it.
      flush();
      write(s);
      return;
    }
    pending.push(s);
    pendingChars += s.length;
    if (pendingChars >= FLUSH_CHARS) flush();
  };
  const flush = () => {
    if (pending.length === 0) return;
    write(pending.join(''));
    pending.length = 0;
    pendingChars = 0;
  };
  // A small value's own text, indented to sit at `indent`; undefined when it is too long for one string after all.
  const whole = (v: unknown, indent: string): string | undefined => {
    try {
      if (gap === '' || indent === '') return JSON.stringify(v, null, gap)!;
      // PERF: JSON.stringify indents a value nested in `depth` lists as deep as it sits here, much
      // faster than indenting its text afterwards; the lists' own brackets are cut off again.
      const depth = indent.length / gap.length;
      let wrapped = v;
      for (let d = 0; d < depth; d++) wrapped = [wrapped];
      const text = JSON.stringify(wrapped, null, gap)!;
      const open = depth * 2 + gap.length * ((depth * (depth + 1)) / 2); // "[\n" + gap×(l+1) for each level l
      const close = depth * 2 + gap.length * ((depth * (depth - 1)) / 2); // "\n" + gap×l + "]" for each level l
      return text.slice(open, text.length - close);
    } catch (error) {
      if (error instanceof RangeError && typeof v === 'object' && v !== null) return undefined;
      throw error;
    }
  };
  const separator = (first: boolean, inner: string) => (gap === '' ? (first ? '' : ',') : `${first ? '' : ','}\n${inner}`);

  const emit = (v: unknown, indent: string): void => {
    // Only list items come here as these (members that are are left out before).
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') {
      push('null');
      return;
    }
    if (v === null || typeof v !== 'object') {
      push(whole(v, indent)!);
      return;
    }
    const text = estimate(v) <= budget ? whole(v, indent) : undefined;
    if (text !== undefined) push(text);
    else if (Array.isArray(v)) emitList(v, indent);
    else emitMap(v as Record<string, unknown>, indent);
  };

  // Items in runs of about `budget` characters, each run one JSON.stringify with its brackets cut off.
  const emitList = (v: unknown[], indent: string): void => {
    const inner = indent + gap;
    push('[');
    let i = 0;
    while (i < v.length) {
      let used = 0;
      let j = i;
      while (j < v.length) {
        const size = estimate(v[j]);
        if (j > i && used + size > budget) break;
        used += size + 1;
        j++;
      }
      const text = used <= budget ? whole(v.slice(i, j), indent) : undefined;
      if (text !== undefined) {
        push(separator(i === 0, inner) + (gap === '' ? text.slice(1, -1) : text.slice(2 + inner.length, -2 - indent.length)));
      } else {
        for (let k = i; k < j; k++) {
          push(separator(k === 0, inner));
          emit(item(v[k], String(k)), inner);
        }
      }
      i = j;
    }
    push(gap === '' || v.length === 0 ? ']' : `\n${indent}]`);
  };

  const emitMap = (v: Record<string, unknown>, indent: string): void => {
    const inner = indent + gap;
    push('{');
    let first = true;
    for (const key of Object.keys(v)) {
      const member = item(v[key], key);
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      push(`${separator(first, inner)}${JSON.stringify(key)}:${gap === '' ? '' : ' '}`);
      emit(member, inner);
      first = false;
    }
    push(gap === '' || first ? '}' : `\n${indent}}`);
  };

  const top = item(value, '');
  // JSON.stringify gives no text at all for these.
  if (top === undefined || typeof top === 'function' || typeof top === 'symbol') return;
  emit(top, '');
  flush();
}

/** A member as JSON.stringify sees it: after `toJSON`; `undefined` (and functions, symbols) as `null` in arrays is the caller's business. */
function item(v: unknown, key: string): unknown {
  if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return (v as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  return v;
}

/** How many items of a list `estimate` looks at. */
const SAMPLES = 8;

/**
 * About how many characters `v`'s JSON text takes, indentation left out: maps by all their
 * members, lists by a few items spread over them (zonesim's lists hold items of one kind).
 * Cheap whatever the size; only the size of the pieces depends on it, never the text, and a
 * piece too long for a string after all is walked instead.
 */
function estimate(v: unknown, depth = 0): number {
  if (typeof v === 'string') return v.length + 2;
  if (v === null || typeof v !== 'object') return 8;
  if (depth > 32) return Infinity;
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return 2;
    const looks = Math.min(n, SAMPLES);
    let sum = 0;
    for (let s = 0; s < looks; s++) sum += estimate(v[Math.floor((s * (n - 1)) / Math.max(1, looks - 1))], depth + 1);
    return 2 + n * (sum / looks + 1);
  }
  let size = 2;
  for (const key of Object.keys(v)) size += key.length + 4 + estimate((v as Record<string, unknown>)[key], depth + 1);
  return size;
}
