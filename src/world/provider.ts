/**
 * Simulated provider processes: a provider group is one application whose every process exports
 * one or more services on one port (`ProviderExport`: one registered URL per service), executes
 * calls on Dubbo's fixed or eager thread pool (threads/queues) shared by all of them, unless a service has
 * its own executor (Dubbo 3.2+ isolation) or dynamic isolation has moved a slow method to its own
 * pool; service-time draws, slowdowns, the provider filters (ExecuteLimitFilter, TpsLimitFilter),
 * and the crash / black-hole / up states. A provider executes every call it accepts to the end:
 * a consumer timeout never cancels provider work.
 */
import { sampler, type Sampler } from '../engine/distributions.js';
import { Resource, WatchedResources } from '../engine/resource.js';
import type { Rng } from '../engine/random.js';
import { NORMAL, type Proc, type Simulation } from '../engine/simulation.js';
import type { DynamicIsolationSpec, ExportSpec, MethodSpec, ProviderGroupSpec, ServiceSpec } from '../model/types.js';
import { queueLimit } from '../model/thread-pool.js';
import { DynamicIsolation } from './dynamic-isolation.js';
import type { ConsumerInstance } from './consumer.js';
import { oneWayMsOn, type Link, type Network } from './network.js';
import type { IncomingCall, Reply, ServerContext } from './provider-call.js';
import type { ProviderFilterChain } from './provider-filters.js';
import type { RequestHandle, WorldObserver } from '../metrics/observer.js';
import type { TraceObserver } from '../metrics/trace-observer.js';

/** Dubbo release the simulated providers announce. */
export const PROVIDER_RELEASE = '3.3.2';

/** Epoch of simulated time 0, so that URL `timestamp`s look like Dubbo's (2026-01-01T00:00:00Z). */
export const EPOCH_MS = 1_767_225_600_000;

export type ProviderState = 'up' | 'crashed' | 'blackhole' | 'stopped';

/**
 * A provider's consumer side: makes one downstream call and gives null when it answered with a value
 * (ok, or a mock that returned one), else its failure as the stack gave it (opaque to the world; it goes
 * back in the reply as `thrown`).
 */
export interface DownstreamCaller {
  /** The consumer instance the provider process is for its downstream calls (its stack, its group). */
  readonly instance: ConsumerInstance;
  call(service: string, method: string, server: ServerContext): Proc<unknown>;
}

const REFUSED: Reply = { kind: 'refused' };
const OK_PLAIN: Reply = { kind: 'ok', biz: false };
const OK_BIZ: Reply = { kind: 'ok', biz: true };

interface MethodRuntime {
  spec: MethodSpec;
  draw: Sampler;
}

/** Per-group shared pieces: spec, samplers, counters. */
// PERF: counts provider state changes in this thread, so that what is derived from every provider's
// availability (a balancer's healthy hosts) can be kept until one changes. It never decides an outcome.
let stateChanges = 0;

/** A number that changes whenever any provider process in this thread changes state (up, black hole, crashed, stopped). */
export function providerStateVersion(): number {
  return stateChanges;
}

export class ProviderGroup {
  readonly spec: ProviderGroupSpec;
  /** Methods of the first (or only) exported service. */
  readonly methods: Map<string, MethodRuntime>;
  /** Methods by exported service, in `spec.services` order. */
  readonly methodsByService: Map<string, Map<string, MethodRuntime>>;
  /** The group's processes, in start order (add them with `addInstance`). */
  readonly instances: ProviderInstance[] = [];
  /** The processes' shared pools, in `instances` order, read together per timeline bucket. */
  readonly #pools = new WatchedResources();
  /**
   * Slowdown factors by key: a method name or '*' (every service of the group), or
   * `<service>#<method>` / `<service>#*` (one service of a group that exports several).
   */
  readonly slowdown = new Map<string, number>();
  readonly bizRng: Rng;
  /** Per service, the registered URL after `dubbo://IP:PORT/` of the processes started last (shared by them; `application` is the group's). */
  readonly urlTails = new Map<string, { startMs: number; tail: string }>();
  /** Busy thread-ms and peak of instances that no longer exist. */
  retiredBusyMs = 0;
  retiredPeak = 0;

