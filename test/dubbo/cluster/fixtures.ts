/**
 * Test factories for cluster invokers: a runtime on a fresh Simulation, scripted provider invokers
 * (generators that may wait before answering), scripted per-registry cluster invokers, a directory
 * that records invalidations, and a helper that runs one call to its end.
 */
import { RandomStreams } from '../../../src/engine/random.js';
import { Simulation, type Proc } from '../../../src/engine/simulation.js';
import type { ClusterFactory } from '../../../src/dubbo/cluster/abstract-cluster-invoker.js';
import { StaticDirectory } from '../../../src/dubbo/directory/directory.js';
import type { LoadBalance, LoadBalanceFactory } from '../../../src/dubbo/loadbalance/load-balance.js';
import {
  RpcInvocation,
  type ClusterInvokerLike,
  type Invoker,
  type Result,
  type RpcError,
} from '../../../src/dubbo/rpc.js';
import { createRuntime } from '../../../src/dubbo/create-runtime.js';
import type { DubboRuntime } from '../../../src/dubbo/runtime.js';
import type { DubboRelease } from '../../../src/dubbo/release.js';
import { ServiceAddressURL, URL } from '../../../src/dubbo/url.js';

export const SERVICE = 'com.example.DemoService';

/** What a scripted invoker answers on its n-th attempt (0-based). */
export interface Answer {
  /** Simulated time the attempt takes before answering. */
  delayMs?: number;
  result: Result;
}

export type Script = (attempt: number, invocation: RpcInvocation) => Answer;

export const ok = (value: unknown = 'ok', delayMs = 0): Answer => ({ delayMs, result: { kind: 'ok', value } });
export const fail = (code: number, message = `error ${code}`, delayMs = 0): Answer => ({
  delayMs,
  result: { kind: 'error', error: { code, message } },
});
export const biz = (message = 'IllegalArgumentException: bad id', delayMs = 0): Answer => ({
  delayMs,
  result: { kind: 'ok', value: null, bizException: message },
});

/** One attempt as seen by a scripted invoker. */
export interface AttemptRecord {
  invoker: ScriptedInvoker;
  startMs: number;
  endMs?: number;
  invocation: RpcInvocation;
}

/** A provider invoker whose answers are scripted; it logs every attempt into a shared log. */
export class ScriptedInvoker implements Invoker {
  readonly name: string;
  readonly #url: URL;
  readonly #sim: Simulation;
  readonly #script: Script;
  readonly #log: AttemptRecord[];
  available: boolean;
  attempts = 0;

  constructor(init: { name: string; url: URL; sim: Simulation; script: Script; log: AttemptRecord[]; available?: boolean }) {
    this.name = init.name;
    this.#url = init.url;
    this.#sim = init.sim;
    this.#script = init.script;
    this.#log = init.log;
    this.available = init.available ?? true;
  }

  getUrl(): URL {
    return this.#url;
  }

  isAvailable(): boolean {
    return this.available;
  }

  *invoke(invocation: RpcInvocation): Proc<Result> {
    const record: AttemptRecord = { invoker: this, startMs: this.#sim.now, invocation };
    this.#log.push(record);
    const answer = this.#script(this.attempts++, invocation);
    if (answer.delayMs !== undefined && answer.delayMs > 0) yield this.#sim.timeout(answer.delayMs);
    record.endMs = this.#sim.now;
    return answer.result;
  }

  toString(): string {
    return this.name;
  }
}

/** A per-registry cluster invoker stand-in: a registry URL, availability and a scripted answer. */
export class ScriptedClusterInvoker implements ClusterInvokerLike {
  readonly #registryUrl: URL;
  readonly #consumerUrl: URL;
  readonly #answer: Answer;
  readonly #sim: Simulation;
  available: boolean;
  invocations = 0;

  constructor(init: { registryUrl: URL; consumerUrl: URL; sim: Simulation; answer: Answer; available?: boolean }) {
    this.#registryUrl = init.registryUrl;
    this.#consumerUrl = init.consumerUrl;
    this.#sim = init.sim;
    this.#answer = init.answer;
    this.available = init.available ?? true;
  }

  getUrl(): URL {
    return this.#consumerUrl;
  }
  getRegistryUrl(): URL {
    return this.#registryUrl;
  }
  isAvailable(): boolean {
    return this.available;
  }
  isDestroyed(): boolean {
    return false;
  }
  *invoke(_invocation: RpcInvocation): Proc<Result> {
    this.invocations++;
    if (this.#answer.delayMs) yield this.#sim.timeout(this.#answer.delayMs);
    return this.#answer.result;
  }
}

/**
 * A StaticDirectory that records connectivity invalidations. With `ignoreInvalidation` it keeps
 * listing invalidated invokers, as the Mockito directory of Dubbo's own cluster tests does.
 */
export class RecordingDirectory extends StaticDirectory {
  readonly invalidated: Invoker[] = [];
  readonly #ignoreInvalidation: boolean;

