import { describe, expect, it, vi } from 'vitest';
import { invokeAtStart } from '../../../src/dubbo/cluster/abstract-cluster-invoker.js';
import { FailoverClusterInvoker } from '../../../src/dubbo/cluster/failover-cluster-invoker.js';
import { DUBBO_VERSION, RpcCode } from '../../../src/dubbo/constants.js';
import { DynamicDirectory } from '../../../src/dubbo/directory/directory.js';
import { DUBBO_2_7 } from '../../../src/dubbo/release.js';
import { clusters } from '../../../src/dubbo/extensions.js';
import type { LoadBalance } from '../../../src/dubbo/loadbalance/load-balance.js';
import { RpcInvocation, type Invoker, type Result } from '../../../src/dubbo/rpc.js';
import { RandomStreams } from '../../../src/engine/random.js';
import type { Proc } from '../../../src/engine/simulation.js';
import {
  biz,
  consumerUrl,
  errorOf,
  fail,
  invocation,
  makeRuntime,
  ok,
  providerUrl,
  registryUrl,
  runCall,
  ScriptedInvoker,
  SERVICE,
  setup,
  type Answer,
  type AttemptRecord,
} from './fixtures.js';

const failover = clusters.failover!;

/** Attempts grouped by request (one invocation per request), in order. */
function byRequest(log: AttemptRecord[]): Map<RpcInvocation, string[]> {
  const groups = new Map<RpcInvocation, string[]>();
  for (const r of log) {
    const list = groups.get(r.invocation) ?? [];
    list.push(r.invoker.name);
    groups.set(r.invocation, list);
  }
  return groups;
}

