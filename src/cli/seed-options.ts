/**
 * `--seed` and `--seeds` as typed: the same rule as the scenario file's `seed` (a non-negative
 * safe integer), checked on the text so that `abc`, `1.5`, `1e300` or `-1` are refused with
 * exit 2 instead of running with NaN, a rounded or a repeated seed.
 */
import { clipMessage } from '../scenario/clip-text.js';
import { UsageError } from '../scenario/io.js';

const DIGITS = /^[0-9]+$/;

function parseWhole(name: string, value: unknown, min: number, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  if (Array.isArray(value)) throw new UsageError(`${name}: given more than once (${value.map(String).join(', ')}); give it once`);
  const text = String(value).trim();
  const n = Number(text);
  if (!DIGITS.test(text) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${name}: expected ${what}, found ${clipMessage(JSON.stringify(String(value)))}`);
  }
  return n;
}

/** yargs `coerce` for `--seed`: a non-negative safe integer. */
export function seedOption(value: unknown): number {
  return parseWhole('--seed', value, 0, 'a non-negative safe integer (0 to 9007199254740991)');
}

/** yargs `coerce` for `--seeds`: a whole number >= 1. */
export function seedsOption(value: unknown): number {
  return parseWhole('--seeds', value, 1, 'a whole number >= 1');
}

/** The last seed of `seeds` runs from `first` must still be a safe integer. */
export function checkSeedRange(first: number, seeds: number): void {
  if (!Number.isSafeInteger(first + seeds - 1)) {
    throw new UsageError(`--seeds: seeds ${first}..${first + seeds - 1} go past the largest safe integer 9007199254740991`);
  }
}
