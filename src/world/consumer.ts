/**
 * Consumer groups and instances as the world sees them: where they are, how requests arrive
 * (Poisson or constant, at a rate the `traffic` fault may change), which method each request
 * calls and which attachments it carries, and each instance's entry pool (`threads`, SPEC 2.4:
 * the requests it serves at once). What an instance does with a request is its `ConsumerStack`
 * (the Dubbo port, plugged in from above). A `roomDown` fault darkens a group (`setDark`): no
 * arrivals, and every request still in flight ends at once as `lost`; a `shift` adds the rate it
 * moves to a group on top of its own (`addShiftedRate`).
 */
import type { QueueEntry } from '../engine/event-queue.js';
import type { Rng } from '../engine/random.js';
import type { Proc, Simulation } from '../engine/simulation.js';
import type { ConsumerGroupSpec, Scenario } from '../model/types.js';
import type { Outcome, RequestHandle, WorldObserver } from '../metrics/observer.js';
import type { TraceObserver } from '../metrics/trace-observer.js';
import type { ServerContext } from './provider-call.js';
import { representativeOf } from './cohorts.js';

/**
 * The attachments of every request of a group that sets none: one shared empty map, never written
 * (the stack hands the port its own read-only map for it, dubbo/no-attachments.ts).
 */
export const NO_CALL_ATTACHMENTS: Map<string, string> = new Map();

/** One request handed to a consumer instance's stack. */
export interface ServiceCall {
  service: string;
  method: string;
  attachments: Map<string, string>;
  request: RequestHandle;
  /** Set when a provider makes the call while executing another (call graphs, SPEC 2.10). */
  server?: ServerContext;
  /** The consumer instance whose entry thread the call holds (an arrival); absent for a provider's call. */
  consumer?: ConsumerInstance;
  /** Set when the request ended `lost` (its room went dark) before its process returned. */
  lost?: boolean;
}

/** A consumer instance's RPC stack (Dubbo's reference, directory, routers, cluster). */
export interface ConsumerStack {
  /** Prepares the reference to `service` (consumer URL, directory, registry subscription). */
  refer(service: string): void;
  /**
   * Runs one request: its process returns the request's single outcome, or, when the stack has
   * `outcomeOf`, a value that `outcomeOf` turns into it. Called as that process starts: its first step
   * follows at once (`Simulation.processLastFrom`, or `yield*`), so what `call` does before returning is
   * part of that step.
   */
  call(call: ServiceCall): Proc<unknown>;
  /** The outcome of what `call`'s process returned (absent: it returned the outcome). */
  outcomeOf?(value: unknown): { outcome: Outcome; cause?: string };
}

/** The outcome of a request whose `call` process returned `value`. */
export function outcomeOfCall(stack: ConsumerStack, value: unknown): { outcome: Outcome; cause?: string } {
  return stack.outcomeOf === undefined ? (value as { outcome: Outcome; cause?: string }) : stack.outcomeOf(value);
}

/** Where and what a consumer instance is. */
export interface ConsumerInstanceInfo {
  readonly id: string;
  readonly ip: string;
  readonly zone: string;
  readonly index: number;
  readonly group: ConsumerGroupSpec;
}

/** One consumer process. */
export class ConsumerInstance implements ConsumerInstanceInfo {
  readonly id: string;
  readonly ip: string;
  readonly zone: string;
  readonly index: number;
  readonly group: ConsumerGroupSpec;
  /**
   * The real instances this one stands for: 1, or a cohort's share (SPEC 2.12, `cohorts.ts`): its requests are
   * theirs, each push it gets is one per member, and its entry pool is theirs together.
   */
  members = 1;
  stack!: ConsumerStack;
  /** Requests this instance is serving now: the entry threads in use (bounded by the group's `threads`). */
  entryThreadsInUse = 0;
  /**
   * The requests of this instance that ended `lost` while their process still ran (null until its room
   * first goes dark): a dead process sends nothing more for them (the stack reads it before an attempt).
   */
  lost: WeakSet<RequestHandle> | null = null;

  constructor(group: ConsumerGroupSpec, index: number, ip: string, id?: string) {
    this.group = group;
    this.zone = group.zone;
    this.index = index;
    this.ip = ip;
    this.id = id ?? `${group.application}@${group.zone}#${index}`;
  }
}