describe('FailoverClusterInvoker', () => {
  it('tries 3 distinct providers when all 3 fail, for every seed', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const { sim, cluster, log } = setup({
        cluster: failover,
        seed,
        scripts: [0, 1, 2].map(() => fail(RpcCode.NETWORK_EXCEPTION, 'connection refused')),
      });
      const { result } = runCall(sim, cluster.invoke(invocation()));
      expect(new Set(log.map((r) => r.invoker.name)).size).toBe(3);
      expect(errorOf(result).message).toContain('Tried 3 times of the providers');
      expect(errorOf(result).message).toContain('(3/3)');
    }
  });

  it('reads retries per method when calls of two methods take turns on one cluster invoker', () => {
    const { sim, cluster, log } = setup({
      cluster: failover,
      scripts: [0, 1, 2].map(() => fail(RpcCode.NETWORK_EXCEPTION, 'connection refused')),
      consumer: { 'sayHello.retries': '0' },
    });
    const sayBye = () => new RpcInvocation({ methodName: 'sayBye', serviceName: SERVICE });
    const attempts: number[] = [];
    for (const inv of [invocation(), sayBye(), invocation(), sayBye()]) {
      const before = log.length;
      runCall(sim, cluster.invoke(inv));
      attempts.push(log.length - before);
    }
    expect(attempts).toEqual([1, 3, 1, 3]);
  });

  it('returns a biz RpcException (code 3) after one attempt, without retrying', () => {
    const { sim, cluster, log } = setup({ cluster: failover, scripts: [fail(RpcCode.BIZ_EXCEPTION), fail(RpcCode.BIZ_EXCEPTION)] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(errorOf(result).code).toBe(RpcCode.BIZ_EXCEPTION);
    expect(log).toHaveLength(1);
  });

  it('returns a provider business exception as a success, without retrying', () => {
    const { sim, cluster, log } = setup({ cluster: failover, scripts: [biz('NotFound'), biz('NotFound')] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: null, bizException: 'NotFound' });
    expect(log).toHaveLength(1);
  });

  it('retries a timeout on another provider and returns its success', () => {
    const { sim, cluster, log } = setup({
      cluster: failover,
      scripts: [fail(RpcCode.TIMEOUT_EXCEPTION, 'timeout', 1000), ok('late', 20)],
      consumer: { loadbalance: 'roundrobin' },
    });
    const { result, endMs } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'late' });
    expect(log.map((r) => [r.invoker.name, r.startMs])).toEqual([
      ['p0', 0],
      ['p1', 1000],
    ]);
    expect(endMs).toBe(1020);
  });

  it('never repeats a provider on retry with 10 providers (reselect takes every unselected one)', () => {
    const { sim, cluster, log } = setup({
      cluster: failover,
      seed: 3,
      scripts: Array.from({ length: 10 }, () => fail(RpcCode.NETWORK_EXCEPTION)),
    });
    for (let i = 0; i < 2000; i++) sim.process(cluster.invoke(invocation()));
    sim.run();
    const repeats = [...byRequest(log).values()].filter((names) => new Set(names).size < names.length).length;
    expect(repeats).toBe(0);
  });

  it('with 11 providers retries an already-tried provider at the rate reselect predicts', () => {
    // retries=1: the 2nd attempt repeats the 1st only when the balancer picks it again (1/11) and
    // then reselect's 10 draws with replacement put it among the candidates: with k draws of it the
    // list holds it once among 11-k entries, and the uniform pick takes it with chance 1/(11-k).
    const n = 11;
    const draws = 10;
    let inReselect = 0;
    for (let k = 1; k <= draws; k++) {
      inReselect += binomial(draws, k) * (1 / n) ** k * ((n - 1) / n) ** (draws - k) * (1 / (n - k));
    }
    const p = (1 / n) * inReselect;
    const requests = 20000;
    const { sim, cluster, log } = setup({
      cluster: failover,
      seed: 42,
      consumer: { retries: '1' },
      scripts: Array.from({ length: n }, () => fail(RpcCode.NETWORK_EXCEPTION)),
    });
    for (let i = 0; i < requests; i++) sim.process(cluster.invoke(invocation()));
    sim.run();
    const pairs = [...byRequest(log).values()];
    expect(pairs.every((names) => names.length === 2)).toBe(true);
    const repeats = pairs.filter(([a, b]) => a === b).length;
    const expected = requests * p; // about 118
    const sd = Math.sqrt(requests * p * (1 - p));
    expect(repeats).toBeGreaterThan(0);
    expect(Math.abs(repeats - expected)).toBeLessThan(4.5 * sd);
  });

  it('re-lists before a retry, so a provider removed meanwhile is not tried', () => {
    const { sim, cluster, log, directory, providers } = setup({
      cluster: failover,
      consumer: { loadbalance: 'roundrobin' },
      scripts: [
        () => {
          directory.replaceInvokers([providers[2]!]);
          return fail(RpcCode.TIMEOUT_EXCEPTION);
        },
        fail(RpcCode.TIMEOUT_EXCEPTION),
        ok('fresh'),
      ],
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'fresh' });
    expect(log.map((r) => r.invoker.name)).toEqual(['p0', 'p2']);
  });

  it('lists (and so routes) once per attempt: the call lists once, each retry lists again', () => {
    const { sim, cluster, directory } = setup({
      cluster: failover,
      scripts: [0, 1, 2].map(() => fail(RpcCode.NETWORK_EXCEPTION)),
    });
    let routes = 0;
    directory.setRouterChain({
      route: (_url, invokers) => {
        routes++;
        return { invokers, trace: [] };
      },
      setInvokers: () => {},
    });
    runCall(sim, cluster.invoke(invocation()));
    expect(routes).toBe(3); // retries=2 by default: 3 attempts
  });

  it('stops retrying with the destroyed error when the invoker is destroyed during an attempt', () => {
    const destroying = () => {
      (cluster as FailoverClusterInvoker).destroy();
      return fail(RpcCode.TIMEOUT_EXCEPTION);
    };
    const { sim, runtime, cluster, log } = setup({ cluster: failover, scripts: [destroying, destroying, destroying] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: RpcCode.UNKNOWN_EXCEPTION,
        message: `Rpc cluster invoker for ${SERVICE} on consumer ${runtime.consumerHost} use dubbo version ${DUBBO_VERSION} is now destroyed! Can not invoke any more.`,
      },
    });
    expect(log).toHaveLength(1);
  });

  it('stops retrying with the forbidden error (code 4) when an empty:// push arrives during an attempt', () => {
    const { sim, runtime } = makeRuntime();
    const cUrl = consumerUrl();
    const directory = new DynamicDirectory(runtime, registryUrl(), cUrl);
    const log: AttemptRecord[] = [];
    const script = () => {
      directory.notifyEmpty();
      return fail(RpcCode.TIMEOUT_EXCEPTION);
    };
    const providers = [0, 1].map((i) => new ScriptedInvoker({ name: `p${i}`, url: providerUrl(i, cUrl), sim, script, log }));
    directory.notify(providers);
    const cluster = failover(directory, runtime);
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result?.kind).toBe('error');
    expect(errorOf(result).code).toBe(RpcCode.FORBIDDEN_EXCEPTION);
    expect(log).toHaveLength(1);
  });

  it('stops retrying with "No provider available" (code 6) when the providers left during an attempt', () => {
    const leaving = () => {
      directory.replaceInvokers([]);
      return fail(RpcCode.TIMEOUT_EXCEPTION);
    };
    const { sim, cluster, directory, log } = setup({ cluster: failover, scripts: [leaving, leaving] });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    expect(result?.kind).toBe('error');
    expect(errorOf(result).code).toBe(RpcCode.NO_INVOKER_AVAILABLE_AFTER_FILTER);
    expect(log).toHaveLength(1);
  });

  it('the final error lists the failed provider addresses, the counts, registry, consumer and the last error', () => {
    const { sim, cluster } = setup({
      cluster: failover,
      consumer: { loadbalance: 'roundrobin' },
      scripts: [0, 1, 2].map((i) => fail(RpcCode.TIMEOUT_EXCEPTION, `timeout on p${i}`)),
    });
    const { result } = runCall(sim, cluster.invoke(invocation()));
    // round robin tries p0, p1, p2 (10.0.0.1..3); 3 distinct failed of 3 listed
    expect(errorOf(result)).toEqual({
      code: RpcCode.TIMEOUT_EXCEPTION,
      message:
        `Failed to invoke the method sayHello in the service ${SERVICE}. Tried 3 times of the providers ` +
        `[10.0.0.1:20880, 10.0.0.2:20880, 10.0.0.3:20880] (3/3) from the registry registry:2181 on the consumer 10.10.0.1 ` +
        `using the dubbo version ${DUBBO_VERSION}. Last error is: timeout on p2`,
    });
  });

  it('names the release the consumer runs: "using the dubbo version 2.7.23" under 2.7 (Version.getVersion())', () => {
    const { sim, cluster } = setup({
      cluster: failover,
      scripts: [0, 1, 2].map((i) => fail(RpcCode.TIMEOUT_EXCEPTION, `timeout on p${i}`)),
      release: DUBBO_2_7,
    });
    const { message } = errorOf(runCall(sim, cluster.invoke(invocation())).result);
    expect(message).toContain('using the dubbo version 2.7.23. Last error is:');
  });

  it('ignores a retries attachment that is not a number and leaves it in place (default 2 retries: 3 attempts)', () => {
    // FailoverClusterInvoker.calculateInvokeTimes (lines 129-142): only `retry instanceof Number` overrides
    // the URL and is removed; any other value stays and travels with the call.
    const { sim, cluster, log } = setup({
      cluster: failover,
      scripts: [0, 1, 2, 3].map(() => fail(RpcCode.NETWORK_EXCEPTION)),
    });
    const inv = invocation({ retries: 'many' });
    runCall(sim, cluster.invoke(inv));
    expect(log).toHaveLength(3);
    expect(inv.getAttachment('retries')).toBe('many');
    expect(log[0]!.invocation.getAttachment('retries')).toBe('many');
  });

  it('takes a numeric retries attachment over the URL, as intValue() (2.7 → 2), and removes it', () => {
    for (const [value, attempts] of [['0', 1], ['2.7', 3], ['-5', 1], ['4', 5]] as const) {
      const { sim, cluster, log } = setup({
        cluster: failover,
        consumer: { retries: '1' },
        scripts: [0, 1, 2, 3, 4, 5].map(() => fail(RpcCode.NETWORK_EXCEPTION)),
      });
      const inv = invocation({ retries: value });
      runCall(sim, cluster.invoke(inv));
      expect(log, value).toHaveLength(attempts);
      expect(inv.getAttachment('retries')).toBeUndefined();
    }
  });
});

