/**
 * How DubboInvoker reads and writes an attempt's timeout, per release: a URL value of 0 or less is the
 * default 1000 ms (RpcUtils.getTimeout with `getMethodPositiveParameter`), a `timeout` attachment is
 * taken as is (`convertToNumber`), and 3.3 writes the attempt's timeout into the attachment, which a
 * failover retry then reads before its own URL.
 */
import { describe, expect, it } from 'vitest';
import { FailoverClusterInvoker } from '../../src/dubbo/cluster/failover-cluster-invoker.js';
import { createRuntime } from '../../src/dubbo/create-runtime.js';
import { StaticDirectory } from '../../src/dubbo/directory/directory.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../src/dubbo/release.js';
import { RpcInvocation, type Invoker, type Result } from '../../src/dubbo/rpc.js';
import { URL } from '../../src/dubbo/url.js';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation, type Proc } from '../../src/engine/simulation.js';
import { attachedTimeout, DubboInvoker, type CallContext, type ProtocolContext } from '../../src/stack/dubbo-invoker.js';
import type { Reply } from '../../src/world/provider-call.js';
import type { ProviderExport } from '../../src/world/provider.js';

const SERVICE = 'com.example.InventoryService';
const EXACT_2_7: DubboRelease = { ...DUBBO_2_7, timeoutDetection: 'exact' };

/** Providers 1 ms away, each answering after `serviceMs` (never, with null); a log of sends. */
function world(release: DubboRelease, providers: Array<{ params: string; serviceMs: number | null }>) {
  const sim = new Simulation();
  const log: string[] = [];
  const ctx: ProtocolContext = {
    sim,
    network: { link: () => undefined, oneWayMs: () => 1 } as unknown as ProtocolContext['network'],
    observer: { attempt: () => {} } as unknown as ProtocolContext['observer'],
    consumerZone: 'zoneA',
    isKnownGone: () => false,
    release,
  };
  const consumerUrl = URL.valueOf(`consumer://10.0.0.9/${SERVICE}?application=order&interface=${SERVICE}&side=consumer&loadbalance=first&retries=1`);
  const invokers = providers.map((p, i) => {
    const address = `10.0.1.${i + 1}:20880`;
    const provider = {
      service: SERVICE,
      zone: 'zoneA',
      address,
      connectable: true,
      group: { spec: { name: 'inventory' } },
      receive(attempt: { deliver(reply: Reply): void }) {
        log.push(`${address} @${sim.now}`);
        if (p.serviceMs !== null) sim.schedule(p.serviceMs + 1, () => attempt.deliver({ kind: 'ok', biz: false }));
      },
    } as unknown as ProviderExport;
    return new DubboInvoker(provider, URL.valueOf(`dubbo://${address}/${SERVICE}?interface=${SERVICE}&${p.params}`), consumerUrl, ctx);
  });
  const invocation = (attachments: Record<string, string> = {}) =>
    new RpcInvocation({ methodName: 'reserve', serviceName: SERVICE, attachments, context: { request: {} } as unknown as CallContext });
  return { sim, log, invokers, consumerUrl, invocation };
}

function run(sim: Simulation, call: Proc<Result>): { result: Result | undefined; at: number } {
  let at = NaN;
  const process = sim.process(call);
  process.addCallback(() => (at = sim.now));
  sim.run();
  return { result: process.value, at };
}

