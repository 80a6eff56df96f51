/**
 * The cost check every simulating command runs before it simulates (SPEC 1): estimates each
 * planned simulation (`scenario/estimate.ts`), compares them with what this machine and V8 can
 * give and with `--max-requests`, and then either lets the command go on, prints the estimate and
 * stops (`--dry-run`), or refuses with exit 2 and the estimate (unless `--force`). It owns the
 * machine's limits (os, V8) and the estimate's text and JSON; the model is the scenario layer's.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { clipText } from '../scenario/clip-text.js';
import { COST_MODEL, estimateCost, type CostEstimate } from '../scenario/estimate.js';
import { costProblems, MAX_BUCKETS, type CostLimits } from '../scenario/estimate-limits.js';
import type { Scenario } from '../model/types.js';
import { commandWallSeconds, simulationSeconds, type WallEstimate } from '../scenario/wall-estimate.js';
import { UsageError, type Io } from '../scenario/io.js';
import { simulationThreads } from './jobs.js';
import { pluginNames } from '../scenario/plugin-refs.js';
import { expandedLists, expandedListsText } from '../scenario/templates.js';

/** `--max-requests` default: simulated requests per simulation (SPEC 1). */
export const DEFAULT_MAX_REQUESTS = 2e8;

/** Share of the machine's RAM that all simulations running at once may take. */
const RAM_SHARE = 0.9;

/** The cost options shared by `run`, `compare`, `recommend` (and `check`, for `force`). */
export interface CostOptions {
  /** Validate and print the estimate, run nothing. */
  dryRun?: boolean;
  /** Run even when the estimate exceeds the limits. */
  force?: boolean;
  /** Simulated requests allowed per simulation. */
  maxRequests?: number;
}

/** A group of identical simulations (one scenario, `count` seeds). */
export interface PlannedSimulations {
  /** What they are in the command's words: `seed 1`, `strategy fallback, seeds 1..3`, `recommended`. */
  label: string;
  scenario: Scenario;
  count: number;
}

/** A refused run: exit 2, the first reason as the message, every reason and the estimate as details. */
export class CostRefusedError extends UsageError {
  readonly details: string;
  constructor(message: string, details: string) {
    super(message, '--force runs it anyway; --dry-run prints the estimate without running anything');
    this.name = 'CostRefusedError';
    this.details = details;
  }
}

/** Checks a `--max-requests` value: a positive number (1e9 and 2e8 are fine; Infinity sets no limit). */
export function checkMaxRequests(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_REQUESTS;
  if (!(typeof value === 'number' && value > 0)) {
    throw new UsageError(`--max-requests: expected a positive number such as 2e8, found ${String(value)}`);
  }
  return value;
}

/** What this machine gives: V8's heap limit per simulation, and RAM for all of them at once. */
export function machineMemory(): { heapLimitMb: number; totalMemMb: number } {
  return {
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024)),
    totalMemMb: Math.round(totalmem() / (1024 * 1024)),
  };
}

