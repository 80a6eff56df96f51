/**
 * The run watchdog: the cost estimate (scenario/estimate.ts) decides before a run whether it may
 * start; this stops a simulation that turns out to cost far more than its estimate while it runs,
 * with the figures, instead of letting it hang or grow until the machine gives out. Every
 * `WATCH_EVERY_EVENTS` kernel events it compares the events, requests and attempts started so far
 * with `WATCHDOG_FACTOR` times the estimate (never below a floor, so a small run whose estimate is
 * off runs on: it costs little either way), and this thread's heap growth since the simulation
 * started with that factor times the estimated peak memory. It only reads, so a run it does not
 * stop gives the same summary; `--force` turns it off with the estimate's limits.
 */
import { getHeapStatistics } from 'node:v8';
import { clipText } from '../scenario/clip-text.js';
import { DEFAULT_MAX_REQUESTS } from './cost-guard.js';
import { estimateCost, type CostEstimate } from '../scenario/estimate.js';
import { EVENTS_PER_ALLOWED_REQUEST } from '../scenario/estimate-limits.js';
import type { RunOptions, RunSoFar } from '../scenario/run.js';
import type { Scenario } from '../model/types.js';

/** A run is stopped once it exceeds its estimate this many times over. */
export const WATCHDOG_FACTOR = 4;

/** The figures are read every this many kernel events (about 25 ms of simulation on one core). */
export const WATCH_EVERY_EVENTS = 65_536;

/**
 * Below these the watchdog never stops a run, whatever its estimate said (seconds of simulation at
 * most), unless `--max-requests` is lower: then requests and attempts up to it, and 10 events per
 * request of it.
 */
export const WATCHDOG_FLOOR = { events: 1e7, requests: 1e6, attempts: 1e6 } as const;

/** What one simulation may do before the watchdog stops it. */
export interface RunBudget {
  events: number;
  requests: number;
  attempts: number;
  /** Growth of this thread's used heap since the simulation started (MB). */
  heapGrowthMb: number;
}

/** The budget of a simulation with estimate `e` under `--max-requests` `maxRequests`. */
export function runBudget(e: CostEstimate, maxRequests: number = DEFAULT_MAX_REQUESTS): RunBudget {
  const f = WATCHDOG_FACTOR;
  return {
    events: f * Math.max(e.events, Math.min(WATCHDOG_FLOOR.events, maxRequests * EVENTS_PER_ALLOWED_REQUEST)),
    requests: f * Math.max(e.requests, Math.min(WATCHDOG_FLOOR.requests, maxRequests)),
    attempts: f * Math.max(e.attempts, Math.min(WATCHDOG_FLOOR.attempts, maxRequests)),
    heapGrowthMb: f * e.memoryMb.total,
  };
}

/** A simulation stopped by the watchdog (exit 1, one line with the figures). */
export class RunBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunBudgetError';
  }
}

const usedHeapMb = (): number => getHeapStatistics().used_heap_size / (1024 * 1024);
const fmt = (n: number): string => (Number.isFinite(n) ? (n >= 1e15 ? n.toExponential(2) : Math.round(n).toLocaleString('en-US')) : 'infinitely many');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)} s`;

// Estimates by scenario object: the tasks of one command share their scenario (seeds), and a
// worker gets its batch's tasks in one message, which keeps that sharing.
const estimates = new WeakMap<Scenario, CostEstimate>();

/**
 * The watch of one simulation of `scenario` with `seed` for `runScenario` (RunOptions.watch):
 * throws RunBudgetError once the run exceeds its budget. `heapMb` reads this thread's used heap.
 */
export function runWatch(
  scenario: Scenario,
  seed: number,
  maxRequests: number = DEFAULT_MAX_REQUESTS,
  heapMb: () => number = usedHeapMb,
): NonNullable<RunOptions['watch']> {
  let estimate = estimates.get(scenario);
  if (estimate === undefined) estimates.set(scenario, (estimate = estimateCost(scenario)));
  const e = estimate;
  const budget = runBudget(e, maxRequests);
  const heapAtStartMb = heapMb();
  const stop = (at: RunSoFar, what: string): never => {
    throw new RunBudgetError(
      `stopped ${clipText(scenario.name, 60)} seed ${seed} at ${seconds(at.simMs)} simulated: ${what}, over ${WATCHDOG_FACTOR}x its estimate ` +
        `(${fmt(at.requests)} requests and ${fmt(at.attempts)} attempts started); --force runs it without this check`,
    );
  };
  return {
    everyEvents: WATCH_EVERY_EVENTS,
    check: (at) => {
      if (at.events > budget.events) stop(at, `${fmt(at.events)} kernel events against ${fmt(e.events)} estimated`);
      if (at.requests > budget.requests) stop(at, `${fmt(at.requests)} requests against ${fmt(e.requests)} estimated`);
      if (at.attempts > budget.attempts) stop(at, `${fmt(at.attempts)} attempts against ${fmt(e.attempts)} estimated`);
      const grown = heapMb() - heapAtStartMb;
      if (grown > budget.heapGrowthMb) stop(at, `the heap grew by ${fmt(grown)} MB against a peak of ${fmt(e.memoryMb.total)} MB estimated`);
    },
  };
}
