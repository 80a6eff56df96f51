/**
 * Simulated provider instances: the registered URL, Dubbo's fixed thread pool (threads/queues),
 * service-time draws, slowdowns, and the crash / black-hole / up states. A provider executes every
 * call it accepts to the end: a consumer timeout never cancels provider work.
 */
import { sampler, type Sampler } from '../engine/distributions.js';
import { Resource } from '../engine/resource.js';
import type { Rng } from '../engine/random.js';
import type { Proc, Simulation } from '../engine/simulation.js';
import type { MethodSpec, ProviderGroupSpec } from '../scenario/types.js';
import type { Network } from './network.js';
import type { RequestHandle, WorldObserver } from './observer.js';

/** Dubbo release the simulated providers announce. */
export const PROVIDER_RELEASE = '3.3.2';

/** What comes back to the consumer for one attempt (the protocol layer turns it into a Result). */
export type Reply =
  | { kind: 'ok'; biz: boolean }
  | { kind: 'refused' }
  | { kind: 'exhausted'; detail: string };

/** Epoch of simulated time 0, so that URL `timestamp`s look like Dubbo's (2026-01-01T00:00:00Z). */
export const EPOCH_MS = 1_767_225_600_000;

/** What a provider needs to answer one attempt. */
export interface IncomingCall {
  readonly method: string;
  readonly consumerZone: string;
  readonly request: RequestHandle;
  /** The request's attachments: they travel on to downstream calls (SPEC 2.10). */
  readonly attachments: ReadonlyMap<string, string>;
  /** Delivers the provider's answer to the consumer (called when the response message arrives). */
  deliver(reply: Reply): void;
  /** The response was lost or came too late: the execution was orphaned. */
  readonly settled: boolean;
}

export type ProviderState = 'up' | 'crashed' | 'blackhole' | 'stopped';

/** A provider's consumer side: makes one downstream call and tells whether it succeeded. */
export interface DownstreamCaller {
  call(service: string, method: string, attachments: ReadonlyMap<string, string>): Proc<boolean>;
}

const REFUSED: Reply = { kind: 'refused' };
const OK_PLAIN: Reply = { kind: 'ok', biz: false };
const OK_BIZ: Reply = { kind: 'ok', biz: true };

/** Per-group shared pieces: spec, samplers, counters. */
export class ProviderGroup {
  readonly spec: ProviderGroupSpec;
  readonly methods: Map<string, { spec: MethodSpec; draw: Sampler }>;
  readonly instances: ProviderInstance[] = [];
  /** Method (or '*') → slowdown factor. */
  readonly slowdown = new Map<string, number>();
  readonly bizRng: Rng;
  /** Busy thread-ms and peak of instances that no longer exist. */
  retiredBusyMs = 0;
  retiredPeak = 0;

  constructor(spec: ProviderGroupSpec, methods: Record<string, MethodSpec>, rng: Rng, bizRng: Rng) {
    this.spec = spec;
    this.bizRng = bizRng;
    this.methods = new Map(Object.entries(methods).map(([m, s]) => [m, { spec: s, draw: sampler(s.serviceTime, rng) }]));
  }

  /** Service-time multiplier for `method` now. */
  factor(method: string): number {
    if (this.slowdown.size === 0) return 1;
    return (this.slowdown.get(method) ?? 1) * (this.slowdown.get('*') ?? 1);
  }

  busyMs(): number {
    return this.instances.reduce((s, p) => s + p.pool.busyMs(), this.retiredBusyMs);
  }

  peakActiveThreads(): number {
    return this.instances.reduce((m, p) => Math.max(m, p.pool.peakInUse), this.retiredPeak);
  }
}

/** One provider process. */
export class ProviderInstance {
  readonly group: ProviderGroup;
  readonly ip: string;
  readonly port: number;
  readonly zone: string;
  readonly startMs: number;
  readonly url: string;
  readonly pool: Resource<IncomingCall>;
  state: ProviderState = 'up';
  /** The provider's own consumer side, for methods that call other services (SPEC 2.10). */
  downstream: DownstreamCaller | null = null;
  readonly #sim: Simulation;
  readonly #network: Network;
  readonly #recorder: WorldObserver;
  readonly #startExecution: (call: IncomingCall) => void;

