/**
 * Test factories for DubboInvokers over stub providers: providers 1 ms away that answer after a
 * service time (or never), a ProtocolContext of a given release, invocations with a call context and
 * one JVM's timeout wheel, and a helper that runs one call to its end.
 */
import { createRuntime } from '../../src/dubbo/create-runtime.js';
import { HashedWheelTimer } from '../../src/dubbo/hashed-wheel-timer.js';
import type { DubboRelease } from '../../src/dubbo/release.js';
import { RpcInvocation, type Invoker, type Result } from '../../src/dubbo/rpc.js';
import { URL } from '../../src/dubbo/url.js';
import { RandomStreams } from '../../src/engine/random.js';
import { Simulation, type Proc } from '../../src/engine/simulation.js';
import { DubboInvoker, type CallContext, type ProtocolContext } from '../../src/stack/dubbo-invoker.js';
import type { Reply } from '../../src/world/provider-call.js';
import type { ProviderExport } from '../../src/world/provider.js';

export const SERVICE = 'com.example.InventoryService';

/** One stub provider: URL parameters, and the reply after `serviceMs` (never, with null). */
export interface StubProvider {
  params: string;
  serviceMs: number | null;
  reply?: Reply;
}

/** Providers 1 ms away (`10.0.1.<i+1>:20880`), a log of what they received, and a consumer of `release`. */
export function protocolWorld(release: DubboRelease, providers: StubProvider[], consumerParams = '') {
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
  const consumerUrl = URL.valueOf(`consumer://10.0.0.9/${SERVICE}?application=order&interface=${SERVICE}&side=consumer${consumerParams}`);
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
        if (p.serviceMs !== null) sim.schedule(p.serviceMs + 1, () => attempt.deliver(p.reply ?? { kind: 'ok', biz: false }));
      },
    } as unknown as ProviderExport;
    return new DubboInvoker(provider, URL.valueOf(`dubbo://${address}/${SERVICE}?interface=${SERVICE}&${p.params}`), consumerUrl, ctx);
  });
  const timer = new HashedWheelTimer('10.0.0.9');
  const invocation = (attachments: Record<string, string> = {}) =>
    new RpcInvocation({ methodName: 'reserve', serviceName: SERVICE, attachments, context: { request: {}, timer } as unknown as CallContext });
  // `first`: the first invoker it is offered.
  const first = () => ({ select: (list: Invoker[]) => list[0] ?? null });
  const runtime = createRuntime({ sim, random: new RandomStreams(1).stream('consumer'), release, plugins: { first }, consumerHost: '10.0.0.9' });
  return { sim, log, invokers, consumerUrl, invocation, timer, runtime };
}

/** Runs `call` as a process to the end of the simulation: its result and when it ended. */
export function runToEnd(sim: Simulation, call: Proc<Result>): { result: Result | undefined; at: number } {
  let at = NaN;
  const process = sim.process(call);
  process.addCallback(() => (at = sim.now));
  sim.run();
  return { result: process.value, at };
}
