/**
 * What one CLI invocation allows plugins: at all (`--no-plugins`) and how long one plugin call may
 * take (`--plugin-timeout`). Kept apart from plugins.ts, which loads the model, so that main.ts
 * reads its options without loading it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { clipMessage } from '../scenario/clip-text.js';
import { parseDuration } from '../model/unit-text.js';
import { UsageError } from '../scenario/io.js';

/** `--plugin-timeout` default. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 10_000;

/** What one CLI invocation allows: plugins at all, and the time budget of one plugin call. */
export interface PluginPolicy {
  allowed: boolean;
  timeoutMs: number;
}

const policies = new AsyncLocalStorage<PluginPolicy>();

/** Runs `f` (a whole CLI invocation) under `policy`; main.ts sets its fields from the options. */
export function withPluginPolicy<T>(policy: PluginPolicy, f: () => T): T {
  return policies.run(policy, f);
}

/** The policy of the invocation in progress (plugins allowed, 10 s, outside one). */
export function pluginPolicy(): PluginPolicy {
  return policies.getStore() ?? { allowed: true, timeoutMs: DEFAULT_PLUGIN_TIMEOUT_MS };
}

/** yargs `coerce` for `--plugin-timeout`: a positive duration (`10s`, `500ms`; a bare number is ms), at most 1 h. */
export function pluginTimeoutOption(value: unknown): number {
  if (Array.isArray(value)) throw new UsageError(`--plugin-timeout: given more than once (${value.map(String).join(', ')}); give it once`);
  const text = String(value).trim();
  const ms = /^[0-9.]+$/.test(text) ? Number(text) : parseDuration(text);
  if (ms === undefined || !(ms > 0) || ms > 3_600_000) {
    throw new UsageError(`--plugin-timeout: expected a duration above 0 and at most 1h, such as 10s or 500ms, found ${JSON.stringify(clipMessage(text))}`);
  }
  return ms;
}
