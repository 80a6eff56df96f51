/**
 * Reading a results folder's JSON for `zonesim report`: `summary.json`, `compare.json` and
 * `sweep.json` are parsed and checked against the shape the report needs (zod), and bad input
 * becomes one `file:line:col: path: expected ..., found ...` line (exit 2), never a stack trace.
 * Fields that older zonesim versions did not write (`timelineByZone`, `p99OkMs`, `pushes`, ...)
 * are optional, so older folders still render. It owns the checking and the positions, not the
 * rendering.
 */
import { z } from 'zod';
import type { Summary } from '../metrics/summary.js';
import { ScenarioError, formatPath, type FieldPath } from '../scenario/scenario-error.js';
import { describeFound, valueAt } from '../scenario/zod-issues.js';
import type { SweepDoc } from '../report/sweep-output.js';
import { MAX_RESULT_FILE_BYTES, readTextBytes, TextFileError } from '../scenario/read-text-file.js';
import { JsonBytesError, lineAndColumn, locateJsonBytes, parseJsonBytes } from './json-in.js';

const num = z.number();
const latency = z.object({ mean: num, p50: num, p90: num, p99: num, p999: num, max: num });
const outcomes = z.object({ ok: num, timeout: num, noProvider: num, rejected: num, network: num, forbidden: num, biz: num, mock: num.optional(), blocked: num.optional(), lost: num.optional() });
const counts = z.record(z.string(), num);

const scope = z.object({
  requests: num,
  ok: num,
  outcomes,
  timeoutRate: num,
  noProviderRate: num,
  errorRate: num,
  mockRate: num.optional(),
  latencyMs: latency,
  latencyAllMs: latency,
  attempts: num,
  retryAmplification: num,
  providerExecutions: num.optional(),
  duplicateExecutions: num,
  duplicateWrites: num.optional(),
  orphanedExecutions: num.optional(),
  crossZoneRatio: num,
  noProviderCauses: counts.optional(),
  rejectedCauses: counts.optional(),
  mockCauses: counts.optional(),
  blockedCauses: counts.optional(),
  ci95: counts.optional(),
});

const scopeRow = z.object({
  tMs: num,
  requests: num,
  ok: num,
  timeout: num,
  noProvider: num,
  rejected: num,
  network: num,
  forbidden: num,
  biz: num.optional(),
  mock: num.optional(),
  blocked: num.optional(),
  lost: num.optional(),
  p99Ms: num,
  p99OkMs: num.optional(),
  crossZoneRatio: num,
});

const providerRow = z.object({ tMs: num, executions: num, rejected: num, utilization: num, peakActiveThreads: num });

/** One registry node (SPEC 4 `registry.servers.<node>`), as the tables and the report read it. */
const utilization = z.object({ peakUtilization: num, meanUtilization: num });
const registryServer = z.object({
  zone: z.string().optional(),
  nicOut: utilization,
  nicIn: utilization,
  peakQueueBytes: num,
  requestsServed: num,
  requestsRefused: num,
  sessionsExpired: num,
  registrationsFailed: num,
  registrationsRetried: num,
  pushesLost: num,
  pushesMerged: num,
});

/** The summary JSON as the report reads it (SPEC 4.1 plus the zonesim additions, those optional). */
export const summarySchema = scope.extend({
  scenario: z.string(),
  seed: num,
  seeds: z.array(num),
  version: z.string(),
  simulatedMs: num,
  measuredFromMs: num,
  registry: z.object({
    pushes: num,
    pushBytes: num,
    staleCalls: num,
    byConsumerGroup: z.record(z.string(), z.unknown()).optional(),
    byConsumer: z.record(z.string(), z.unknown()).optional(),
    servers: z.record(z.string(), registryServer).optional(),
    pushLagMs: latency.optional(),
  }),
  byConsumerZone: z.record(z.string(), scope),
  byService: z.record(z.string(), scope),
  byProviderGroup: z.record(
    z.string(),
    z.object({ instances: num, executions: num, rejected: num, utilization: num, peakActiveThreads: num }),
  ),
  timeline: z.array(
    scopeRow.extend({ pushes: num.optional(), registryBytes: num.optional(), registryUtilization: num.optional(), pushLagP99Ms: num.optional(), sessionsExpired: num.optional() }),
  ),
  timelineByZone: z.record(z.string(), z.array(scopeRow)).optional(),
  timelineByProviderGroup: z.record(z.string(), z.array(providerRow)).optional(),
  events: counts.optional(),
  faults: z.array(z.object({ tMs: num, kind: z.enum(['start', 'end']), label: z.string() })).optional(),
  strategy: z.object({ name: z.string(), description: z.string(), settings: z.array(z.string()) }).optional(),
  crossZoneByPair: z.record(z.string(), counts).optional(),
  nonIdempotentMethods: z.array(z.string()).optional(),
});