  constructor(
    runtime: DubboRuntime,
    url: URL,
    consumerUrl: URL,
    invokers: Invoker[],
    options: { ignoreInvalidation?: boolean } = {},
  ) {
    super(runtime, url, consumerUrl, invokers);
    this.#ignoreInvalidation = options.ignoreInvalidation ?? false;
  }

  override addInvalidateInvoker(invoker: Invoker): void {
    this.invalidated.push(invoker);
    if (!this.#ignoreInvalidation) super.addInvalidateInvoker(invoker);
  }

  /** Replaces the list, as a registry notification would. */
  replaceInvokers(invokers: Invoker[]): void {
    this.setInvokers(invokers);
  }
}

/**
 * A plain round robin over the list it is given (one counter per list identity), standing in for
 * `roundrobin` where Dubbo's tests name it: their expectations hold for any fair balancer, and the
 * cluster tests must not depend on another strategy's implementation.
 */
export const testRoundRobin: LoadBalanceFactory = () => {
  const counters = new Map<string, number>();
  const lb: LoadBalance = {
    select(invokers) {
      if (invokers.length === 0) return null;
      const key = invokers.map((i) => i.getUrl().toIdentityString()).join('|');
      const n = counters.get(key) ?? 0;
      counters.set(key, n + 1);
      return invokers[n % invokers.length]!;
    },
  };
  return lb;
};

/** A fresh simulation and runtime (seeded random stream, counters in a map, test round robin). */
export function makeRuntime(seed = 1, release?: DubboRelease) {
  const sim = new Simulation();
  const runtime = createRuntime({
    sim,
    random: new RandomStreams(seed).stream('consumer'),
    consumerHost: '10.10.0.1',
    plugins: { roundrobin: testRoundRobin },
    release,
  });
  return { sim, runtime };
}

/** A provider URL as the consumer sees it (consumer-first merge). */
export function providerUrl(index: number, consumerUrl: URL, params: Record<string, string> = {}): URL {
  const query = Object.entries({ interface: consumerUrl.getServiceInterface(), ...params })
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const raw = URL.valueOf(`dubbo://10.0.0.${index + 1}:20880/${consumerUrl.getServiceInterface()}?${query}`);
  return new ServiceAddressURL(raw, consumerUrl);
}

/** A consumer URL for SERVICE with the given reference parameters. */
export function consumerUrl(params: Record<string, string> = {}): URL {
  return new URL({ protocol: 'consumer', host: '10.10.0.1', path: SERVICE, params: { interface: SERVICE, ...params } });
}

/** The directory's own URL (a registry URL); `cluster.availablecheck` is read here. */
export function registryUrl(params: Record<string, string> = {}): URL {
  const query = Object.entries({ registry: 'static', ...params })
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return URL.valueOf(`registry://registry:2181/org.apache.dubbo.registry.RegistryService?${query}`);
}

/** Everything one cluster test needs: providers, directory, cluster, attempt log. */
export function setup(init: {
  cluster: ClusterFactory;
  scripts: Array<Script | Answer>;
  consumer?: Record<string, string>;
  registry?: Record<string, string>;
  providerParams?: Array<Record<string, string>>;
  available?: boolean[];
  seed?: number;
  ignoreInvalidation?: boolean;
}) {
  const { sim, runtime } = makeRuntime(init.seed);
  const cUrl = consumerUrl(init.consumer);
  const log: AttemptRecord[] = [];
  const providers = init.scripts.map(
    (s, i) =>
      new ScriptedInvoker({
        name: `p${i}`,
        url: providerUrl(i, cUrl, init.providerParams?.[i]),
        sim,
        script: typeof s === 'function' ? s : () => s,
        log,
        available: init.available?.[i],
      }),
  );
  const directory = new RecordingDirectory(runtime, registryUrl(init.registry), cUrl, providers, {
    ignoreInvalidation: init.ignoreInvalidation,
  });
  const cluster = init.cluster(directory, runtime);
  return { sim, runtime, consumerUrl: cUrl, providers, directory, cluster, log };
}

/** A fresh invocation of `sayHello` on SERVICE. */
export function invocation(attachments: Record<string, string> = {}): RpcInvocation {
  return new RpcInvocation({ methodName: 'sayHello', serviceName: SERVICE, attachments });
}

/** Starts one call, runs the simulation until `untilMs` (or the end), returns the call's result. */
export function runCall(
  sim: Simulation,
  call: Proc<Result>,
  untilMs?: number,
): { result: Result | undefined; endMs: number | undefined } {
  const proc = sim.process(call);
  let endMs: number | undefined;
  proc.addCallback(() => {
    endMs = sim.now;
  });
  sim.run(untilMs === undefined ? {} : { until: untilMs });
  if (!proc.ok) throw proc.value;
  return { result: proc.triggered ? proc.value : undefined, endMs };
}

/** The error of an error result (fails the test otherwise). */
export function errorOf(result: Result | undefined): RpcError {
  if (result === undefined || result.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}