/** Failover with its own `doInvoke`: every call runs doInvoke's loop from the first attempt (the reference). */
class LoopOnly extends FailoverClusterInvoker {
  protected override *doInvoke(inv: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    return yield* super.doInvoke(inv, invokers, loadbalance);
  }
}

describe('FailoverClusterInvoker: the first attempt handed over as the process (doInvokeNow)', () => {
  // Per provider, its answer to each of its attempts: successes, biz errors, timeouts, refusals, other codes, delays.
  function randomAnswers(seed: number, providers: number): Answer[][] {
    const rng = new RandomStreams(seed).stream('answers');
    const kinds = [
      (d: number) => ok(`v${d}`, d),
      (d: number) => biz('NotFound', d),
      (d: number) => fail(RpcCode.TIMEOUT_EXCEPTION, 'slow', d),
      (d: number) => fail(RpcCode.NETWORK_EXCEPTION, 'connection refused', d),
      (d: number) => fail(RpcCode.BIZ_EXCEPTION, 'biz', d),
      (d: number) => fail(RpcCode.LIMIT_EXCEEDED_EXCEPTION, 'actives', d),
    ];
    return Array.from({ length: providers }, () => Array.from({ length: 40 }, () => kinds[rng.nextInt(kinds.length)]!(rng.nextInt(3) * 5)));
  }

  // Eight calls, one after another on one cluster invoker, through `invokeAtStart` or `invoke`.
  function calls(seed: number, reference: boolean, atStart: boolean) {
    const providers = 2 + (seed % 4);
    const answers = randomAnswers(seed, providers);
    const { sim, cluster, log } = setup({
      cluster: reference ? (directory, runtime) => new LoopOnly(directory, runtime) : failover,
      seed,
      consumer: { retries: String(seed % 4) },
      scripts: answers.map((own) => (attempt: number) => own[attempt]!),
    });
    const out: Array<{ result: Result | undefined; endMs: number | undefined }> = [];
    for (let i = 0; i < 8; i++) out.push(runCall(sim, atStart ? invokeAtStart(cluster, invocation()) : cluster.invoke(invocation())));
    return { out, attempts: log.map((r) => [r.invoker.name, r.startMs, r.endMs]) };
  }

  it('makes the calls, attempts and results of doInvoke\'s loop, on random answers and retries', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const reference = calls(seed, true, true);
      expect(calls(seed, false, true), `seed ${seed}`).toEqual(reference);
      expect(calls(seed, false, false), `seed ${seed}`).toEqual(reference);
    }
    // The inputs reach every branch: a success at once, a retry after a failure, a biz error, every attempt failed.
    const all = Array.from({ length: 60 }, (_, i) => calls(i + 1, false, true));
    const results = all.flatMap((c) => c.out.map((o) => o.result!));
    expect(results.some((r) => r.kind === 'ok' && r.bizException === undefined)).toBe(true);
    expect(results.some((r) => r.kind === 'ok' && r.bizException !== undefined)).toBe(true);
    expect(results.some((r) => r.kind === 'error' && r.error.message.startsWith('Failed to invoke'))).toBe(true);
    expect(results.some((r) => r.kind === 'error' && r.error.code === RpcCode.BIZ_EXCEPTION)).toBe(true);
    expect(all.some((c) => c.attempts.length > 8)).toBe(true);
  });

  it('makes doInvoke\'s generator only when the first attempt fails, from the second attempt on', () => {
    const spy = vi.spyOn(FailoverClusterInvoker.prototype as unknown as { doInvoke: (...args: unknown[]) => Proc<Result> }, 'doInvoke');
    try {
      const once = setup({ cluster: failover, scripts: [ok('a'), ok('b')] });
      expect(runCall(once.sim, invokeAtStart(once.cluster, invocation())).result).toEqual({ kind: 'ok', value: expect.any(String) });
      expect(spy).not.toHaveBeenCalled();
      // Every provider refuses: three attempts, the second and third in doInvoke's loop.
      const retried = setup({ cluster: failover, scripts: [0, 1, 2].map(() => fail(RpcCode.NETWORK_EXCEPTION, 'refused')) });
      const { result } = runCall(retried.sim, invokeAtStart(retried.cluster, invocation()));
      expect(errorOf(result).message).toContain('Tried 3 times of the providers');
      expect(retried.log).toHaveLength(3);
      expect(spy).toHaveBeenCalledTimes(1);
      // The loop goes on with the first attempt's count, error and invoker.
      const retry = spy.mock.calls[0]![3] as unknown as { len: number; error: { message: string }; failed: Invoker[] };
      expect(retry.len).toBe(3);
      expect(retry.error.message).toBe('refused');
      // `failed` is the loop's own list from then on (it grew with the two retries).
      expect(retry.failed.map(String)).toEqual(retried.log.map((r) => r.invoker.name));
    } finally {
      spy.mockRestore();
    }
  });

  it("calls a subclass's own doInvoke (a plugin's) as is", () => {
    class Wrapping extends FailoverClusterInvoker {
      protected override *doInvoke(inv: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
        const inner = yield* super.doInvoke(inv, invokers, loadbalance);
        return inner.kind === 'ok' ? { kind: 'ok', value: `wrapped ${String(inner.value)}` } : inner;
      }
    }
    const { sim, runtime, directory } = setup({ cluster: failover, scripts: [ok('from the list')] });
    const { result } = runCall(sim, invokeAtStart(new Wrapping(directory, runtime), invocation()));
    expect(result).toEqual({ kind: 'ok', value: 'wrapped from the list' });
  });

  it('passes a failure of the event the attempt waits on to it, as yield* does, and fails the call with it', () => {
    const failing = (reference: boolean) => {
      const { sim, runtime, directory } = setup({ cluster: failover, scripts: [ok()] });
      const provider = directory.getAllInvokers()[0]!;
      const broken = sim.event();
      let caught: unknown;
      provider.invoke = function* () {
        try {
          return (yield broken) as Result;
        } catch (error) {
          caught = error;
          throw error;
        }
      };
      const cluster = reference ? new LoopOnly(directory, runtime) : new FailoverClusterInvoker(directory, runtime);
      const proc = sim.process(invokeAtStart(cluster, invocation()));
      // Watched, so that its failure is the test's to read, not the run's to throw.
      proc.addCallback(() => {});
      sim.schedule(3, () => broken.fail(new Error('lost')));
      sim.run();
      return { ok: proc.ok, value: (proc.value as unknown as Error).message, caught: (caught as Error).message, now: sim.now };
    };
    expect(failing(false)).toEqual({ ok: false, value: 'lost', caught: 'lost', now: 3 });
    expect(failing(false)).toEqual(failing(true));
  });
});

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}