/** `compare.json`: the comparison header and one summary per strategy (each checked on its own, `compareItems`). */
const compareSchema = z.object({
  scenario: z.string(),
  seeds: z.array(num),
  version: z.string(),
  strategies: z.record(z.string(), z.string()).optional(),
  byStrategy: z.record(z.string(), z.unknown()).refine((r) => Object.keys(r).length > 0, { message: 'expected at least one strategy' }),
});

/** What a sweep says before its cells (`sweep.json`, and the header of a sweep part): at least one axis, each with a value. */
export const sweepHeaderSchema = z.object({
  scenario: z.string(),
  seed: num,
  seeds: z.array(num),
  version: z.string(),
  grid: z
    .record(z.string(), z.array(z.string()).min(1, { message: 'expected at least one value' }))
    .refine((g) => Object.keys(g).length > 0, { message: 'expected at least one axis' }),
  strategies: z.array(z.string()),
});

/** One cell of a sweep (`sweep.json` and part files). */
export const sweepCellSchema = z.object({
  index: num,
  values: z.record(z.string(), z.string()),
  strategy: z.string().nullable(),
  summary: summarySchema,
});

/** `sweep.json`: the sweep header and its cells (each cell checked on its own, and against the grid). */
const sweepSchema = sweepHeaderSchema.extend({
  best: z.object({ index: num.nullable(), objective: z.string(), maxTimeoutRate: num.optional() }).optional(),
  cells: z.array(z.unknown()),
});

type SweepHeaderShape = z.infer<typeof sweepHeaderSchema>;

/** A problem the schema cannot see: where (from the document's root) and what. */
export interface DocProblem {
  path: FieldPath;
  message: string;
}

/**
 * What is wrong with a (schema-checked) cell against its sweep's grid and strategies, as a path
 * inside the cell and a message; undefined when it fits: its values name every axis once with one
 * of the axis' values, and its strategy is one of the sweep's (none when the sweep has none).
 */
export function sweepCellProblem(header: SweepHeaderShape, cell: z.infer<typeof sweepCellSchema>): DocProblem | undefined {
  for (const [axis, values] of Object.entries(header.grid)) {
    const v = cell.values[axis];
    if (v === undefined) return { path: ['values', axis], message: 'expected a value for this axis of the grid, found nothing' };
    if (!values.includes(v)) return { path: ['values', axis], message: `expected one of the grid's values for this axis, found ${describeFound(v)}` };
  }
  const extra = Object.keys(cell.values).find((k) => !Object.hasOwn(header.grid, k));
  if (extra !== undefined) return { path: ['values', extra], message: 'not an axis of the grid' };
  if (header.strategies.length === 0 && cell.strategy !== null) {
    return { path: ['strategy'], message: `expected null (the sweep has no strategies), found ${describeFound(cell.strategy)}` };
  }
  if (header.strategies.length > 0 && (cell.strategy === null || !header.strategies.includes(cell.strategy))) {
    return { path: ['strategy'], message: `expected one of the sweep's strategies (${header.strategies.join(', ')}), found ${describeFound(cell.strategy)}` };
  }
  return undefined;
}

/** How a results document is checked: its schema, lists whose items are checked one by one, and what schemas cannot say. */
export interface DocCheck {
  /** The document, with the lists in `items` as lists (or maps) of anything. */
  schema: z.ZodType;
  /**
   * Top-level lists (or maps) whose every item must fit a schema. They are checked one item at a
   * time, so a large document is never copied whole by the check.
   */
  items?: Record<string, z.ZodType>;
  /** A problem the schemas cannot see, on the checked document. */
  problem?: (doc: never) => DocProblem | undefined;
}

/** Reads and checks a run's `summary.json`. */
export function readSummaryFile(path: string): Summary {
  return readJsonChecked(path, { schema: summarySchema }) as Summary;
}

/** Reads and checks a comparison's `compare.json` (`strategies`, descriptions by name, may be absent in old files). */
export function readCompareFile(path: string): { scenario: string; strategies: Record<string, string>; byStrategy: Record<string, Summary> } {
  const doc = readJsonChecked(path, { schema: compareSchema, items: { byStrategy: summarySchema } }) as {
    scenario: string;
    strategies?: Record<string, string>;
    byStrategy: Record<string, Summary>;
  };
  return { scenario: doc.scenario, strategies: doc.strategies ?? {}, byStrategy: doc.byStrategy };
}