describe('a timeout of 0 or less', () => {
  it.each([DUBBO_3_3, DUBBO_2_7])('on the URL is the default 1000 ms (%s: RpcUtils.java:280, URL.java:896-902 getMethodPositiveParameter)', (release) => {
    const w = world(release, [{ params: 'timeout=0', serviceMs: null }, { params: 'timeout=-5', serviceMs: null }, { params: 'reserve.timeout=0&timeout=300', serviceMs: null }]);
    expect(w.invokers.map((i) => i.timeoutMs(w.invocation()))).toEqual([1000, 1000, 1000]);
  });

  it('3.3: every call of a `timeout: 0` reference is sent, and times out after 1000 ms (the probe failed 827 of 827)', () => {
    const w = world(DUBBO_3_3, [{ params: 'timeout=0', serviceMs: null }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation()));
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(1000);
    expect(w.log).toEqual(['10.0.1.1:20880 @1']);
  });

  it('3.3: in the `timeout` attachment stays as is and ends the attempt with TIMEOUT_TERMINATE before sending (RpcUtils.java:272-278, DubboInvoker.java:108-115)', () => {
    const w = world(DUBBO_3_3, [{ params: 'timeout=500', serviceMs: 5 }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation({ timeout: '0' })));
    expect(result).toMatchObject({ kind: 'ok', rpcException: { code: 8 } });
    expect(at).toBe(0);
    expect(w.log).toEqual([]);
  });

  it('2.7: in the `timeout` attachment is sent with that timeout (no check in 2.7 DubboInvoker.java:99-114)', () => {
    const w = world(EXACT_2_7, [{ params: 'timeout=500', serviceMs: 5 }]);
    const { result, at } = run(w.sim, w.invokers[0]!.invoke(w.invocation({ timeout: '-1' })));
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(0);
    expect(w.log).toEqual(['10.0.1.1:20880 @1']);
  });
});

describe('a `timeout` attachment is parsed as Long.parseLong, then cast to int', () => {
  it.each([
    ['250', 250, 250],
    ['+250', 250, 250],
    ['1.5', 1000, 0],
    ['1e3', 1000, 0],
    [' 250', 1000, 0],
    ['fast', 1000, 0],
    ['4294967546', 250, 250],
  ])('"%s" gives %d ms in 3.3 (convertToNumber default, RpcUtils.java:308-327) and %d ms in 2.7 (its convertToNumber starts from 0)', (text, v33, v27) => {
    expect(attachedTimeout(text, DUBBO_3_3)).toBe(v33);
    expect(attachedTimeout(text, DUBBO_2_7)).toBe(v27);
  });
});

describe('a failover retry`s timeout', () => {
  // Provider A (timeout 1000 on its URL) never answers; B (timeout 3000) answers after 1500 ms.
  const retryOver = (release: DubboRelease) => {
    const w = world(release, [
      { params: 'timeout=1000', serviceMs: null },
      { params: 'timeout=3000', serviceMs: 1500 },
    ]);
    // `first`: the first invoker it is offered (A, then B when reselect offers B alone).
    const first = () => ({ select: (invokers: Invoker[]) => invokers[0] ?? null });
    const runtime = createRuntime({ sim: w.sim, random: new RandomStreams(1).stream('consumer'), release, plugins: { first } });
    const directory = new StaticDirectory(runtime, URL.valueOf('registry://r/x?registry=static'), w.consumerUrl, w.invokers);
    const cluster = new FailoverClusterInvoker(directory, runtime);
    const invocation = w.invocation();
    const { result, at } = run(w.sim, cluster.invoke(invocation));
    return { result, at, log: w.log, invocation };
  };

  it('3.3: keeps the first attempt`s timeout, written into the `timeout` attachment (DubboInvoker.java:117, read first at RpcUtils.java:277)', () => {
    const { result, at, log, invocation } = retryOver(DUBBO_3_3);
    expect(log.map((l) => l.split(' ')[0])).toEqual(['10.0.1.1:20880', '10.0.1.2:20880']);
    // 1000 ms on A, then 1000 ms (not B's 3000) on B, which needs 1502 ms to answer.
    expect(result).toMatchObject({ kind: 'error', error: { code: 2 } });
    expect(at).toBe(2000);
    expect(invocation.getAttachment('timeout')).toBe('1000');
  });

  it('2.7 (retryTimeout: each): reads each attempt`s own URL (2.7 DubboInvoker.java:100 writes an attribute, not the attachment)', () => {
    const { result, at, invocation } = retryOver(EXACT_2_7);
    expect(result).toEqual({ kind: 'ok' });
    expect(at).toBe(1000 + 1502);
    expect(invocation.getAttachment('timeout')).toBeUndefined();
  });
});
