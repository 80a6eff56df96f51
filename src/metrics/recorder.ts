/**
 * The recorder: the world reports requests, attempts, executions and registry pushes as they
 * happen, and the recorder streams them into the figures of SPEC 4 and the summary JSON of 4.1.
 * It keeps no per-request data once a request has ended (memory is bounded by what is in flight)
 * and checks the invariants of SPEC 5 at the end. It knows nothing of how the world simulates.
 *
 * Attribution rules (documented in docs/outputs.md, "Definitions"):
 * - a request is measured iff `warmupMs <= startMs < durationMs`; its attempts, executions,
 *   duplicates and orphans count in the figures, even when they happen after the window;
 * - `byProviderGroup` is the provider-side load over the whole run, warm-up included, like
 *   `utilization`; so are the `registry` push counts, `events` and `faults`;
 * - the timeline counts each measured request in the bucket where it started; buckets run from
 *   `warmupMs` to `durationMs` (no request starts later); `p99Ms` is over all the bucket's
 *   requests (like `latencyAllMs`), so timeouts show in it, `p99OkMs` over its ok ones;
 *   `timelineByZone` splits the same rows by consumer zone;
 * - the provider side of the timeline (`pushes`, `timelineByProviderGroup`) is read at the
 *   window's start and at each bucket's end through `sample`, which the runner calls at
 *   `sampleTimeMs(k)` before any other event of that instant: a bucket holds what happened in
 *   `[tMs, tMs + bucketMs)`, whichever request it belongs to;
 * - `timelineByZone` and `timelineByProviderGroup` exist only while (zones + provider groups) ×
 *   buckets stays within `MAX_SCOPE_TIMELINE_ROWS`, so a very long timeline costs no more memory
 *   per bucket than before they existed;
 * - `crossZoneByPair` counts the measured requests' attempts per (consumer zone, provider zone),
 *   every declared zone a row and a column in the declared order (zones not declared follow in
 *   the order they showed up), so its shape is the same for every seed.
 */
import { ScopeCell } from './scope-cell.js';
import { OUTCOMES, ratio, roundMs, roundRatio, type FaultMarker, type Outcome, type ProviderTimelineRow, type ScopeTimelineRow, type Summary, type TimelineRow } from './summary.js';
import { RequestRecord } from './request-record.js';
import { countOf, Timeline } from './timeline.js';
import { ZonePairs } from './zone-pairs.js';
import { EMPTY_RESULT_CAUSE, type DiscoveryLevelName } from './observer.js';
import { PushLagMeter, registryServersSummary, registryTimelineColumns, type RegistryNodeFigures } from './registry-server-figures.js';
import { ConsumerPushes } from './consumer-pushes.js';

export type { Outcome, Summary } from './summary.js';

const OUTCOME_INDEX: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(OUTCOMES.map((o, i) => [o, i])) as Record<string, number>,
);

interface GroupAcc {
  name: string;
  /** Row of the group in the provider timeline; -1 for a group not declared up front. */
  index: number;
  instances: number;
  threads: number;
  executions: number;
  rejected: number;
  /** Per exported service, for groups that export several (else null). */
  byService: Map<string, { executions: number; rejected: number }> | null;
  busyMs: number;
  peakActiveThreads: number;
  known: boolean;
}

interface FinalState {
  simulatedMs: number;
  providerGroups: Array<{ name: string; busyMs: number; peakActiveThreads: number }>;
  inFlight: number;
  /** The registry nodes, when a registry is modeled as a server (summary `registry.servers`); none otherwise. */
  registryServers?: readonly RegistryNodeFigures[];
}

/** What `sample` reads from the world for one provider group. */
export interface ProviderGroupSample {
  name: string;
  /** Busy thread-ms of the group's shared pools since the start of the run. */
  busyMs: number;
  /** Most threads of one instance's shared pool busy at once since the previous sample. */
  peakActiveThreads: number;
}

/** Most rows `timelineByZone` and `timelineByProviderGroup` may hold together (beyond that both are left out). */
export const MAX_SCOPE_TIMELINE_ROWS = 250_000;

// Column layout of one (provider group, bucket) in `#providerTimeline`.
const P_EXECUTIONS = 0;
const P_REJECTED = 1;
const P_BUSY_MS = 2;
const P_PEAK = 3;
const P_COLS = 4;
/** Up to this many cells, `#cell` compares names instead of looking them up. */
const FEW_CELLS = 8;