/** Reads and checks a sweep's `sweep.json`: its cells fit its grid and strategies. */
export function readSweepFile(path: string): SweepDoc {
  return readJsonChecked(path, {
    schema: sweepSchema,
    items: { cells: sweepCellSchema },
    problem: (doc: SweepDoc) => {
      for (const [i, cell] of doc.cells.entries()) {
        const p = sweepCellProblem(doc, cell);
        if (p !== undefined) return { path: ['cells', i, ...p.path], message: p.message };
      }
      return undefined;
    },
  }) as SweepDoc;
}

/** Files up to this size are parsed as one string; larger ones in pieces (`json-in.ts`). */
const ONE_STRING_BYTES = 64 * 1024 * 1024;

/**
 * The parsed document at `path` (the original object, unknown fields kept) once it passes `check`
 * (or the check `checkOf` picks for the parsed document);
 * a file that cannot be read, is not JSON or does not fit is one positioned ScenarioError (exit 2).
 * Results files up to MAX_RESULT_FILE_BYTES are read, beyond the longest string.
 */
export function readJsonChecked(path: string, checkOf: DocCheck | ((doc: unknown) => DocCheck)): unknown {
  let bytes: Buffer;
  try {
    bytes = readTextBytes(path, MAX_RESULT_FILE_BYTES);
  } catch (error) {
    const reason = error instanceof TextFileError ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new ScenarioError([{ file: path, line: 0, col: 0, path: '', message: `cannot read the file (${reason})` }]);
  }
  // Small files as one string (positions by scanJson), large ones in pieces (positions in bytes).
  const text = bytes.length <= ONE_STRING_BYTES ? bytes.toString('utf8') : undefined;
  const fail = (offset: number | FieldPath, at: FieldPath, message: string): ScenarioError => {
    if (text !== undefined) return fileError(path, text, typeof offset === 'number' ? offset : locateJsonPath(text, offset), at, message);
    const { line, col } = lineAndColumn(bytes, typeof offset === 'number' ? offset : locateJsonBytes(bytes, offset));
    return new ScenarioError([{ file: path, line, col, path: formatPath(at), message }]);
  };
  let doc: unknown;
  if (text !== undefined) doc = parseJson(text, path);
  else {
    try {
      doc = parseJsonBytes(bytes, (piece) => scanJson(piece).error);
    } catch (error) {
      if (error instanceof JsonBytesError) throw fail(error.offset, [], `not valid JSON: ${error.message}`);
      throw error;
    }
  }
  const check = typeof checkOf === 'function' ? checkOf(doc) : checkOf;
  const issue = (schema: z.ZodType, value: unknown, prefix: FieldPath): ScenarioError | undefined => {
    const checked = schema.safeParse(value);
    if (checked.success) return undefined;
    const first = checked.error.issues[0]!;
    const at = [...prefix, ...first.path.filter((p): p is string | number => typeof p !== 'symbol')];
    return fail(at, at, issueMessage(first, valueAt(doc, at)));
  };
  const whole = issue(check.schema, doc, []);
  if (whole !== undefined) throw whole;
  for (const [field, schema] of Object.entries(check.items ?? {})) {
    const list = (doc as Record<string, unknown>)[field] as Record<string, unknown> | unknown[];
    const keys: Array<string | number> = Array.isArray(list) ? list.map((_, i) => i) : Object.keys(list);
    for (const key of keys) {
      const bad = issue(schema, (list as Record<string | number, unknown>)[key], [field, key]);
      if (bad !== undefined) throw bad;
    }
  }
  const problem = check.problem?.(doc as never);
  if (problem !== undefined) throw fail(problem.path, problem.path, problem.message);
  return doc;
}

/** JSON.parse, with a syntax error turned into a positioned one-line error. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // An editor that saved the file again may have put a BOM in front: say so rather than "expected a value".
    if (text.charCodeAt(0) === 0xfeff) {
      throw fileError(file, text, 0, [], 'not valid JSON: the file starts with a UTF-8 byte order mark (BOM); save it without one');
    }
    const problem = scanJson(text).error ?? { offset: 0, message: 'not valid JSON' };
    throw fileError(file, text, problem.offset, [], `not valid JSON: ${problem.message}`);
  }
}

function issueMessage(issue: z.core.$ZodIssue, found: unknown): string {
  if (issue.code === 'invalid_type') return `expected ${article(String(issue.expected))}, found ${describeFound(found)}`;
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, found ${describeFound(found)}`;
  return issue.message;
}

function article(type: string): string {
  switch (type) {
    case 'object':
    case 'record':
      return 'a map (JSON object)';
    case 'array':
      return 'a list (JSON array)';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    default:
      return type;
  }
}

/** The one-line error of a results file: `file:line:col: path: message` (exit 2, no stack trace). */
function fileError(file: string, text: string, offset: number, path: FieldPath, message: string): ScenarioError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return new ScenarioError([{ file, line, col: offset - lineStart + 1, path: formatPath(path), message }]);
}