const n = (x: number): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'infinitely many' : x >= 1e15 ? x.toExponential(2) : Math.round(x).toLocaleString('en-US');
const mb = (x: number): string => (Number.isFinite(x) ? `${n(x)} MB` : 'unbounded');
const ms = (x: number): string => (!Number.isFinite(x) ? 'forever' : x >= 1000 ? `${n(x / 1000)} s` : `${x} ms`);
/** A wall time: tenths below 10 s, then seconds, minutes, hours. */
export function wallText(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'forever';
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${n(seconds / 3600)} h`;
}
const wallRange = (w: WallEstimate): string => `~${wallText(w.seconds)} (likely ${wallText(w.low)} to ${wallText(w.high)})`;

/** How a command runs fewer simulations, as the end of a refusal (empty when it has no such option). */
function fewerSimulations(command: string): string {
  if (command === 'sweep') return '; use fewer grid values or --seeds, or split the cells with --shard';
  if (command === 'compare') return '; use fewer --seeds or --strategies, or split the runs with --shard';
  if (command === 'run') return '; use fewer --seeds';
  return '';
}

/** The estimate of one simulation as text, two-space indented lines. */
export function formatEstimate(e: CostEstimate): string {
  const m = e.memoryMb;
  const parts = (['base', 'consumers', 'providers', 'timeline', 'inFlight', 'queues', 'loadBalancers', 'metrics', 'registry'] as const)
    .filter((k) => k === 'base' || m[k] >= 0.5 || !Number.isFinite(m[k]))
    .map((k) => `${k === 'inFlight' ? 'in flight' : k === 'loadBalancers' ? 'load balancers' : k === 'queues' ? 'provider queues' : k} ${n(m[k])}`);
  return [
    `  simulated      ${ms(e.simulatedMs)}, measured ${ms(e.measuredMs)}; timeline ${n(e.buckets)} bucket${e.buckets === 1 ? '' : 's'} of ${ms(e.bucketMs)}`,
    `  requests       ${n(e.requests)} (edge ${n(e.edgeRequests)}, call graphs ${n(e.downstreamRequests)})` +
      (e.requestsWorstCase > e.requests ? `; up to ${n(e.requestsWorstCase)} if every retry is taken at every tier` : ''),
    `  attempts       ${n(e.attempts)}` + (e.attemptsWorstCase > e.attempts ? `; up to ${n(e.attemptsWorstCase)} if every retry is taken` : ''),
    `  kernel events  ${n(e.events)} (registry heartbeats ${n(e.heartbeats)}, pushes ${n(e.pushDeliveries)})`,
    `  instances      ${n(e.consumerInstances)} consumer (${n(e.references)} references, ${n(e.invokers)} invokers), ${n(e.providersAtStart + e.providersAddedByFaults)} provider (${n(e.providersAtStart)} at start, ${n(e.providersAddedByFaults)} started by faults)`,
    `  in flight      ~${n(e.inFlight)} requests` + (e.queuedCalls >= 1 ? `; up to ${n(e.queuedCalls)} calls waiting in overloaded unbounded provider queues` : ''),
    `  peak memory    ~${mb(m.total)} (${parts.join(', ')})`,
    `  time           ~${wallText(simulationSeconds(e))} to simulate on one core`,
  ].join('\n');
}

/** The groups after `repeat:` expansion (SPEC 2.12), as an estimate line; none when the file had no template. */
function groupsLine(scenario: Scenario): string[] {
  const lists = expandedLists(scenario);
  return lists === undefined ? [] : [`  groups         ${expandedListsText(lists)}`];
}

/** JSON-safe copy: non-finite numbers become null (JSON has no Infinity). */
function jsonSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as T;
}

/**
 * Estimates `planned` and applies the limits. Returns undefined when the command should go on
 * simulating, or the exit code to end with after a dry run; throws CostRefusedError (exit 2) when
 * the estimate exceeds the limits without `--force`.
 */
export function guardCost(
  command: string,
  planned: PlannedSimulations[],
  opts: CostOptions & { json?: boolean; jobs?: number },
  io: Io,
): number | undefined {
  const maxRequests = checkMaxRequests(opts.maxRequests);
  const machine = machineMemory();
  const estimates = planned.map((p) => ({ ...p, estimate: estimateCost(p.scenario) }));
  const simulations = planned.reduce((s, p) => s + p.count, 0);
  // The threads `runSimTasks` will have simulating at once (parallel.ts): the same function decides both.
  const threads = simulationThreads(opts.jobs ?? 1, simulations);
  const perSimulationMb = machine.heapLimitMb;
  const limits: CostLimits = { maxRequests, memoryMb: perSimulationMb, maxBuckets: MAX_BUCKETS, memorySource: 'the V8 heap limit' };

  // All at once: the largest simulation on every thread, plus the summaries kept until the last one
  // ends. This thread simulates beside `threads - 1` workers; with plugins every simulation runs on a
  // worker and this thread only watches (Node and the modules, no simulation). A thread that runs many
  // simulations in turn peaks as one at the young generation's maximum (COST_MODEL).
  const largestEstimate = estimates.reduce<CostEstimate | undefined>((a, e) => (a === undefined || e.estimate.memoryMb.total > a.memoryMb.total ? e.estimate : a), undefined);
  const inTurn = Math.min(1, simulations / threads / COST_MODEL.simulationsPerThreadAtMaxYoung);
  const lift = largestEstimate === undefined ? 0 : inTurn * Math.max(0, COST_MODEL.baseMb + COST_MODEL.youngGenerationMaxMb - largestEstimate.memoryMb.base);
  const largest = (largestEstimate?.memoryMb.total ?? 0) + lift;
  const workers = pluginNames(planned.map((p) => p.scenario)).length > 0 ? threads : threads - 1;
  const perWorkerMb = (largest - COST_MODEL.baseMb) * COST_MODEL.workerScale + COST_MODEL.workerBaseMb;
  const threadsMb = (workers === threads ? COST_MODEL.baseMb : largest) + workers * perWorkerMb;
  // (One simulation's own summary is part of its estimate.)
  const summaryBytes = estimates.reduce((s, e) => s + e.count * e.estimate.summaryBytes, 0) - Math.max(0, ...estimates.map((e) => e.estimate.summaryBytes));
  const summariesMb = Math.max(0, summaryBytes) / (1024 * 1024);
  const allAtOnceMb = threadsMb + summariesMb;
  const ramMb = machine.totalMemMb * RAM_SHARE;
  const wall = commandWallSeconds(estimates, threads);

  const problems: string[] = [];
  const perSim = estimates.map((e) => costProblems(e.estimate, limits));
  estimates.forEach((e, i) => {
    for (const p of perSim[i]!) problems.push(estimates.length > 1 ? `${clipText(e.label, 80)}: ${p}` : p);
  });
  if (!(allAtOnceMb <= ramMb) && perSim.every((p) => p.length === 0)) {
    const allowed = `more than the ${mb(ramMb)} this machine allows (${Math.round(RAM_SHARE * 100)}% of ${mb(machine.totalMemMb)} RAM)`;
    // Fewer threads help only when one thread and the summaries fit; else there are too many simulations.
    problems.push(
      simulations === 1
        ? `the simulation needs ~${mb(allAtOnceMb)}, ${allowed}`
        : threads > 1 && largest + summariesMb <= ramMb
          ? `${threads} simulations at once need ~${mb(allAtOnceMb)}, ${allowed}; use fewer --jobs`
          : `${n(simulations)} simulations need ~${mb(allAtOnceMb)} (~${mb(summariesMb)} for the summaries kept until the last one ends), ${allowed}${fewerSimulations(command)}`,
    );
  }
  const limitsText =
    `limits: ${n(maxRequests)} requests per simulation (--max-requests), ${n(MAX_BUCKETS)} timeline buckets, ` +
    `${mb(perSimulationMb)} per simulation (V8 heap limit), ${mb(ramMb)} for all at once (${Math.round(RAM_SHARE * 100)}% of RAM)`;
  const head = (e: (typeof estimates)[number]) => `${clipText(e.label, 80)}${e.count > 1 ? ` (${e.count} simulations)` : ''}:`;
  const text = [
    `${command} ${clipText(planned[0]?.scenario.name ?? '', 80)}: cost estimate of ${simulations} simulation${simulations === 1 ? '' : 's'}${threads > 1 ? `, ${threads} at once` : ''}`,
    ...estimates.flatMap((e) => [head(e), formatEstimate(e.estimate), ...groupsLine(e.scenario)]),
    `all at once   ~${mb(allAtOnceMb)}`,
    `wall time     ${wallRange(wall)}${threads > 1 ? ` on ${threads} threads` : ''}, start included (calibrated on 2 cores; see docs/cli.md)`,
    limitsText,
  ].join('\n');

  if (opts.dryRun) {
    if (opts.json) {
      io.stdout(
        JSON.stringify(
          jsonSafe({
            command,
            dryRun: true,
            withinLimits: problems.length === 0,
            problems,
            limits: { maxRequests, maxBuckets: MAX_BUCKETS, memoryMbPerSimulation: perSimulationMb, memoryMbAllAtOnce: Math.round(ramMb), threads },
            allAtOnceMb,
            wallSeconds: wall,
            simulations: estimates.map((e, i) => ({
              label: e.label,
              scenario: e.scenario.name,
              count: e.count,
              estimate: e.estimate,
              ...(expandedLists(e.scenario) !== undefined ? { groups: expandedLists(e.scenario) } : {}),
              simulationSeconds: simulationSeconds(e.estimate),
              problems: perSim[i],
            })),
          }),
          null,
          2,
        ) + '\n',
      );
    } else {
      io.stdout(`${text}\n${problems.length === 0 ? 'within the limits: it would run' : `it would be refused (--force runs it anyway):\n${problems.map((p) => `  - ${p}`).join('\n')}`}\n`);
    }
    return 0;
  }
  if (problems.length === 0) return undefined;
  if (opts.force) {
    io.stderr(`zonesim: warning: running despite the estimate (--force): ${problems.join('; ')}\n`);
    return undefined;
  }
  const name = clipText(planned[0]?.scenario.name ?? 'the scenario', 80);
  throw new CostRefusedError(
    `refusing to run ${name}: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
    `${problems.length > 1 ? `${problems.map((p) => `  - ${p}`).join('\n')}\n` : ''}${text}`,
  );
}