interface MethodChoice {
  service: string;
  method: string;
  idempotent: boolean;
  cumulative: number;
}

/** The cause of a request refused by a full entry pool (outcome `rejected`, SPEC 2.4). */
export const ENTRY_CAUSE = 'entry';

/** A consumer group: its instances, its arrival process and its instances' entry pools. */
export class ConsumerGroup {
  readonly spec: ConsumerGroupSpec;
  readonly instances: ConsumerInstance[];
  readonly #sim: Simulation;
  readonly #observer: WorldObserver;
  readonly #tracer: TraceObserver | null;
  readonly #arrivalRng: Rng;
  readonly #pickRng: Rng;
  readonly #tagRng: Rng;
  /** The group sets no attachment (`spec.attachments` is empty). */
  readonly #noAttachments: boolean;
  readonly #choices: MethodChoice[];
  readonly #total: number;
  readonly #poisson: boolean;
  /** Entry threads per instance (`threads`); Infinity when unbounded. */
  readonly #entryThreads: number;
  /** The instances the group stands for (the sum of `members`: `instances.length` unless it is a cohort). */
  readonly #members: number;
  #ratePerSec: number;
  /** Rate moved here from a dark room by a `shift` (per second), on top of `#ratePerSec`. */
  #shiftedPerSec = 0;
  /** The room is dark (`roomDown`): no arrivals. */
  #dark = false;
  /** Arrivals in flight, in start order, while a `roomDown` may end them (null: not tracked). */
  #tracked: Set<ServiceCall> | null = null;
  #meanGapMs: number;
  /** Arrivals run once `start` is called, until `#untilMs`. */
  #started = false;
  #untilMs = 0;
  /** The scheduled next arrival, so that a rate change can replace it. */
  #pending: QueueEntry | null = null;
  inFlight = 0;
  /** Requests started so far (benchmark figure). */
  started = 0;

