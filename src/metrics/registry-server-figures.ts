/**
 * The figures of the registry as a server (SPEC 4, "With registry servers"): what each registry node
 * reports at the end of a run, the push lags the world reports as it runs, and how both become
 * `registry.servers`, `registry.pushLagMs` and the timeline's registry columns. It owns the figures'
 * arithmetic, not the nodes (world/registry-servers.ts) nor the summary's other parts (the recorder).
 *
 * Attribution: utilizations, peak queue bytes, `pushLagMs` and the timeline columns cover the
 * measured window (`warmup` to `duration`); a push's lag counts in the bucket of the instant it is
 * reported (a push when it is sent, a ZooKeeper watch's read when the node answers it). The counters
 * (`requestsServed`, `bytesOut`, `sessionsExpired`...) cover the whole run, like the push counts.
 */
import type { LinkFigures } from '../engine/fifo-link.js';
import { LatencyHistogram } from './histogram.js';
import { ratio, roundMs, roundRatio, type LatencyStats, type RegistryServerSummary } from './summary.js';

/** What one registry node reports at the end of a run. */
export interface RegistryNodeFigures {
  /** `<zone>-<i>`, prefixed `<registry>/` with several registries. */
  name: string;
  /** Its zone; undefined for the one node of a registry without a zone. */
  zone: string | undefined;
  /** Its NIC, each direction, and its request pipeline, on the timeline's bucket grid. */
  out: LinkFigures;
  in: LinkFigures;
  requestsServed: number;
  requestsRefused: number;
  sessionsExpired: number;
  /** Sessions expired per timeline bucket. */
  sessionsExpiredByBucket: Float64Array;
  registrationsFailed: number;
  registrationsRetried: number;
  pushesLost: number;
  pushesMerged: number;
}

/** The registry columns of one timeline bucket. */
export interface RegistryTimelineColumns {
  registryBytes: number;
  registryUtilization: number;
  pushLagP99Ms: number;
  sessionsExpired: number;
}

const P99 = [99] as const;

/** Streams push lags into the run's distribution and a p99 per timeline bucket (one open bucket at a time). */
export class PushLagMeter {
  readonly #fromMs: number;
  readonly #bucketMs: number;
  readonly #all = new LatencyHistogram();
  readonly #open = new LatencyHistogram();
  #openBucket = -1;
  readonly #p99: Float64Array;

  constructor(fromMs: number, bucketMs: number, buckets: number) {
    this.#fromMs = fromMs;
    this.#bucketMs = bucketMs;
    this.#p99 = new Float64Array(buckets);
  }

  /** A push reported at `atMs` (the kernel's clock: never earlier than the one before) took `lagMs`. */
  record(atMs: number, lagMs: number): void {
    const b = Math.floor((atMs - this.#fromMs) / this.#bucketMs);
    if (atMs < this.#fromMs || b >= this.#p99.length) return;
    if (b !== this.#openBucket) {
      this.#close();
      this.#openBucket = b;
    }
    this.#all.record(lagMs);
    this.#open.record(lagMs);
  }

  #close(): void {
    if (this.#openBucket >= 0 && this.#open.count > 0) this.#p99[this.#openBucket] = roundMs(this.#open.percentilesMs(P99)[0]!);
    this.#open.reset();
  }

  /** The lags of the measured window. */
  stats(): LatencyStats {
    return this.#all.stats();
  }

  /** The p99 lag of each bucket (0 where no push was reported); closes the open bucket. */
  p99ByBucket(): Float64Array {
    this.#close();
    this.#openBucket = -1;
    return this.#p99;
  }
}

/** Mean and peak utilization of a link over the measured window `[fromMs, fromMs + windowMs)`. */
function utilization(link: LinkFigures, bucketMs: number, windowMs: number): { peakUtilization: number; meanUtilization: number } {
  if (link.ratePerMs === Infinity) return { peakUtilization: 0, meanUtilization: 0 };
  let busy = 0;
  let peak = 0;
  const n = link.busyMs.length;
  for (let b = 0; b < n; b++) {
    busy += link.busyMs[b]!;
    const width = Math.min(bucketMs, windowMs - b * bucketMs);
    const u = ratio(link.busyMs[b]!, width);
    if (u > peak) peak = u;
  }
  return { peakUtilization: roundRatio(peak), meanUtilization: roundRatio(ratio(busy, windowMs)) };
}

/** `registry.servers`: one summary per node, in node order. */
export function registryServersSummary(
  nodes: readonly RegistryNodeFigures[],
  grid: { bucketMs: number; windowMs: number },
): Record<string, RegistryServerSummary> {
  const out: Record<string, RegistryServerSummary> = {};
  for (const n of nodes) {
    let peakQueue = 0;
    for (const q of n.out.peakBacklog) if (q > peakQueue) peakQueue = q;
    out[n.name] = {
      ...(n.zone === undefined ? {} : { zone: n.zone }),
      nicOut: utilization(n.out, grid.bucketMs, grid.windowMs),
      nicIn: utilization(n.in, grid.bucketMs, grid.windowMs),
      peakQueueBytes: Math.round(peakQueue),
      requestsServed: n.requestsServed,
      requestsRefused: n.requestsRefused,
      sessionsExpired: n.sessionsExpired,
      registrationsFailed: n.registrationsFailed,
      registrationsRetried: n.registrationsRetried,
      pushesLost: n.pushesLost,
      pushesMerged: n.pushesMerged,
      bytesOut: Math.round(n.out.work),
      bytesIn: Math.round(n.in.work),
    };
  }
  return out;
}

/** The registry columns of timeline bucket `b`: bytes sent by every node, the busiest out NIC, the p99 push lag, sessions expired. */
export function registryTimelineColumns(
  nodes: readonly RegistryNodeFigures[],
  pushLagP99: Float64Array,
  b: number,
  widthMs: number,
): RegistryTimelineColumns {
  let bytes = 0;
  let peak = 0;
  let expired = 0;
  for (const n of nodes) {
    bytes += n.out.workDone[b] ?? 0;
    if (n.out.ratePerMs !== Infinity) {
      const u = ratio(n.out.busyMs[b] ?? 0, widthMs);
      if (u > peak) peak = u;
    }
    expired += n.sessionsExpiredByBucket[b] ?? 0;
  }
  return {
    registryBytes: Math.round(bytes),
    registryUtilization: roundRatio(peak),
    pushLagP99Ms: pushLagP99[b] ?? 0,
    sessionsExpired: expired,
  };
}