/** Streams simulation events into the SPEC 4.1 figures; see the module comment for attribution rules. */
export class Recorder {
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly bucketMs: number;
  readonly #timeline: Timeline;
  // PERF: cells are found through nested maps keyed by the strings the world already holds,
  // so a request start costs three Map lookups and no string concatenation.
  readonly #cellIndex = new Map<string, Map<string, Map<string, ScopeCell>>>();
  readonly #cells: ScopeCell[] = [];
  /** Each cell with the names it was made for (`#cell`'s quick path). */
  readonly #cellNames: Array<{ zone: string; service: string; method: string; cell: ScopeCell }> = [];
  readonly #groups = new Map<string, GroupAcc>();
  readonly #events = new Map<string, number>();
  readonly #faults: FaultMarker[] = [];
  /** Attempts of measured requests per (consumer zone, provider zone). */
  readonly #pairs: ZonePairs;
  readonly #nonIdempotentMethods: string[];
  #pushes = 0;
  #pushBytes = 0;
  readonly #consumerPushes: ConsumerPushes;
  readonly #interfacePushes = { pushes: 0, pushBytes: 0 };
  readonly #applicationPushes = { pushes: 0, pushBytes: 0 };
  /** Pushes per timeline bucket, then per (declared group, bucket) executions, rejections, busy ms, peak. */
  readonly #pushTimeline: Float64Array;
  /** Open Sentinel breakers per consumer zone at each bucket's end; null without Sentinel. */
  #openBreakers: Map<string, number>[] | null = null;
  readonly #providerTimeline: Float64Array;
  /** Samples taken so far; the cumulative values of the last one. */
  #samples = 0;
  #lastPushes = 0;
  readonly #lastGroup: Float64Array;
  /** Whether the summary has `timelineByZone` and `timelineByProviderGroup`. */
  readonly #perScope: boolean;
  // Invariant bookkeeping over every request, measured or not.
  #started = 0;
  #ended = 0;
  #doubleEnds = 0;
  #allAttempts = 0;
  #allExecutions = 0;
  #allOrphaned = 0;
  #reachedProvider = 0;
  #executionsWithoutAttempt = 0;
  #negativeLatencies = 0;
  #okWithoutAttempt = 0;
  /** What `finish` was told, less the groups' figures (copied into `#groups` there). */
  #final: Omit<FinalState, 'providerGroups'> | null = null;
  readonly #pushLag: PushLagMeter;

