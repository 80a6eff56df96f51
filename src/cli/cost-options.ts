/**
 * The options of the cost check (`--dry-run`, `--force`, `--max-requests`) as yargs declares them,
 * shared by every simulating command; kept apart from `cost-guard.ts` so that declaring the CLI
 * loads nothing heavy.
 */
import type { CostOptions } from '../parallel/cost-guard.js';

/** yargs option declarations for `run`, `compare` and `recommend`. */
export const COST_OPTIONS = {
  'dry-run': { type: 'boolean', default: false, describe: 'validate and print the cost estimate (requests, events, instances, memory); run nothing' },
  force: { type: 'boolean', default: false, describe: 'run even when the estimate exceeds --max-requests or the memory this machine can give' },
  'max-requests': { type: 'number', describe: 'refuse a simulation estimated to simulate more requests than this (default 2e8)' },
} as const;

/** The cost options from parsed arguments. */
export function costOptionsFrom(a: Record<string, unknown>): CostOptions {
  return {
    dryRun: a['dry-run'] === true,
    force: a.force === true,
    maxRequests: a['max-requests'] as number | undefined,
  };
}
