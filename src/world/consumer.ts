/**
 * Consumer groups and instances as the world sees them: where they are, how requests arrive
 * (Poisson or constant), which method each request calls and which attachments it carries. What
 * an instance does with a request is its `ConsumerStack` (the Dubbo port, plugged in from above).
 */
import type { Rng } from '../engine/random.js';
import type { Proc, Simulation } from '../engine/simulation.js';
import type { ConsumerGroupSpec, Scenario } from '../scenario/types.js';
import type { Outcome, RequestHandle, WorldObserver } from './observer.js';

/** One request handed to a consumer instance's stack. */
export interface ServiceCall {
  service: string;
  method: string;
  attachments: Map<string, string>;
  request: RequestHandle;
}

/** A consumer instance's RPC stack (Dubbo's reference, directory, routers, cluster). */
export interface ConsumerStack {
  /** Prepares the reference to `service` (consumer URL, directory, registry subscription). */
  refer(service: string): void;
  /** Runs one request to its single outcome. */
  call(call: ServiceCall): Proc<{ outcome: Outcome; cause?: string }>;
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
  stack!: ConsumerStack;

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

/** A consumer group: its instances and its arrival process. */
export class ConsumerGroup {
  readonly spec: ConsumerGroupSpec;
  readonly instances: ConsumerInstance[];
  readonly #sim: Simulation;
  readonly #observer: WorldObserver;
  readonly #arrivalRng: Rng;
  readonly #pickRng: Rng;
  readonly #tagRng: Rng;
  readonly #choices: MethodChoice[];
  readonly #total: number;
  inFlight = 0;
  /** Requests started so far (benchmark figure). */
  started = 0;

  constructor(
    init: { sim: Simulation; observer: WorldObserver; scenario: Scenario },
    spec: ConsumerGroupSpec,
    instances: ConsumerInstance[],
    rng: { arrival: Rng; pick: Rng; tag: Rng },
  ) {
    this.#sim = init.sim;
    this.#observer = init.observer;
    this.spec = spec;
    this.instances = instances;
    this.#arrivalRng = rng.arrival;
    this.#pickRng = rng.pick;
    this.#tagRng = rng.tag;
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

  /** Starts the arrival process; arrivals stop at `untilMs`. */
  start(untilMs: number): void {
    if (this.spec.ratePerSec <= 0 || this.#choices.length === 0) return;
    const sim = this.#sim;
    const meanGapMs = 1000 / this.spec.ratePerSec;
    const poisson = this.spec.arrival === 'poisson';
    const rng = this.#arrivalRng;
    const next = (): void => {
      if (sim.now >= untilMs) return;
      this.#arrive();
      const gap = poisson ? -meanGapMs * Math.log(1 - rng.next()) : meanGapMs;
      sim.schedule(gap, next);
    };
    sim.schedule(poisson ? -meanGapMs * Math.log(1 - rng.next()) : 0, next);
  }

  #arrive(): void {
    const sim = this.#sim;
    const pick = this.#pickRng;
    const inst = this.instances.length === 1 ? this.instances[0]! : this.instances[pick.nextInt(this.instances.length)]!;
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
    this.inFlight++;
    this.started++;
    sim.process(
      this.#request(inst.stack, { service: choice.service, method: choice.method, attachments: this.#attachments(), request }),
    );
  }

  *#request(stack: ConsumerStack, call: ServiceCall): Proc<void> {
    const { outcome, cause } = yield* stack.call(call);
    this.#observer.endRequest(call.request, outcome, this.#sim.now, cause);
    this.inFlight--;
  }

  #attachments(): Map<string, string> {
    const specs = this.spec.attachments;
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