  constructor(spec: ProviderGroupSpec, services: Record<string, ServiceSpec>, rng: Rng, bizRng: Rng) {
    this.spec = spec;
    this.bizRng = bizRng;
    this.methodsByService = new Map(
      spec.services.map((svc) => [
        svc,
        new Map(Object.entries(services[svc]!.methods).map(([m, s]) => [m, { spec: s, draw: sampler(s.serviceTime, rng) }])),
      ]),
    );
    this.methods = this.methodsByService.get(spec.service)!;
  }

  /** The slowdown key of (service, method): plain for a one-service group, service-scoped otherwise. */
  slowdownKey(service: string | undefined, method: string | undefined): string {
    return slowdownKey(this.spec, service, method);
  }

  /** Service-time multiplier for `method` of `service` now. */
  factor(method: string, service: string = this.spec.service): number {
    if (this.slowdown.size === 0) return 1;
    return slowdownFactor(this.slowdown, this.spec, service, method);
  }

  /** Adds a started process to the group. */
  addInstance(p: ProviderInstance): void {
    this.instances.push(p);
    this.#pools.add(p.pool);
  }

  /**
   * The shared pools' busy thread-ms (as `busyMs`) and the highest use of any of them since the last
   * call (each pool's window peak, which starts again from its current use).
   */
  takeWindowFigures(): { busyMs: number; peak: number } {
    if (this.#pools.size !== this.instances.length) throw new Error(`provider group ${this.spec.name}: an instance was added without addInstance`);
    return this.#pools.read(this.retiredBusyMs);
  }

  /** Busy thread-ms of the shared pools. */
  busyMs(): number {
    return this.instances.reduce((s, p) => s + p.pool.busyMs(), this.retiredBusyMs);
  }

  peakActiveThreads(): number {
    return this.instances.reduce((m, p) => Math.max(m, p.pool.peakInUse), this.retiredPeak);
  }
}

/**
 * One service exported by one provider process: what the registry lists (one URL per service) and
 * what a consumer's invoker calls. Everything about the process (address, state, pools) is the
 * instance's.
 */
export class ProviderExport {
  readonly instance: ProviderInstance;
  readonly service: string;
  /** The service's own executor (Dubbo 3.2+ isolation), or null for the shared pool. */
  readonly executor: Resource<IncomingCall> | null;
  readonly settings: ExportSpec | undefined;
  // PERF: the registered URL in two shared parts, `dubbo://IP:PORT/` (the process's) and `SERVICE?query` (one per
  // service and start time in the group): at 10^5 processes of eight services, a whole URL kept per export was
  // about an eighth of the heap, and most are only ever measured.
  readonly #urlHead: string;
  readonly #urlTail: string;
  /** Its interface-level record at a registry (see `RecordsByExport` in registry-discovery.ts), once registered. */
  registryRecord: object | null = null;
  // PERF: memos of other layers kept on the export, not in weak maps keyed by it: V8's weak collections slow down
  // past about two million entries (4·10^6 adds of a plain loop take a minute), and an estate of 10^5 processes
  // with twenty-four subscribed services each had 2.4·10^6 exports in each of these.
  /** What its URL adds to a push of the first `PushSizer` that measured it (registry-push-size.ts), and that sizer. */
  pushBytes = 0;
  pushBytesOf: object | null = null;
  /** The consumers' parse of its URL (`parsedUrlOf` in consumer-stack.ts), once a reference listed it. */
  parsedUrl: object | null = null;

  constructor(instance: ProviderInstance, service: string, urlHead: string, urlTail: string, executor: Resource<IncomingCall> | null, settings: ExportSpec | undefined) {
    this.instance = instance;
    this.service = service;
    this.#urlHead = urlHead;
    this.#urlTail = urlTail;
    this.executor = executor;
    this.settings = settings;
  }

  /** The registered URL (`dubbo://IP:PORT/SERVICE?...`). */
  get url(): string {
    return this.#urlHead + this.#urlTail;
  }

  get group(): ProviderGroup {
    return this.instance.group;
  }
  get zone(): string {
    return this.instance.zone;
  }
  get ip(): string {
    return this.instance.ip;
  }
  get port(): number {
    return this.instance.port;
  }
  get address(): string {
    return this.instance.address;
  }
  get startMs(): number {
    return this.instance.startMs;
  }
  get state(): ProviderState {
    return this.instance.state;
  }
  get connectable(): boolean {
    return this.instance.connectable;
  }