  constructor(opts: {
    warmupMs: number;
    durationMs: number;
    bucketMs: number;
    providerGroups: Array<{ name: string; instances: number; threads: number; services?: readonly string[] }>;
    /** How many consumer zones there can be (for the per-zone timeline's memory bound; default: `zoneNames`' length, else 1). */
    zones?: number;
    /** The scenario's zones in order: the rows and columns of `crossZoneByPair`. */
    zoneNames?: readonly string[];
    /** The scenario's `service.method`s with `idempotent: false` (summary `nonIdempotentMethods`). */
    nonIdempotentMethods?: readonly string[];
    /** The summary also lists every consumer instance's pushes (`registry.byConsumer`; `run --per-instance`). */
    perInstance?: boolean;
  }) {
    this.warmupMs = opts.warmupMs;
    this.durationMs = opts.durationMs;
    this.bucketMs = opts.bucketMs;
    const buckets = Math.max(0, Math.ceil((opts.durationMs - opts.warmupMs) / opts.bucketMs));
    const zones = opts.zones ?? (opts.zoneNames !== undefined && opts.zoneNames.length > 0 ? opts.zoneNames.length : 1);
    this.#perScope = (zones + opts.providerGroups.length) * buckets <= MAX_SCOPE_TIMELINE_ROWS;
    this.#pairs = new ZonePairs(opts.zoneNames);
    this.#nonIdempotentMethods = [...new Set(opts.nonIdempotentMethods ?? [])].sort();
    this.#consumerPushes = new ConsumerPushes(opts.perInstance);
    this.#timeline = new Timeline(opts.warmupMs, opts.durationMs, opts.bucketMs, { perScope: this.#perScope });
    this.#pushTimeline = new Float64Array(buckets);
    this.#pushLag = new PushLagMeter(opts.warmupMs, opts.bucketMs, buckets);
    this.#providerTimeline = new Float64Array(this.#perScope ? opts.providerGroups.length * buckets * P_COLS : 0);
    this.#lastGroup = new Float64Array(opts.providerGroups.length * P_COLS);
    for (const g of opts.providerGroups) {
      this.#groups.set(g.name, {
        name: g.name,
        index: this.#groups.size,
        instances: g.instances,
        threads: g.threads,
        executions: 0,
        rejected: 0,
        byService:
          g.services !== undefined && g.services.length > 1
            ? new Map(g.services.map((svc) => [svc, { executions: 0, rejected: 0 }]))
            : null,
        busyMs: 0,
        peakActiveThreads: 0,
        known: true,
      });
    }
  }

  /** Latency histograms of timeline buckets alive at most at once (a memory check). */
  get peakLiveBucketHistograms(): number {
    return this.#timeline.peakLiveHistograms;
  }

  /** Requests started so far, every tier and the warmup included (a run watchdog's figure). */
  get requestsStarted(): number {
    return this.#started;
  }

  /** Attempts sent so far, warmup included. */
  get attemptsSent(): number {
    return this.#allAttempts;
  }

  /** A consumer starts one logical call; keep the returned record with the request. */
  startRequest(init: {
    consumerGroup: string;
    consumerZone: string;
    service: string;
    method: string;
    idempotent: boolean;
    startMs: number;
  }): RequestRecord {
    this.#started++;
    const startMs = init.startMs;
    if (!(startMs >= this.warmupMs && startMs < this.durationMs)) {
      return new RequestRecord(startMs, init.idempotent, null, -1);
    }
    const cell = this.#cell(init.consumerZone, init.service, init.method);
    cell.requests++;
    const bucket = this.#timeline.bucketOf(startMs);
    const scope = this.#timeline.scopeOf(init.consumerZone);
    this.#timeline.start(bucket, scope);
    return new RequestRecord(startMs, init.idempotent, cell, bucket, scope);
  }

  /** One attempt sent to a provider (`stale`: the registry already knew the provider was gone). */
  attempt(req: RequestRecord, info: { crossZone: boolean; stale: boolean; providerGroup: string; providerZone: string }): void {
    req.attempts++;
    this.#allAttempts++;
    const cell = req.cell;
    if (cell === null) return;
    cell.attempts++;
    if (info.crossZone) {
      cell.crossZoneAttempts++;
      // PERF: only a cross-zone attempt goes into the zone-pair matrix (the diagonal is each cell's
      // attempts minus its cross-zone ones), and the consumer zone's index comes with the cell.
      const pairs = this.#pairs;
      pairs.count(cell.zoneIndex, pairs.indexOf(info.providerZone));
    }
    if (info.stale) cell.staleAttempts++;
    this.#timeline.attempt(req.bucket, req.scope, info.crossZone);
  }

  /** A provider of `providerGroup` started executing the request on a thread (also after the request ended). */
  execution(req: RequestRecord, providerGroup: string, service?: string): void {
    const g = this.#group(providerGroup);
    g.executions++;
    if (g.byService !== null && service !== undefined) this.#serviceOf(g, service).executions++;
    this.#allExecutions++;
    if (req.attempts === 0) this.#executionsWithoutAttempt++;
    const n = ++req.executions;
    if (n === 1) this.#reachedProvider++;
    const cell = req.cell;
    if (cell === null) return;
    cell.executions++;
    if (n > 1) {
      cell.duplicateExecutions++;
      if (!req.idempotent) cell.duplicateWrites++;
    }
  }

  /** A provider of `providerGroup` refused a call: thread pool exhausted (not an execution). */
  rejected(providerGroup: string, service?: string): void {
    const g = this.#group(providerGroup);
    g.rejected++;
    if (g.byService !== null && service !== undefined) this.#serviceOf(g, service).rejected++;
  }

  #serviceOf(g: GroupAcc, service: string): { executions: number; rejected: number } {
    let s = g.byService!.get(service);
    if (s === undefined) g.byService!.set(service, (s = { executions: 0, rejected: 0 }));
    return s;
  }

  /** An execution of `req` whose response no consumer used (late, lost, or a forking loser). */
  orphaned(req: RequestRecord): void {
    this.#allOrphaned++;
    if (req.cell !== null) req.cell.orphanedExecutions++;
  }

  /**
   * The request ended with `outcome` at `endMs`. `cause` names why a noProvider/forbidden outcome
   * happened (`router:condition`, `registry:forbidden`, ...), and the kind of mock of a `mock` one
   * (`force:return`, ...); for `ok` only EMPTY_RESULT_CAUSE matters (an ok without attempt is then no
   * invariant violation); other outcomes ignore it.
   * A second end of the same request is counted as an invariant violation and otherwise ignored.
   */
  endRequest(req: RequestRecord, outcome: Outcome, endMs: number, cause?: string): void {
    if (req.outcome !== null) {
      this.#doubleEnds++;
      return;
    }
    const index = OUTCOME_INDEX[outcome];
    if (index === undefined) throw new TypeError(`unknown outcome: ${String(outcome)}`);
    req.outcome = outcome;
    req.ended = true;
    this.#ended++;
    // An ok answer comes from a provider; only a cluster's empty result (a swallowed failure) may have no attempt.
    if (index === 0 && req.attempts === 0 && cause !== EMPTY_RESULT_CAUSE) this.#okWithoutAttempt++;
    const cell = req.cell;
    if (cell === null) return;
    let latencyMs = endMs - req.startMs;
    if (!(latencyMs >= 0)) {
      this.#negativeLatencies++;
      latencyMs = 0;
    }
    cell.outcomes[index]!++;
    if (index === 0) cell.okLatency.record(latencyMs);
    else {
      cell.failedLatency.record(latencyMs);
      if (outcome === 'noProvider' || outcome === 'forbidden') cell.addCause(cause ?? 'unspecified');
      else if (outcome === 'rejected') cell.addRejectedCause(cause ?? 'unspecified');
      else if (outcome === 'mock') cell.addMockCause(cause ?? 'unspecified');
      else if (outcome === 'blocked') cell.addBlockedCause(cause ?? 'unspecified');
    }
    this.#timeline.end(req.bucket, req.scope, index, latencyMs);
  }

  /**
   * One registry notification, `bytes` long, of a discovery level, delivered to a consumer instance of
   * `consumerGroup` that stands for `members` instances (each of them got it: the totals grow by `members`).
   */
  push(consumerInstance: string, consumerGroup: string, bytes: number, level: DiscoveryLevelName = 'interface', members = 1): void {
    this.#pushes += members;
    this.#pushBytes += members * bytes;
    const l = level === 'application' ? this.#applicationPushes : this.#interfacePushes;
    l.pushes += members;
    l.pushBytes += members * bytes;
    this.#consumerPushes.record(consumerInstance, consumerGroup, bytes, members);
  }

  /** With registry servers: a push reported at `atMs` reaches its consumer `lagMs` later. */
  registryPushLag(lagMs: number, atMs: number): void {
    this.#pushLag.record(atMs, lagMs);
  }

  /** Adds `by` to the free-form counter `name` (summary `events`). */
  count(name: string, by = 1): void {
    this.#events.set(name, (this.#events.get(name) ?? 0) + by);
  }

  /**
   * When the `k`-th `sample` is due: the start of the timeline window, then the end of each bucket
   * (the last one at `durationMs`); undefined once every bucket has been sampled.
   */
  sampleTimeMs(k: number): number | undefined {
    const buckets = this.#timeline.buckets;
    if (!(k >= 0 && k <= buckets) || buckets === 0) return undefined;
    return Math.min(this.warmupMs + k * this.bucketMs, this.durationMs);
  }

  /**
   * The world's provider-side state at `sampleTimeMs(k)` for the k-th call: the first call sets
   * the baseline (none when the window starts at 0), each later one closes a bucket with the pushes, executions, rejections, busy
   * time and peak threads since the previous call. Groups not declared to the recorder are ignored.
   */
  sample(groups: readonly ProviderGroupSample[], openBreakers?: ReadonlyMap<string, number>): void {
    const k = this.#samples++;
    const buckets = this.#timeline.buckets;
    if (k > buckets) return;
    // A window that starts at 0 has no baseline: what the world did while being built counts too.
    if (k === 0 && this.warmupMs <= 0) return;
    const b = k - 1;
    if (b >= 0 && openBreakers !== undefined) (this.#openBreakers ??= [])[b] = new Map(openBreakers);
    if (b >= 0) this.#pushTimeline[b] = this.#pushes - this.#lastPushes;
    this.#lastPushes = this.#pushes;
    const last = this.#lastGroup;
    for (const sample of groups) {
      const g = this.#groups.get(sample.name);
      if (g === undefined || g.index < 0) continue;
      const prev = g.index * P_COLS;
      if (b >= 0 && this.#perScope) {
        const row = (g.index * buckets + b) * P_COLS;
        const t = this.#providerTimeline;
        t[row + P_EXECUTIONS] = g.executions - last[prev + P_EXECUTIONS]!;
        t[row + P_REJECTED] = g.rejected - last[prev + P_REJECTED]!;
        t[row + P_BUSY_MS] = sample.busyMs - last[prev + P_BUSY_MS]!;
        t[row + P_PEAK] = sample.peakActiveThreads;
      }
      last[prev + P_EXECUTIONS] = g.executions;
      last[prev + P_REJECTED] = g.rejected;
      last[prev + P_BUSY_MS] = sample.busyMs;
    }
  }

  /** A fault started or ended (summary `faults`). */
  marker(m: { tMs: number; kind: 'start' | 'end'; label: string }): void {
    this.#faults.push({ tMs: m.tMs, kind: m.kind, label: m.label });
  }

  /** Ends recording with the world's final state; call once, after the world has drained. */
  finish(final: FinalState): void {
    if (this.#final !== null) throw new Error('Recorder.finish() called twice');
    this.#final = {
      simulatedMs: final.simulatedMs,
      inFlight: final.inFlight,
      registryServers: final.registryServers,
    };
    for (const g of final.providerGroups) {
      const acc = this.#group(g.name);
      acc.busyMs = g.busyMs;
      acc.peakActiveThreads = g.peakActiveThreads;
    }
    this.#timeline.finish();
  }

  /** Violations of the run's invariants (SPEC 5); empty when all hold. */
  checkInvariants(): string[] {
    const problems: string[] = [];
    const final = this.#final;
    if (final === null) return ['Recorder.finish() was not called'];
    if (final.inFlight !== 0) {
      problems.push(`${final.inFlight} requests still in flight at the end (the world must drain before finishing)`);
    }
    const unended = this.#started - this.#ended;
    if (unended !== 0) problems.push(`${unended} of ${this.#started} started requests never ended`);
    if (this.#doubleEnds > 0) problems.push(`${this.#doubleEnds} requests ended more than once`);
    const total = this.#total();
    const outcomeSum = total.outcomes.reduce((s, n) => s + n, 0);
    if (unended === 0 && outcomeSum !== total.requests) {
      problems.push(`sum of outcomes (${outcomeSum}) != measured requests (${total.requests})`);
    }
    const timelineRequests = this.#timeline.totalRequests();
    if (timelineRequests !== total.requests) {
      problems.push(`timeline requests (${timelineRequests}) != measured requests (${total.requests})`);
    }
    let groupExecutions = 0;
    for (const g of this.#groups.values()) {
      groupExecutions += g.executions;
      if (!g.known) problems.push(`provider group "${g.name}" was not declared to the recorder`);
    }
    if (groupExecutions !== this.#allExecutions) {
      problems.push(`executions by provider group (${groupExecutions}) != executions (${this.#allExecutions})`);
    }
    if (total.executions > this.#allExecutions) {
      problems.push(`measured executions (${total.executions}) > all executions (${this.#allExecutions})`);
    }
    if (this.#executionsWithoutAttempt > 0) {
      problems.push(`${this.#executionsWithoutAttempt} executions of requests that had no attempt`);
    }
    if (this.#allAttempts < this.#reachedProvider) {
      problems.push(`attempts (${this.#allAttempts}) < requests that reached a provider (${this.#reachedProvider})`);
    }
    if (total.duplicateExecutions > total.executions) {
      problems.push(`duplicate executions (${total.duplicateExecutions}) > executions (${total.executions})`);
    }
    if (this.#allOrphaned > this.#allExecutions) {
      problems.push(`orphaned executions (${this.#allOrphaned}) > executions (${this.#allExecutions})`);
    }
    if (this.#negativeLatencies > 0) problems.push(`${this.#negativeLatencies} requests ended before they started`);
    if (this.#okWithoutAttempt > 0) {
      problems.push(`${this.#okWithoutAttempt} requests ended ok without any attempt (an ok outcome needs a provider's answer, or a cluster's empty result)`);
    }
    const late = this.#timeline.lateStarts;
    if (late > 0) problems.push(`${late} requests started in a timeline bucket already closed (start times went backwards)`);
    return problems;
  }

  /** The SPEC 4.1 summary (call after `finish`). */
  summary(meta: { scenario: string; seed: number; seeds: number[]; version: string }): Summary {
    const final = this.#final;
    if (final === null) throw new Error('Recorder.summary() needs finish() first');
    const total = this.#total();
    const byZone = new Map<string, ScopeCell>();
    const byService = new Map<string, ScopeCell>();
    for (const cell of this.#cells) {
      mergeInto(byZone, cell.zone, cell);
      mergeInto(byService, cell.serviceKey, cell);
    }
    const figures = total.toSummary();
    const servers = final.registryServers !== undefined && final.registryServers.length > 0 ? final.registryServers : undefined;
    const byConsumer = this.#consumerPushes.byConsumer();
    const byProviderGroup: Summary['byProviderGroup'] = {};
    for (const name of [...this.#groups.keys()].sort()) {
      const g = this.#groups.get(name)!;
      byProviderGroup[name] = {
        instances: g.instances,
        executions: g.executions,
        rejected: g.rejected,
        utilization: roundRatio(ratio(g.busyMs, g.instances * g.threads * final.simulatedMs)),
        peakActiveThreads: g.peakActiveThreads,
        ...(g.byService === null
          ? {}
          : { byService: Object.fromEntries([...g.byService].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, { ...v }])) }),
      };
    }
    const events: Record<string, number> = {};
    for (const name of [...this.#events.keys()].sort()) events[name] = this.#events.get(name)!;
    const faults = this.#faults
      .map((f, i) => ({ f, i }))
      .sort((a, b) => a.f.tMs - b.f.tMs || a.i - b.i)
      .map(({ f }) => ({ ...f }));
    return {
      scenario: meta.scenario,
      seed: meta.seed,
      seeds: [...meta.seeds],
      version: meta.version,
      simulatedMs: final.simulatedMs,
      measuredFromMs: this.warmupMs,
      ...figures,
      crossZoneByPair: this.#pairs.toJson(this.#cells.map((c) => ({ zone: c.zoneIndex, attempts: c.attempts - c.crossZoneAttempts }))),
      registry: {
        pushes: this.#pushes,
        pushBytes: this.#pushBytes,
        staleCalls: total.staleAttempts,
        byConsumerGroup: this.#consumerPushes.byConsumerGroup(),
        ...(byConsumer === undefined ? {} : { byConsumer }),
        byLevel: {
          ...(this.#interfacePushes.pushes > 0 ? { interface: { ...this.#interfacePushes } } : {}),
          ...(this.#applicationPushes.pushes > 0 ? { application: { ...this.#applicationPushes } } : {}),
        },
        ...(servers === undefined
          ? {}
          : { servers: registryServersSummary(servers, { bucketMs: this.bucketMs, windowMs: this.durationMs - this.warmupMs }), pushLagMs: this.#pushLag.stats() }),
      },
      byConsumerZone: scopes(byZone),
      byService: scopes(byService),
      byProviderGroup,
      timeline: this.#timelineRows(servers),
      events,
      faults,
      nonIdempotentMethods: [...this.#nonIdempotentMethods],
      ...(this.#perScope ? { timelineByZone: this.#zoneRows(), timelineByProviderGroup: this.#providerRows() } : {}),
    };
  }

  /** The run's timeline rows, with the registry columns when there are registry servers. */
  #timelineRows(servers: readonly RegistryNodeFigures[] | undefined): TimelineRow[] {
    const rows = this.#timeline.rows(this.#pushTimeline);
    if (servers === undefined) return this.#openBreakers === null ? rows : rows.map((row, b) => ({ ...row, ...this.#openBreakersAt(b) }));
    const p99 = this.#pushLag.p99ByBucket();
    return rows.map((row, b) => {
      const widthMs = Math.min(this.bucketMs, this.durationMs - (this.warmupMs + b * this.bucketMs));
      return { ...row, ...this.#openBreakersAt(b), ...registryTimelineColumns(servers, p99, b, widthMs) };
    });
  }

  /** `openBreakers` of bucket `b` (all zones, or one), only when the run sampled Sentinel. */
  #openBreakersAt(b: number, zone?: string): { openBreakers?: number } {
    if (this.#openBreakers === null) return {};
    const m = this.#openBreakers[b];
    if (m === undefined) return { openBreakers: 0 };
    if (zone !== undefined) return { openBreakers: m.get(zone) ?? 0 };
    let n = 0;
    for (const v of m.values()) n += v;
    return { openBreakers: n };
  }

  #zoneRows(): Record<string, ScopeTimelineRow[]> {
    const rows = this.#timeline.scopeRows();
    if (this.#openBreakers === null) return rows;
    for (const [zone, list] of Object.entries(rows)) rows[zone] = list.map((row, b) => ({ ...row, ...this.#openBreakersAt(b, zone) }));
    return rows;
  }

  #providerRows(): Record<string, ProviderTimelineRow[]> {
    const out: Record<string, ProviderTimelineRow[]> = {};
    const buckets = this.#timeline.buckets;
    const t = this.#providerTimeline;
    for (const name of [...this.#groups.keys()].sort()) {
      const g = this.#groups.get(name)!;
      if (g.index < 0) continue;
      const rows: ProviderTimelineRow[] = [];
      for (let b = 0; b < buckets; b++) {
        const row = (g.index * buckets + b) * P_COLS;
        const startMs = this.warmupMs + b * this.bucketMs;
        const widthMs = Math.min(this.bucketMs, this.durationMs - startMs);
        rows.push({
          tMs: roundMs(startMs),
          executions: countOf(t[row + P_EXECUTIONS]!),
          rejected: countOf(t[row + P_REJECTED]!),
          utilization: roundRatio(ratio(t[row + P_BUSY_MS]!, g.instances * g.threads * widthMs)),
          peakActiveThreads: countOf(t[row + P_PEAK]!),
        });
      }
      out[name] = rows;
    }
    return out;
  }

  #cell(zone: string, service: string, method: string): ScopeCell {
    // PERF: with a few cells (most scenarios), comparing their names (usually the very same strings)
    // is quicker than three map lookups per request.
    const named = this.#cellNames;
    if (named.length <= FEW_CELLS) {
      for (let i = 0; i < named.length; i++) {
        const n = named[i]!;
        if (n.method === method && n.zone === zone && n.service === service) return n.cell;
      }
    }
    let byService = this.#cellIndex.get(zone);
    if (byService === undefined) this.#cellIndex.set(zone, (byService = new Map()));
    let byMethod = byService.get(service);
    if (byMethod === undefined) byService.set(service, (byMethod = new Map()));
    let cell = byMethod.get(method);
    if (cell === undefined) {
      cell = new ScopeCell(zone, `${service}.${method}`);
      cell.zoneIndex = this.#pairs.indexOf(zone);
      byMethod.set(method, cell);
      this.#cells.push(cell);
      this.#cellNames.push({ zone, service, method, cell });
    }
    return cell;
  }

  #group(name: string): GroupAcc {
    let g = this.#groups.get(name);
    if (g === undefined) {
      g = { name, index: -1, instances: 0, threads: 0, executions: 0, rejected: 0, byService: null, busyMs: 0, peakActiveThreads: 0, known: false };
      this.#groups.set(name, g);
    }
    return g;
  }

  #total(): ScopeCell {
    const total = new ScopeCell('', '');
    for (const cell of this.#cells) total.add(cell);
    return total;
  }
}

function mergeInto(map: Map<string, ScopeCell>, key: string, cell: ScopeCell): void {
  let acc = map.get(key);
  if (acc === undefined) map.set(key, (acc = new ScopeCell(cell.zone, cell.serviceKey)));
  acc.add(cell);
}

function scopes(map: Map<string, ScopeCell>): Record<string, ReturnType<ScopeCell['toSummary']>> {
  const out: Record<string, ReturnType<ScopeCell['toSummary']>> = {};
  for (const key of [...map.keys()].sort()) out[key] = map.get(key)!.toSummary();
  return out;
}
