/**
 * Turns zod issues into scenario problems worded as `expected X, found Y`: picks the branch of a
 * union that the user evidently meant, splits unknown keys into one "did you mean" problem each,
 * and reads what was found from the raw document. Positions are added later by `load.ts`; the
 * schema itself lives in `schema.ts`.
 */
import type { z } from 'zod';
import { suggestion } from './did-you-mean.js';
import type { FieldPath } from './scenario-error.js';

/** A problem at a field path, before it gets a file position. */
export interface PathIssue {
  path: Array<string | number>;
  message: string;
  hint?: string;
  /** Point at the key rather than the value (unknown fields, bad map keys). */
  atKey?: boolean;
}

/** Marks messages that zod wrote itself, so the generic wording below replaces them. */
const GENERIC = '\u0000';

/** Parse options that make zod issues usable here: inputs kept, unknown-key sets remembered. */
export function zodParseOptions(knownKeys: WeakMap<object, string[]>): z.core.ParseContext<z.core.$ZodIssue> {
  return {
    reportInput: true,
    error: (iss) => {
      if (iss.code === 'unrecognized_keys' && iss.input && typeof iss.input === 'object') {
        const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
        if (shape) knownKeys.set(iss.input as object, Object.keys(shape));
      }
      return GENERIC;
    },
  };
}

/** The raw value at `path`, or undefined. */
export function valueAt(root: unknown, path: FieldPath): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** How a found value reads in a message: `"abc"`, `-3`, `true`, `a map`, `a list`, `nothing`. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing (the field is required)';
  if (value === null) return 'null (an empty value)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return String(value);
}

/** Appends `, found <value>` to an "expected ..." message that does not say what was found. */
export function withFound(message: string, found: unknown): string {
  return message.startsWith('expected ') && !message.includes(', found ') ? `${message}, found ${describeFound(found)}` : message;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a map',
  record: 'a map',
  array: 'a list',
  tuple: 'a list',
};

function genericMessage(iss: z.core.$ZodIssue): string {
  switch (iss.code) {
    case 'invalid_type':
      return `expected ${TYPE_WORDS[iss.expected] ?? `a ${iss.expected}`}`;
    case 'too_small':
      return iss.origin === 'array'
        ? `expected at least ${iss.minimum} item${iss.minimum === 1 ? '' : 's'}`
        : iss.origin === 'string'
          ? 'expected a non-empty string'
          : `expected a number ${iss.inclusive ? '>=' : '>'} ${iss.minimum}`;
    case 'too_big':
      return iss.origin === 'array'
        ? `expected at most ${iss.maximum} item${iss.maximum === 1 ? '' : 's'}`
        : `expected a number ${iss.inclusive ? '<=' : '<'} ${iss.maximum}`;
    case 'invalid_value':
      return `expected ${iss.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' or ')}`;
    case 'invalid_format':
      return `expected a string in the ${iss.format} format`;
    case 'invalid_union':
      return 'expected a different kind of value';
    case 'invalid_key':
      return 'expected a valid key';
    case 'invalid_element':
      return 'expected a valid element';
    case 'not_multiple_of':
      return `expected a multiple of ${String(iss.divisor)}`;
    default:
      return 'expected a valid value';
  }
}

/** A discriminated union whose discriminator value matched no option. */
function isDiscriminatorMiss(iss: z.core.$ZodIssue): boolean {
  return iss.code === 'invalid_union' && (iss as { note?: string }).note === 'No matching discriminator';
}

/**
 * How badly an issue list says "this union branch is not what the user meant": Infinity when
 * the value has the wrong type for the branch, higher for missing or unknown keys, low for
 * problems deep inside a value of the right shape.
 */
function mismatch(issues: readonly z.core.$ZodIssue[], raw: unknown, base: FieldPath): number {
  let score = 0;
  for (const iss of issues) {
    const atRoot = iss.path.length === 0;
    if (iss.code === 'invalid_union') {
      if (isDiscriminatorMiss(iss)) {
        score += valueAt(raw, [...base, ...(iss.path as Array<string | number>)]) === undefined ? 5 : 0.5;
      } else if (atRoot) {
        score += Math.min(Infinity, ...iss.errors.map((b) => mismatch(b, raw, base)));
      } else score += 0.1;
    } else if (iss.code === 'invalid_type') {
      if (atRoot) return Infinity;
      score += iss.input === undefined ? 1 : 0.1;
    } else if (iss.code === 'unrecognized_keys' && atRoot) {
      score += iss.keys.length;
    } else if (iss.code === 'invalid_value' && atRoot) {
      score += 1;
    } else score += 0.1;
  }
  return score;
}

/** Scenario problems (by path) from zod issues on `raw`. */
export function fromZodIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  knownKeys: WeakMap<object, string[]>,
  base: FieldPath = [],
): PathIssue[] {
  const out: PathIssue[] = [];
  for (const iss of issues) {
    const path = [...base, ...iss.path] as Array<string | number>;
    if (iss.code === 'unrecognized_keys') {
      const obj = valueAt(raw, path);
      const known: string[] = (obj !== null && typeof obj === 'object' ? knownKeys.get(obj) : undefined) ?? [];
      for (const key of iss.keys) {
        const s = suggestion(key, known);
        const reference = known.includes('retries') && known.includes('parameters');
        out.push({
          path: [...path, key],
          atKey: true,
          message: `unknown field "${key}"${s || (known.length ? `; valid fields: ${known.join(', ')}` : '')}`,
          ...(reference && !s ? { hint: `other Dubbo URL parameters go under parameters: { ${key}: ... }` } : {}),
        });
      }
      continue;
    }
    if (iss.code === 'invalid_union' && !isDiscriminatorMiss(iss) && iss.errors.length > 0) {
      const scores = iss.errors.map((b) => mismatch(b, raw, path));
      const best = Math.min(...scores);
      if (best < Infinity) {
        out.push(...fromZodIssues(iss.errors[scores.indexOf(best)]!, raw, knownKeys, path));
        continue;
      }
    }
    const message = iss.message === GENERIC ? genericMessage(iss) : iss.message;
    out.push({ path, message: withFound(message, valueAt(raw, path)) });
  }
  return out;
}