  /** A request message for this service arrived at the process. */
  receive(call: IncomingCall): void {
    this.instance.receive(call, this);
  }
}

/** One provider process. */
export class ProviderInstance {
  readonly group: ProviderGroup;
  readonly ip: string;
  readonly port: number;
  readonly zone: string;
  readonly startMs: number;
  /** The process's shared thread pool (Dubbo's fixed or eager pool: `threadpool`, `threads`, `queues`). */
  readonly pool: Resource<IncomingCall>;
  /** One export per service, in `services` order: the registered URLs. */
  readonly exports: ProviderExport[];
  /** Its application-level record at a registry (see `RecordsByExport` in registry-discovery.ts), once registered. */
  registryRecord: object | null = null;
  #state: ProviderState = 'up';
  // PERF: made on first use (a fault on `instance:`): 10^5 processes need none.
  #slowdown: Map<string, number> | null = null;
  /** The provider's own consumer side, for methods that call other services (SPEC 2.10). */
  downstream: DownstreamCaller | null = null;
  readonly #sim: Simulation;
  readonly #network: Network;
  readonly #recorder: WorldObserver;
  /** Simulated traces' observer, null when nothing is traced. */
  readonly #tracer: TraceObserver | null;
  readonly #startExecution: (call: IncomingCall) => void;
  /** Several pools (isolated executors, dynamic isolation): the pool each running call holds. */
  readonly #poolOf: Map<IncomingCall, Resource<IncomingCall>> | null;
  readonly #isolation: DynamicIsolation | null;
  /** The provider filter chain (plugged in from above), or null when no filter is on. */
  filters: ProviderFilterChain<ProviderExport> | null = null;

