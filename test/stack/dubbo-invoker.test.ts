/**
 * DubboInvoker's two ways to run an attempt: `invoke` (a generator, stepped when its process runs) and
 * `invokeNow` (sends at once, for a caller whose first step comes next; the attempt is then its own
 * process, shaped as a generator). Both give the same sends, timings and results.
 */
import { describe, expect, it } from 'vitest';
import { DubboInvoker, type CallContext, type ProtocolContext } from '../../src/stack/dubbo-invoker.js';
import { RpcInvocation, type Result } from '../../src/dubbo/rpc.js';
import { URL } from '../../src/dubbo/url.js';
import { Simulation, type Proc } from '../../src/engine/simulation.js';
import type { Reply } from '../../src/world/provider-call.js';
import type { ProviderExport } from '../../src/world/provider.js';

const SERVICE = 'com.example.InventoryService';
const providerUrl = URL.valueOf(`dubbo://10.0.1.1:20880/${SERVICE}?interface=${SERVICE}&timeout=100`);
const consumerUrl = URL.valueOf(`consumer://10.0.0.9/${SERVICE}?application=order&interface=${SERVICE}&side=consumer`);

/** A provider 1 ms away that answers `reply` after `serviceMs` (never, with null), and a log of what happened. */
function world(reply: Reply | null, serviceMs = 5) {
  const sim = new Simulation();
  const log: string[] = [];
  const provider = {
    service: SERVICE,
    zone: 'zoneB',
    address: '10.0.1.1:20880',
    connectable: true,
    group: { spec: { name: 'inventory' } },
    receive(attempt: { deliver(reply: Reply): void }) {
      log.push(`received @${sim.now}`);
      if (reply !== null) sim.schedule(serviceMs + 1, () => attempt.deliver(reply));
    },
  } as unknown as ProviderExport;
  const ctx: ProtocolContext = {
    sim,
    network: { link: () => undefined, oneWayMs: () => 1 } as unknown as ProtocolContext['network'],
    observer: { attempt: () => log.push(`attempt @${sim.now}`) } as unknown as ProtocolContext['observer'],
    consumerZone: 'zoneA',
    isKnownGone: () => false,
  };
  const invocation = () => new RpcInvocation({ methodName: 'reserve', serviceName: SERVICE, context: { request: {} } as unknown as CallContext });
  return { sim, log, provider, ctx, invocation };
}

function run(sim: Simulation, call: Proc<Result>): { result: Result | undefined; at: number } {
  let at = NaN;
  const process = sim.process(call);
  process.addCallback(() => (at = sim.now));
  sim.run();
  return { result: process.value, at };
}

describe('DubboInvoker.invokeNow', () => {
  it.each([
    ['an answer', { kind: 'ok', biz: false } as Reply],
    ['a refusal', { kind: 'refused' } as Reply],
    ['no answer (the timeout)', null],
  ])('gives what invoke gives for %s: the same result at the same time', (_name, reply) => {
    const plain = world(reply);
    const now = world(reply);
    const a = run(plain.sim, new DubboInvoker(plain.provider, providerUrl, consumerUrl, plain.ctx).invoke(plain.invocation()));
    const b = run(now.sim, new DubboInvoker(now.provider, providerUrl, consumerUrl, now.ctx).invokeNow(now.invocation()));
    expect(b).toEqual(a);
    expect(now.log).toEqual(plain.log);
    expect(a.at).toBe(reply === null ? 100 : 7);
  });

  it('sends at once, where invoke sends when its process first steps', () => {
    const w = world({ kind: 'ok', biz: false });
    const invoker = new DubboInvoker(w.provider, providerUrl, consumerUrl, w.ctx);
    invoker.invoke(w.invocation());
    expect(w.log).toEqual([]);
    invoker.invokeNow(w.invocation());
    expect(w.log).toEqual(['attempt @0']);
  });

  it('ends at once with the result when nothing is sent (a provider that refuses connections)', () => {
    const w = world({ kind: 'ok', biz: false });
    (w.provider as { connectable: boolean }).connectable = false;
    const { result, at } = run(w.sim, new DubboInvoker(w.provider, providerUrl, consumerUrl, w.ctx).invokeNow(w.invocation()));
    expect(result).toMatchObject({ kind: 'error', error: { cause: 'network:refused' } });
    expect(at).toBe(0);
    expect(w.log).toEqual(['attempt @0']);
  });

  it("calls a subclass's own invoke", () => {
    const w = world({ kind: 'ok', biz: false });
    class Counting extends DubboInvoker {
      calls = 0;
      override *invoke(invocation: RpcInvocation): Proc<Result> {
        this.calls++;
        return yield* super.invoke(invocation);
      }
    }
    const invoker = new Counting(w.provider, providerUrl, consumerUrl, w.ctx);
    expect(run(w.sim, invoker.invokeNow(w.invocation())).result).toEqual({ kind: 'ok' });
    expect(invoker.calls).toBe(1);
  });
});

describe('DubboInvoker: a provider that rethrew its failed downstream call', () => {
  const answer = (thrown: unknown) => {
    const w = world({ kind: 'ok', biz: true, thrown });
    return run(w.sim, new DubboInvoker(w.provider, providerUrl, consumerUrl, w.ctx).invoke(w.invocation())).result;
  };

  it('carries the downstream RpcException in the result (3.3 ExceptionFilter.java: "directly throw if it`s dubbo exception")', () => {
    const error = { code: 2, message: 'Invoke remote method timeout.', cause: 'timeout' };
    expect(answer({ kind: 'error', error })).toEqual({ kind: 'ok', bizException: error.message, remoteRpcException: error });
  });

  it('carries an RpcException the downstream call returned (a TPS refusal, code 0)', () => {
    const tps = { kind: 'ok', bizException: 'because exceed max service tps.', limited: 'tps' };
    expect(answer(tps)).toMatchObject({ kind: 'ok', remoteRpcException: { code: 0, message: tps.bizException } });
  });

  it('is a plain biz result when the downstream call ended with a biz exception, or the stack is not Dubbo`s', () => {
    expect(answer({ kind: 'ok', bizException: 'IllegalStateException' })).toEqual({ kind: 'ok', bizException: 'BizException' });
    expect(answer({ outcome: 'timeout' })).toEqual({ kind: 'ok', bizException: 'BizException' });
  });
});

describe('DubboInvoker: an error response', () => {
  it.each([
    ['a full thread pool', { kind: 'exhausted', detail: 'Server side(10.0.1.1,20880) thread pool is exhausted, detail msg:…' } as Reply, 'threadpool:exhausted'],
    ['an executes refusal', { kind: 'limited', filter: 'executes', detail: 'org.apache.dubbo.rpc.RpcException: …' } as Reply, 'executes:limit'],
    ['a thrown TPS refusal (2.7)', { kind: 'limited', filter: 'tps', detail: 'org.apache.dubbo.rpc.RpcException: …', thrown: true } as Reply, 'tps:limit'],
  ])('reaches the caller as a RemotingException`s toString, code 1: %s (3.3 AbstractInvoker.java:308-313)', (_name, reply, cause) => {
    const w = world(reply);
    const invoker = new DubboInvoker(w.provider, providerUrl, consumerUrl, w.ctx);
    const { result } = run(w.sim, invoker.invoke(w.invocation()));
    const detail = (reply as { detail: string }).detail;
    expect(result).toEqual({
      kind: 'error',
      error: {
        code: 1,
        message: `Failed to invoke remote method: reserve, provider: ${invoker.getUrl()}, cause: org.apache.dubbo.remoting.RemotingException: ${detail}`,
        cause,
      },
    });
  });
});
