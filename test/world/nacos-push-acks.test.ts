import { describe, expect, it } from 'vitest';
import type { DubboProfile } from '../../src/model/dubbo-profile.js';
import type { NacosRegistry } from '../../src/world/registry-nacos.js';
import { NACOS1_FIRST_POLL_MS, NACOS1_POLL_MS, NACOS1_UDP_ACK_TIMEOUT_MS, NACOS2_PUSH_ACK_TIMEOUT_MS } from '../../src/world/nacos-push-acks.js';
import { NACOS_PUSH_RETRY_MS } from '../../src/world/registry-push-delivery.js';
import { REQUEST_OVERHEAD_BYTES } from '../../src/world/registry-servers.js';
import { nacosServiceName } from '../../src/world/nacos-service-name.js';
import { NO_NOTIFICATION_DELAY, SERVICE, at, constant, listsAt, makeWorld, providers, scenario } from './registry-fixtures.js';

const BANDWIDTH = 1_000_000; // bytes per second, each NIC direction of the one node
const LAG_MS = 100;
const FLOOD_AT_MS = 20_000;
const STOP_AT_MS = 20_100;
/** A Nacos 1.x consumer: Dubbo 3.3 without a notifier, with the 1.x client (only the client differs from NO_NOTIFICATION_DELAY). */
const NACOS_1X: DubboProfile = { ...NO_NOTIFICATION_DELAY, nacosClient: '1.x' };

/**
 * One Nacos node with 1 MB/s NICs and no request limit, pushes at once (`pushDelay: 0`) with a constant
 * 100 ms lag, two providers, two consumer instances. At 20 s a push to a stranger fills the out NIC until
 * `floodEndMs`; at 20.1 s a provider stops: its deregistration is processed at once and its push to each
 * consumer leaves the NIC after the flood.
 */
function floodedChange(consumer: DubboProfile, floodEndMs: number) {
  const t = makeWorld(
    scenario({
      registry: { type: 'nacos', capacity: { bandwidthBytesPerSec: BANDWIDTH }, pushDelayMs: 0, pushLag: constant(LAG_MS) },
      consumers: [{ instances: 2, dubbo: consumer }],
    }),
  );
  const servers = (t.world.registry as NacosRegistry).servers!;
  at(t.world, FLOOD_AT_MS, () => servers.push(servers.clientOf({}, 'zoneA'), FLOOD_AT_MS, ((floodEndMs - FLOOD_AT_MS) / 1000) * BANDWIDTH));
  at(t.world, STOP_AT_MS, () => t.world.registry.providerStopped(providers(t.world)[0]!, true));
  return { ...t, node: servers.nodes[0]! };
}

describe('Nacos 2.x: the push ack timeout', () => {
  it('fails a push not acked within 5 s and pushes that subscriber the list again 1 s later, until one is acked in time', () => {
    const floodEndMs = 40_000;
    const { world, observer } = floodedChange(NO_NOTIFICATION_DELAY, floodEndMs);
    world.sim.run({ until: STOP_AT_MS - 1 });
    const pushesBefore = observer.pushes.length;
    // The rule: pushes at the change and every 5 s + 1 s after; each arrives once the NIC has drained (plus its
    // lag); one arriving more than 5 s after it was sent times out and brings the next.
    const arrivalMs = floodEndMs + LAG_MS;
    let timeouts = 0;
    while (arrivalMs - (STOP_AT_MS + timeouts * (NACOS2_PUSH_ACK_TIMEOUT_MS + NACOS_PUSH_RETRY_MS)) > NACOS2_PUSH_ACK_TIMEOUT_MS) timeouts++;
    expect(timeouts).toBe(3);
    world.sim.run({ until: 60_000 });
    expect(observer.counters.get('registry.pushAckTimeout')).toBe(2 * timeouts);
    expect(observer.counters.get('registry.pushBusy')).toBeUndefined();
    // Every push arrives (the stream delivers it late): the first and each retry, per consumer.
    expect(observer.pushes.length - pushesBefore).toBe(2 * (timeouts + 1));
  });
});