/** Offset of the value at `path` in JSON `text`, or of its deepest ancestor there. */
export function locateJsonPath(text: string, path: FieldPath): number {
  return scanJson(text, path).targetOffset ?? 0;
}

interface Frame {
  kind: 'object' | 'array';
  key: string | number;
}

/**
 * A validating scan of JSON text, iterative (no recursion, so deep nesting is safe): the first
 * syntax error (offset and what was expected), and the offset of the value at `target` (or of its
 * deepest ancestor) when asked.
 */
export function scanJson(text: string, target?: FieldPath): { error?: { offset: number; message: string }; targetOffset?: number } {
  const stack: Frame[] = [];
  let i = 0;
  let best: number | undefined;
  let bestDepth = -1;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const fail = (message: string) => ({ error: { offset: Math.min(i, n), message }, targetOffset: best });
  const onValue = () => {
    if (target === undefined || stack.length > target.length || stack.length <= bestDepth) return;
    for (let d = 0; d < stack.length; d++) if (String(stack[d]!.key) !== String(target[d])) return;
    best = i;
    bestDepth = stack.length;
  };
  // Scans a string starting at text[i] === '"'; returns its value, or an error message.
  const str = (): { value: string } | { message: string } => {
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return { value: JSON.parse(text.slice(start, i)) as string };
      }
      if (c < 32) return { message: 'a control character inside a string' };
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { message: 'a bad \\u escape in a string' };
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return { message: 'a bad escape in a string' };
      } else i++;
    }
    return { message: 'a string that never ends' };
  };
  // An object key (at its opening quote) and the ":" after it.
  const keyAndColon = (): { value: string } | { message: string } => {
    const key = str();
    if ('message' in key) return key;
    ws();
    if (text[i] !== ':') return { message: 'expected ":" after a key' };
    i++;
    return key;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  ws();
  if (i === n) return fail('the file is empty');
  // expect: 'value' | 'after' (a value just ended)
  let expect: 'value' | 'after' = 'value';
  for (;;) {
    ws();
    if (expect === 'value') {
      onValue();
      const c = text[i];
      if (c === '{' || c === '[') {
        i++;
        ws();
        if (c === '[') {
          if (text[i] === ']') {
            i++;
            expect = 'after';
            continue;
          }
          stack.push({ kind: 'array', key: 0 });
          continue;
        }
        if (text[i] === '}') {
          i++;
          expect = 'after';
          continue;
        }
        if (text[i] !== '"') return fail('expected a key in double quotes or "}"');
        const key = keyAndColon();
        if ('message' in key) return fail(key.message);
        stack.push({ kind: 'object', key: key.value });
        continue;
      }
      if (c === '"') {
        const s = str();
        if ('message' in s) return fail(s.message);
      } else if (c === 't' && text.startsWith('true', i)) i += 4;
      else if (c === 'f' && text.startsWith('false', i)) i += 5;
      else if (c === 'n' && text.startsWith('null', i)) i += 4;
      else {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (m === null) return fail(i >= n ? 'the text ends where a value was expected' : 'expected a value (a number, string, true, false, null, { or [)');
        i += m[0].length;
      }
      expect = 'after';
      continue;
    }
    // After a value: end of document, or a separator or closer of the enclosing container.
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (i < n) return fail('unexpected text after the JSON value');
      return { targetOffset: best };
    }
    const c = text[i];
    if (top.kind === 'array') {
      if (c === ',') {
        i++;
        top.key = (top.key as number) + 1;
        expect = 'value';
      } else if (c === ']') {
        i++;
        stack.pop();
      } else return fail(i >= n ? 'the text ends inside a list' : 'expected "," or "]" after a list item');
      continue;
    }
    if (c === ',') {
      i++;
      ws();
      if (text[i] !== '"') return fail('expected a key in double quotes after ","');
      const key = keyAndColon();
      if ('message' in key) return fail(key.message);
      top.key = key.value;
      expect = 'value';
    } else if (c === '}') {
      i++;
      stack.pop();
    } else return fail(i >= n ? 'the text ends inside a map' : 'expected "," or "}" after a value in a map');
  }
}