  constructor(
    init: { sim: Simulation; observer: WorldObserver; tracer?: TraceObserver | null; scenario: Scenario },
    spec: ConsumerGroupSpec,
    instances: ConsumerInstance[],
    rng: { arrival: Rng; pick: Rng; tag: Rng },
  ) {
    this.#sim = init.sim;
    this.#observer = init.observer;
    this.#tracer = init.tracer ?? null;
    this.spec = spec;
    this.instances = instances;
    this.#arrivalRng = rng.arrival;
    this.#pickRng = rng.pick;
    this.#tagRng = rng.tag;
    this.#noAttachments = Object.keys(spec.attachments).length === 0;
    this.#poisson = spec.arrival === 'poisson';
    this.#entryThreads = spec.threads ?? Infinity;
    let members = 0;
    for (const inst of instances) members += inst.members;
    this.#members = members;
    this.#ratePerSec = spec.ratePerSec;
    this.#meanGapMs = 1000 / spec.ratePerSec;
    let cumulative = 0;
    this.#choices = Object.entries(spec.calls).map(([key, weight]) => {
      const dot = key.lastIndexOf('.');
      const service = key.slice(0, dot);
      const method = key.slice(dot + 1);
      cumulative += weight;
      const idempotent = init.scenario.services[service]?.methods[method]?.idempotent ?? true;
      return { service, method, idempotent, cumulative };
    });
    this.#total = cumulative;
  }

  /** Services this group calls. */
  services(): string[] {
    return [...new Set(this.#choices.map((c) => c.service))];
  }

  /** The group's own arrival rate now (per second): the spec's, or what a `traffic` fault set. */
  get ratePerSec(): number {
    return this.#ratePerSec;
  }

  /** The rate requests arrive at now: the group's own plus what a `shift` moved here; 0 while dark. */
  get arrivalRatePerSec(): number {
    return this.#dark ? 0 : this.#ratePerSec + this.#shiftedPerSec;
  }

  /** True while the group's room is dark (`roomDown`). */
  get dark(): boolean {
    return this.#dark;
  }

  /** Starts the arrival process; arrivals stop at `untilMs`. */
  start(untilMs: number): void {
    this.#started = true;
    this.#untilMs = untilMs;
    if (this.arrivalRatePerSec <= 0 || this.#choices.length === 0) return;
    this.#pending = this.#sim.schedule(this.#poisson ? this.#exponentialGapMs() : 0, this.#nextArrival);
  }

  /** Keeps the arrivals in flight from now on, so that `setDark` can end them (a scenario with `roomDown`). */
  trackInFlight(): void {
    this.#tracked ??= new Set();
  }

  /**
   * The room goes dark (`true`) or comes back. Dark: arrivals stop, and every request in flight (tracked
   * since `trackInFlight`) ends now as `lost`, its entry thread freed; its process runs on unheard (a
   * response that comes is orphaned) and sends nothing more (`ConsumerInstance.lost`). Back: arrivals
   * resume at the group's rate, drawn afresh as `setRate` does. Returns how many requests were lost.
   */
  setDark(dark: boolean): number {
    if (dark === this.#dark) return 0;
    this.#dark = dark;
    let lost = 0;
    if (dark && this.#tracked !== null) {
      const now = this.#sim.now;
      for (const call of this.#tracked) {
        const inst = call.consumer!;
        (inst.lost ??= new WeakSet()).add(call.request);
        call.lost = true;
        this.#observer.endRequest(call.request, 'lost', now);
        inst.entryThreadsInUse--;
        this.inFlight--;
        lost++;
      }
      this.#tracked.clear();
    }
    this.#rescheduleArrival();
    return lost;
  }

  /** Adds `deltaPerSec` (may be negative, to undo) to the rate a `shift` moves to this group. */
  addShiftedRate(deltaPerSec: number): void {
    const shifted = this.#shiftedPerSec + deltaPerSec;
    // Undoing the last shift returns to exactly 0, not to a rounding residue.
    this.#shiftedPerSec = Math.abs(shifted) < 1e-9 ? 0 : shifted;
    this.#rescheduleArrival();
  }

  /**
   * Changes the group's arrival rate from now on (the `traffic` fault); 0 stops arrivals until a
   * later change. The pending arrival is dropped and the next one drawn afresh at the new rate. For
   * Poisson arrivals that is exact, not an approximation: the time to the next arrival is memoryless
   * (what has already elapsed since the last arrival says nothing about the rest), so a fresh
   * exponential draw at the new rate is the process at the new rate. Constant arrivals restart their
   * spacing now (the next one comes one new gap from now).
   */
  setRate(ratePerSec: number): void {
    if (!(ratePerSec >= 0) || !Number.isFinite(ratePerSec)) throw new RangeError(`expected a rate >= 0, got ${ratePerSec}`);
    this.#ratePerSec = ratePerSec;
    this.#rescheduleArrival();
  }

  // The arrival rate changed: the pending arrival is dropped and the next one drawn at the new rate (see `setRate`).
  #rescheduleArrival(): void {
    const rate = this.arrivalRatePerSec;
    this.#meanGapMs = 1000 / rate;
    if (!this.#started) return;
    const sim = this.#sim;
    if (this.#pending !== null) {
      sim.cancel(this.#pending);
      this.#pending = null;
    }
    if (rate <= 0 || this.#choices.length === 0 || sim.now >= this.#untilMs) return;
    this.#pending = sim.schedule(this.#poisson ? this.#exponentialGapMs() : this.#meanGapMs, this.#nextArrival);
  }

  // One arrival, then the next one scheduled. The draws (one per scheduled arrival, from the
  // arrival stream) are the same with or without rate changes until the first change.
  // PERF: the next arrival is scheduled first, so that the request's process can start as the
  // callback's last action (`processLastFrom`). Its entry still comes after the process's first step
  // (which would run next anyway) and before what that step schedules, as before.
  readonly #nextArrival = (): void => {
    const sim = this.#sim;
    this.#pending = null;
    if (sim.now >= this.#untilMs) return;
    this.#pending = sim.schedule(this.#poisson ? this.#exponentialGapMs() : this.#meanGapMs, this.#nextArrival);
    this.#arrive();
  };

  #exponentialGapMs(): number {
    return -this.#meanGapMs * Math.log(1 - this.#arrivalRng.next());
  }

  #arrive(): void {
    const sim = this.#sim;
    const pick = this.#pickRng;
    const inst = this.#pickInstance(pick);
    let choice = this.#choices[0]!;
    if (this.#choices.length > 1) {
      const r = pick.next() * this.#total;
      for (const c of this.#choices) {
        if (r < c.cumulative) {
          choice = c;
          break;
        }
      }
    }
    const request = this.#observer.startRequest({
      consumerGroup: this.spec.application,
      consumerZone: inst.zone,
      service: choice.service,
      method: choice.method,
      idempotent: choice.idempotent,
      startMs: sim.now,
    });
    const tracer = this.#tracer;
    if (tracer !== null) tracer.request(request, this.spec.application, inst.id, inst.ip, inst.zone, choice.service, choice.method, sim.now, null);
    this.started++;
    // DIVERGENCE: a cohort's representative pools its members' entry threads (`cohorts: on` only; auto keeps
    // a group with `threads` per instance): one pool of n·threads rejects less than n pools of `threads`.
    if (inst.entryThreadsInUse >= this.#entryThreads * inst.members) {
      // Every entry thread of the instance is busy: the request ends at once (SPEC 2.4; Tomcat
      // would first hold it in its accept queue, which the scenario format does not model).
      this.#observer.endRequest(request, 'rejected', sim.now, ENTRY_CAUSE);
      if (tracer !== null) tracer.requestEnded(request, 'rejected', sim.now, ENTRY_CAUSE);
      return;
    }
    inst.entryThreadsInUse++;
    this.inFlight++;
    const call: ServiceCall = { service: choice.service, method: choice.method, attachments: this.#attachments(), request, consumer: inst };
    this.#tracked?.add(call);
    sim.processLastFrom(startCall, this.#requestDone, call);
  }

  /**
   * The instance a request arrives at: a uniformly drawn one, or in a cohort a uniformly drawn member's
   * representative (the same one draw either way).
   */
  #pickInstance(pick: Rng): ConsumerInstance {
    const instances = this.instances;
    if (instances.length === 1) return instances[0]!;
    const total = this.#members;
    if (total === instances.length) return instances[pick.nextInt(total)]!;
    return instances[representativeOf(pick.nextInt(total), total, instances.length)]!;
  }

  // The request holds its entry thread from arrival to its outcome.
  readonly #requestDone = (value: unknown, arg: unknown): void => {
    const call = arg as ServiceCall;
    // Ended `lost` when its room went dark: counted and released then.
    if (call.lost === true) return;
    this.#tracked?.delete(call);
    const result = outcomeOfCall(call.consumer!.stack, value);
    this.#observer.endRequest(call.request, result.outcome, this.#sim.now, result.cause);
    if (this.#tracer !== null) this.#tracer.requestEnded(call.request, result.outcome, this.#sim.now, result.cause);
    call.consumer!.entryThreadsInUse--;
    this.inFlight--;
  };

  #attachments(): Map<string, string> {
    const specs = this.spec.attachments;
    // PERF: a group without attachments gives every request the one shared empty map (no draws either way).
    if (this.#noAttachments) return NO_CALL_ATTACHMENTS;
    const out = new Map<string, string>();
    for (const key in specs) {
      const a = specs[key]!;
      if (a.kind === 'all') out.set(key, a.value);
      else if (a.kind === 'fraction') {
        if (this.#tagRng.next() < a.fraction) out.set(key, a.value);
      } else if (evaluateUserExpression(a.when, this.#tagRng.nextInt(this.spec.userIds))) out.set(key, a.value);
    }
    return out;
  }
}

/** A request's process, made as it starts (ConsumerStack.call). */
function startCall(call: ServiceCall): Proc<unknown> {
  return call.consumer!.stack.call(call);
}

const EXPR = /^\s*userId\s*(?:%\s*(\d+)\s*)?(<=|>=|==|!=|<|>)\s*(\d+)\s*$/;

/** True when `expr` has the supported form `userId [% N] <op> K`. */
export function isUserExpression(expr: string): boolean {
  return EXPR.test(expr);
}

/** Evaluates `userId % N < K` style expressions (the only form `when:` supports; validated at load). */
export function evaluateUserExpression(expr: string, userId: number): boolean {
  const m = EXPR.exec(expr);
  if (!m) throw new Error(`unsupported attachment expression "${expr}" (expected e.g. "userId % 1000 < 5")`);
  const v = m[1] !== undefined ? userId % Number(m[1]) : userId;
  const k = Number(m[3]);
  switch (m[2]) {
    case '<':
      return v < k;
    case '<=':
      return v <= k;
    case '>':
      return v > k;
    case '>=':
      return v >= k;
    case '==':
      return v === k;
    default:
      return v !== k;
  }
}