describe('Nacos 1.x: UDP pushes with ack', () => {
  it.each([
    ['acked in time', 28_000],
    ['acked after the resend', 35_000],
    ['given up at 20 s', 45_000],
  ])('resends a push not acked within 10 s once and gives it up at 20 s (%s)', (_label, floodEndMs) => {
    const { world, observer, node } = floodedChange(NACOS_1X, floodEndMs);
    world.sim.run({ until: 80_000 });
    // Sent at the change (its deregistration takes under a millisecond), acked when it arrives.
    const ackAfterMs = floodEndMs + LAG_MS - STOP_AT_MS;
    const resent = ackAfterMs > NACOS1_UDP_ACK_TIMEOUT_MS ? 2 : 0;
    const lost = ackAfterMs > 2 * NACOS1_UDP_ACK_TIMEOUT_MS ? 2 : 0;
    expect(observer.counters.get('registry.pushResent') ?? 0).toBe(resent);
    expect(node.pushesLost).toBe(lost);
  });
});

describe('Nacos 1.x: the client polls', () => {
  it('queries every subscribed service every 10 s: one request and the whole list on the node per query', () => {
    const run = (consumer: DubboProfile) => {
      const t = makeWorld(
        scenario({ registry: { type: 'nacos', capacity: { bandwidthBytesPerSec: BANDWIDTH } }, consumers: [{ instances: 3, dubbo: consumer }] }),
      );
      t.world.sim.run({ until: 95_500 });
      const node = (t.world.registry as NacosRegistry).servers!.nodes[0]!;
      return { node, t, listBytes: t.observer.pushes[0]!.bytes };
    };
    const polling = run(NACOS_1X);
    const quiet = run(NO_NOTIFICATION_DELAY);
    // Queries at 1 s, 11 s, ... 91 s (each a few microseconds later than the last): 10 per consumer.
    const queries = 3 * (1 + Math.floor((95_500 - NACOS1_FIRST_POLL_MS) / NACOS1_POLL_MS));
    expect(queries).toBe(30);
    expect(polling.t.observer.counters.get('registry.polls')).toBe(queries);
    expect(polling.node.requestsServed - quiet.node.requestsServed).toBe(queries);
    // A query names the Nacos service (`providers:<interface>::`).
    const queryBytes = REQUEST_OVERHEAD_BYTES + nacosServiceName(SERVICE, undefined, undefined).length;
    expect(polling.node.in.figures().work - quiet.node.in.figures().work).toBe(queries * queryBytes);
    expect(polling.node.out.figures().work - quiet.node.out.figures().work).toBe(queries * polling.listBytes);
    // Nothing changed: no query brought a list the consumer was not sent.
    expect(polling.t.observer.counters.get('registry.pollRepairs')).toBeUndefined();
  });

  it('brings a change whose push was not sent at the next query; a 2.x consumer waits for the push', () => {
    const t = makeWorld(
      scenario({
        registry: { type: 'nacos', capacity: { bandwidthBytesPerSec: BANDWIDTH } },
        consumers: [
          { instances: 1, application: 'web1', dubbo: NACOS_1X },
          { instances: 1, application: 'web2', dubbo: NO_NOTIFICATION_DELAY },
        ],
      }),
    );
    const all = providers(t.world).map((p) => p.address).sort();
    const stopped = providers(t.world)[0]!;
    at(t.world, 31_500, () => t.world.registry.setPushSwitch(false));
    at(t.world, 32_000, () => t.world.registry.providerStopped(stopped, true));
    at(t.world, 70_000, () => t.world.registry.setPushSwitch(true));
    // The 1.x client's queries run at 1 s + 10 s · k (a few microseconds late each): the one at 41 s finds the change.
    const queryMs = NACOS1_FIRST_POLL_MS + NACOS1_POLL_MS * Math.ceil((32_000 - NACOS1_FIRST_POLL_MS) / NACOS1_POLL_MS);
    expect(queryMs).toBe(41_000);
    const byApp = (tMs: number) => {
      const lists = listsAt(t.log, tMs);
      const of = (app: string) => [...[...lists.entries()].find(([id]) => id.includes(app))![1]].sort();
      return { v1: of('web1'), v2: of('web2') };
    };
    t.world.sim.run({ until: queryMs - 1 });
    expect(byApp(queryMs - 1)).toEqual({ v1: all, v2: all });
    t.world.sim.run({ until: queryMs + 10 });
    const rest = all.filter((a) => a !== stopped.address);
    expect(byApp(queryMs + 10)).toEqual({ v1: rest, v2: all });
    expect(t.observer.counters.get('registry.pollRepairs')).toBe(1);
    // Pushes back on: the 2.x consumer reads the current list (within its push lag).
    t.world.sim.run({ until: 71_000 });
    expect(byApp(71_000)).toEqual({ v1: rest, v2: rest });
  });
});
