/**
 * The limits a simulation's cost estimate (estimate.ts) is held against, and the sentences that say
 * which term is over them (`costProblems`): timeline buckets, simulated requests, kernel events,
 * the worst case of retries and peak memory. What the machine can give is filled in by the caller
 * (parallel/cost-guard.ts).
 */
import type { CostEstimate, MemoryEstimate } from './estimate.js';
import { AUTO_COHORT_ESTATE_INSTANCES } from '../world/cohorts.js';

/** What a simulation may use; the CLI fills it from the machine and its options. */
export interface CostLimits {
  /** `--max-requests`: simulated requests per simulation. */
  maxRequests: number;
  /** Memory one simulation may take (MB). */
  memoryMb: number;
  /** Timeline buckets per simulation. */
  maxBuckets: number;
  /** Where `memoryMb` comes from, for messages ("the V8 heap limit"). */
  memorySource?: string;
}

/** Kernel events allowed per allowed request (registry storms count against `--max-requests` too). */
export const EVENTS_PER_ALLOWED_REQUEST = 10;

/** Timeline buckets allowed by default: a timeline of a million rows is more than anyone reads. */
export const MAX_BUCKETS = 1_000_000;

const fmt = (n: number): string => (Number.isFinite(n) ? (n >= 1e15 ? n.toExponential(2) : Math.round(n).toLocaleString('en-US')) : 'infinitely many');

/**
 * Retries up to this many are left to the run watchdog when their worst case is over the limits:
 * failover walks the providers a call has tried on every retry (Dubbo's `invoked` list), so one call
 * of r retries costs ~r²/2 steps, and beyond this a run could not be stopped in time once timeouts
 * the estimate did not foresee make calls take them all (a black-holed zone, 1 ms timeouts and
 * 10,000,000 retries: 1.5 million attempts took 9 minutes).
 */
export const MAX_WATCHED_RETRIES = 100;

const MEMORY_PARTS: Record<Exclude<keyof MemoryEstimate, 'total'>, string> = {
  base: 'base',
  consumers: 'consumer references',
  providers: 'provider instances',
  timeline: 'timeline',
  inFlight: 'requests in flight',
  queues: 'provider queues',
  loadBalancers: 'load balancers',
  metrics: 'metrics cells',
  registry: 'registry burst',
};

/** Why the estimate exceeds the limits, one sentence each naming the term that is over; empty when it fits. */
export function costProblems(e: CostEstimate, limits: CostLimits): string[] {
  const out: string[] = [];
  if (!(e.buckets <= limits.maxBuckets)) {
    out.push(
      `the timeline would have ${fmt(e.buckets)} buckets (bucket ${e.bucketMs} ms over ${fmt(e.measuredMs)} ms measured); at most ${fmt(limits.maxBuckets)}: use a wider bucket`,
    );
  }
  if (!(e.requests <= limits.maxRequests)) {
    const graphs = e.downstreamRequests > 0 ? ` (${fmt(e.downstreamRequests)} of them downstream calls of call graphs)` : '';
    out.push(`${fmt(e.requests)} simulated requests${graphs} exceed --max-requests ${fmt(limits.maxRequests)}`);
  }
  const maxEvents = limits.maxRequests * EVENTS_PER_ALLOWED_REQUEST;
  if (!(e.events <= maxEvents) && e.requests <= limits.maxRequests) {
    const perRequest = e.requests > 0 ? e.attempts / e.requests : 0;
    out.push(
      `${fmt(e.events)} kernel events exceed ${fmt(maxEvents)} (${EVENTS_PER_ALLOWED_REQUEST} per request of --max-requests): ` +
        `${fmt(e.attempts)} attempts (${perRequest >= 100 ? fmt(perRequest) : perRequest.toFixed(1)} per request: expected retries, forking, broadcast), ` +
        `${fmt(e.heartbeats)} registry heartbeats, ${fmt(e.pushDeliveries)} pushes`,
    );
  }
  if (!(e.attemptsWorstCase <= maxEvents) && e.maxRetries > MAX_WATCHED_RETRIES) {
    out.push(
      `up to ${fmt(e.attemptsWorstCase)} attempts if every retry is taken (retries: ${fmt(e.maxRetries)}), over ${fmt(maxEvents)}: ` +
        `with more than ${MAX_WATCHED_RETRIES} retries a call's cost grows with the square of its attempts; use fewer retries`,
    );
  }
  if (!(e.memoryMb.total <= limits.memoryMb)) {
    const [part, mb] = (Object.keys(MEMORY_PARTS) as Array<keyof typeof MEMORY_PARTS>).map((k) => [k, e.memoryMb[k]] as const).reduce((a, b) => (b[1] > a[1] ? b : a));
    const hint = memoryHint(part, e);
    out.push(
      `estimated peak memory ${fmt(e.memoryMb.total)} MB exceeds the ${fmt(limits.memoryMb)} MB one simulation may use${limits.memorySource ? ` (${limits.memorySource})` : ''}; ` +
        `the most is ${MEMORY_PARTS[part]}, ${fmt(mb)} MB${hint}`,
    );
  }
  return out;
}

/** What a refusal over memory adds after the part that is the most: its figures, and the way out where there is one. */
function memoryHint(part: keyof typeof MEMORY_PARTS, e: CostEstimate): string {
  const plural = (n: number, word: string) => `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;
  if (part === 'queues') return `: ${fmt(e.queuedCalls)} calls waiting in overloaded unbounded queues`;
  if (part === 'inFlight') return `: ${fmt(e.inFlight)} requests`;
  if ((part === 'consumers' || part === 'loadBalancers') && e.perInstanceGroups > 0) {
    // A stateful load balancer's entries are per instance too: in a cohort they are per representative.
    const why = e.perInstanceReason === null ? '' : ` (${e.perInstanceReason.replace(/^cohorts: off/, '`cohorts: off`')})`;
    const state = part === 'loadBalancers' ? ', their load balancers\' state then kept per representative (docs/cohorts.md)' : '';
    return `; ${plural(e.perInstanceGroups, 'consumer group')} (${fmt(e.perInstanceGroupInstances)} instances) run per instance${why}: \`cohorts: on\` makes them cohorts${state}`;
  }
  if (part === 'consumers' && e.smallGroups > 0) {
    return (
      `; ${plural(e.smallGroups, 'consumer group')} (${fmt(e.smallGroupInstances)} instances) run per instance, no larger than their ` +
      `representatives: fewer \`representatives\` (8, say) make cohorts of them with \`cohorts: on\` (or \`auto\` from ${fmt(AUTO_COHORT_ESTATE_INSTANCES)} consumer instances)`
    );
  }
  if (part === 'registry' && e.registryBurst !== null) {
    const b = e.registryBurst;
    return (
      `: ${fmt(b.changes)} instances registered or deregistered at ${fmt(b.atMs / 1000)} s (${plural(b.groups, 'provider group')} at once), ` +
      'each change pushed on its own as a registry without `servers` or `capacity` does, every push holding its whole list until it is ' +
      'delivered; a registry modeled as a server merges them (Nacos: one push of a list per 500 ms), a larger heap runs it as written ' +
      '(NODE_OPTIONS=--max-old-space-size=MB)'
    );
  }
  return '';
}
