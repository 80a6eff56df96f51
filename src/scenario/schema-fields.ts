/**
 * The field builders every section of the scenario schema (schema.ts) is made of: integers, booleans,
 * strings, fractions and URL-parameter maps, each with the expected-phrase message a bad value reports,
 * and `onType`, which words a map's type mismatch. The sections themselves live in the `schema-*.ts` files.
 */
import { z } from 'zod';
import { MAX_REPEAT } from './templates.js';

/** A schema-level error that words only type mismatches, leaving other issues (unknown keys) to the parse-level map. */
export const onType = (message: string) => (iss: { code: string }) => (iss.code === 'invalid_type' ? message : undefined);

/** An integer >= min, with an expected-phrase message. */
export const int = (min: number, what = 'an integer') =>
  z.int({ error: `expected ${what} >= ${min}` }).min(min, { error: `expected ${what} >= ${min}` });
/** A boolean, with an expected-phrase message. */
export const bool = () => z.boolean({ error: 'expected true or false' });
/** A string, with an expected-phrase message naming what is expected. */
export const str = (what = 'a string') => z.string({ error: `expected ${what}` });
/** A number between 0 and 1, with an expected-phrase message. */
export const fraction = (what = 'a fraction') =>
  z
    .number({ error: `expected ${what} between 0 and 1` })
    .min(0, { error: `expected ${what} between 0 and 1` })
    .max(1, { error: `expected ${what} between 0 and 1` });
/** A map whose values are strings on the registered or consumer URL (numbers and booleans are written as text). */
export const urlParams = () =>
  z.record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean()], { error: 'expected a string, number or boolean' }),
    { error: 'expected a map of URL parameters' },
  );

const REPEAT = `expected an integer from 1 to ${MAX_REPEAT}`;
/** `repeat: N` of a provider or consumer group (SPEC 2.12); templates.ts expands a valid one before validation, so only a bad one reaches the schema. */
export const repeatSchema = z
  .int({ error: REPEAT })
  .min(1, { error: REPEAT })
  .max(MAX_REPEAT, { error: REPEAT })
  .optional()
  .describe('Template: the group stands for N groups, {i} (0-based) and {i:03} (zero-padded) substituted in its strings and keys.');
