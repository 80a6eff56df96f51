/**
 * Words for what a plugin handed over or threw, for the messages of plugin errors. Reading a
 * plugin's value can run its code (a getter, a Proxy), so nothing here throws: a value whose
 * reading throws is described as such.
 */
import type { Invoker } from '../dubbo/rpc.js';

/**
 * A short description of a value a plugin returned or threw. Never throws: a value whose reading
 * throws (a Proxy, a getter) is `an object that throws when read`.
 */
export function describeValue(value: unknown): string {
  try {
    return describe(value);
  } catch {
    return 'an object that throws when read';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (typeof (value as { then?: unknown }).then === 'function') return 'a Promise (plugin calls are synchronous)';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const getUrl = (value as Partial<Invoker>).getUrl;
  if (typeof getUrl === 'function') {
    try {
      return `an invoker (${String((getUrl.call(value) as { getAddress?: () => string }).getAddress?.() ?? '?')})`;
    } catch {
      return 'an invoker';
    }
  }
  return typeof value === 'function' ? 'a function' : 'an object';
}

/** What a plugin threw, for a message: `TypeError: ...` for an Error, else a description. Never throws. */
export function describeThrown(error: unknown, withName = true): string {
  try {
    if (error instanceof Error) return withName ? `${String(error.name)}: ${String(error.message)}` : String(error.message);
  } catch {
    // An Error subclass whose name or message getter throws: described as a value below.
  }
  return describeValue(error);
}
