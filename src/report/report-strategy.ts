/**
 * What a comparison says about each strategy it ran: the summary's `strategy` block (zonesim
 * addition) with the strategy's name, its description and its overrides as readable lines, so
 * that a report rebuilt from the JSON alone can say what each column means. It owns that
 * wording only; applying a strategy belongs to `scenario/strategies.ts`.
 */
import type { StrategyInfo, Summary } from '../metrics/summary.js';
import type { StrategySpec } from '../model/types.js';

/** The `strategy` block of a strategy's summary. */
export function strategyInfo(name: string, spec: StrategySpec): StrategyInfo {
  const { description, ...overrides } = spec;
  const settings: string[] = [];
  flatten(overrides, '', settings);
  return { name, description: description ?? '', settings };
}

/** `summary` with its `strategy` block (a new object; the block is the last key). */
export function withStrategy(summary: Summary, info: StrategyInfo): Summary {
  return { ...summary, strategy: info };
}

function flatten(value: unknown, path: string, out: string[]): void {
  if (value === undefined) return;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, v] of Object.entries(value)) flatten(v, path === '' ? key : `${path}.${key}`, out);
    return;
  }
  out.push(`${path.replace(/Ms$/, '').replace(/Ms\./g, '.')} = ${show(value, /Ms$/.test(path))}`);
}

function show(value: unknown, isMs: boolean): string {
  if (isMs && typeof value === 'number') return `${value}ms`;
  if (Array.isArray(value)) return `[${value.map((v) => show(v, false)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k.replace(/Ms$/, '')}: ${show(v, /Ms$/.test(k))}`)
      .join(', ')}}`;
  }
  return String(value);
}