  /** This instance's own slowdown factors (a fault on `instance:`), keyed as the group's. */
  get slowdown(): Map<string, number> {
    return (this.#slowdown ??= new Map());
  }

  constructor(init: {
    group: ProviderGroup;
    ip: string;
    port: number;
    startMs: number;
    sim: Simulation;
    network: Network;
    recorder: WorldObserver;
    tracer?: TraceObserver | null;
    application: string;
  }) {
    this.group = init.group;
    this.ip = init.ip;
    this.port = init.port;
    this.zone = init.group.spec.zone;
    this.startMs = init.startMs;
    this.#sim = init.sim;
    this.#network = init.network;
    this.#recorder = init.recorder;
    this.#tracer = init.tracer ?? null;
    const spec = init.group.spec;
    // EagerThreadPool runs a call at once while fewer than `threads` are busy (TaskQueue.offer makes the
    // executor start a thread rather than queue), then queues it in a bounded TaskQueue: for admission
    // that is a pool of `threads` slots with that queue. DIVERGENCE: the threads it starts and lets die
    // after `alive` (60 s idle) are not modelled: they change only its pool size, which no figure and no
    // message the consumer sees reads; nor the race in which the queue is full while a thread is idle.
    this.pool = new Resource<IncomingCall>(init.sim, spec.threads, queueLimit(spec.threadpool, spec.queues));
    // PERF: bound, not an arrow function: an arrow would keep this constructor's scope (`init`) alive.
    this.#startExecution = this.#execute.bind(this);
    let isolated = false;
    const urlHead = `dubbo://${this.ip}:${this.port}/`;
    this.exports = spec.services.map((service) => {
      const settings = spec.exports[service];
      const executor = settings?.executor === undefined ? null : new Resource<IncomingCall>(init.sim, settings.executor.threads, settings.executor.queues);
      if (executor !== null) isolated = true;
      return new ProviderExport(this, service, urlHead, this.#registeredUrlTail(service, init.application, settings), executor, settings);
    });
    const dynamic = spec.isolation?.dynamic;
    this.#isolation = dynamic === undefined ? null : new DynamicIsolation(init.sim, dynamic, init.recorder);
    this.#poolOf = isolated || dynamic !== undefined ? new Map() : null;
  }

  // SERVICE?application=...&zone=...&timestamp=...&weight=..&warmup=..&<params>, after dubbo://IP:PORT/; the
  // processes of a group started at one instant share it.
  #registeredUrlTail(service: string, application: string, settings: ExportSpec | undefined): string {
    const known = this.group.urlTails.get(service);
    if (known !== undefined && known.startMs === this.startMs) return known.tail;
    const spec = this.group.spec;
    const params: Record<string, string> = {
      anyhost: 'true',
      application,
      dubbo: '2.0.2',
      interface: service,
      methods: [...this.group.methodsByService.get(service)!.keys()].join(','),
      release: PROVIDER_RELEASE,
      side: 'provider',
      zone: spec.zone,
      timestamp: String(Math.trunc(EPOCH_MS + this.startMs)),
      weight: String(spec.weight),
      warmup: String(spec.warmupMs),
      ...spec.params,
      ...exportParams(settings),
    };
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const tail = `${service}?${query}`;
    this.group.urlTails.set(service, { startMs: this.startMs, tail });
    return tail;
  }

  /** The registered URL of the first (or only) exported service. */
  get url(): string {
    return this.exports[0]!.url;
  }

  /** `ip:port`. */
  get address(): string {
    return `${this.ip}:${this.port}`;
  }

  /** Up, black-holed, crashed or stopped (faults set it). */
  get state(): ProviderState {
    return this.#state;
  }

  set state(state: ProviderState) {
    if (state === this.#state) return;
    this.#state = state;
    stateChanges++;
  }

  /** True while the process accepts connections (a crashed or stopped one refuses them). */
  get connectable(): boolean {
    return this.#state === 'up' || this.#state === 'blackhole';
  }

  /** Calls on the process's threads now (the shared pool and every isolated one) and waiting for one. */
  get busy(): boolean {
    // A pool's queue forms only once its threads are all taken; with several pools, `#poolOf` holds
    // every call running on or waiting for any of them.
    return this.pool.inUse > 0 || (this.#poolOf !== null && this.#poolOf.size > 0);
  }

  /** A request message arrived for `target` (default: the first export). */
  receive(call: IncomingCall, target: ProviderExport = this.exports[0]!): void {
    const tracer = this.#tracer;
    if (tracer !== null) {
      if (this.state === 'up') tracer.received(call, this.#sim.now);
      else tracer.notExecuted(call);
    }
    switch (this.state) {
      case 'blackhole':
        return;
      case 'crashed':
      case 'stopped':
        this.#reply(call, REFUSED);
        return;
      case 'up':
        break;
    }
    const pool = target.executor ?? this.#isolation?.poolFor(call.service, call.method) ?? this.pool;
    const got = pool.acquire(this.#startExecution, call);
    if (got !== 'rejected') {
      this.#poolOf?.set(call, pool);
      if (got === 'granted') this.#execute(call);
    } else {
      this.#recorder.rejected(this.group.spec.name, call.service);
      if (tracer !== null) tracer.notExecuted(call);
      this.#reply(call, { kind: 'exhausted', detail: this.#exhaustedDetail(pool) });
    }
  }

  // WrappedChannelHandler.sendFeedback's text: "Server side(ip,port) thread pool is exhausted, detail msg:" and
  // the RejectedExecutionException's message, AbortPolicyWithReport's for a fixed pool. An eager pool
  // catches that one and, its TaskQueue still full on retryOffer, throws "Queue capacity is full."
  // (3.3 EagerThreadPoolExecutor.java:42-59, 2.7.23 EagerThreadPoolExecutor.java:59-84).
  #exhaustedDetail(pool: Resource<IncomingCall>): string {
    const head = `Server side(${this.ip},${this.port}) thread pool is exhausted, detail msg:`;
    if (pool === this.pool && this.group.spec.threadpool === 'eager') return `${head}Queue capacity is full.`;
    return (
      `${head}Thread pool is EXHAUSTED! ` +
      `Thread Name: DubboServerHandler-${this.address}, Pool Size: ${pool.inUse} (active: ${pool.inUse}, core: ${pool.capacity}, ` +
      `max: ${pool.capacity}, largest: ${pool.peakInUse}), ` +
      // getTaskCount: completed + running + queued (3.3 AbortPolicyWithReport.java:102-106, 2.7 :75-81).
      `Task: ${pool.completed + pool.inUse + pool.queued} (completed: ${pool.completed}), ` +
      `Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), in dubbo://${this.address}!`
    );
  }

  #exportOf(service: string): ProviderExport {
    const exports = this.exports;
    if (exports.length === 1) return exports[0]!;
    for (const e of exports) if (e.service === service) return e;
    throw new Error(`${this.address} does not export ${service}`);
  }

  // The pool `call` holds: the shared one unless several pools exist.
  #release(call: IncomingCall): void {
    if (this.#poolOf === null) {
      this.pool.release();
      return;
    }
    const pool = this.#poolOf.get(call) ?? this.pool;
    this.#poolOf.delete(call);
    pool.release();
  }

  // Runs on a pool thread: the call always finishes, whatever the consumer did meanwhile.
  #execute(call: IncomingCall): void {
    if (this.state === 'crashed' || this.state === 'stopped') {
      // The process died while the call was queued: the thread never runs it.
      this.#release(call);
      this.#tracer?.notExecuted(call);
      return;
    }
    // The provider filter chain runs on the thread (Dubbo: ChannelEventRunnable -> ... -> filters).
    const target = this.#exportOf(call.service);
    let heldMs = 0;
    if (this.filters !== null) {
      const refused = this.filters.admit(call, target, this.#sim.now);
      if (typeof refused === 'number') heldMs = refused;
      else if (refused !== null) {
        this.#release(call);
        this.#recorder.rejected(this.group.spec.name, call.service);
        this.#tracer?.notExecuted(call);
        this.#reply(call, refused);
        return;
      }
    }
    this.#recorder.execution(call.request, this.group.spec.name, call.service);
    this.#isolation?.started(call.service, call.method);
    const m = this.group.methodsByService.get(call.service)!.get(call.method)!;
    let factor = this.group.factor(call.method, call.service);
    const own = this.#slowdown;
    if (own !== null && own.size > 0) factor *= slowdownFactor(own, this.group.spec, call.service, call.method);
    // DIVERGENCE: a filter's queueing (Sentinel's rate limiter sleeping on the provider thread) is added to
    // the service time: the execution is counted when the thread takes the call, before the wait.
    const serviceMs = m.draw() * factor + heldMs;
    if (this.#tracer !== null) this.#tracer.executing(call, this.#sim.now, serviceMs);
    if (m.spec.calls.length > 0 && this.downstream !== null) {
      this.#sim.process(this.#executeWithCalls(call, m.spec, serviceMs));
      return;
    }
    this.#sim.schedule(serviceMs, this.#onServiceDone, NORMAL, new Exchange(call, m.spec, this.#sim.now));
  }

  // PERF: the service-time and response timers carry one Exchange to a callback made once per
  // instance, instead of a new closure each (two per call).
  readonly #onServiceDone = (arg: unknown): void => {
    const ex = arg as Exchange;
    this.#complete(ex.call, ex.spec!, null, ex.startedMs, ex);
  };

  readonly #onResponse = (arg: unknown): void => {
    const ex = arg as Exchange;
    if (ex.call.settled) {
      if (ex.executed) this.#orphaned(ex.call);
      return;
    }
    ex.call.deliver(ex.reply);
  };

  // The method's own work, then its downstream calls on the same thread (sequential or fan-out).
  *#executeWithCalls(call: IncomingCall, spec: MethodSpec, serviceMs: number): Proc<void> {
    const startedMs = this.#sim.now;
    yield this.#sim.timeout(serviceMs);
    const downstream = this.downstream!;
    const server: ServerContext = { attachments: call.attachments, startedMs, call };
    // The first failure in call order is the exception the service rethrows.
    let failed: unknown = null;
    if (spec.parallel) {
      const procs = spec.calls.map((c) => this.#sim.process(downstream.call(c.service, c.method, server)));
      for (const p of procs) {
        const failure: unknown = yield p;
        failed ??= failure;
      }
    } else {
      for (const c of spec.calls) {
        const failure = yield* downstream.call(c.service, c.method, server);
        failed ??= failure;
      }
    }
    this.#complete(call, spec, failed, startedMs);
  }

  // The thread is free; the response goes out unless the process died meanwhile. A failed
  // downstream call reaches the caller as an exception inside the result (Dubbo does not retry those).
  #complete(call: IncomingCall, spec: MethodSpec, downstreamFailed: unknown, startedMs: number, ex?: Exchange): void {
    this.#release(call);
    if (this.#tracer !== null) this.#tracer.executed(call, this.#sim.now);
    const dead = this.state === 'crashed' || this.state === 'stopped';
    // The business outcome is drawn before the filters hear of the result (they see its exception).
    const biz = !dead && downstreamFailed === null && spec.bizErrorRate > 0 && this.group.bizRng.next() < spec.bizErrorRate;
    this.filters?.done(call, this.#exportOf(call.service), this.#sim.now - startedMs, downstreamFailed !== null || biz);
    this.#isolation?.finished(call.service, call.method, this.#sim.now - startedMs);
    if (dead) {
      this.#orphaned(call);
      return;
    }
    if (downstreamFailed !== null) {
      this.#reply(call, { kind: 'ok', biz: true, thrown: downstreamFailed }, true, ex);
      return;
    }
    this.#reply(call, biz ? OK_BIZ : OK_PLAIN, true, ex);
  }

  // An execution whose response no consumer will use.
  #orphaned(call: IncomingCall): void {
    this.#recorder.orphaned(call.request);
    if (this.#tracer !== null) this.#tracer.orphaned(call);
  }

  // Sends the response over the network; a lost or late response of an execution is an orphan.
  #reply(call: IncomingCall, reply: Reply, executed = false, ex?: Exchange): void {
    if (this.state === 'blackhole') {
      if (executed) this.#orphaned(call);
      return;
    }
    const link = call.replyLink;
    const delay = link !== undefined ? oneWayMsOn(link) : this.#network.oneWayMs(this.zone, call.consumerZone);
    if (delay < 0) {
      if (executed) this.#orphaned(call);
      return;
    }
    const response = ex ?? new Exchange(call, null, this.#sim.now);
    response.reply = reply;
    response.executed = executed;
    // PERF: an execution's response is the last action of the callback or step that completes it
    // (#complete's callers), so a zero-RTT response may be delivered at once (`scheduleLast`).
    // Refusals may be sent while another call completes (a freed thread starts a queued call): not last.
    if (executed) this.#sim.scheduleLast(delay, this.#onResponse, response);
    else this.#sim.schedule(delay, this.#onResponse, NORMAL, response);
  }
}

/** A call from its execution to its response: what the provider's two timers of a call need. */
class Exchange {
  readonly call: IncomingCall;
  readonly spec: MethodSpec | null;
  readonly startedMs: number;
  reply: Reply = OK_PLAIN;
  executed = false;

  constructor(call: IncomingCall, spec: MethodSpec | null, startedMs: number) {
    this.call = call;
    this.spec = spec;
    this.startedMs = startedMs;
  }
}

/**
 * The key a `slowdown` of (service, method) sets in a group's or an instance's factors: a method
 * name or `*` for a one-service group, `<service>#<method>` / `<service>#*` when it exports several.
 */
export function slowdownKey(group: Pick<ProviderGroupSpec, 'services'>, service: string | undefined, method: string | undefined): string {
  if (service === undefined || group.services.length === 1) return method ?? '*';
  return `${service}#${method ?? '*'}`;
}

/** The service-time multiplier a map of slowdown factors (keyed by `slowdownKey`) gives `method` of `service`. */
export function slowdownFactor(s: ReadonlyMap<string, number>, group: Pick<ProviderGroupSpec, 'services'>, service: string, method: string): number {
  const f = (s.get(method) ?? 1) * (s.get('*') ?? 1);
  if (group.services.length === 1) return f;
  return f * (s.get(`${service}#${method}`) ?? 1) * (s.get(`${service}#*`) ?? 1);
}

// Per-service parameters on the registered URL: `params`, plus the filters' own keys as Dubbo's
// <dubbo:service executes/tps> put them there (consumers see them through the URL merge).
function exportParams(settings: ExportSpec | undefined): Record<string, string> {
  if (settings === undefined) return {};
  const out: Record<string, string> = {};
  if (settings.executes !== undefined) out.executes = String(settings.executes);
  for (const [m, x] of Object.entries(settings.methods)) if (x.executes !== undefined) out[`${m}.executes`] = String(x.executes);
  if (settings.tps !== undefined) out.tps = String(settings.tps);
  if (settings.tpsIntervalMs !== undefined) out['tps.interval'] = String(settings.tpsIntervalMs);
  return { ...out, ...settings.params };
}
