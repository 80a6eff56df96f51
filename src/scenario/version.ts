/**
 * The package version, read once from package.json (part of every summary).
 */
import { readFileSync } from 'node:fs';

/** zonesim's version string. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