  constructor(init: {
    group: ProviderGroup;
    ip: string;
    port: number;
    startMs: number;
    sim: Simulation;
    network: Network;
    recorder: WorldObserver;
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
    const spec = init.group.spec;
    this.pool = new Resource<IncomingCall>(init.sim, spec.threads, spec.queues);
    this.#startExecution = (call) => this.#execute(call);
    const params: Record<string, string> = {
      anyhost: 'true',
      application: init.application,
      dubbo: '2.0.2',
      interface: spec.service,
      methods: [...init.group.methods.keys()].join(','),
      release: PROVIDER_RELEASE,
      side: 'provider',
      zone: spec.zone,
      timestamp: String(Math.trunc(EPOCH_MS + init.startMs)),
      weight: String(spec.weight),
      warmup: String(spec.warmupMs),
      ...spec.params,
    };
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    this.url = `dubbo://${this.ip}:${this.port}/${spec.service}?${query}`;
  }

  /** `ip:port`. */
  get address(): string {
    return `${this.ip}:${this.port}`;
  }

  /** True while the process accepts connections (a crashed or stopped one refuses them). */
  get connectable(): boolean {
    return this.state === 'up' || this.state === 'blackhole';
  }

  /** A request message arrived. */
  receive(call: IncomingCall): void {
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
    const got = this.pool.acquire(this.#startExecution, call);
    if (got === 'granted') this.#execute(call);
    else if (got === 'rejected') {
      this.#recorder.rejected(this.group.spec.name);
      const p = this.pool;
      this.#reply(call, {
        kind: 'exhausted',
        detail:
          `Server side(${this.ip},${this.port}) thread pool is exhausted, detail msg:Thread pool is EXHAUSTED! ` +
          `Thread Name: DubboServerHandler-${this.address}, Pool Size: ${p.inUse} (active: ${p.inUse}, core: ${p.capacity}, ` +
          `max: ${p.capacity}, largest: ${p.peakInUse}), in dubbo://${this.address}!`,
      });
    }
  }

  // Runs on a pool thread: the call always finishes, whatever the consumer did meanwhile.
  #execute(call: IncomingCall): void {
    if (this.state === 'crashed' || this.state === 'stopped') {
      // The process died while the call was queued: the thread never runs it.
      this.pool.release();
      return;
    }
    this.#recorder.execution(call.request, this.group.spec.name);
    const m = this.group.methods.get(call.method)!;
    const serviceMs = m.draw() * this.group.factor(call.method);
    if (m.spec.calls.length > 0 && this.downstream !== null) {
      this.#sim.process(this.#executeWithCalls(call, m.spec, serviceMs));
      return;
    }
    this.#sim.schedule(serviceMs, () => this.#complete(call, m.spec, false));
  }

  // The method's own work, then its downstream calls on the same thread (sequential or fan-out).
  *#executeWithCalls(call: IncomingCall, spec: MethodSpec, serviceMs: number): Proc<void> {
    yield this.#sim.timeout(serviceMs);
    const downstream = this.downstream!;
    let failed = false;
    if (spec.parallel) {
      const procs = spec.calls.map((c) => this.#sim.process(downstream.call(c.service, c.method, call.attachments)));
      for (const p of procs) if (!(yield p)) failed = true;
    } else {
      for (const c of spec.calls) if (!(yield* downstream.call(c.service, c.method, call.attachments))) failed = true;
    }
    this.#complete(call, spec, failed);
  }

  // The thread is free; the response goes out unless the process died meanwhile. A failed
  // downstream call reaches the caller as an exception inside the result (Dubbo does not retry those).
  #complete(call: IncomingCall, spec: MethodSpec, downstreamFailed: boolean): void {
    this.pool.release();
    if (this.state === 'crashed' || this.state === 'stopped') {
      this.#recorder.orphaned(call.request);
      return;
    }
    const biz = downstreamFailed || (spec.bizErrorRate > 0 && this.group.bizRng.next() < spec.bizErrorRate);
    this.#reply(call, biz ? OK_BIZ : OK_PLAIN, true);
  }

  // Sends the response over the network; a lost or late response of an execution is an orphan.
  #reply(call: IncomingCall, reply: Reply, executed = false): void {
    if (this.state === 'blackhole') {
      if (executed) this.#recorder.orphaned(call.request);
      return;
    }
    const delay = this.#network.oneWayMs(this.zone, call.consumerZone);
    if (delay < 0) {
      if (executed) this.#recorder.orphaned(call.request);
      return;
    }
    this.#sim.schedule(delay, () => {
      if (call.settled) {
        if (executed) this.#recorder.orphaned(call.request);
        return;
      }
      call.deliver(reply);
    });
  }
}
